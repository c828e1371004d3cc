"""Replays a recipe page's commands, as written, from the repository root against a
private kube-sim with dgd-operator running (tests/e2e/operator/oplib.py), one fresh cluster
per deployment target, like a new user who picks that target on the page.

What runs, and what stands in where kube-sim cannot do what a real cluster does, is decided
here and printed by every run (`SUBSTITUTIONS`):

- Every command runs verbatim in one bash session per target (variables such as RECIPE and
  DGD carry over as in the user's terminal), except:
- `kubectl port-forward svc/S L:R -n NS` runs verbatim, against kube-sim's pods/portforward;
  kube-sim has no pod network, so the Service's pods lead to the backend registered for the
  Service (/sim/v1/services/proxy): the project's OpenAI stand-in (tests/standin) answers
  for the frontend. The page's `curl http://localhost:8000/...` then runs verbatim.
- `export CLUSTER_CONFIG=/path/to/your/filled-cluster-kustomization`: the page's placeholder
  for the user's own folder; the replay sets it to a folder holding a filled cluster
  Kustomization (its single resource recipe.yaml, as the page says).
- `kustomize`: the standalone binary (the page asks for v5.8.1) has no Debian package;
  when it is not on PATH, tests/e2e/seeds/bin/kustomize runs the same build with kubectl's
  built-in kustomize (`kubectl kustomize`).

A user also pauses between commands; the replay waits for the condition the user would
see before the next command (polling, never a fixed sleep): before `kubectl wait ... pod
-l <label>` until the graph's pods exist (kubectl wait takes the pods present when it
starts), and before the port-forward until the DGD is Ready.

The whole test runs in its own network namespace (`unshare -n`), so the page's port 8000 on
localhost is free whatever else runs on the machine.
"""
import fcntl
import json
import os
import queue
import re
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "operator"))
sys.path.insert(0, os.path.join(HERE, "..", "serving"))  # servinglib, for the tests
import yaml  # noqa: E402

from oplib import ROOT, RECIPE_PROFILES, OperatorEnv, condition, wait_until  # noqa: E402
from recipe_paths import recipe_file  # noqa: E402
from seed_pages import commands, mentions  # noqa: E402

SUBSTITUTIONS = [
    ("export CLUSTER_CONFIG=/path/to/your/filled-cluster-kustomization", "the page's placeholder for the user's "
     "folder: set to a filled cluster Kustomization whose single resource is recipe.yaml"),
    ("kustomize", "no Debian package of the standalone binary: without one on PATH, tests/e2e/seeds/bin/kustomize "
     "runs the build with kubectl's built-in kustomize"),
]
COMMAND_TIMEOUT = 300
MARK = "__DGD_SEEDS_RC__="


def enter_private_network():
    """Re-runs this test in a new network namespace (loopback only), once."""
    if os.environ.get("DGD_SEEDS_NETNS") == "1":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        ifr = fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0))  # SIOCGIFFLAGS
        flags = struct.unpack("16sH", ifr[:18])[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 0x1))  # SIOCSIFFLAGS, IFF_UP
        s.close()
        return
    env = dict(os.environ, DGD_SEEDS_NETNS="1")
    try:
        rc = subprocess.call(["unshare", "-n", sys.executable] + sys.argv, env=env)
    except FileNotFoundError:
        sys.exit("unshare (util-linux) is needed: the page's localhost:8000 must be this test's own")
    sys.exit(rc)


class Target:
    """One deployment target of a page: its recipe, DGD, served model and the words by which
    the page's per-target commands name it."""

    def __init__(self, recipe):
        self.recipe = recipe
        self.file = recipe_file(recipe)
        with open(self.file) as f:
            self.dgd = yaml.safe_load(f)
        self.name = self.dgd["metadata"]["name"]
        self.model = self.dgd["spec"]["model"]["servedName"]
        self.claim = self.dgd["spec"]["model"]["cache"]["claimName"]
        self.framework = recipe.split("/")[1]
        self.folder = os.path.relpath(os.path.dirname(self.file), ROOT)
        self.words = [self.folder, self.name, self.name + "-frontend", self.model]
        self.pods = sum(int(c.get("replicas", 1)) for c in self.dgd["spec"]["components"])


def select(page_commands, target, others, skip=lambda cmd: False):
    """The page's commands for `target`: those that name no other target's folder, DGD or
    model unless they also name this one (the page shows one variant per target)."""
    other_words = sorted({w for o in others for w in o.words} - set(target.words))
    out = []
    for block, cmd in page_commands:
        if skip(cmd):
            continue
        if mentions(cmd, other_words) and not mentions(cmd, target.words):
            continue
        if (block, cmd) in out:
            continue  # the same line in another target's variant of this box
        out.append((block, cmd))
    return out


