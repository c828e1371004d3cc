#!/bin/bash
# GB200 on the two-rack profile through kubectl: a ComputeDomain gets its
# ResourceClaimTemplate and status; its workers never split across NVLink cliques.
# With rack r0 nearly full, the first worker takes r0's last tray and the second
# stays Pending with the clique named in its PodScheduled message, although rack
# r1 is empty (docs/kube-sim-cluster.md, "ComputeDomain clique").
set -euo pipefail
. "$(dirname "$0")/../lib/kubesim.sh"
fail() { echo "FAIL: $*" >&2; [ -n "${KUBESIM_DIR:-}" ] && tail -20 "$KUBESIM_DIR/kube-sim.log" >&2; exit 1; }

kubesim_start --profile "$DGD_SOURCE_DIR/tests/kubesim/profiles/gb200-2rack.yaml" \
  --kubelet-start-delay 0 --kubelet-ready-delay 0
K="kubectl --request-timeout=20s"
R0=61248eac-4785-4fbf-9cbd-231635e37e9d.20663
TOL='[{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}, {key: kubernetes.io/arch, operator: Exists, effect: NoSchedule}]'

# 17 of rack r0's 18 trays taken by other work.
cat <<YAML | $K apply -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: filler}
spec:
  replicas: 17
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec:
      nodeSelector: {nvidia.com/gpu.clique: "$R0"}
      tolerations: $TOL
      containers: [{name: main, image: other:1, resources: {limits: {nvidia.com/gpu: "4"}}}]
YAML
$K rollout status deploy/filler --timeout=60s >/dev/null || fail "filler rollout"

cat <<YAML | $K apply -f - >/dev/null
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata: {name: g-cd}
spec: {numNodes: 0, channel: {resourceClaimTemplate: {name: g-channel}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gw}
spec:
  replicas: 2
  selector: {matchLabels: {app: gw}}
  template:
    metadata: {labels: {app: gw}}
    spec:
      nodeSelector: {kubernetes.io/arch: arm64, nvidia.com/gpu.product: NVIDIA-GB200}
      tolerations: $TOL
      resourceClaims: [{name: imex, resourceClaimTemplateName: g-channel}]
      containers:
      - name: main
        image: sglang:1
        resources: {limits: {nvidia.com/gpu: "4"}, claims: [{name: imex}]}
YAML
for i in $(seq 1 100); do $K get resourceclaimtemplate g-channel >/dev/null 2>&1 && break; sleep 0.1; done
owner=$($K get resourceclaimtemplate g-channel -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}')
[ "$owner" = ComputeDomain/g-cd ] || fail "template owner '$owner'"

for i in $(seq 1 200); do
  [ "$($K get pods -l app=gw --field-selector=status.phase=Running -o name | wc -l)" = 1 ] \
    && [ -n "$($K get pods -l app=gw -o jsonpath='{.items[*].status.conditions[?(@.reason=="Unschedulable")].message}')" ] && break
  sleep 0.1
done
running=$($K get pods -l app=gw --field-selector=status.phase=Running -o jsonpath='{.items[*].spec.nodeName}')
[ "$($K get node "$running" -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.clique}')" = "$R0" ] || fail "first worker on '$running'"
msg=$($K get pods -l app=gw -o jsonpath='{.items[*].status.conditions[?(@.reason=="Unschedulable")].message}')
case "$msg" in
  *"node(s) were not in the nvidia.com/gpu.clique $R0 of ComputeDomain g-cd"*) ;;
  *) fail "second worker message: '$msg'" ;;
esac
[ "$($K get computedomain g-cd -o jsonpath='{.status.status}/{.status.nodes[0].name}/{.status.nodes[0].cliqueID}')" = "Ready/$running/$R0" ] \
  || fail "ComputeDomain status $($K get computedomain g-cd -o jsonpath='{.status}')"

# Freeing one tray in r0 lets the second worker join its clique.
$K scale deploy/filler --replicas=16 >/dev/null
$K rollout status deploy/gw --timeout=60s >/dev/null || fail "gw rollout after freeing a tray"
cliques=$(for n in $($K get pods -l app=gw -o jsonpath='{.items[*].spec.nodeName}'); do
  $K get node "$n" -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.clique}{"\n"}'; done | sort -u)
[ "$cliques" = "$R0" ] || fail "workers in cliques: $cliques"
echo PASS
