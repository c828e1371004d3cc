"""Harness for the operator's end-to-end tests: a private kube-sim with a cluster
profile, the CRDs, and a dgd-operator process against it.

    with OperatorEnv("h200-4x") as env:
        dgd = env.apply_recipe("deepseek-v4.1-flash/vllm/disagg-h200-agentic")
        env.wait_ready(dgd)
        env.operator_writes(since=seq)     # writes the operator made (request log)

Each test file builds its own env (kube-sim and the operator's /metrics on ports they bind
themselves, own temp dir), so ctest -j runs them in parallel. Waits poll with generous
deadlines; nothing asserts a duration. "Nothing happened" is asserted after the operator
has provably processed a change (reconcile_now(), wait_reconciled(): a pass logged with the
DGD's resourceVersion, then an idle work queue), never after a pause.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from binaries import find_binary  # noqa: E402
from kubesim import KubeSim  # noqa: E402
from cluster import Cluster  # noqa: E402
from recipe_paths import recipe_dir, recipe_file  # noqa: E402,F401
from operator_listen import wait_bound_addresses  # noqa: E402
from polling import wait_until  # noqa: E402,F401 (the tests import it from here)
from components import component_deployment, selector  # noqa: E402

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection"}
OPERATOR_UA_PREFIX = "dgd-operator/"
LEASE_UA = "dgd-operator/leader-election"
CONTROLLER = "dynamographdeployment"  # the DGD controller's (and its work queue's) name
MARKER_ANNOTATION = "e2e.nvidia.com/reconcile-marker"

# Recipe -> a cluster profile it fits.
RECIPE_PROFILES = {
    "deepseek-v4-flash/vllm/agg-b200-agentic": "b200-2x",
    "deepseek-v4-flash/vllm/agg-h200-agentic": "h200-4x",
    "deepseek-v4-flash/vllm/disagg-b200-agentic": "b200-2x",
    "deepseek-v4-flash/vllm/disagg-h200-agentic": "h200-4x",
    "deepseek-v4.1-flash/sglang/agg-gb200": "gb200-nvl72",
    "deepseek-v4.1-flash/sglang/disagg-gb200": "gb200-nvl72",
    "deepseek-v4.1-flash/vllm/agg-b200-agentic": "b200-2x",
    "deepseek-v4.1-flash/vllm/agg-gb200-agentic": "gb200-nvl72",
    "deepseek-v4.1-flash/vllm/agg-h200-agentic": "h200-4x",
    "deepseek-v4.1-flash/vllm/disagg-b200-agentic": "b200-2x",
    "deepseek-v4.1-flash/vllm/disagg-gb200-agentic": "gb200-nvl72",
    "deepseek-v4.1-flash/vllm/disagg-h200-agentic": "h200-4x",
}


def find_operator():
    return find_binary("DGD_OPERATOR", "dgd-operator")


def dgd_name_of(recipe):
    """metadata.name of a recipe's deploy.yaml (what the recipe page's awk line extracts)."""
    import yaml
    with open(recipe_file(recipe)) as f:
        return yaml.safe_load(f)["metadata"]["name"]


def condition(obj, ctype):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


class OperatorEnv:
    def __init__(self, profile="h200-4x", sim_args=None, operator_args=None, crds=True, start=True, local=False):
        """local=True: the local cluster of real parts (tests/e2e/lib/cluster.py: kube-apiserver,
        etcd, controller-manager, scheduler, KWOK nodes from localcluster/profiles) instead of
        kube-sim; sim_args are kube-sim's and do not apply there."""
        self.local = local
        self.profile = profile
        self.start = start  # False: the test calls start_operator() itself
        self.sim_args = list(sim_args or [])
        self.operator_args = list(operator_args or [])
        self.crds = crds
        self.sim = None
        self.op = None
        self.op_log_path = None
        self._log_level = None
        self._op_logs = []
        self._metrics_address = None
        self._markers = 0

    # -- lifecycle ------------------------------------------------------------
    def __enter__(self):
        args = []
        if self.profile and not self.local:
            # Fast kubelets and download Jobs. The download Job's pod does not carry the
            # DGD label, so the seed page's `kubectl wait ... pod -l <dgd label>` does
            # not wait on a Completed (never Ready) pod.
            args += ["--profile", os.path.join(ROOT, "tests", "kubesim", "profiles", self.profile + ".yaml"),
                     "--kubelet-start-delay", "0.2", "--kubelet-ready-delay", "0.5", "--job-duration", "0.5",
                     "--pod-termination-delay", "0.2"]
        if self.local:
            self.sim = Cluster(profile=self.profile, crds=False)
        else:
            self.sim = KubeSim(extra_args=args + self.sim_args)
        try:
            self.sim.start()
            if self.crds:
                self.install_crds()
            if self.start:
                self.start_operator()
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.op is not None:
            self.stop_operator(check=False)
        if exc_type is not None:
            sys.stderr.write("---- operator log (tail) ----\n%s\n" % "\n".join(self.operator_log().splitlines()[-60:]))
            if self.local:
                state = self.kubectl("get", "dgd,deploy,rs,pods,jobs,pvc", "-A", "-o", "wide", check=False)
                sys.stderr.write("---- cluster state ----\n%s\n" % (state.stdout + state.stderr))
                for c in ("kube-apiserver", "kube-controller-manager", "kwok"):
                    sys.stderr.write("---- %s log (tail) ----\n%s\n" % (c, "\n".join(self.sim.log(c).splitlines()[-20:])))
            else:
                sys.stderr.write("---- kube-sim log (tail) ----\n%s\n" % "\n".join(self.sim.log().splitlines()[-30:]))
        self.sim.stop()
        self.sim.cleanup()
        return False

    def install_crds(self):
        if self.local:
            self.sim.apply_crds()
            return
        self.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
        self.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com",
                     "--timeout=30s")

    def start_operator(self, extra=None, kubeconfig=None, log_level="debug", lease_namespace="default"):
        """Starts dgd-operator with kube-sim's admin kubeconfig, or `kubeconfig`."""
        assert self.op is None
        self.op_log_path = os.path.join(self.sim.dir, "operator-%d.log" % len(self._op_logs))
        self._log_level = log_level
        self._op_logs.append(self.op_log_path)
        log = open(self.op_log_path, "w")
        # /metrics on a port the operator binds itself (it logs the port).
        self._metrics_address = None
        args = [find_operator(), "run", "--kubeconfig", kubeconfig or self.sim.kubeconfig, "--metrics-addr",
                "127.0.0.1:0", "--health-addr", "0", "--leader-election-namespace", lease_namespace,
                "--log-level", log_level]
        self.op = subprocess.Popen(args + self.operator_args + list(extra or []), stdout=log,
                                   stderr=subprocess.STDOUT)
        log.close()

    def stop_operator(self, check=True, timeout=30):
        """SIGTERM; the operator drains and exits 0."""
        p, self.op = self.op, None
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
                if check:
                    raise AssertionError("operator did not exit within %d s of SIGTERM" % timeout)
        else:
            rc = p.returncode
        if check and rc != 0:
            raise AssertionError("operator exited %d:\n%s" % (rc, self.operator_log()))
        return rc

    def operator_alive(self):
        return self.op is not None and self.op.poll() is None

    def operator_log(self):
        out = []
        for path in self._op_logs:
            try:
                with open(path) as f:
                    out.append(f.read())
            except OSError:
                pass
        return "\n".join(out)

    # -- kubectl ----------------------------------------------------------------
    def kubectl(self, *args, **kw):
        return self.sim.kubectl(*args, **kw)

    def get(self, kind, name, ns, check=True):
        p = self.kubectl("get", kind, name, "-n", ns, "-o", "json", check=check)
        if p.returncode != 0:
            return None
        return json.loads(p.stdout)

    def items(self, kind, ns, selector=None):
        args = ["get", kind, "-n", ns, "-o", "json"]
        if selector:
            args += ["-l", selector]
        return json.loads(self.kubectl(*args).stdout)["items"]

    # -- scenario steps -----------------------------------------------------------
    def prepare_namespace(self, ns, claim="shared-model-cache", hf_token="test-token"):
        """What the recipe page asks for first: namespace, token secret, model cache PVC."""
        # apply, not the page's `kubectl create`: several recipes of a test share a namespace
        # (the page's commands verbatim are tested in e2e/kubesim/test_kubectl_create.py).
        self.kubectl("apply", "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
        self.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token-secret"},
             "stringData": {"HF_TOKEN": hf_token}}))
        pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": claim},
               "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Ti"}}}}
        self.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(pvc))

    def apply_recipe(self, recipe, ns="dynamo", hf_token="test-token"):
        """kubectl apply -k recipes/<recipe> -n ns; returns the DGD name."""
        import yaml
        with open(recipe_file(recipe)) as f:
            cache = ((yaml.safe_load(f)["spec"].get("model") or {}).get("cache") or {})
        self.prepare_namespace(ns, cache.get("claimName", "shared-model-cache"), hf_token)
        self.kubectl("apply", "-k", recipe_dir(recipe), "-n", ns)
        return dgd_name_of(recipe)

    def deployment_of(self, name, component, ns="dynamo"):
        """The Deployment of `component` of DGD ns/name (the newest worker generation's), or None."""
        return component_deployment(self.items("deployments", ns, selector(name, component)), name, component)

    def dgd(self, name, ns="dynamo"):
        return self.get("dgd", name, ns, check=False)

    def wait_ready(self, name, ns="dynamo", timeout="120s"):
        """The two waits a user runs: pods by the DGD label, then the DGD itself. kubectl
        wait -l fails at once when nothing matches yet, so first wait for the pods to exist."""
        wait_until("pods of " + name, lambda: self.items("pods", ns, "nvidia.com/dynamo-graph-deployment-name=" + name),
                   timeout=120)
        self.kubectl("wait", "--for=condition=Ready", "pod", "-l",
                     "nvidia.com/dynamo-graph-deployment-name=" + name, "-n", ns, "--timeout=" + timeout,
                     timeout=300)
        self.kubectl("wait", "--for=condition=Ready", "dgd/" + name, "-n", ns, "--timeout=" + timeout,
                     timeout=300)

    def ready_status(self, name, ns="dynamo"):
        d = self.dgd(name, ns)
        c = condition(d, "Ready") if d else None
        return c

    def pod_names(self, selector, ns="dynamo"):
        return sorted(p["metadata"]["name"] for p in self.items("pods", ns, selector))

    # -- what the operator has processed -----------------------------------------------
    def metrics_text(self):
        """The running operator's /metrics, as served."""
        if self._metrics_address is None:
            self._metrics_address = wait_bound_addresses(self.op_log_path, self.op, want=("metrics",))["metrics"]
        with urllib.request.urlopen("http://%s/metrics" % self._metrics_address, timeout=10) as r:
            return r.read().decode()

    def metrics(self):
        """The running operator's /metrics: {(name, frozenset of label items): value}."""
        from prometheus_client.parser import text_string_to_metric_families
        out = {}
        for family in text_string_to_metric_families(self.metrics_text()):
            for sample in family.samples:
                out[(sample.name, frozenset(sample.labels.items()))] = sample.value
        return out

    def queue_state(self):
        """The DGD controller's work queue: {"adds", "queued", "taken", "finished"}."""
        m = self.metrics()
        q = frozenset({("name", CONTROLLER)})
        return {"adds": m.get(("workqueue_adds_total", q), 0), "queued": m.get(("workqueue_depth", q), 0),
                "taken": m.get(("workqueue_queue_duration_seconds_count", q), 0),
                "finished": m.get(("workqueue_work_duration_seconds_count", q), 0)}

    def reconciled_versions(self, name, ns="dynamo"):
        """The resourceVersions of DGD ns/name the running operator's passes started from
        (its debug log: "dgd=NS/NAME: reconciling resourceVersion N")."""
        assert self._log_level in ("debug", "trace"), "the passes are logged at debug level"
        line = re.compile(r"dgd=%s: reconciling resourceVersion (\d+)" % re.escape(ns + "/" + name))
        with open(self.op_log_path) as f:
            return [int(v) for v in line.findall(f.read())]

    def wait_reconciled(self, name, ns="dynamo", version=0, what=None, timeout=90):
        """Waits until the running operator has run a pass over DGD ns/name that started from
        resourceVersion `version` or later, and every pass taken from its work queue has
        finished with none queued: the operator has processed that version of the DGD."""
        what = what or "a finished reconcile of %s/%s at resourceVersion >= %d" % (ns, name, version)

        def done():
            if not any(v >= version for v in self.reconciled_versions(name, ns)):
                return False
            q = self.queue_state()
            return q["queued"] == 0 and q["taken"] == q["finished"]
        wait_until(what, done, timeout=timeout)

    def reconcile_now(self, name, ns="dynamo"):
        """Makes the operator reconcile DGD ns/name once more (an annotation: outside spec
        and status, so there is nothing to do) and waits until a pass that saw it has finished."""
        self._markers += 1
        p = self.kubectl("annotate", "dgd", name, "-n", ns, "--overwrite",
                         "%s=%d" % (MARKER_ANNOTATION, self._markers), "-o", "jsonpath={.metadata.resourceVersion}")
        self.wait_reconciled(name, ns, int(p.stdout), "the reconcile of %s/%s after marker %d" % (ns, name, self._markers))

    # -- request log ----------------------------------------------------------------
    def last_seq(self):
        if self.local:
            return self.sim.last_seq()
        return self.sim.admin("/sim/v1/requests?since=%d" % (1 << 62))["lastSeq"]

    def operator_writes(self, since=0):
        """Write requests from the operator's user agent (leader-election lease renewals excluded)."""
        out = []
        for r in self.sim.requests(since=since):
            ua = r.get("userAgent") or r.get("user_agent") or ""
            if not ua.startswith(OPERATOR_UA_PREFIX) or ua.startswith(LEASE_UA):
                continue
            if r.get("verb") in WRITE_VERBS and r.get("resource") != "leases":
                out.append(r)
        return out