class Shell:
    """A user's terminal: one bash, commands run one after the other, at the repository root."""

    def __init__(self, env, log, tmp):
        self.log = log
        self.tmp = tmp
        self.proc = subprocess.Popen(["bash", "--norc", "--noprofile"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def run(self, cmd, timeout=COMMAND_TIMEOUT):
        """(exit code, standard output) of cmd typed into the shell; its standard error
        goes to the transcript (and to the output when it fails)."""
        self.log.write("$ %s\n" % cmd)
        err = os.path.join(self.tmp, "stderr")
        # Braces, not a subshell: assignments and `set -o` stay in the session. The `:` keeps
        # the group valid when the line is only a comment (the page's `# DGD name = ...`).
        self.proc.stdin.write("{ :\n%s\n} 2>%s\nprintf '\\n%s%%d\\n' \"$?\"\n" % (cmd, shlex.quote(err), MARK))
        self.proc.stdin.flush()
        out = []
        deadline = time.time() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                raise AssertionError("command still running after %d s: %s\n%s" % (timeout, cmd, "".join(out)))
            if line is None:
                raise AssertionError("the shell exited during: %s\n%s" % (cmd, "".join(out)))
            if line.startswith(MARK):
                text = "".join(out)
                text = text[:-1] if text.endswith("\n") else text
                with open(err) as f:
                    errors = f.read()
                self.log.write(text + ("\n" if text else "") + errors)
                rc = int(line[len(MARK):])
                return rc, text if rc == 0 else text + "\n" + errors
            out.append(line)

    def words(self, cmd):
        """The command's words after the shell's expansion (for a command the replay stands in for)."""
        rc, out = self.run("printf '%s\\0' " + cmd.split(" ", 1)[1])
        assert rc == 0, out
        return out.split("\0")[:-1]

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Replay:
    """One target's replay: a fresh cluster, the operator, a shell, the stand-in frontend."""

    def __init__(self, target, standin):
        self.target = target
        self.standin = standin
        self.tmp = tempfile.mkdtemp(prefix="seeds-")
        self.log = open(os.path.join(self.tmp, "transcript.txt"), "w")
        self.env = OperatorEnv(profile=RECIPE_PROFILES[target.recipe])
        self.port_forward = None  # the page's kubectl port-forward, running
        self.shell = None
        self.ran = []          # commands run verbatim
        self.stood_in = []     # (command, what ran instead)
        self.curl_outputs = []
        self._ns = None

    def __enter__(self):
        self.env.__enter__()
        env = self.env.sim.env()
        if not shutil.which("kustomize"):
            env["PATH"] = os.path.join(HERE, "bin") + os.pathsep + env["PATH"]
        self.shell_env = env
        self.shell = Shell(env, self.log, self.tmp)
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop_port_forward()
        if self.shell:
            self.shell.close()
        self.log.close()
        if exc_type is not None:
            with open(os.path.join(self.tmp, "transcript.txt")) as f:
                sys.stderr.write("---- transcript (%s) ----\n%s\n" % (self.target.recipe, f.read()[-6000:]))
        return self.env.__exit__(exc_type, exc, tb)

    # -- what a user does before the page's commands, from the page's prose ----------------
    def prerequisites(self, ns, claim_folder):
        """The V4.1 page's prerequisites: the namespace, the token Secret and a populated cache,
        filled by the recipe's model-cache manifests (the page names them, gives no command)."""
        self.env.kubectl("create", "namespace", ns)
        self.env.kubectl("create", "secret", "generic", "hf-token-secret", "--from-literal=HF_TOKEN=your-token", "-n", ns)
        self.env.kubectl("apply", "-k", os.path.join(ROOT, claim_folder), "-n", ns)
        self.env.kubectl("wait", "--for=condition=Complete", "job/model-download", "-n", ns, "--timeout=120s",
                         timeout=180)

    def cluster_config(self):
        d = os.path.join(self.tmp, "filled-cluster-kustomization")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "kustomization.yaml"), "w") as f:
            f.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- recipe.yaml\n")
        return d

    # -- the page's commands -----------------------------------------------------------
    def run(self, cmd):
        t = self.target
        if cmd.startswith("export CLUSTER_CONFIG=/path/to/your/filled-cluster-kustomization"):
            instead = "export CLUSTER_CONFIG=" + shlex.quote(self.cluster_config())
            self._expect_ok(instead)
            self.stood_in.append((cmd, instead))
            return
        if cmd.startswith("kubectl port-forward "):
            self._wait_ready()
            self._port_forward(cmd)
            return
        if re.match(r"kubectl wait --for=condition=Ready pod\b", cmd):
            ns = self.namespace()
            wait_until("the %d pods of %s" % (t.pods, t.name), lambda: len(self.env.items(
                "pods", ns, "nvidia.com/dynamo-graph-deployment-name=" + t.name)) >= t.pods, timeout=180)
        out = self._expect_ok(cmd)
        if cmd.startswith("curl "):
            self.curl_outputs.append(out)
        self.ran.append(cmd)

    def _expect_ok(self, cmd):
        rc, out = self.shell.run(cmd)
        if rc != 0:
            raise AssertionError("%s: the page's command failed (exit %d):\n$ %s\n%s" % (self.target.recipe, rc, cmd, out))
        return out

    def namespace(self):
        if self._ns is None:
            rc, out = self.shell.run('printf %s "${NAMESPACE}"')
            assert rc == 0 and out, "NAMESPACE is not set"
            self._ns = out
        return self._ns

    def _wait_ready(self):
        ns, name = self.namespace(), self.target.name
        wait_until("DGD %s Ready" % name, lambda: (condition(self.env.dgd(name, ns) or {}, "Ready") or {}).get(
            "status") == "True", timeout=180)

    def _port_forward(self, cmd):
        words = self.shell.words(cmd)
        # kubectl port-forward svc/NAME LOCAL:REMOTE -n NS
        svc = [w for w in words if w.startswith("svc/")][0][len("svc/"):]
        local = [w for w in words if re.fullmatch(r"\d+:\d+", w)][0].split(":")[0]
        ns = words[words.index("-n") + 1]
        # Where the Service's pods lead in kube-sim: the stand-in frontend.
        self.env.sim.admin("/sim/v1/services/proxy", "POST", {"namespace": ns, "name": svc, "url": self.standin.url})
        # The page's command, as in the user's other terminal: it keeps running.
        self._stop_port_forward()
        proc = subprocess.Popen(["kubectl"] + words, env=self.shell_env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)

        def outcome():
            if proc.poll() is not None:
                return "exited"
            try:
                socket.create_connection(("127.0.0.1", int(local)), timeout=1).close()
                return "listening"
            except OSError:
                return None
        if wait_until("kubectl port-forward to listen or exit", outcome, timeout=60) != "listening":
            raise AssertionError("%s: the page's command exited (%s):\n$ %s\n%s" % (
                self.target.recipe, proc.returncode, cmd, proc.stderr.read()))
        self.port_forward = proc
        self.ran.append(cmd)

    def _stop_port_forward(self):
        if self.port_forward is not None:
            self.port_forward.terminate()
            self.port_forward.wait(timeout=10)
            self.port_forward = None

    # -- what the user checks afterwards --------------------------------------------
    def check_outcome(self):
        t, ns = self.target, self.namespace()
        self._wait_ready()
        d = self.env.dgd(t.name, ns)
        cache = condition(d, "ModelCacheReady")
        assert cache and cache["status"] == "True" and "Job model-download completed" in cache["message"], (
            "%s: the DGD does not use the page's completed download: %r" % (t.recipe, cache))
        jobs = [j["metadata"]["name"] for j in self.env.items("jobs", ns, "nvidia.com/model-cache=" + t.claim)]
        assert jobs == ["model-download"], "%s: downloads into %s: %s (the model downloaded twice)" % (
            t.recipe, t.claim, jobs)
        assert self.curl_outputs, t.recipe + ": the page's curl did not run"
        answer = json.loads(self.curl_outputs[-1])
        content = answer["choices"][0]["message"].get("content")
        assert content, "%s: the smoke answer is empty: %s" % (t.recipe, answer)
        last = self.standin.requests()["last"]
        assert last["model"] == t.model, (t.recipe, last)

    def report(self):
        print("%s: %d commands verbatim, %d stood in" % (self.target.recipe, len(self.ran), len(self.stood_in)))
        for cmd, instead in self.stood_in:
            print("  stood in: %s\n        by: %s" % (cmd.split("\n")[0], instead))


