"""Every invalid DGD of the corpus fails `dgdctl validate` naming its field; valid ones pass clean.

The corpus (tests/golden/invalid, tests/golden/valid) is also run through the library in
unit_api; this test holds the binary users run to the same contract: exit 1 (never a
crash), an error at each expected field path, and no warning for a valid DGD.

Each line of the output starts with the file. A field error reads
`FILE: DGD: error: PATH: message`; a problem of the document as a whole (YAML that does
not parse, no DGD in it) reads `FILE: [line L, column C: ]message` with no field path.
The test parses the lines and compares field paths exactly, so an error at another path,
or a field error where the document is at fault, fails it. A wrong `kind` is the one
expectation met at the document level: dgdctl skips documents of other kinds.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.environ.get("DGD_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DGDCTL = os.environ["DGDCTL"]


def expectations(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.split(":", 1)[1].strip() for line in f if line.startswith("# expect:")]


FIELD_ERROR = re.compile(r"^(?P<dgd>[^:]+): error: (?P<path>[^:\s]+): \S")


def findings(path, out):
    """(field paths with an error, document-level messages) of the lines about `path`."""
    fields, document = set(), []
    for line in out.splitlines():
        if not line.startswith(path + ": "):
            continue
        rest = line[len(path) + 2:]
        m = FIELD_ERROR.match(rest)
        if m:
            fields.add(m.group("path"))
        elif ": warning: " not in rest:
            document.append(rest)
    return fields, document


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
    fields, document = findings(path, out)
    wants = expectations(path)
    if not wants:
        failures.append(f"{name}: no `# expect:` line")
    for want in wants:
        if want == "kind":
            # dgdctl reads multi-document input and skips documents of other kinds, so a
            # file holding no DGD is reported as a whole rather than at `kind`.
            if fields or not any("no DynamoGraphDeployment document found" in d for d in document):
                failures.append(f"{name}: want 'no DynamoGraphDeployment document found' and no field error, got "
                                f"document {document!r}, fields {sorted(fields)}: {out[:300]!r}")
        elif want == "<document>":
            # The document as a whole: a message about the file, not about a field.
            if not document or fields:
                failures.append(f"{name}: want a document-level error and no field error, got "
                                f"document {document!r}, fields {sorted(fields)}: {out[:300]!r}")
        elif want not in fields:
            failures.append(f"{name}: no error at {want!r} (errors at {sorted(fields)}): {out[:300]!r}")

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
