#!/usr/bin/env bash
# dgd-operator's command line: --version, every `run` flag documented in
# docs/operations.md, exit 2 with one message for usage errors and a bad kubeconfig,
# exit 0 on SIGTERM (against a private kube-sim), and JSON log lines that parse.
set -euo pipefail
ROOT="${DGD_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"
OP="${DGD_OPERATOR:-$ROOT/build/dgd-operator}"
source "$ROOT/tests/e2e/lib/kubesim.sh"

fail() { echo "FAIL: $*" >&2; exit 1; }

"$OP" --version | grep -qxE "dgd-operator [0-9]+\.[0-9]+\.[0-9]+( \(.+\))?" || fail "--version"

# Every flag of `run` appears in the operations guide, and every flag the guide lists exists.
flags=$("$OP" run --help | grep -o -- '--[a-z][a-z-]*' | grep -v -- '--help' | sort -u)
[ -n "$flags" ] || fail "no flags in run --help"
for f in $flags; do
  grep -q -- "\`$f" "$ROOT/docs/operations.md" || fail "flag $f is not documented in docs/operations.md"
done
documented=$(sed -n '/^## Running the operator/,/^## [^R]/p' "$ROOT/docs/operations.md" | grep -o -- '^| `--[a-z-]*' |
  sed 's/^| `//' | sort -u)
for f in $documented; do
  [ "$f" = "--version" ] && continue
  echo "$flags" | grep -qx -- "$f" || fail "docs/operations.md documents $f, which run does not accept"
done

# A kubeconfig that does not exist: exit 2, one line naming the file.
set +e
out=$("$OP" run --kubeconfig /nonexistent/kubeconfig 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad kubeconfig: exit $rc, want 2"
echo "$out" | grep -q 'kubeconfig: the path "/nonexistent/kubeconfig" does not exist' ||
  fail "bad kubeconfig: the error does not say why: $out"

# Usage errors: exit 2 and one message naming what is wrong (kubectl's wording).
for args in "" "--bogus" "run --bogus" "frobnicate" "run --log-level warning"; do
  set +e
  # shellcheck disable=SC2086
  out=$("$OP" $args 2>&1 >/dev/null)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "dgd-operator $args: exit $rc, want 2"
  echo "$out" | grep -q "Run 'dgd-operator --help' for usage." || fail "dgd-operator $args: no usage hint: $out"
done
out=$("$OP" frobnicate 2>&1 || true)
echo "$out" | grep -q 'unknown command "frobnicate" for "dgd-operator"' || fail "unknown command message: $out"
out=$("$OP" run --bogus 2>&1 || true)
echo "$out" | grep -q 'unknown flag: --bogus' || fail "unknown flag message: $out"

# Against a server: JSON logs parse, SIGTERM drains and exits 0.
kubesim_start
kubectl apply -f "$ROOT/crds/" >/dev/null
log="$KUBESIM_DIR/operator.log"
"$OP" run --kubeconfig "$KUBECONFIG" --metrics-addr 0 --health-addr 0 --log-format json \
  --leader-election-namespace default 2>"$log" &
pid=$!
for _ in $(seq 1 300); do
  grep -q "became leader" "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "operator exited early"; }
  sleep 0.05
done
grep -q "became leader" "$log" || { cat "$log" >&2; fail "operator did not lead"; }
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$log" >&2; fail "SIGTERM: exit $rc, want 0"; }
/usr/bin/python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines, "no log lines"
for l in lines:
    d = json.loads(l)
    assert {"ts", "level", "msg"} <= set(d), d
' "$log" || fail "JSON log lines do not parse"
echo ok
