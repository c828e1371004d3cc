#!/bin/bash
# select-rdma-nics.sh: derive UCX_NET_DEVICES at container start from the NICs the
# SR-IOV network device plugin assigned to this pod, then exec the engine.
#
# Usage (how dgd-operator renders it; the engine command follows as "$@"):
#   command: [/bin/bash, -lc, <this script>, --, python3]
#   args:    [-m, dynamo.vllm, ...]
# or as a file: bash select-rdma-nics.sh [--] CMD [ARGS...]
#
# Inputs (environment):
#   RDMA_PCIDEVICE_VAR  name of the device plugin's address variable
#                       (default PCIDEVICE_RDMA_IB, i.e. resource rdma/ib)
#   $RDMA_PCIDEVICE_VAR          comma-separated PCI addresses, e.g. 0000:1a:00.1,0000:3c:00.1
#   ${RDMA_PCIDEVICE_VAR}_INFO   JSON {"<pci addr>": {"rdma": {"uverbs": "/dev/infiniband/uverbs3"}}}
#   RDMA_NIC_COUNT      how many distinct NICs must be assigned (default 4)
#   DGD_SYSFS_ROOT      sysfs mount point (default /sys; tests point it at a fake tree)
#
# Each uverbs device is mapped to its IB device through
# <sysfs>/class/infiniband_verbs/<uverbsN>/ibdev (fallback: .../device/infiniband/*), and
# port 1 of each must be ACTIVE (<sysfs>/class/infiniband/<dev>/ports/1/state starts "4:").
# Output: UCX_NET_DEVICES=mlx5_A:1,mlx5_B:1,... in natural sort order. Any missing or
# inconsistent input is an error (exit 1) so a pod never starts on the wrong NICs: a
# wrong pairing falls back to host staging (about 50x slower KV transfer) without an error.
set -euo pipefail

die() { echo "select-rdma-nics: error: $*" >&2; exit 1; }

addr_var="${RDMA_PCIDEVICE_VAR:-PCIDEVICE_RDMA_IB}"
info_var="${addr_var}_INFO"
want="${RDMA_NIC_COUNT:-4}"
sysfs="${DGD_SYSFS_ROOT:-/sys}"

[[ "$want" =~ ^[1-9][0-9]*$ ]] || die "RDMA_NIC_COUNT must be a positive integer, got '${want}'"
addrs="${!addr_var:-}"
info="${!info_var:-}"
[[ -n "$addrs" ]] || die "${addr_var} is empty: the SR-IOV device plugin assigned no RDMA device (does the pod request the RDMA resource?)"
[[ -n "$info" ]] || die "${info_var} is empty: cannot map PCI addresses to uverbs devices"

# Distinct, non-empty addresses.
mapfile -t pci < <(tr ',' '\n' <<<"$addrs" | sed 's/^[[:space:]]*//;s/[[:space:]]*$//' | grep -v '^$' | sort -u)
if (( ${#pci[@]} != want )); then
  die "${addr_var} lists ${#pci[@]} distinct device(s) (${addrs}), ${want} required"
fi

# Lines "<addr> <uverbsN>" from the JSON (python3 is in every engine image).
uverbs_map="$(python3 - "$info" "${pci[@]}" <<'PY'
import json, os, sys
try:
    info = json.loads(sys.argv[1])
except ValueError as e:
    sys.exit("cannot parse device info JSON: %s" % e)
if not isinstance(info, dict):
    sys.exit("device info JSON is not an object")
for addr in sys.argv[2:]:
    entry = info.get(addr)
    uverbs = entry.get("rdma", {}).get("uverbs", "") if isinstance(entry, dict) else ""
    if not isinstance(uverbs, str) or not uverbs:
        sys.exit("no rdma.uverbs entry for %s" % addr)
    print(addr, os.path.basename(uverbs))
PY
)" || die "${info_var}: see the message above"

devs=()
while read -r addr uv; do
  verbs_dir="${sysfs}/class/infiniband_verbs/${uv}"
  dev=""
  if [[ -r "${verbs_dir}/ibdev" ]]; then
    dev="$(<"${verbs_dir}/ibdev")"
  else
    for d in "${verbs_dir}"/device/infiniband/*; do
      [[ -e "$d" ]] && { dev="$(basename "$d")"; break; }
    done
  fi
  dev="${dev//[[:space:]]/}"
  [[ -n "$dev" ]] || die "${addr}: cannot map ${uv} to an InfiniBand device (no ${verbs_dir}/ibdev or device/infiniband/*)"
  state_file="${sysfs}/class/infiniband/${dev}/ports/1/state"
  [[ -r "$state_file" ]] || die "${addr}: ${dev} has no port 1 (${state_file} missing)"
  state="$(<"$state_file")"
  [[ "$state" == 4:* ]] || die "${addr}: ${dev} port 1 is not ACTIVE (state '${state}')"
  devs+=("$dev")
done <<<"$uverbs_map"

mapfile -t uniq < <(printf '%s\n' "${devs[@]}" | sort -V -u)
if (( ${#uniq[@]} != want )); then
  die "the ${want} PCI addresses map to ${#uniq[@]} distinct NIC(s) (${devs[*]}), ${want} required"
fi

if [[ -n "${UCX_NET_DEVICES:-}" ]]; then
  echo "select-rdma-nics: warning: replacing static UCX_NET_DEVICES='${UCX_NET_DEVICES}'" >&2
fi
UCX_NET_DEVICES="$(printf '%s:1\n' "${uniq[@]}" | paste -sd, -)"
export UCX_NET_DEVICES
echo "select-rdma-nics: UCX_NET_DEVICES=${UCX_NET_DEVICES}"

[[ "${1:-}" == "--" ]] && shift
(( $# > 0 )) || exit 0
exec "$@"
