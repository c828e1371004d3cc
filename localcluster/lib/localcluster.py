"""A local Kubernetes cluster of real parts: etcd, kube-apiserver, kube-controller-manager
and kube-scheduler built from Kubernetes' own modules (localcluster/toolchain), with KWOK
playing the kubelets of simulated GPU nodes from a profile (localcluster/profiles).

    with LocalCluster(profile="h200-4x") as c:
        c.kubectl("apply", "-f", path)            # the cluster's own kubectl, admin kubeconfig
        c.kubectl_json("get", "pods", "-A")
        c.audit(since=0)                          # the API server's audit log, one dict a request
        api = c.python_client()                   # kubernetes.client.ApiClient

Every instance is private: its own directory, its own etcd data on tmpfs, ports the OS
picks on 127.0.0.1, so tests run in parallel. Deadlines here only bound how long a broken
start waits; readiness is always a condition (/readyz, a node Ready), never a sleep.
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import yaml

import node_profiles
from pki import Pki

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)                     # localcluster/
SOURCE = os.path.dirname(ROOT)                   # the repository
TIME_FACTOR = max(1.0, float(os.environ.get("DGD_TEST_TIME_FACTOR") or "1"))
COMPONENTS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok",
              "compute-domain-controller")
PYTHON = "/usr/bin/python3"   # Debian's: it has python3-kubernetes
SERVICE_CIDR = "10.96.0.0/16"


def deadline_seconds(seconds):
    return seconds * TIME_FACTOR


_toolchain_bin = None


def toolchain_bin():
    """The directory of the built programs: $DGD_TOOLCHAIN_BIN, else what
    localcluster/toolchain/build.sh prints (it builds only what its cache lacks)."""
    global _toolchain_bin
    if _toolchain_bin:
        return _toolchain_bin
    d = os.environ.get("DGD_TOOLCHAIN_BIN")
    if not d:
        out = subprocess.run(["bash", os.path.join(ROOT, "toolchain", "build.sh")], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        d = out.strip().splitlines()[-1]
    for c in COMPONENTS[:5] + ("kubectl",):
        if not os.access(os.path.join(d, c), os.X_OK):
            raise RuntimeError("%s has no %s: run localcluster/toolchain/build.sh" % (d, c))
    _toolchain_bin = d
    return d


def free_port():
    """A port the OS picks. It is free when returned; a component that loses it to another
    process in the meantime fails to bind, and start() tries again with new ports."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kubeconfig(server, ca, cert, key, user):
    return {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": server, "certificate-authority": ca}}],
        "users": [{"name": user, "user": {"client-certificate": cert, "client-key": key}}],
        "contexts": [{"name": user + "@local", "context": {"cluster": "local", "user": user}}],
        "current-context": user + "@local",
    }


def _duration_ms(seconds):
    return str(int(round(float(seconds) * 1000)))


class KubectlError(RuntimeError):
    def __init__(self, args, proc):
        super().__init__("kubectl %s failed (%d):\nstdout: %s\nstderr: %s" % (
            " ".join(args), proc.returncode, proc.stdout, proc.stderr))
        self.proc = proc


