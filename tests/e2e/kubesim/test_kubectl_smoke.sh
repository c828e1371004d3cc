#!/usr/bin/env bash
# kubectl v1.32 against kube-sim: apply a ConfigMap, read it back, update it,
# delete it; the request log must show what kubectl did.
set -euo pipefail
source "$(dirname "$0")/../lib/kubesim.sh"
kubesim_start

tmp="$KUBESIM_DIR/cm.yaml"
cat >"$tmp" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: smoke
  labels: {suite: smoke}
data:
  greeting: hello
YAML

out=$(kubectl apply -f "$tmp")
[ "$out" = "configmap/smoke created" ] || { echo "apply said: $out"; exit 1; }
[ "$(kubectl get configmap smoke -o jsonpath='{.data.greeting}')" = hello ]
[ "$(kubectl get cm -l suite=smoke -o name)" = "configmap/smoke" ]
uid1=$(kubectl get cm smoke -o jsonpath='{.metadata.uid}')

sed -i 's/hello/bonjour/' "$tmp"
out=$(kubectl apply -f "$tmp")
[ "$out" = "configmap/smoke configured" ] || { echo "second apply said: $out"; exit 1; }
[ "$(kubectl get cm smoke -o jsonpath='{.data.greeting}')" = bonjour ]
[ "$(kubectl get cm smoke -o jsonpath='{.metadata.uid}')" = "$uid1" ]

out=$(kubectl delete -f "$tmp")
[ "$out" = 'configmap "smoke" deleted' ] || { echo "delete said: $out"; exit 1; }
if kubectl get cm smoke 2>"$KUBESIM_DIR/err"; then echo "still there"; exit 1; fi
grep -q 'configmaps "smoke" not found' "$KUBESIM_DIR/err"

# The request log saw kubectl's create (201), patch (200) and delete (200).
log=$(kubesim_admin requests)
echo "$log" | /usr/bin/python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
seen = {(i["verb"], i["resource"], i["code"]) for i in items if i["resource"] == "configmaps"}
for want in [("create", "configmaps", 201), ("patch", "configmaps", 200), ("delete", "configmaps", 200), ("get", "configmaps", 404)]:
    assert want in seen, (want, sorted(seen))
assert all(i["userAgent"].startswith("kubectl") for i in items if i["resource"] == "configmaps")
'
echo "kubectl smoke: ok"
