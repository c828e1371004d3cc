"""Every invalid DGD of the corpus fails `dgdctl validate` naming its field; valid ones pass clean.

The corpus (tests/golden/invalid, tests/golden/valid) is also run through the library in
unit_api; this test holds the binary users run to the same contract: exit 1 (never a
crash), each expected field path in the output, and no warning for a valid DGD.
"""
import glob
import os
import subprocess
import sys

ROOT = os.environ.get("DGD_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DGDCTL = os.environ["DGDCTL"]


def expectations(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.split(":", 1)[1].strip() for line in f if line.startswith("# expect:")]


def run(path):
    p = subprocess.run([DGDCTL, "validate", "-f", path], capture_output=True, timeout=60)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


failures = []
invalid = sorted(glob.glob(os.path.join(ROOT, "tests/golden/invalid/*.yaml")))
valid = sorted(glob.glob(os.path.join(ROOT, "tests/golden/valid/*.yaml")))
if len(invalid) < 40 or not valid:
    failures.append(f"corpus too small: {len(invalid)} invalid, {len(valid)} valid")

for path in invalid:
    name = os.path.basename(path)
    rc, out = run(path)
    if rc != 1:
        failures.append(f"{name}: exit {rc}, want 1{' (crash)' if rc < 0 or rc >= 128 else ''}")
        continue
    for want in expectations(path):
        # Document-level problems (YAML syntax, several documents) have no field path:
        # the binary names the file (and the line where it can) instead.
        if want == "<document>":
            want = path
        if want not in out:
            failures.append(f"{name}: output does not name {want!r}: {out[:300]!r}")

for path in valid:
    name = os.path.basename(path)
    rc, out = run(path)
    if rc != 0:
        failures.append(f"{name}: valid DGD rejected (exit {rc}): {out[:300]!r}")
    elif "warning" in out.lower():
        failures.append(f"{name}: valid DGD produced a warning: {out[:300]!r}")

print(f"checked {len(invalid)} invalid and {len(valid)} valid DGDs")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
