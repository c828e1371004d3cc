"""The structured-merge-diff referee (tests/referees/ssa, Go) as a long-lived subprocess.

It is built from source on first use with Debian's Go 1.19 and Go library packages in GOPATH
mode (no module downloads): a private GOPATH links the program's directory in as
`src/ssa-referee`, next to /usr/share/gocode. Requests and answers are JSON lines (see
tests/referees/ssa/main.go)."""
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading

from referee_lib import SOURCE_DIR

GO = "/usr/lib/go-1.19/bin/go"
REFEREE_SRC = os.path.join(SOURCE_DIR, "tests", "referees", "ssa")
SWAGGER = os.path.join(SOURCE_DIR, "..", "shared", "referees", "kubernetes-1.32-swagger.json")


def build(workdir):
    gopath = os.path.join(workdir, "gopath")
    os.makedirs(os.path.join(gopath, "src"))
    os.symlink(REFEREE_SRC, os.path.join(gopath, "src", "ssa-referee"))
    binary = os.path.join(workdir, "ssa-referee")
    env = dict(os.environ, GO111MODULE="off", GOPATH=gopath + ":/usr/share/gocode",
               GOFLAGS="", CGO_ENABLED="0")
    env.setdefault("GOCACHE", os.path.join(os.path.expanduser("~"), ".cache", "go-build"))
    proc = subprocess.run([GO, "build", "-o", binary, "ssa-referee"], env=env,
                          cwd=os.path.join(gopath, "src", "ssa-referee"),
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError("building the ssa referee failed:\n" + proc.stdout + proc.stderr)
    return binary


class Referee:
    """Sends request dicts, returns answer dicts, in order."""

    def __init__(self, crds=()):
        if not os.path.exists(GO):
            raise RuntimeError("%s missing: scripts/install-deps.sh installs golang-1.19-go" % GO)
        if not os.path.exists(SWAGGER):
            raise RuntimeError("%s missing (the Kubernetes 1.32 OpenAPI document)" % SWAGGER)
        self.workdir = tempfile.mkdtemp(prefix="ssa-referee-")
        binary = build(self.workdir)
        self.proc = subprocess.Popen([binary, SWAGGER] + list(crds), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     bufsize=1 << 20)
        self.answers = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        ready = self._next()
        assert ready.get("ready"), ready

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)

    def _next(self):
        a = self.answers.get(timeout=300)
        if a is None:
            raise RuntimeError("the ssa referee exited: " + self.proc.stderr.read())
        return a

    def run(self, requests):
        """Answers to `requests`, one per request."""
        self.proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        self.proc.stdin.flush()
        return [self._next() for _ in requests]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)
