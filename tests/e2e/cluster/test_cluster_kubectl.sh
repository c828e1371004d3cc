#!/bin/bash
# The simulated GPU cluster as kubectl sees it (docs/kube-sim-cluster.md): nodes from
# the h200-4x profile, a GPU Deployment rolled out with anti-affinity, the real
# scheduler's message for a pod that does not fit, Jobs that complete and fail,
# kubectl scale, and an image change that honours maxUnavailable (checked on every
# watch event, not on timing).
set -euo pipefail
. "$(dirname "$0")/../lib/kubesim.sh"
PY=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; [ -n "${KUBESIM_DIR:-}" ] && tail -20 "$KUBESIM_DIR/kube-sim.log" >&2; exit 1; }

kubesim_start --profile "$DGD_SOURCE_DIR/tests/kubesim/profiles/h200-4x.yaml" \
  --kubelet-start-delay 0.05 --kubelet-ready-delay 0.3 --job-duration 0.3
K="kubectl --request-timeout=20s"

# Nodes: 4 H200 (8 GPUs, 8 rdma/ib, tainted) + 2 CPU nodes, all Ready.
$K wait --for=condition=Ready node --all --timeout=30s >/dev/null
[ "$($K get nodes -o name | wc -l)" = 6 ] || fail "expected 6 nodes"
gpus=$($K get nodes -l nvidia.com/gpu.product=NVIDIA-H200 -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}/{.status.allocatable.rdma/ib} {end}')
[ "$gpus" = "8/8 8/8 8/8 8/8 " ] || fail "H200 allocatable: '$gpus'"
[ "$($K get node h200-0 -o jsonpath='{.spec.taints[0].key}:{.spec.taints[0].effect}')" = "nvidia.com/gpu:NoSchedule" ] || fail "taint"

# A GPU Deployment whose replicas must sit on distinct nodes.
cat >"$KUBESIM_DIR/worker.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  replicas: 3
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H200}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: worker}}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: main
        image: vllm:1
        resources: {limits: {nvidia.com/gpu: "4", rdma/ib: "4"}}
YAML
$K apply -f "$KUBESIM_DIR/worker.yaml" >/dev/null
$K rollout status deploy/worker --timeout=60s >/dev/null || fail "rollout status"
nodes=$($K get pods -l app=worker -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | grep -c h200-)
[ "$nodes" = 3 ] || fail "workers on $nodes distinct H200 nodes, want 3"
hash=$($K get rs -l app=worker -o jsonpath='{.items[0].metadata.labels.pod-template-hash}')
$K get rs "worker-$hash" >/dev/null || fail "ReplicaSet worker-$hash"
[ "$($K get deploy worker -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')" = 1 ] || fail "revision"
$K wait --for=condition=Ready pod -l app=worker --timeout=30s >/dev/null || fail "pods Ready"

