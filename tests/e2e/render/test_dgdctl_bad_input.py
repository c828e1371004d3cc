"""dgdctl on the inputs a user gets wrong: each row runs the binary and checks the exit
code, a message that says what is wrong, the field path into the user's own file where
there is one, and that stderr stays bounded whatever the input's size.

Inputs over the API server's limits are refused before they are parsed; a 3 MiB DGD
(the largest an API server accepts) is checked in full. Nothing here measures time.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from binaries import find_binary  # noqa: E402

DGDCTL = find_binary("DGDCTL", "dgdctl")
ROOT = os.environ.get("DGD_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TMP = tempfile.mkdtemp(prefix="dgdctl-bad-input-")
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def head(name="x", extra=""):
    return ("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: %s}\nspec:\n"
            "  recipe: %s\n%s" % (name, RECIPE, extra))


def env_dgd(entries, value_len=150):
    lines = [head("big", "  components:\n  - name: DecodeWorker\n    env:\n")]
    for i in range(entries):
        lines.append('    - name: VAR_%06d\n      value: "%s"\n' % (i, "x" * value_len))
    return "".join(lines)


big_name = "n" * (10 << 20)
cases = [
    # (name, argv, exit code, substrings stderr must hold, substrings stderr must not hold)
    ("no arguments", [], 2, ["a command is required", "--help"], []),
    ("unknown command", ["frobnicate"], 2, ['unknown command "frobnicate" for "dgdctl"'], ["A subcommand is required"]),
    ("unknown subcommand", ["recipes", "frob"], 2, ['unknown command "frob" for "dgdctl recipes"'], []),
    ("unknown flag", ["--bogus"], 2, ["unknown flag: --bogus"], []),
    ("unknown flag of a command", ["validate", "--bogus", "-f", "x"], 2, ["unknown flag: --bogus"], []),
    ("bad output format", ["render", "-o", "xml", "-f", write("ok.yaml", head())], 2, ["xml", "yaml,json"], []),
    ("-f without a file", ["validate", "-f"], 2, ["--filename"], []),
    ("missing path", ["validate", "-f", os.path.join(TMP, "missing.yaml")], 1,
     ['the path "%s" does not exist' % os.path.join(TMP, "missing.yaml")], []),
    ("a directory", ["validate", "-f", TMP], 1, ["cannot read", "Is a directory"], []),
    ("empty file", ["validate", "-f", write("empty.yaml", "")], 1, ["no DynamoGraphDeployment document found"], []),
    ("syntax error with a tab", ["validate", "-f", write("tab.yaml", head() + "  model:\n\tid: x\n")], 1,
     ["tab.yaml", "line 7"], []),
    ("unknown field", ["validate", "-f", write("unknown.yaml", head() + "  modle: {id: x}\n")], 1,
     ["spec.modle: unknown field"], []),
    ("wrong enum", ["validate", "-f", write("enum.yaml", head() + "  placement: {gpu: H300}\n")], 1,
     ["spec.placement.gpu", "H300"], []),
    ("negative replicas in a recipe DGD, reported once at the user's index",
     ["validate", "-f", write("replicas.yaml", head(extra="  components:\n  - name: DecodeWorker\n    replicas: -1\n"))],
     1, ["spec.components[0].replicas: must be 0..1000, got -1"], ["spec.components[2]"]),
    ("a graph-level problem at the user's index",
     ["validate", "-f", write("tp.yaml", head(extra="  components:\n  - name: PrefillWorker\n    engine:\n"
                                                 "      tensorParallelSize: 2\n"))],
     1, ["spec.components[0].engine.tensorParallelSize"], ["spec.components[1]", "spec.components[2]"]),
    ("a Deployment", ["validate", "-f", write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\n"
                                                             "metadata: {name: d}\nspec: {replicas: 1}\n")],
     1, ["no DynamoGraphDeployment document found"], []),
    ("binary garbage", ["validate", "-f", write("garbage.bin", bytes(range(256)) * 64)], 1, ["garbage.bin"], []),
    ("10 MB DGD: refused before parsing",
     ["validate", "-f", write("big.yaml", env_dgd(47000))], 1,
     ["big.yaml: Request entity too large: limit is 3145728"], ["is valid"]),
    ("10 MB DGD on stdin: refused before parsing", ["validate", "-f", "-"], 1,
     ["<stdin>: Request entity too large: limit is 3145728"], ["is valid"]),
    ("a 10 MB name: refused, one short line", ["validate", "-f", write("name.yaml", head(big_name))], 1,
     ["Request entity too large"], []),
    ("a 2 MB DGD: over etcd's object limit", ["validate", "-f", write("two-mb.yaml", env_dgd(9000, 200))], 1,
     ["etcdserver: request is too large", "1572864"], ["is valid"]),
    ("a 1 MB name under the limits: bounded message",
     ["validate", "-f", write("long-name.yaml", head("n" * (1 << 20)))], 1,
     ["metadata.name", "more bytes"], []),
]

failures = []
stdin_big = env_dgd(47000).encode()
for name, argv, want_rc, must, must_not in cases:
    stdin = stdin_big if argv[-1:] == ["-"] else None
    p = subprocess.run([DGDCTL] + argv, input=stdin, capture_output=True, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != want_rc:
        problems.append("exit %d, want %d" % (p.returncode, want_rc))
    problems += ["stderr lacks %r" % m for m in must if m not in err]
    problems += ["stderr has %r" % m for m in must_not if m in err + p.stdout.decode("utf-8", "replace")]
    if len(p.stderr) > 8192:
        problems.append("stderr is %d bytes" % len(p.stderr))
    try:
        p.stderr.decode("utf-8")
    except UnicodeDecodeError:
        problems.append("stderr is not UTF-8")
    if problems:
        failures.append("%s: %s\n    stderr: %r" % (name, "; ".join(problems), err[:400]))
    print(("FAIL " if problems else "ok   ") + name)

# A DGD near the largest an API server stores (1.5 MiB as JSON) is checked in full.
entries = 8000
text = env_dgd(entries)
p = subprocess.run([DGDCTL, "validate", "-f", write("three-mb.yaml", text)], capture_output=True, timeout=300)
ok = p.returncode == 0 and b"is valid" in p.stdout
print(("ok   " if ok else "FAIL ") + "a 1.4 MiB DGD of %d env entries is checked and valid" % entries)
if not ok:
    failures.append("1.4 MiB DGD: exit %d: %r" % (p.returncode, p.stderr[:400]))

# --version: the project version and, in a git checkout, git describe.
with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
    version = next(l.split("VERSION")[1].split()[0] for l in f if l.startswith("project("))
p = subprocess.run([DGDCTL, "--version"], capture_output=True, text=True)
ok = p.returncode == 0 and p.stdout.startswith("dgdctl %s" % version) and len(p.stdout.splitlines()) == 1
print(("ok   " if ok else "FAIL ") + "--version: %r" % p.stdout)
if not ok:
    failures.append("--version: exit %d, %r" % (p.returncode, p.stdout))

for f in failures:
    print("FAIL", f)
print("%d passed, %d failed" % (len(cases) + 2 - len(failures), len(failures)))
sys.exit(1 if failures else 0)
