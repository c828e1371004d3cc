#!/usr/bin/env bash
# make demo: a DeepSeek-V4.1-Flash disaggregated graph on a simulated 4x H200 cluster.
#
# Starts kube-sim (4x H200 profile, fast kubelets) and dgd-operator, applies the CRDs and
# the recipe folder with `kubectl apply -k`, waits with the recipe page's own commands,
# prints what runs and the rendered worker command lines, then stops everything it
# started. Usage: scripts/demo.sh [BUILD_DIR]   (default: build)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-${BUILD:-build}}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
KUBE_SIM="${KUBE_SIM:-$BUILD/tests/kubesim/kube-sim}"
DGD_OPERATOR="${DGD_OPERATOR:-$BUILD/dgd-operator}"
PROFILE="${DEMO_PROFILE:-$ROOT/tests/kubesim/profiles/h200-4x.yaml}"
# Instant-ish kubelets and model download.
SIM_ARGS=(--kubelet-start-delay 0.3 --kubelet-ready-delay 1 --job-duration 2)
RECIPE="recipes/deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NAMESPACE="${NAMESPACE:-dynamo-demo}"
TIMEOUT="${DEMO_TIMEOUT:-300s}"

for f in "$KUBE_SIM" "$DGD_OPERATOR"; do
  [ -x "$f" ] || { echo "demo: $f not found; build first (make build BUILD=$BUILD)" >&2; exit 1; }
done
command -v kubectl >/dev/null || { echo "demo: kubectl is not installed" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/dgd-demo.XXXXXX")"
export KUBECONFIG="$WORK/kubeconfig"
export KUBECACHEDIR="$WORK/kube-cache"   # kubectl caches discovery per host:port
SIM_PID="" OP_PID=""

stop_all() {
  local rc=$?
  [ -n "$OP_PID" ] && kill -TERM "$OP_PID" 2>/dev/null && wait "$OP_PID" 2>/dev/null || true
  [ -n "$SIM_PID" ] && kill -TERM "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    echo "demo: failed (exit $rc); last operator log lines:" >&2
    tail -n 20 "$WORK/operator.log" >&2 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

step() { printf '\n==> %s\n' "$*"; }

step "starting kube-sim with $(basename "$PROFILE" .yaml)"
"$KUBE_SIM" --listen 127.0.0.1:0 --kubeconfig-out "$KUBECONFIG" --profile "$PROFILE" "${SIM_ARGS[@]}" \
  >"$WORK/kube-sim.log" 2>&1 &
SIM_PID=$!
for _ in $(seq 1 200); do
  [ -s "$KUBECONFIG" ] && break
  kill -0 "$SIM_PID" 2>/dev/null || { cat "$WORK/kube-sim.log" >&2; exit 1; }
  sleep 0.05
done
[ -s "$KUBECONFIG" ] || { echo "demo: kube-sim wrote no kubeconfig" >&2; exit 1; }
kubectl get nodes -L nvidia.com/gpu.product

step "installing the CRDs"
kubectl apply -f "$ROOT/crds/"
kubectl wait --for=condition=Established crd/dynamographdeployments.nvidia.com --timeout=30s >/dev/null

step "starting dgd-operator"
"$DGD_OPERATOR" run --kubeconfig "$KUBECONFIG" --metrics-addr 0 --health-addr 0 \
  --leader-election-namespace default >"$WORK/operator.log" 2>&1 &
OP_PID=$!

step "namespace, token secret and model cache (as the recipe page asks)"
kubectl apply -f - <<YAML
apiVersion: v1
kind: Namespace
metadata:
  name: ${NAMESPACE}
---
apiVersion: v1
kind: Secret
metadata:
  name: hf-token-secret
  namespace: ${NAMESPACE}
stringData:
  HF_TOKEN: demo-token
YAML
kubectl apply -n "$NAMESPACE" -f - <<'YAML'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shared-model-cache
spec:
  accessModes: [ReadWriteMany]
  resources:
    requests:
      storage: 1Ti
YAML

step "kubectl apply -k $RECIPE"
kubectl apply -k "$ROOT/$RECIPE" -n "$NAMESPACE"
DGD=$(awk '/^metadata:/{m=1} m && /name:/{print $2; exit}' "$ROOT/$RECIPE/deploy.yaml")

step "waiting for the pods of ${DGD} (the recipe page's command)"
( while sleep 3; do
    kubectl get pods -l "nvidia.com/dynamo-graph-deployment-name=${DGD}" -n "$NAMESPACE" --no-headers 2>/dev/null |
      awk '{s = s $1 " " $3 " " $2 ";  "} END {if (s != "") print "   ... " s}'
  done ) &
PROGRESS=$!
# `kubectl wait -l` fails at once while nothing matches: wait for the operator's first pods.
for _ in $(seq 1 600); do
  [ -n "$(kubectl get pods -l "nvidia.com/dynamo-graph-deployment-name=${DGD}" -n "$NAMESPACE" -o name)" ] && break
  sleep 0.5
done
kubectl wait --for=condition=Ready pod -l "nvidia.com/dynamo-graph-deployment-name=${DGD}" \
  -n "$NAMESPACE" --timeout="$TIMEOUT"
kubectl wait --for=condition=Ready "dgd/${DGD}" -n "$NAMESPACE" --timeout="$TIMEOUT"
kill "$PROGRESS" 2>/dev/null || true
wait "$PROGRESS" 2>/dev/null || true

step "kubectl get dgd,deploy,svc,pods -o wide"
kubectl get dgd,deploy,svc,pods -o wide -n "$NAMESPACE"

step "worker command lines (from the live Deployments)"
kubectl get deploy -n "$NAMESPACE" -l "nvidia.com/dynamo-graph-deployment-name=${DGD}" -o json |
  /usr/bin/python3 -c '
import json, shlex, sys
for d in json.load(sys.stdin)["items"]:
    for c in d["spec"]["template"]["spec"]["containers"]:
        if c["name"] != "main":
            continue
        words = c.get("command", []) + c.get("args", [])
        # A start-up wrapper script (SR-IOV NIC selection) is shown by its first line.
        shown = [("<script: %s ...>" % w.strip().splitlines()[1][:60]) if "\n" in w else shlex.quote(w)
                 for w in words]
        print("--- %s\n   %s" % (d["metadata"]["name"], " ".join(shown)))
'

step "demo finished: ${DGD} is Ready; stopping kube-sim and the operator"
