#!/usr/bin/env bash
# make test-sanitize, after ctest: every sanitized process of the suite (unit tests and the
# kube-sim, dgd-operator and dgdctl processes the e2e tests start and stop) writes its
# AddressSanitizer / LeakSanitizer / UndefinedBehaviorSanitizer report to a file in DIR
# (log_path, log_exe_name). A test fails on a report of its own process, but an e2e test
# does not read the exit code of a kube-sim it stops, so a leak or an error in a child
# process would pass unseen; this check fails the run on any such file.
#   bash scripts/check-sanitizer-reports.sh DIR
# Exits 1 and prints each report; 0 when every file holds only LeakSanitizer's
# "Suppressions used" table (tests/lsan-suppressions.txt), which it summarises.
set -euo pipefail
dir="$1"
shopt -s nullglob
reports=("$dir"/*)
failed=0
suppressed=0
for f in "${reports[@]}"; do
  if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: [A-Za-z]*Sanitizer|SUMMARY: " "$f"; then
    echo "==> sanitizer report: $f"
    cat "$f"
    failed=$((failed + 1))
  elif grep -q "Suppressions used:" "$f"; then
    suppressed=$((suppressed + 1))
  else
    echo "==> unrecognised sanitizer output: $f"
    cat "$f"
    failed=$((failed + 1))
  fi
done
echo "sanitizer reports: ${#reports[@]} file(s) in $dir, $failed with a finding, $suppressed with suppressed leaks only"
[ "$failed" -eq 0 ]
