"""Test harness for kube-sim (tests/kubesim): start a private server, talk to it.

    from kubesim import KubeSim
    with KubeSim(tls=False, extra_args=[]) as sim:
        sim.kubectl("apply", "-f", path)          # KUBECONFIG + private KUBECACHEDIR set
        out = sim.kubectl("get", "cm", "-o", "json").stdout
        sim.requests(since=0)                     # the server's request log
        sim.counters()                            # counts by verb/resource/userAgent/code
        sim.admin("/sim/v1/compact", "POST")      # any admin endpoint
        api = sim.python_client()                 # kubernetes.client.ApiClient

Each instance listens on a free port (--listen 127.0.0.1:0) with its own temp dir,
so tests run in parallel. The binary comes from $KUBE_SIM (set by ctest), else the
usual build directories. Stop is SIGTERM (the server exits 0 within about 1 s).

Deadlines here (start, kubectl, requests) only bound how long a broken run waits; none is
a synchronisation. DGD_TEST_TIME_FACTOR (default 1, `make test-sanitize` sets 5) lengthens
them for slow builds and loaded machines; no assertion changes with it.
"""
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import yaml

import binaries

TIME_FACTOR = max(1.0, float(os.environ.get("DGD_TEST_TIME_FACTOR") or "1"))


def deadline_seconds(seconds):
    """A failure deadline of `seconds` on an unloaded machine, scaled by DGD_TEST_TIME_FACTOR."""
    return seconds * TIME_FACTOR


def find_binary():
    return binaries.find_binary("KUBE_SIM", os.path.join("tests", "kubesim", "kube-sim"))


class KubectlError(RuntimeError):
    def __init__(self, args, proc):
        super().__init__("kubectl %s failed (%d):\nstdout: %s\nstderr: %s" % (
            " ".join(args), proc.returncode, proc.stdout, proc.stderr))
        self.proc = proc


