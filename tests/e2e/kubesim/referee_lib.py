"""Helpers shared by the referee suites (test_kubectl_*, test_python_*, test_semantics_*).

The referees are clients nobody here wrote (kubectl v1.32, the Python `kubernetes`
client) plus raw HTTP where a client hides the wire. These helpers only wait, read
and compare; every expectation lives in the tests themselves.
"""
import http.client
import json
import os
import subprocess
import threading
import urllib.parse

from polling import wait_until

SOURCE_DIR = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DGD_CRD = os.path.join(SOURCE_DIR, "crds", "nvidia.com_dynamographdeployments.yaml")
DGD_RECIPE = os.path.join(SOURCE_DIR, "recipes", "deepseek-v4.1-flash", "vllm", "agg-h200-agentic", "deploy.yaml")
CM = "/api/v1/namespaces/default/configmaps"


def poll(what, fn, timeout=20.0, interval=0.05):
    """Calls fn until it returns a truthy value; fails with `what` after `timeout` s."""
    return wait_until(what, fn, timeout, interval)


def expect_status(status, body, code, reason, contains=None):
    """The response is the real server's error: HTTP `code` and a Status body."""
    assert status == code, (status, body)
    assert isinstance(body, dict), body
    assert body.get("kind") == "Status" and body.get("apiVersion") == "v1", body
    assert body.get("status") == "Failure" and body.get("code") == code, body
    assert body.get("reason", "") == reason, body
    if contains:
        assert contains in body.get("message", ""), (contains, body)
    return body


def kubectl_fails(sim, *args, contains=(), input=None):
    """kubectl must exit non-zero and print every string of `contains` on stderr."""
    proc = sim.kubectl(*args, check=False, input=input)
    assert proc.returncode != 0, ("kubectl %s succeeded" % " ".join(map(str, args)), proc.stdout)
    for c in ([contains] if isinstance(contains, str) else contains):
        assert c in proc.stderr, (c, proc.stderr)
    return proc.stderr


def create(sim, path, obj, code=201):
    status, out = sim.request(path, "POST", obj)
    assert status == code, (path, status, out)
    return out


def names(lst):
    return sorted(i["metadata"]["name"] for i in lst["items"])


def gone(sim, path):
    return sim.request(path)[0] == 404


class RawWatch:
    """A watch stream read by a background thread; events accumulate in .events."""

    def __init__(self, sim, path, headers=None):
        u = urllib.parse.urlparse(sim.url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.events = []
        self.ended = False
        self._lock = threading.Lock()
        if self.status == 200:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        else:
            self.body = json.loads(self.resp.read() or b"null")
            self.ended = True

    def _run(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                ev = json.loads(line)
                with self._lock:
                    self.events.append(ev)
        except Exception:  # noqa: BLE001 - a closed or cut stream just ends the reader
            pass
        self.ended = True

    def snapshot(self):
        with self._lock:
            return list(self.events)

    def wait_for(self, what, pred, timeout=20.0):
        return poll(what, lambda: pred(self.snapshot()), timeout)

    def wait_end(self, timeout=20.0):
        poll("end of watch stream", lambda: self.ended, timeout)
        return self.snapshot()

    def close(self):
        try:
            self.conn.sock and self.conn.sock.shutdown(2)
        except OSError:
            pass
        self.conn.close()


class Background:
    """A long-running kubectl (e.g. `get -w`) whose stdout is collected line by line."""

    def __init__(self, sim, *args):
        self.proc = subprocess.Popen(["kubectl"] + [str(a) for a in args], env=sim.env(),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, what, pred, timeout=20.0):
        return poll(what, lambda: pred(list(self.lines)), timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._t.join(5)
        return self.proc.stderr.read()
