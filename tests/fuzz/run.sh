#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time or count and prints a table of executions.
#
#   bash tests/fuzz/run.sh BUILD_DIR          (`make fuzz` does this after building)
#
# Environment:
#   FUZZ_SECONDS  seconds per target (default 60), or
#   FUZZ_RUNS     executions per target (wins over FUZZ_SECONDS when set)
#   FUZZ_TARGETS  space-separated subset of: dgd watch kubeconfig kubesim (default: all)
#   FUZZ_ARGS     extra libFuzzer flags (e.g. "-jobs=2 -workers=2")
#
# Corpora: tests/fuzz/corpus/<target>/ holds the committed seeds; for `dgd` the recipes and
# the DGDs under tests/golden/ are added at run time. What the fuzzer finds new goes to
# BUILD_DIR/fuzz/corpus/<target>/ (kept between runs, never committed). A crash leaves its
# input in BUILD_DIR/fuzz/artifacts/<target>/ and makes this script exit 1; reproduce it with
#   BUILD_DIR/tests/fuzz/fuzz_<target> BUILD_DIR/fuzz/artifacts/<target>/crash-...
set -euo pipefail

build=${1:?usage: run.sh BUILD_DIR}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=${FUZZ_TARGETS:-dgd watch kubeconfig kubesim}
seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
work=$build/fuzz

# Seeds assembled from the tree (not copied into tests/fuzz: they change with the recipes).
assemble_seeds() {
  local target=$1
  local dir=$work/seeds/$target
  rm -rf "$dir"
  mkdir -p "$dir"
  case $target in
    dgd)
      find "$src/recipes" -name dgd.yaml | while read -r f; do
        cp "$f" "$dir/recipe-$(echo "${f#"$src"/recipes/}" | tr / _)"
      done
      # DGDs only: render/ and reference/ hold rendered children, which parse() rejects at once.
      find "$src/tests/golden" -name '*.yaml' -not -path '*/render/*' -not -path '*/reference/*' | while read -r f; do
        cp "$f" "$dir/golden-$(echo "${f#"$src"/tests/golden/}" | tr / _)"
      done
      ;;
  esac
  echo "$dir"
}

# A dictionary of the field names the seeds use, so mutations produce DGD-shaped YAML.
make_dict() {
  local target=$1
  local dict=$work/$target.dict
  case $target in
    dgd)
      cat "$src"/tests/fuzz/corpus/dgd/* "$work/seeds/dgd"/* 2>/dev/null |
        grep -oE '[A-Za-z][A-Za-z0-9_.-]{2,40}:' | sort -u | sed 's/.*/"&"/' >"$dict"
      ;;
    *) return 0 ;;
  esac
  echo "-dict=$dict"
}

status=0
summary=()
for t in $targets; do
  bin=$build/tests/fuzz/fuzz_$t
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is missing (configure with CXX=clang++ -DDGD_FUZZ=ON)" >&2
    exit 2
  fi
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t" "$work/logs"
  seeds=$(assemble_seeds "$t")
  dict=$(make_dict "$t")
  # The largest recipe is under 8 KiB; longer inputs only make each execution slower.
  case $t in dgd) max_len=-max_len=8192 ;; *) max_len= ;; esac
  if [ -n "$runs" ]; then bound="-runs=$runs"; else bound="-max_total_time=$seconds"; fi
  log=$work/logs/$t.log
  echo "== fuzz_$t ($bound)"
  set +e
  # shellcheck disable=SC2086
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$bin" $bound $dict $max_len -rss_limit_mb=2048 -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$t/" ${FUZZ_ARGS:-} \
    "$work/corpus/$t" "$src/tests/fuzz/corpus/$t" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
  if [ $rc -ne 0 ]; then
    status=1
    echo "   FAILED (exit $rc): see $log and $work/artifacts/$t/"
    grep -E 'ERROR: |SUMMARY: |contract broken|threw|internal error|answers' "$log" | head -5 | sed 's/^/   /'
  fi
  summary+=("$(printf '%-11s %12s %10s %8s %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "$([ $rc -eq 0 ] && echo ok || echo CRASH)")")
done

echo
printf '%-11s %12s %10s %8s %s\n' target executions exec/s cov result
printf '%s\n' "${summary[@]}"
exit $status