PAUSES = [
    ("kubectl wait --for=condition=Ready pod -l ...", "until the graph's pods exist: kubectl wait takes the pods "
     "present when it starts and fails when there are none yet"),
    ("kubectl port-forward ...", "until the DGD is Ready (the V4.1 page has no wait command)"),
]


def print_substitutions():
    print("Commands the replay cannot run verbatim on kube-sim, and why:")
    for what, why in SUBSTITUTIONS:
        print("  %s: %s" % (what, why))
    print("Where the replay pauses as a user does (polling, no fixed sleep):")
    for what, why in PAUSES:
        print("  before %s: %s" % (what, why))


def unused(page_commands, used):
    """Commands of the page no target ran or stood in for: must be none."""
    return [c for _, c in page_commands if c not in used]


def replay_page(page_name, recipes, skip=lambda target: (lambda cmd: False), prepare=None, check=None):
    """Replays the page for each recipe of `recipes` and returns the exit status.

    skip(target): which commands of the page the target does not run; prepare(replay): what
    the page's prose asks for, run before the target's first command that is not an
    `export`; check(replay): the page's own outcome, after the graph is checked Ready.
    Fails when a command of the page ran for no target."""
    from servinglib import Standin  # after enter_private_network(): it serves on the private network

    page = commands(page_name)
    print("%s: %d commands on the page" % (page_name, len(page)))
    print_substitutions()
    targets = [Target(r) for r in recipes]
    used = set()
    with Standin(mode="ready") as standin:
        for t in targets:
            with Replay(t, standin) as r:
                prepared = prepare is None
                for _, cmd in select(page, t, [o for o in targets if o is not t], skip=skip(t)):
                    if not prepared and not cmd.startswith("export "):
                        prepare(r)
                        prepared = True
                    r.run(cmd)
                    used.add(cmd)
                r.check_outcome()
                if check:
                    check(r)
                r.report()
    left = unused(page, used)
    assert not left, "commands of the page no target ran: %s" % left
    print("ok: every command of the %s page ran" % page_name)
    return 0
