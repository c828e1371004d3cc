#!/bin/bash
# The H200 disaggregated start-up wrapper (recipes/scripts/select-rdma-nics.sh) derives
# UCX_NET_DEVICES from the SR-IOV device plugin's variables and a sysfs tree. The script
# under test is taken from the rendered worker Deployments' command (what the pods run,
# byte for byte), and run against a fake sysfs: the right NICs in natural order when all
# is well, a clear error and non-zero exit when a device is missing, duplicated or down.
set -euo pipefail
SRC="${DGD_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"
DGDCTL="${DGDCTL:-$SRC/build/dgdctl}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0

SCRIPT="$TMP/select-rdma-nics.sh"
"$DGDCTL" render -f "$SRC/recipes/deepseek-v4.1-flash/vllm/disagg-h200-agentic/deploy.yaml" -o json >"$TMP/rendered.json"
/usr/bin/python3 - "$TMP/rendered.json" "$SCRIPT" <<'PY'
import json, sys
scripts, workers = set(), 0
for o in json.load(open(sys.argv[1]))["items"]:
    if o["kind"] != "Deployment":
        continue
    c = o["spec"]["template"]["spec"]["containers"][0]
    cmd = c.get("command") or []
    if cmd[:2] != ["/bin/bash", "-lc"]:
        continue
    # bash -lc SCRIPT -- python3 ARGS...: the engine command follows as "$@".
    assert cmd[3:] == ["--", "python3"], (o["metadata"]["name"], cmd[3:])
    assert c["resources"]["limits"].get("rdma/ib") == "4", c["resources"]
    assert c["resources"]["requests"].get("rdma/ib") == "4", c["resources"]
    scripts.add(cmd[2])
    workers += 1
assert workers == 2 and len(scripts) == 1, "prefill and decode must run one wrapper: %d workers, %d scripts" % (workers, len(scripts))
script = scripts.pop()
assert "PCIDEVICE_" in script and "UCX_NET_DEVICES" in script, script[:200]
open(sys.argv[2], "w").write(script)
PY

# fake_nic ROOT UVERBS IBDEV STATE [fallback]: one verbs device and its IB port.
fake_nic() {
  local root="$1" uv="$2" dev="$3" state="$4" mode="${5:-ibdev}"
  mkdir -p "$root/class/infiniband_verbs/$uv" "$root/class/infiniband/$dev/ports/1"
  if [[ "$mode" == ibdev ]]; then
    echo "$dev" >"$root/class/infiniband_verbs/$uv/ibdev"
  else
    mkdir -p "$root/class/infiniband_verbs/$uv/device/infiniband/$dev"
  fi
  echo "$state" >"$root/class/infiniband/$dev/ports/1/state"
}

ADDRS="0000:1a:00.1,0000:3c:00.1,0000:9b:00.1,0000:bc:00.1"
INFO='{"0000:1a:00.1":{"generic":{"deviceID":"0000:1a:00.1"},"rdma":{"rdma_cm":"/dev/infiniband/rdma_cm","uverbs":"/dev/infiniband/uverbs10"}},
 "0000:3c:00.1":{"rdma":{"uverbs":"/dev/infiniband/uverbs2"}},
 "0000:9b:00.1":{"rdma":{"uverbs":"/dev/infiniband/uverbs11"}},
 "0000:bc:00.1":{"rdma":{"uverbs":"/dev/infiniband/uverbs3"}}}'

good="$TMP/good"
fake_nic "$good" uverbs10 mlx5_10 "4: ACTIVE"
fake_nic "$good" uverbs2 mlx5_2 "4: ACTIVE"
fake_nic "$good" uverbs11 mlx5_11 "4: ACTIVE" fallback   # no ibdev file: device/infiniband/*
fake_nic "$good" uverbs3 mlx5_3 "4: ACTIVE"

# run NAME EXPECT_RC EXPECT_TEXT [VAR=VALUE...]: runs the wrapper the way the rendered
# pod does (bash -lc "<script>" -- CMD...) with a command that prints the variable.
run() {
  local name="$1" want_rc="$2" want_text="$3"; shift 3
  local out rc=0
  out="$(env -i PATH="$PATH" HOME="$TMP" "$@" \
        bash -lc "$(cat "$SCRIPT")" -- sh -c 'echo "engine sees UCX_NET_DEVICES=$UCX_NET_DEVICES"' 2>&1)" || rc=$?
  if [[ "$rc" != "$want_rc" ]] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAIL: $name: rc=$rc (want $want_rc), output:"; echo "$out" | sed 's/^/    /'
    echo "    (wanted text: $want_text)"
    fails=$((fails + 1))
  else
    echo "ok: $name"
  fi
}

