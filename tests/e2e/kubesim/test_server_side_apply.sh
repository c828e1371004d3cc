#!/usr/bin/env bash
# Server-side apply through kubectl: ownership in managedFields, a conflict (409,
# FieldManagerConflict) when another manager changes an owned field, --force-conflicts
# moving ownership, and a field removed once its only manager stops applying it.
set -euo pipefail
source "$(dirname "$0")/../lib/kubesim.sh"
kubesim_start

dep() {  # dep REPLICAS [LABEL]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ssa
  labels: {${2:-team: a}}
spec:
  replicas: $1
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec: {containers: [{name: c, image: "nginx:1.25"}]}
YAML
}

out=$(dep 2 | kubectl apply --server-side --field-manager=alice -f -)
[ "$out" = "deployment.apps/ssa serverside-applied" ] || { echo "$out"; exit 1; }
managers=$(kubectl get deploy ssa --show-managed-fields -o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation} {end}')
[ "$managers" = "alice/Apply " ] || { echo "managers: $managers"; exit 1; }

# bob wants other replicas: conflict with alice.
if dep 5 | kubectl apply --server-side --field-manager=bob -f - 2>"$KUBESIM_DIR/err"; then
  echo "conflicting apply succeeded"; exit 1
fi
grep -q 'conflict with "alice"' "$KUBESIM_DIR/err"
grep -q '.spec.replicas' "$KUBESIM_DIR/err"
[ "$(kubectl get deploy ssa -o jsonpath='{.spec.replicas}')" = 2 ]

# Forced: bob owns replicas now; alice keeps the rest.
dep 5 | kubectl apply --server-side --field-manager=bob --force-conflicts -f - >/dev/null
[ "$(kubectl get deploy ssa -o jsonpath='{.spec.replicas}')" = 5 ]

# Both applied the label team=a (shared ownership). When alice stops applying it,
# bob still owns it and it stays; once bob drops it too, it is removed.
dep 5 "tier: x" | kubectl apply --server-side --field-manager=alice --force-conflicts -f - >/dev/null
labels=$(kubectl get deploy ssa -o jsonpath='{.metadata.labels}')
[ "$labels" = '{"team":"a","tier":"x"}' ] || { echo "labels: $labels"; exit 1; }
dep 5 "tier: x" | kubectl apply --server-side --field-manager=bob --force-conflicts -f - >/dev/null
labels=$(kubectl get deploy ssa -o jsonpath='{.metadata.labels}')
[ "$labels" = '{"tier":"x"}' ] || { echo "labels after both dropped team: $labels"; exit 1; }

# The apply requests were PATCHes with the apply content type, and one got 409.
kubesim_admin requests | /usr/bin/python3 -c '
import json, sys
items = [i for i in json.load(sys.stdin)["items"] if i["resource"] == "deployments" and i["verb"] == "patch"]
assert all(i["contentType"].startswith("application/apply-patch+yaml") for i in items), items
assert sorted({i["code"] for i in items}) == [200, 201, 409], sorted({i["code"] for i in items})
'
echo "server-side apply: ok"