class LocalCluster:
    """start_delay / ready_delay / job_duration / termination_delay: seconds of the KWOK
    stages (localcluster/kwok/stages.yaml), per pod overridable by annotations.
    workdir: where certificates, kubeconfigs, logs and the audit log go (a new temp dir by
    default); etcd's data is on /dev/shm. apiserver_args: extra kube-apiserver flags."""

    def __init__(self, profile="h200-4x", workdir=None, start_delay=0.1, ready_delay=0.1,
                 job_duration=0.5, termination_delay=0.1, apiserver_args=(), pod_cidr="10.244.0.0/16",
                 crds=True):
        self.profile = node_profiles.load(profile) if profile else None
        self.workdir = workdir
        self.delays = {"START_DELAY_MS": _duration_ms(start_delay), "READY_DELAY_MS": _duration_ms(ready_delay),
                       "JOB_DURATION_MS": _duration_ms(job_duration),
                       "TERMINATION_DELAY_MS": _duration_ms(termination_delay)}
        self.apiserver_args = list(apiserver_args)
        self.pod_cidr = pod_cidr
        self.install_crds = crds
        self.procs = {}
        self.logs = {}
        self.ports = {}
        self.url = None
        self.kubeconfig = None
        self._owns_workdir = workdir is None

    # -- lifecycle -------------------------------------------------------------
    def start(self):
        self.bin = toolchain_bin()
        if self.workdir is None:
            self.workdir = tempfile.mkdtemp(prefix="localcluster-")
        os.makedirs(self.workdir, exist_ok=True)
        self.etcd_dir = tempfile.mkdtemp(prefix="localcluster-etcd-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.audit_path = self.path("audit.log")
        self.cachedir = self.path("kube-cache")
        self._make_pki()
        for attempt in range(3):
            self.ports = {k: free_port() for k in ("etcd", "etcd-peer", "apiserver", "kwok")}
            try:
                self._start_etcd()
                self._start_apiserver()
                break
            except _PortTaken:
                self._stop_all()
                if attempt == 2:
                    raise
        self._write_kubeconfigs()
        self._start("kube-controller-manager", self._controller_manager_args())
        self._start("kube-scheduler", self._scheduler_args())
        self._write_kwok_config()
        self._start("kwok", self._kwok_args())
        self._start_compute_domain_controller()
        self._seed()
        return self

    def stop(self):
        self._stop_all()

    def cleanup(self):
        shutil.rmtree(getattr(self, "etcd_dir", "") or "/nonexistent", ignore_errors=True)
        if self._owns_workdir and self.workdir and not os.environ.get("LOCALCLUSTER_KEEP"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            self.cleanup()
            raise

    def __exit__(self, *exc):
        self.stop()
        self.cleanup()
        return False

    def path(self, name):
        return os.path.join(self.workdir, name)

    # -- certificates and kubeconfigs -------------------------------------------
    def _make_pki(self):
        pki = self.pki = Pki(self.path("pki"))
        pki.issue_server("apiserver", ["127.0.0.1", "localhost", "10.96.0.1", "kubernetes",
                                       "kubernetes.default", "kubernetes.default.svc",
                                       "kubernetes.default.svc.cluster.local"])
        pki.issue_server("kwok", ["127.0.0.1", "localhost"])
        pki.issue_client("admin", "kubernetes-admin", ["system:masters"])
        pki.issue_client("kube-controller-manager", "system:kube-controller-manager")
        pki.issue_client("kube-scheduler", "system:kube-scheduler")
        # KWOK writes the status of every node and pod and deletes pods, as many kubelets would.
        pki.issue_client("kwok", "kwok-controller", ["system:masters"])
        pki.issue_client("compute-domain-controller", "compute-domain-controller", ["system:masters"])
        # The API server's client identity towards kubelets (KWOK's server): port-forward, logs, exec.
        pki.issue_client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", ["kubeadm:cluster-admins"])
        self.sa_key, self.sa_pub = pki.service_account_key()

    def _write_kubeconfigs(self):
        self.url = "https://127.0.0.1:%d" % self.ports["apiserver"]
        p = self.pki
        for name, user in (("admin", "kubernetes-admin"), ("kube-controller-manager", "system:kube-controller-manager"),
                           ("kube-scheduler", "system:kube-scheduler"), ("kwok", "kwok-controller"),
                           ("compute-domain-controller", "compute-domain-controller")):
            cfg = _kubeconfig(self.url, p.ca_path, p.path(name + ".crt"), p.path(name + ".key"), user)
            with open(self.path(name + ".kubeconfig"), "w") as f:
                yaml.safe_dump(cfg, f)
        self.kubeconfig = self.path("admin.kubeconfig")

    # -- components ---------------------------------------------------------------
    def _start(self, name, args, program=None):
        log = open(self.path(name + ".log"), "a")
        self.logs[name] = log
        self.procs[name] = subprocess.Popen((program or [os.path.join(self.bin, name)]) + args, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        return self.procs[name]

    def _start_compute_domain_controller(self):
        self._start("compute-domain-controller", ["--kubeconfig", self.path("compute-domain-controller.kubeconfig")],
                    program=[PYTHON, os.path.join(HERE, "compute_domains.py")])

    def log(self, name):
        try:
            with open(self.path(name + ".log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _wait(self, name, ready, what, timeout=60):
        deadline = time.time() + deadline_seconds(timeout)
        while not ready():
            proc = self.procs[name]
            if proc.poll() is not None:
                text = self.log(name)
                if "address already in use" in text:
                    raise _PortTaken(name)
                raise RuntimeError("%s exited with %d before %s:\n%s" % (name, proc.returncode, what, text[-4000:]))
            if time.time() > deadline:
                raise RuntimeError("%s: no %s after %ds:\n%s" % (name, what, timeout, self.log(name)[-4000:]))
            time.sleep(0.05)

    def _etcd_args(self):
        client = "http://127.0.0.1:%d" % self.ports["etcd"]
        peer = "http://127.0.0.1:%d" % self.ports["etcd-peer"]
        return ["--name", "local", "--data-dir", self.etcd_dir, "--unsafe-no-fsync",
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "local=" + peer, "--log-level", "warn",
                # The API server compacts every 5 minutes itself; etcd keeps no extra history.
                "--auto-compaction-retention", "0"]

    def etcd_url(self):
        return "http://127.0.0.1:%d" % self.ports["etcd"]

    def _start_etcd(self):
        self._start("etcd", self._etcd_args())
        self._wait("etcd", lambda: self._http_ok(self.etcd_url() + "/health"), "health")

    def _apiserver_args(self):
        p = self.pki
        return [
            "--etcd-servers", self.etcd_url(),
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
            "--secure-port", str(self.ports["apiserver"]),
            "--tls-cert-file", p.path("apiserver.crt"), "--tls-private-key-file", p.path("apiserver.key"),
            "--client-ca-file", p.ca_path,
            "--authorization-mode", "Node,RBAC",
            "--service-cluster-ip-range", SERVICE_CIDR,
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", self.sa_pub,
            "--service-account-signing-key-file", self.sa_key,
            "--api-audiences", "https://kubernetes.default.svc.cluster.local",
            "--kubelet-client-certificate", p.path("apiserver-kubelet-client.crt"),
            "--kubelet-client-key", p.path("apiserver-kubelet-client.key"),
            "--kubelet-preferred-address-types", "InternalIP",
            "--allow-privileged=true",
            "--enable-priority-and-fairness=true",
            "--audit-policy-file", os.path.join(ROOT, "config", "audit-policy.yaml"),
            "--audit-log-path", self.audit_path, "--audit-log-format", "json",
            "--audit-log-mode", "blocking", "--audit-log-maxbackup", "0", "--audit-log-maxsize", "0",
            # The `kubernetes` Service cannot point at 127.0.0.1 (loopback endpoints are invalid),
            # and nothing in the cluster dials it: KWOK's pods run no processes.
            "--endpoint-reconciler-type", "none",
            "--profiling=false", "--v", "1",
        ] + self.apiserver_args

    def _start_apiserver(self):
        self._start("kube-apiserver", self._apiserver_args())
        url = "https://127.0.0.1:%d/readyz" % self.ports["apiserver"]
        self._wait("kube-apiserver", lambda: self._https_ok(url), "/readyz ok", timeout=120)

    def _controller_manager_args(self):
        p = self.pki
        kc = self.path("kube-controller-manager.kubeconfig")
        return ["--kubeconfig", kc, "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
                "--root-ca-file", p.ca_path, "--service-account-private-key-file", self.sa_key,
                "--use-service-account-credentials=true",
                "--cluster-signing-cert-file", p.ca_path, "--cluster-signing-key-file", p.ca_key_path,
                "--service-cluster-ip-range", SERVICE_CIDR,
                "--leader-elect=false", "--secure-port", "0", "--v", "1",
                # A claim created just after its volumes is bound at the next resync (15 s by
                # default), as on a cluster with static volumes; 2 s keeps tests short.
                "--pvclaimbinder-sync-period", "2s",
                "--controllers", "*"]

    def _scheduler_args(self):
        kc = self.path("kube-scheduler.kubeconfig")
        return ["--kubeconfig", kc, "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
                "--leader-elect=false", "--secure-port", "0", "--v", "1"]

    def _write_kwok_config(self):
        with open(os.path.join(ROOT, "kwok", "stages.yaml")) as f:
            text = f.read()
        for k, v in self.delays.items():
            text = text.replace("@%s@" % k, v)
        self.kwok_config = self.path("kwok.yaml")
        with open(self.kwok_config, "w") as f:
            f.write(text)

    def _kwok_args(self):
        p = self.pki
        return ["--kubeconfig", self.path("kwok.kubeconfig"), "--config", self.kwok_config,
                "--manage-all-nodes=true", "--cidr", self.pod_cidr, "--node-ip", "127.0.0.1",
                "--node-port", str(self.ports["kwok"]),
                "--server-address", "127.0.0.1:%d" % self.ports["kwok"],
                "--tls-cert-file", p.path("kwok.crt"), "--tls-private-key-file", p.path("kwok.key"),
                "--node-lease-duration-seconds", "40", "-v", "WARN"]

    def _stop_all(self):
        for name in reversed(COMPONENTS):
            self.stop_component(name)

    def stop_component(self, name, sig=signal.SIGTERM, timeout=20):
        proc = self.procs.pop(name, None)
        if proc and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log = self.logs.pop(name, None)
        if log:
            log.close()

    # -- seeding -----------------------------------------------------------------------
    def _seed(self):
        objs = []
        if self.profile:
            objs += node_profiles.objects(self.profile, self.path("volumes"))
        if objs:
            self.kubectl("create", "-f", "-", input=yaml.safe_dump_all(objs))
        if self.install_crds:
            self.apply_crds()
        if self.profile:
            want = len(node_profiles.nodes(self.profile))
            self.wait_for(lambda: self._ready_nodes() == want, "%d nodes Ready and schedulable" % want, timeout=120)

    def apply_crds(self):
        """The project's CRDs and the third-party ones the recipes use, established."""
        paths = [os.path.join(SOURCE, "crds"), os.path.join(ROOT, "crds")]
        args = ["apply", "--server-side"]
        for p in paths:
            if os.path.isdir(p):
                args += ["-f", p]
        names = self.kubectl(*args, "-o", "name").stdout.split()

        def established():
            crds = self.kubectl_json("get", *names)
            crds = crds.get("items", [crds])
            return all(any(c.get("type") == "Established" and c.get("status") == "True"
                           for c in (crd.get("status") or {}).get("conditions") or []) for crd in crds)
        self.wait_for(established, "CRDs established")

    def _ready_nodes(self):
        """Nodes Ready whose not-ready taint the node controller has taken away again."""
        out = self.kubectl("get", "nodes", "-o", "json", check=False)
        if out.returncode != 0:
            return 0
        n = 0
        for node in json.loads(out.stdout)["items"]:
            ready = any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions") or [])
            tainted = any(t["key"].startswith("node.kubernetes.io/") for t in node["spec"].get("taints") or [])
            n += ready and not tainted
        return n

    def wait_for(self, cond, what, timeout=60):
        deadline = time.time() + deadline_seconds(timeout)
        while not cond():
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError("%s exited with %d while waiting for %s:\n%s" % (
                        name, proc.returncode, what, self.log(name)[-4000:]))
            if time.time() > deadline:
                raise RuntimeError("no %s after %ds" % (what, timeout))
            time.sleep(0.1)

    # -- clients -------------------------------------------------------------------
    def env(self, kubeconfig=None):
        env = dict(os.environ)
        env["KUBECONFIG"] = kubeconfig or self.kubeconfig
        env["KUBECACHEDIR"] = self.cachedir
        env["PATH"] = self.bin + os.pathsep + env.get("PATH", "")
        return env

    def kubectl(self, *args, check=True, input=None, timeout=180, kubeconfig=None):
        args = [str(a) for a in args]
        proc = subprocess.run([os.path.join(self.bin, "kubectl")] + args, env=self.env(kubeconfig), input=input,
                              capture_output=True, text=True, timeout=deadline_seconds(timeout))
        if check and proc.returncode != 0:
            raise KubectlError(args, proc)
        return proc

    def kubectl_json(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def ssl_context(self):
        ctx = ssl.create_default_context(cafile=self.pki.ca_path)
        ctx.load_cert_chain(self.pki.path("admin.crt"), self.pki.path("admin.key"))
        return ctx

    def _https_ok(self, url):
        try:
            with urllib.request.urlopen(url, timeout=2, context=self.ssl_context()) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError, ssl.SSLError):
            return False

    @staticmethod
    def _http_ok(url):
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def request(self, path, method="GET", body=None, headers=None, timeout=30):
        """Raw HTTPS to the API server as the admin; returns (status, parsed JSON or text)."""
        data = None
        hdrs = dict(headers or {})
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            data = data.encode() if isinstance(data, str) else data
            hdrs.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=deadline_seconds(timeout), context=self.ssl_context()) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def python_client(self, kubeconfig=None):
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=kubeconfig or self.kubeconfig, client_configuration=cfg)
        return client.ApiClient(cfg)

    def audit(self, since=0):
        """Audit events (dicts) after the first `since` lines of the audit log; see audit_log.py."""
        import audit_log
        return audit_log.read(self.audit_path, since)


class _PortTaken(RuntimeError):
    pass