run "four active NICs -> sorted list exported to the engine" 0 \
  "engine sees UCX_NET_DEVICES=mlx5_2:1,mlx5_3:1,mlx5_10:1,mlx5_11:1" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "order and spaces in the address list do not matter" 0 \
  "UCX_NET_DEVICES=mlx5_2:1,mlx5_3:1,mlx5_10:1,mlx5_11:1" \
  PCIDEVICE_RDMA_IB="0000:bc:00.1, 0000:9b:00.1,0000:3c:00.1 ,0000:1a:00.1" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "a static UCX_NET_DEVICES is replaced, with a warning" 0 \
  "replacing static UCX_NET_DEVICES='mlx5_0:1'" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good" UCX_NET_DEVICES=mlx5_0:1

run "another resource name is read through RDMA_PCIDEVICE_VAR" 0 \
  "UCX_NET_DEVICES=mlx5_2:1,mlx5_3:1,mlx5_10:1,mlx5_11:1" \
  RDMA_PCIDEVICE_VAR=PCIDEVICE_NVIDIA_COM_RDMA PCIDEVICE_NVIDIA_COM_RDMA="$ADDRS" \
  PCIDEVICE_NVIDIA_COM_RDMA_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "three devices where four are required" 1 \
  "lists 3 distinct device(s)" \
  PCIDEVICE_RDMA_IB="0000:1a:00.1,0000:3c:00.1,0000:9b:00.1" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "a duplicated address does not count twice" 1 \
  "lists 3 distinct device(s)" \
  PCIDEVICE_RDMA_IB="0000:1a:00.1,0000:1a:00.1,0000:3c:00.1,0000:9b:00.1" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "RDMA_NIC_COUNT=2 accepts two" 0 \
  "UCX_NET_DEVICES=mlx5_2:1,mlx5_10:1" \
  RDMA_NIC_COUNT=2 PCIDEVICE_RDMA_IB="0000:1a:00.1,0000:3c:00.1" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "no device assigned" 1 "PCIDEVICE_RDMA_IB is empty" \
  PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good"

run "no device info" 1 "PCIDEVICE_RDMA_IB_INFO is empty" \
  PCIDEVICE_RDMA_IB="$ADDRS" DGD_SYSFS_ROOT="$good"

run "an address missing from the info JSON" 1 "no rdma.uverbs entry for 0000:3c:00.1" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO='{"0000:1a:00.1":{"rdma":{"uverbs":"/dev/infiniband/uverbs10"}}}' DGD_SYSFS_ROOT="$good"

run "malformed info JSON" 1 "cannot parse device info JSON" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO='{"0000:1a' DGD_SYSFS_ROOT="$good"

down="$TMP/down"
cp -r "$good" "$down"
echo "1: DOWN" >"$down/class/infiniband/mlx5_3/ports/1/state"
run "an inactive port" 1 "mlx5_3 port 1 is not ACTIVE (state '1: DOWN')" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$down"

nomap="$TMP/nomap"
cp -r "$good" "$nomap"
rm -rf "$nomap/class/infiniband_verbs/uverbs2"
run "a uverbs device with no IB device" 1 "cannot map uverbs2 to an InfiniBand device" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$nomap"

same="$TMP/same"
cp -r "$good" "$same"
echo mlx5_2 >"$same/class/infiniband_verbs/uverbs3/ibdev"
run "two addresses on one NIC" 1 "map to 3 distinct NIC(s)" \
  PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$same"

# Run as a file too (bash select-rdma-nics.sh -- CMD): the engine receives its arguments intact.
out="$(env -i PATH="$PATH" PCIDEVICE_RDMA_IB="$ADDRS" PCIDEVICE_RDMA_IB_INFO="$INFO" DGD_SYSFS_ROOT="$good" \
      bash "$SCRIPT" -- printf '<%s>' -m dynamo.vllm --kv-transfer-config '{"a": 1}' 2>/dev/null)"
if [[ "$out" == *'<-m><dynamo.vllm><--kv-transfer-config><{"a": 1}>'* ]]; then
  echo "ok: arguments pass through unchanged"
else
  echo "FAIL: arguments changed: $out"; fails=$((fails + 1))
fi

(( fails == 0 )) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
