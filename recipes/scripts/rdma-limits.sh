#!/bin/bash
# rdma-limits.sh: raise the limits RDMA KV transfer needs, then exec the engine.
# NIXL/UCX register (pin) the KV buffers, which needs an unlimited memlock limit; the
# container has IPC_LOCK for it. Rendered as
#   command: [/bin/bash, -lc, <this script>, --, python3]   args: [-m, dynamo.vllm, ...]
set -Eeuo pipefail
ulimit -l unlimited
ulimit -n 1048576
[[ "${1:-}" == "--" ]] && shift
exec "$@"
