#!/usr/bin/env bash
# Runs every micro-benchmark built in <build>/bench (make bench). Figures go to
# docs/benchmarks.md by hand, with the machine they were taken on.
set -euo pipefail
BUILD="${1:-build-bench}"
shopt -s nullglob
benches=("$BUILD"/bench/bench_*)
[ ${#benches[@]} -gt 0 ] || { echo "bench: no benchmarks in $BUILD/bench" >&2; exit 1; }
for b in "${benches[@]}"; do
  [ -x "$b" ] || continue
  echo "==> $(basename "$b")"
  "$b" --benchmark_min_time=0.3
done