class KubeSim:
    def __init__(self, tls=False, extra_args=None, data=None, start_timeout=60):
        self.tls = tls
        self.extra_args = list(extra_args or [])
        self.data = data
        self.start_timeout = start_timeout
        self.proc = None
        self.dir = None
        self.kubeconfig = None
        self.url = None
        self.cachedir = None
        self._config = None

    # -- lifecycle ---------------------------------------------------------
    def start(self):
        self.dir = tempfile.mkdtemp(prefix="kubesim-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.cachedir = os.path.join(self.dir, "kube-cache")
        args = [find_binary(), "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig]
        if self.tls:
            args.append("--tls")
        if self.data:
            args += ["--data", self.data]
        args += self.extra_args
        self.log_path = os.path.join(self.dir, "kube-sim.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.time() + deadline_seconds(self.start_timeout)
        while not os.path.exists(self.kubeconfig):
            if self.proc.poll() is not None:
                raise RuntimeError("kube-sim exited with %d:\n%s" % (self.proc.returncode, self.log()))
            if time.time() > deadline:
                self.stop()
                raise RuntimeError("kube-sim did not write its kubeconfig in time:\n" + self.log())
            time.sleep(0.02)
        with open(self.kubeconfig) as f:
            self._config = yaml.safe_load(f)
        self.url = self._config["clusters"][0]["cluster"]["server"]
        return self

    def stop(self, timeout=10):
        """SIGTERM; returns the exit code."""
        code = None
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait()
        elif self.proc:
            code = self.proc.returncode
        if getattr(self, "_log", None):
            self._log.close()
            self._log = None
        return code

    def cleanup(self):
        if self.dir and not os.environ.get("KUBESIM_KEEP"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        self.cleanup()
        return False

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""

    # -- clients -----------------------------------------------------------
    def env(self):
        env = dict(os.environ)
        env["KUBECONFIG"] = self.kubeconfig
        env["KUBECACHEDIR"] = self.cachedir
        return env

    def kubectl(self, *args, check=True, input=None, timeout=180):
        """Runs kubectl against this server; returns CompletedProcess (text)."""
        args = [str(a) for a in args]
        proc = subprocess.run(["kubectl"] + args, env=self.env(), input=input, capture_output=True,
                              text=True, timeout=deadline_seconds(timeout))
        if check and proc.returncode != 0:
            raise KubectlError(args, proc)
        return proc

    def kubectl_json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def _ssl_context(self):
        if not self.tls:
            return None
        import base64
        user = self._config["users"][0]["user"]
        cluster = self._config["clusters"][0]["cluster"]
        ctx = ssl.create_default_context(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
        if "client-certificate-data" in user:
            cert = os.path.join(self.dir, "admin.crt")
            key = os.path.join(self.dir, "admin.key")
            if not os.path.exists(cert):
                with open(cert, "wb") as f:
                    f.write(base64.b64decode(user["client-certificate-data"]))
                with open(key, "wb") as f:
                    f.write(base64.b64decode(user["client-key-data"]))
            ctx.load_cert_chain(cert, key)
        return ctx

    def request(self, path, method="GET", body=None, headers=None, timeout=30):
        """Raw HTTP to the server as the admin; returns (status, parsed-JSON-or-text)."""
        data = None
        hdrs = dict(headers or {})
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            if isinstance(data, str):
                data = data.encode()
            hdrs.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=deadline_seconds(timeout), context=self._ssl_context()) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def admin(self, path, method="GET", body=None):
        if not path.startswith("/"):
            path = "/sim/v1/" + path
        status, out = self.request(path, method, body)
        if status >= 300:
            raise RuntimeError("admin %s %s: %d %s" % (method, path, status, out))
        return out

    def requests(self, since=0):
        """Request log entries with seq > since (dicts: seq, verb, resource, userAgent, code, ...)."""
        return self.admin("/sim/v1/requests?since=%d" % since)["items"]

    def counters(self):
        return self.admin("/sim/v1/counters")

    def python_client(self):
        """A kubernetes.client.ApiClient configured from this server's kubeconfig."""
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=cfg)
        return client.ApiClient(cfg)

    # -- faults (docs/kube-sim.md, "Faults") ------------------------------------
    def set_chaos(self, **profile):
        """Random faults from now on, e.g. set_chaos(seed=7, throttle=0.05, userAgents=["dgd-operator"])."""
        return self.admin_retry("/sim/v1/chaos", "PUT", profile)

    def clear_chaos(self):
        """No more random faults; returns {"enabled": False, "injected": {kind: count}}."""
        return self.admin_retry("/sim/v1/chaos", "DELETE")

    def faults_injected(self):
        """Faults injected so far by kind (latency, conflict, throttle, serverError500/503,
        watchCut, watchCutEvery, watchExpired, outage, restart, status<code>)."""
        return self.admin_retry("/sim/v1/chaos")["injected"]

    def outage(self, seconds=1.0):
        """Connections refused for `seconds` (asynchronous: returns at once; waits for a
        previous outage to end first)."""
        return self._take_down("/sim/v1/outage", seconds)

    def restart_server(self, seconds=0.5):
        """A restart that keeps the data: connections cut and refused for `seconds`, then the
        same store on the same port with an empty event history (watch resumes get 410)."""
        return self._take_down("/sim/v1/restart", seconds)

    def _take_down(self, path, seconds):
        end = time.time() + 60
        while True:
            status, out = self.request_retry(path, "POST", {"seconds": seconds})
            if status == 202:
                return out
            if status != 409 or time.time() > end:
                raise RuntimeError("POST %s: %d %s" % (path, status, out))
            time.sleep(0.1)

    def request_retry(self, path, method="GET", body=None, headers=None, deadline=60):
        """request() that rides out outages: retries connection errors, 429 and 5xx."""
        end = time.time() + deadline
        while True:
            try:
                status, out = self.request(path, method, body, headers, timeout=10)
                if status != 429 and status < 500:
                    return status, out
            except (urllib.error.URLError, ConnectionError, OSError):
                status, out = None, None
            if time.time() > end:
                raise RuntimeError("%s %s: server unavailable (last %r %r)" % (method, path, status, out))
            time.sleep(0.1)

    def admin_retry(self, path, method="GET", body=None, deadline=60):
        status, out = self.request_retry(path, method, body, deadline=deadline)
        if status >= 300:
            raise RuntimeError("admin %s %s: %d %s" % (method, path, status, out))
        return out
