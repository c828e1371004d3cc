#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time or count and prints a table of executions.
#
#   bash tests/fuzz/run.sh BUILD_DIR          (`make fuzz` does this after building)
#
# Environment:
#   FUZZ_SECONDS  seconds per target (default 60), or
#   FUZZ_RUNS     executions per target (wins over FUZZ_SECONDS when set)
#   FUZZ_TARGETS  space-separated subset of: dgd watch kubeconfig kubesim (default: all)
#   FUZZ_JOBS     parallel fuzzing processes per target (default 1). With N > 1 the target
#                 runs as libFuzzer -jobs=N -workers=N: N processes sharing the corpus
#                 directory, each given FUZZ_RUNS / N executions (or FUZZ_SECONDS); the table
#                 shows the executions of all of them together.
#   FUZZ_ARGS     extra libFuzzer flags, after run.sh's own (a later flag wins)
#
# Speed settings (docs/reliability.md "Fuzzing"): -entropic=0 (libFuzzer's entropic power
# schedule keeps per-feature frequencies up to date on every execution; with the thousands
# of features these targets touch that bookkeeping cost as much as the target itself), and
# ASAN_OPTIONS malloc_context_size=5 (allocation / free stacks recorded 5 frames deep instead
# of 30: only the report of a finding is shorter, what ASan detects is unchanged; replay a
# finding with plain ASAN_OPTIONS for full stacks). Override either through FUZZ_ARGS /
# ASAN_OPTIONS.
#
# Output: a table of executions, exec/s (executions / wall time: depends on the load), cov,
# wall time, CPU seconds of the fuzzing processes and CPU milliseconds per execution (both
# independent of the load; corpus loading included), and the result: ok, FAILED (a finding:
# exit 1) or stopped (every process interrupted by SIGINT with no finding, e.g. to free the
# CPU: exit 3; the executions so far are counted).
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
jobs=${FUZZ_JOBS:-1}
work=$build/fuzz

# Seeds assembled from the tree (not copied into tests/fuzz: they change with the recipes).
assemble_seeds() {
  local target=$1
  local dir=$work/seeds/$target
  rm -rf "$dir"
  mkdir -p "$dir"
  case $target in
    dgd)
      find "$src/recipes" -name "deploy*.yaml" | while read -r f; do
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

# Sums a libFuzzer final statistic over the logs given (one per fuzzing process).
stat_sum() {
  local name=$1
  shift
  cat "$@" 2>/dev/null | grep -oE "stat::$name: *[0-9]+" | grep -oE '[0-9]+$' | awk '{s += $1} END {if (NR) print s}'
}

# Whether the logs given show a run stopped by SIGINT and no finding: each process says
# "run interrupted", none reports an error or a broken contract.
stopped() {
  local f
  for f in "$@"; do grep -q 'libFuzzer: run interrupted' "$f" || return 1; done
  ! cat "$@" | grep -qE 'ERROR: |SUMMARY: |contract broken|threw|internal error|answers|deadly signal'
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
  # Input size caps: the largest recipe is under 8 KiB, the largest request sequence and
  # kubeconfig seeds under 2 KiB; longer inputs only make each execution slower.
  case $t in dgd) max_len=-max_len=8192 ;; kubesim | kubeconfig) max_len=-max_len=4096 ;; *) max_len= ;; esac
  if [ -n "$runs" ]; then
    bound="-runs=$(((runs + jobs - 1) / jobs))"
  else
    bound="-max_total_time=$seconds"
  fi
  parallel=
  [ "$jobs" -gt 1 ] && parallel="-jobs=$jobs -workers=$jobs"
  log=$work/logs/$t.log
  # With -jobs, libFuzzer writes each process's output to fuzz-<job>.log in the current
  # directory: run in a directory of the target's own.
  jobdir=$work/logs/$t.jobs
  rm -rf "$jobdir"
  mkdir -p "$jobdir"
  echo "== fuzz_$t ($bound${parallel:+ $parallel})"
  start=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  (cd "$jobdir" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:malloc_context_size=5} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$bin" $bound $dict $max_len -entropic=0 -rss_limit_mb=2048 -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$t/" $parallel ${FUZZ_ARGS:-} \
    "$work/corpus/$t" "$src/tests/fuzz/corpus/$t" "$seeds"
  rc=$?
  times >"$work/logs/$t.times" # this subshell's children: the fuzzing processes' CPU time
  exit $rc) >"$log" 2>&1
  rc=$?
  set -e
  wall=$(($(date +%s) - start))
  # With -jobs the parent copies each job's log into its own when the job ends: count the
  # job logs only.
  logs=()
  for f in "$jobdir"/fuzz-*.log; do [ -e "$f" ] && logs+=("$f"); done
  [ ${#logs[@]} -eq 0 ] && logs=("$log")
  execs=$(stat_sum number_of_executed_units "${logs[@]}")
  rate=$([ -n "$execs" ] && [ "$wall" -gt 0 ] && echo $((execs / wall)) || true)
  cov=$(cat "${logs[@]}" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+' | sort -n | tail -1)
  # CPU seconds (user + system) of every fuzzing process, corpus loading included: unlike
  # exec/s this does not depend on what else the machine runs.
  cpu=$(tail -1 "$work/logs/$t.times" 2>/dev/null | tr ms ' ' |
    awk 'NF == 4 {printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4}')
  ms_per_exec=$([ -n "$cpu" ] && [ -n "$execs" ] && [ "$execs" -gt 0 ] &&
    awk -v c="$cpu" -v e="$execs" 'BEGIN {printf "%.2f", 1000 * c / e}' || true)
  result=ok
  if [ $rc -ne 0 ]; then
    if stopped "${logs[@]}"; then
      # Every process was interrupted (SIGINT, e.g. to free the CPU) and none reported a
      # finding: the executions so far count, but the run did not reach its bound.
      result=stopped
      [ $status -eq 0 ] && status=3
      echo "   stopped before its bound (SIGINT), no finding"
    else
      result=FAILED
      status=1
      echo "   FAILED (exit $rc): see ${logs[*]} and $work/artifacts/$t/"
      { cat "${logs[@]}" | grep -E 'ERROR: |SUMMARY: |contract broken|threw|internal error|answers|interrupted' || true; } |
        head -5 | sed 's/^/   /'
    fi
  fi
  load=$(uptime | grep -oE 'load average: .*' | cut -d' ' -f3-)
  summary+=("$(printf '%-11s %12s %10s %8s %8s %8s %10s %-8s %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${wall}s" \
    "${cpu:-?}s" "${ms_per_exec:-?}" "$result" "$load")")
done

echo
printf '%-11s %12s %10s %8s %8s %8s %10s %-8s %s\n' target executions exec/s cov wall cpu cpu-ms/exec result \
  "load average at the end"
printf '%s\n' "${summary[@]}"
exit $status
