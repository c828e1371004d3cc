#!/usr/bin/env bash
# make names: the naming check of .clang-tidy (readability-identifier-naming) over the
# translation units of a clang compile database (configured only, never built, in
# NAMES_BUILD). Exits 1 and prints file:line of each violation; 0 when there is none.
#   bash scripts/check-names.sh                     the TUs changed since the merge base with
#                                                   main (committed or not), and the TUs that
#                                                   include a changed header
#   NAMES_SINCE=<rev> bash scripts/check-names.sh   the same, since <rev>
#   NAMES_ALL=1 bash scripts/check-names.sh         every TU under src/, tests/ and bench/
#   NAMES_FILES='src/api/' bash scripts/check-names.sh   the TUs whose path matches a regex
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
build="${NAMES_BUILD:-build-names}"
jobs="${JOBS:-$(nproc)}"

# Every TU: the benchmarks and the fuzzers are configured too (the fuzzers need clang).
if [ ! -f "$build/compile_commands.json" ]; then
  CXX=clang++ cmake -S . -B "$build" $(command -v ninja >/dev/null && echo "-G Ninja") \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDGD_BENCH=ON -DDGD_FUZZ=ON -DDGD_SANITIZE=ON \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi

# The TUs to check, as one regex on their absolute path.
if [ -z "${NAMES_ALL:-}" ] && [ -z "${NAMES_FILES:-}" ] && ! git rev-parse -q --verify "${NAMES_SINCE:-main}" >/dev/null; then
  NAMES_ALL=1  # no main to compare with (a fresh clone of one branch): check everything
fi
if [ -z "${NAMES_ALL:-}" ] && [ -z "${NAMES_FILES:-}" ]; then
  NAMES_SINCE="${NAMES_SINCE:-main}"
  base="$(git merge-base HEAD "$NAMES_SINCE")"
  files="$(/usr/bin/python3 - "$root" "$build" "$base" <<'PY'
import json, os, re, subprocess, sys
root, build, base = sys.argv[1], sys.argv[2], sys.argv[3]
changed = set(subprocess.run(["git", "diff", "--name-only", base, "--", "include", "src", "tests", "bench"],
                             capture_output=True, text=True, check=True).stdout.split())
changed |= set(subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "include", "src", "tests", "bench"],
                              capture_output=True, text=True, check=True).stdout.split())
sources = [f for f in subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "include", "src", "tests", "bench"],
                                     capture_output=True, text=True, check=True).stdout.split()
           if f.endswith((".h", ".hpp", ".cpp"))]
includes = {}
for f in sources:
    try:
        includes[f] = re.findall(r'#\s*include\s*"([^"]+)"', open(f, errors="replace").read())
    except OSError:
        includes[f] = []
# A file is affected when it changed or includes (by path suffix) an affected header.
affected = {f for f in changed if f.endswith((".h", ".hpp", ".cpp"))}
grew = True
while grew:
    grew = False
    for f, incs in includes.items():
        if f not in affected and any(h.endswith("/" + i) or h == i for i in incs for h in affected):
            affected.add(f)
            grew = True
db = json.load(open(os.path.join(build, "compile_commands.json")))
tus = sorted({os.path.relpath(e["file"], root) for e in db} & affected)
print("|".join(re.escape(t) for t in tus))
PY
)"
  if [ -z "$files" ]; then
    echo "names: no translation unit changed since $NAMES_SINCE (NAMES_ALL=1 checks every one)"
    exit 0
  fi
  regex="^$root/($files)\$"
else
  # NAMES_FILES is a regex on the path below the checkout's root.
  regex="^$root/(?=(src|tests|bench)/).*(${NAMES_FILES:-})"
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run-clang-tidy -p "$build" -j "$jobs" -quiet -header-filter "^$root/(include|src|tests|bench)/" "$regex" \
  >"$log" 2>&1 || true
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
if grep -q ' error: ' "$log"; then
  grep ' error: ' "$log" | sort -u >&2
  echo "names: clang-tidy could not compile a translation unit" >&2
  exit 2
fi
violations="$(grep 'warning: .*\[readability-identifier-naming\]' "$log" | sed "s|^$root/||" | sort -u || true)"
checked="$(grep -c '^clang-tidy' "$log" || true)"
if [ "$checked" = 0 ]; then
  echo "names: no translation unit matches" >&2
  exit 2
fi
if [ -n "$violations" ]; then
  echo "$violations"
  echo "names: $(echo "$violations" | wc -l) names break the convention (.clang-tidy) in $checked translation units" >&2
  exit 1
fi
echo "names: $checked translation units follow the naming convention"
