"""Helpers of the serving e2e tests: the OpenAI stand-in (tests/standin/openai_standin.py)
as a context manager, and running `dgdctl smoke`.

    with Standin(mode="ready") as s:
        s.url                       # http://127.0.0.1:PORT
        s.set_mode("empty")         # default mode; s.set_mode("hang", model="m") per model
        s.requests()                # {"total", "byModel", "last": <last request body>}
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from binaries import find_binary  # noqa: E402

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PYTHON = "/usr/bin/python3"
STANDIN = os.path.join(ROOT, "tests", "standin", "openai_standin.py")
MODEL = "deepseek-ai/DeepSeek-V4.1-Flash"


def find_dgdctl():
    return find_binary("DGDCTL", "dgdctl")


class Standin:
    def __init__(self, mode="ready", delay=2.0):
        self.mode = mode
        self.delay = delay
        self.proc = None
        self.dir = None
        self.url = None

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="standin-")
        port_file = os.path.join(self.dir, "port")
        self.log_path = os.path.join(self.dir, "standin.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen([PYTHON, STANDIN, "--port", "0", "--port-file", port_file, "--mode", self.mode,
                                      "--delay", str(self.delay)], stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while not os.path.exists(port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("stand-in did not start:\n" + open(self.log_path).read())
            time.sleep(0.02)
        with open(port_file) as f:
            self.url = "http://127.0.0.1:" + f.read().strip()
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()
            self._log = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _call(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method="POST" if body is not None else "GET",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def set_mode(self, mode, model=None, delay=None):
        body = {"mode": mode}
        if model:
            body["model"] = model
        if delay is not None:
            body["delay"] = delay
        self._call("/admin/mode", body)

    def requests(self):
        return self._call("/admin/requests")


def smoke(*args, env=None, timeout=60):
    """Runs `dgdctl smoke ARGS`; returns (exit code, stdout, stderr)."""
    p = subprocess.run([find_dgdctl(), "smoke"] + [str(a) for a in args], capture_output=True, text=True,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def expect(result, code, *needles):
    rc, out, err = result
    if rc != code or any(n not in out + err for n in needles):
        sys.stderr.write("stdout:\n%s\nstderr:\n%s\n" % (out, err))
        raise AssertionError("dgdctl smoke: exit %d (want %d), want %r in the output" % (rc, code, needles))
    return out