# A pod that fits nowhere gets the scheduler's condition and message.
cat <<'YAML' | $K apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: too-big}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers: [{name: main, image: vllm:1, resources: {limits: {nvidia.com/gpu: "16"}}}]
YAML
$K wait --for=condition=PodScheduled=false pod/too-big --timeout=30s >/dev/null || fail "PodScheduled=False"
reason=$($K get pod too-big -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')
msg=$($K get pod too-big -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
[ "$reason" = Unschedulable ] || fail "reason '$reason'"
want="0/6 nodes are available: 6 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod."
[ "$msg" = "$want" ] || fail "message '$msg'"
$K delete pod too-big --wait=false >/dev/null

# Jobs: one completes, one fails (the sim.dgd.dev/fail annotation on its pods).
cat <<'YAML' | $K apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: ok}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: ["true"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: bad}
spec:
  backoffLimit: 1
  template:
    metadata: {annotations: {sim.dgd.dev/fail: "401 Unauthorized"}}
    spec:
      restartPolicy: Never
      containers: [{name: dl, image: busybox}]
YAML
$K wait --for=condition=complete job/ok --timeout=60s >/dev/null || fail "job ok did not complete"
[ "$($K get job ok -o jsonpath='{.status.succeeded}')" = 1 ] || fail "job ok succeeded count"
$K wait --for=condition=failed job/bad --timeout=60s >/dev/null || fail "job bad did not fail"
[ "$($K get job bad -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}')" = BackoffLimitExceeded ] || fail "job bad reason"
[ "$($K get job bad -o jsonpath='{.status.failed}')" = 2 ] || fail "job bad failed count"

# kubectl scale.
$K scale deploy/worker --replicas=4 >/dev/null
$K rollout status deploy/worker --timeout=60s >/dev/null || fail "rollout after scale"
[ "$($K get deploy worker -o jsonpath='{.status.readyReplicas}')" = 4 ] || fail "4 ready after scale"

# Image change: with maxSurge 0 / maxUnavailable 1 and one worker per node, at
# most one worker may be missing at any moment. Every pod event is recorded.
cat >"$KUBESIM_DIR/check_watch.py" <<'PYEOF'
import json, sys
text = open(sys.argv[1]).read()
dec, pos, events = json.JSONDecoder(), 0, []
while pos < len(text):
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        break
    try:
        obj, pos = dec.raw_decode(text, pos)
    except ValueError:
        break  # an event still being written
    events.append(obj)
pods, min_ready, max_pods, images = {}, 99, 0, set()
for i, ev in enumerate(events):
    o = ev["object"]
    name = o["metadata"]["name"]
    if ev["type"] == "DELETED" or o["metadata"].get("deletionTimestamp"):
        pods.pop(name, None)
    else:
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in o.get("status", {}).get("conditions", []))
        pods[name] = (ready, o["spec"]["containers"][0]["image"])
        images.add(o["spec"]["containers"][0]["image"])
    if i >= 3:  # from the 4th event on: the initial ADDED events of the 4 running workers are in
        min_ready = min(min_ready, sum(1 for r, _ in pods.values() if r))
    max_pods = max(max_pods, len(pods))
final = sorted(img for r, img in pods.values() if r)
if sys.argv[2] == "started":
    sys.exit(0 if len(events) >= 4 else 1)
if sys.argv[2] == "settled":
    sys.exit(0 if final == ["vllm:2"] * 4 and len(pods) == 4 else 1)
print(f"events={len(events)} min_ready={min_ready} max_pods={max_pods} final={final}")
assert images == {"vllm:1", "vllm:2"}, images
assert min_ready >= 3, min_ready
assert max_pods <= 4, max_pods
assert final == ["vllm:2"] * 4, final
PYEOF
$K get pods -l app=worker -w --output-watch-events -o json >"$KUBESIM_DIR/watch.json" 2>/dev/null &
WATCH=$!
for i in $(seq 1 300); do $PY "$KUBESIM_DIR/check_watch.py" "$KUBESIM_DIR/watch.json" started && break; sleep 0.1; done
$K set image deploy/worker main=vllm:2 >/dev/null
$K rollout status deploy/worker --timeout=60s >/dev/null || fail "rollout of vllm:2"
for i in $(seq 1 300); do $PY "$KUBESIM_DIR/check_watch.py" "$KUBESIM_DIR/watch.json" settled && break; sleep 0.1; done
kill "$WATCH" 2>/dev/null || true
wait "$WATCH" 2>/dev/null || true
$PY "$KUBESIM_DIR/check_watch.py" "$KUBESIM_DIR/watch.json" check || fail "maxUnavailable violated"
[ "$($K get deploy worker -o jsonpath='{.metadata.annotations.deployment\.kubernetes\.io/revision}')" = 2 ] || fail "revision 2"
[ "$($K get deploy worker -o jsonpath='{.status.updatedReplicas}/{.status.availableReplicas}/{.status.observedGeneration}')" = "4/4/3" ] \
  || fail "status $($K get deploy worker -o jsonpath='{.status}')"
[ "$($K get rs -l app=worker -o name | wc -l)" = 2 ] || fail "old ReplicaSet kept for rollback"

# Deleting the Deployment removes its ReplicaSets and pods (garbage collector).
$K delete deploy worker >/dev/null
for i in $(seq 1 100); do
  [ -z "$($K get pods -l app=worker -o name)" ] && break
  sleep 0.1
done
[ -z "$($K get pods -l app=worker -o name)" ] || fail "worker pods left after delete"
echo PASS
