#!/usr/bin/env bash
# make bench: every micro-benchmark built in <build>/bench, then the scale benchmark
# (bench/scale.py: the operator at N DGDs against the kubectl floor). Figures go to
# docs/benchmarks.md by hand, with the machine and its load when they were taken.
#   bash bench/run.sh [build-dir]
#   BENCH_N=100 BENCH_REST_SECONDS=10 bash bench/run.sh    # a quick scale run
#   BENCH_SKIP_SCALE=1 / BENCH_SKIP_MICRO=1                 # one half only
set -euo pipefail
BUILD="${1:-build-bench}"
HERE="$(cd "$(dirname "$0")" && pwd)"
echo "== machine: $(nproc) CPUs, $(uptime)"
if [ -z "${BENCH_SKIP_MICRO:-}" ]; then
  shopt -s nullglob
  benches=("$BUILD"/bench/bench_*)
  [ ${#benches[@]} -gt 0 ] || { echo "bench: no benchmarks in $BUILD/bench" >&2; exit 1; }
  for b in "${benches[@]}"; do
    [ -x "$b" ] || continue
    echo "==> $(basename "$b")"
    "$b" --benchmark_min_time=0.3 --benchmark_counters_tabular=true
  done
fi
if [ -z "${BENCH_SKIP_SCALE:-}" ]; then
  echo "==> scale (BENCH_N=${BENCH_N:-100,1000})"
  BENCH_BUILD="$BUILD" /usr/bin/python3 "$HERE/scale.py"
fi
