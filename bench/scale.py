#!/usr/bin/python3
"""Scale benchmark: the operator converging N DGDs, against the kubectl floor.

    BENCH_N=100,1000 /usr/bin/python3 bench/scale.py        # what `make bench` runs
    BENCH_N=20 BENCH_REST_SECONDS=10 /usr/bin/python3 bench/scale.py   # a quick run

For each N, BENCH_REPEAT (default 3) pairs, interleaved: an operator run, then a floor run,
then the next pair, so that a change of the machine's load falls on both sides of a ratio.
Each pair:
  operator  kube-sim (bench profile sized for N, instant kubelets and Jobs) + dgd-operator
            (Release). N DGDs (a fixed mix of catalog recipes) are server-side applied by
            one kubectl; timed until every DGD is Ready. Then: API requests by verb and
            resource (request log, operator user agent), writes per DGD, operator CPU and
            peak RSS (/proc), kube-sim CPU; 60 s at rest (writes must be 0); an operator
            restart (writes must be 0; time until /readyz says the caches synced); delete
            all DGDs (time until every child and pod is gone).
  floor     a fresh kube-sim with the same flags and namespaces; the same children
            (`dgdctl render` of the same DGDs, namespaces set) server-side applied by
            BENCH_FLOOR_PARALLEL (default 4 = the operator's --concurrency) kubectl
            processes at once, each given the children of every P-th DGD; timed until every
            Deployment has rolled out (updated = ready = available = replicas), which is
            what the DGD's Ready condition waits for.
Model cache (BENCH_CACHE, default warm): `warm` fills every namespace's cache before either
run starts, as a cluster that already serves the model is: the download Jobs (the ones the
operator would create, owned by the PVC) are created and have completed, so the operator
holds no workers back and both runs create the same objects. `cold` starts with empty
caches: the operator creates the Jobs and holds each graph's workers (at replicas 0) until
its Job completes, an ordering the floor, which applies everything at once, does not have.
Timing polls by listing through the API every BENCH_POLL seconds (default 0.25 s, 1 s
from N = 1000): both runs list the Deployments the same way (the operator run then also
waits for the DGDs' Ready condition, a cheaper list). Results: a table on stdout and JSON in BENCH_OUT
(default build-bench/bench-results/scale-N-CACHE.json).

Where the time goes: a per-DGD timeline of one pair (from kube-sim's request log and the
rollout polls), each phase's median and 90th percentile over the DGDs: the DGD stored, its
first and last child written, its Deployments rolled out, Ready written; the floor's
children and rollouts beside it; and kube-sim's CPU seconds per wall second in each run
(near 1: kube-sim's one busy core paces both runs).

The convergence ratio reported is the median of the pairs' ratios; each pair is listed with
the load average at its start. Other figures are the median over the operator runs (writes
at rest and after a restart: the largest).

Environment: BENCH_BUILD (default build-bench), BENCH_OPERATOR (default BENCH_BUILD's
dgd-operator: another build's operator against the same kube-sim and dgdctl), BENCH_N,
BENCH_REPEAT (3), BENCH_REST_SECONDS (60), BENCH_FLOOR_PARALLEL (4), BENCH_POLL,
BENCH_TIMEOUT (seconds per wait, 900), BENCH_SKIP_FLOOR=1, BENCH_SKIP_DELETE=1 (no
delete-all timing), BENCH_OPERATOR_ARGS (extra flags), BENCH_CACHE (warm or cold).
"""
import collections
import datetime
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
BUILD = os.path.abspath(os.environ.get("BENCH_BUILD", os.path.join(ROOT, "build-bench")))
os.environ.setdefault("KUBE_SIM", os.path.join(BUILD, "tests", "kubesim", "kube-sim"))
from kubesim import KubeSim  # noqa: E402
from recipe_paths import recipe_file  # noqa: E402
from operator_listen import wait_bound_addresses  # noqa: E402

DGDCTL = os.path.join(BUILD, "dgdctl")
OPERATOR = os.path.abspath(os.environ.get("BENCH_OPERATOR", os.path.join(BUILD, "dgd-operator")))
REPEAT = max(1, int(os.environ.get("BENCH_REPEAT", "3")))
REST_SECONDS = float(os.environ.get("BENCH_REST_SECONDS", "60"))
FLOOR_PARALLEL = int(os.environ.get("BENCH_FLOOR_PARALLEL", "4"))
POLL = float(os.environ.get("BENCH_POLL", "0"))  # 0: 0.25 s, 1 s from N = 1000
TIMEOUT = float(os.environ.get("BENCH_TIMEOUT", "900"))
CACHE = os.environ.get("BENCH_CACHE", "warm")
if CACHE not in ("warm", "cold"):
    sys.exit("scale: BENCH_CACHE must be warm or cold, not %r" % CACHE)
OUT_DIR = os.environ.get("BENCH_OUT", os.path.join(BUILD, "bench-results"))
OPERATOR_UA = "dgd-operator/"
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection"}
DGDS_PER_NAMESPACE = 10
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The fixed mix (one of each, round robin): the DeepSeek-V4.1-Flash vLLM recipes on H200 and B200,
# aggregated and disaggregated. Short tags keep child names well under 63 characters.
MIX = [
    ("deepseek-v4.1-flash/vllm/agg-h200-agentic", "h2a"),
    ("deepseek-v4.1-flash/vllm/disagg-h200-agentic", "h2d"),
    ("deepseek-v4.1-flash/vllm/agg-b200-agentic", "b2a"),
    ("deepseek-v4.1-flash/vllm/disagg-b200-agentic", "b2d"),
]
CHILD_KINDS = [  # (API path prefix, plural) of what the operator creates
    ("/apis/apps/v1", "deployments"), ("/api/v1", "services"), ("/api/v1", "serviceaccounts"),
    ("/api/v1", "configmaps"), ("/apis/rbac.authorization.k8s.io/v1", "roles"),
    ("/apis/rbac.authorization.k8s.io/v1", "rolebindings"), ("/apis/batch/v1", "jobs"),
    ("/api/v1", "persistentvolumeclaims"),
]
# Children of DGDs. The model-download Job is owned by the namespace's cache PVC, shared
# by the DGDs using it, and outlives them by design: not counted as a DGD's child.
MANAGED = "app.kubernetes.io/managed-by%3Ddgd-operator,!nvidia.com/model-cache"


def log(msg):
    sys.stderr.write("[scale %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


# -- /proc -------------------------------------------------------------------------
def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_for(what, fn, timeout=TIMEOUT, interval=0.25):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise RuntimeError("timed out after %.0f s waiting for %s (last: %r)" % (timeout, what, last))


# -- the workload ------------------------------------------------------------------
def quantity(text, binary_units):
    """A Kubernetes quantity as a number: cpu in millicores ("500m", "10"), memory in bytes."""
    text = str(text)
    suffixes = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "k": 10 ** 3, "M": 10 ** 6,
                "G": 10 ** 9, "T": 10 ** 12}
    for suf, mult in suffixes.items():
        if text.endswith(suf):
            return float(text[:-len(suf)]) * mult
    if text.endswith("m"):
        return float(text[:-1]) / (1 if not binary_units else 1000)
    return float(text) * (1 if binary_units else 1000)


def pod_request(spec, resource):
    """The pod's request of cpu (millicores) or memory (bytes); limits stand in for missing requests."""
    total = 0.0
    for c in spec["containers"]:
        res = c.get("resources") or {}
        v = (res.get("requests") or {}).get(resource, (res.get("limits") or {}).get(resource))
        if v is not None:
            total += quantity(v, resource == "memory")
    return total


def recipe_gpus():
    """GPUs and pods per recipe, by GPU product, from its rendered Deployments; and the
    cpu (millicores) and memory (bytes) the pods without GPUs request (they go to the
    CPU pool)."""
    out = {}
    for recipe, _ in MIX:
        r = subprocess.run([DGDCTL, "render", "-f", recipe_file(recipe, ROOT), "-n", "x",
                            "-o", "json"], capture_output=True, text=True, check=True)
        need = collections.Counter()
        for o in objects_of(r.stdout):
            if o.get("kind") == "Job":
                need["pods"] += 1
            if o.get("kind") != "Deployment":
                continue
            spec = o["spec"]["template"]["spec"]
            gpus = sum(int(((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu", 0))
                       for c in spec["containers"])
            product = (spec.get("nodeSelector") or {}).get("nvidia.com/gpu.product", "cpu")
            need[product] += gpus * o["spec"].get("replicas", 1)
            need["pods"] += o["spec"].get("replicas", 1)
            if not gpus:
                need["cpu_millis"] += pod_request(spec, "cpu") * o["spec"].get("replicas", 1)
                need["cpu_memory"] += pod_request(spec, "memory") * o["spec"].get("replicas", 1)
        # The download Job is the cache's (owned by the PVC, shared by the namespace's DGDs),
        # not the DGD's child: counted apart.
        need["objects"] = sum(1 for o in objects_of(r.stdout) if o.get("kind") != "Job")
        need["deployments"] = sum(1 for o in objects_of(r.stdout) if o.get("kind") == "Deployment")
        out[recipe] = need
    return out


def objects_of(text):
    text = text.strip()
    if not text:
        return []
    try:
        doc = json.loads(text)
        docs = [doc]
    except ValueError:
        dec, docs, i = json.JSONDecoder(), [], 0
        while i < len(text):
            doc, i = dec.raw_decode(text, i)
            docs.append(doc)
            while i < len(text) and text[i].isspace():
                i += 1
    out = []
    for d in docs:
        if isinstance(d, list):
            out += d
        elif d.get("kind") == "List" or ("items" in d and "kind" not in d):
            out += d["items"]
        else:
            out.append(d)
    return out


def bench_profile(n, path, needs):
    """A profile with room for n DGDs of the mix (+25%): the `large` profile's pools
    (H200 and B200 nodes of 8 GPUs, CPU nodes), more nodes as n grows."""
    total = collections.Counter()
    for i in range(n):
        total.update(needs[MIX[i % len(MIX)][0]])
    h200 = max(200, -(-int(total["NVIDIA-H200"] * 1.25) // 8))
    b200 = max(100, -(-int(total["NVIDIA-B200"] * 1.25) // 8))
    # CPU nodes (64 cores, 512 GiB, 110 pods each): room for every pod, and for the cpu and
    # memory the pods without GPUs request (1,000 frontends ask for 10 cores each), +25 %.
    cpu = max(124, -(-int(total["pods"] * 1.25) // 100), -(-int(total["cpu_millis"] * 1.25) // 64000),
              -(-int(total["cpu_memory"] * 1.25) // (512 * 2 ** 30)))
    gpu_pool = lambda name, count, product, extra: {  # noqa: E731
        "name": name, "count": count, "arch": "amd64",
        "labels": {"nvidia.com/gpu.product": product, "nvidia.com/gpu.count": "8", "nvidia.com/gpu.present": "true"},
        "taints": ["nvidia.com/gpu:NoSchedule"],
        "allocatable": dict({"cpu": "224", "memory": "3900Gi", "ephemeral-storage": "28Ti", "pods": "110",
                             "nvidia.com/gpu": "8"}, **extra)}
    profile = {
        "name": "bench-%d" % n,
        "storageClasses": {"default": "standard", "names": ["standard", "shared-rwx"]},
        "nodePools": [
            gpu_pool("h200", h200, "NVIDIA-H200", {"rdma/ib": "8"}),
            gpu_pool("b200", b200, "NVIDIA-B200", {"rdma/shared_ib": "64", "rdma/ib": "8"}),
            {"name": "cpu", "count": cpu, "arch": "amd64",
             "allocatable": {"cpu": "64", "memory": "512Gi", "ephemeral-storage": "2Ti", "pods": "110"}},
        ],
    }
    with open(path, "w") as f:
        yaml.safe_dump(profile, f)
    return {"h200_nodes": h200, "b200_nodes": b200, "cpu_nodes": cpu, "gpus": dict(total)}


def make_dgds(n):
    """[(namespace, name, recipe, doc)] for n DGDs."""
    out = []
    docs = {}
    for recipe, _ in MIX:
        with open(recipe_file(recipe, ROOT)) as f:
            docs[recipe] = yaml.safe_load(f)
    for i in range(n):
        recipe, tag = MIX[i % len(MIX)]
        d = json.loads(json.dumps(docs[recipe]))
        ns = "bench-%d" % (i // DGDS_PER_NAMESPACE)
        d["metadata"] = {"name": "d%04d-%s" % (i, tag), "namespace": ns}
        out.append((ns, d["metadata"]["name"], recipe, d))
    return out


def namespace_objects(dgds):
    """Namespaces, the token Secret and the model-cache PVC each recipe page asks for."""
    objs, seen = [], set()
    for ns, _, _, d in dgds:
        claim = ((d["spec"].get("model") or {}).get("cache") or {}).get("claimName", "shared-model-cache")
        if ns not in seen:
            seen.add(ns)
            objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            objs.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token-secret", "namespace": ns},
                         "stringData": {"HF_TOKEN": "bench-token"}})
        if (ns, claim) not in seen:
            seen.add((ns, claim))
            objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": claim, "namespace": ns},
                         "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "shared-rwx",
                                  "resources": {"requests": {"storage": "1Ti"}}}})
    return objs


def write_list(path, objs):
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": objs}, f)


# -- kube-sim access -----------------------------------------------------------------
def start_sim(profile_path):
    args = ["--profile", profile_path, "--kubelet-start-delay", "0", "--kubelet-ready-delay", "0",
            "--job-duration", "0", "--pod-termination-delay", "0"]
    return KubeSim(extra_args=args, start_timeout=120).start()


def get(sim, path):
    status, body = sim.request(path, timeout=120)
    if status != 200:
        raise RuntimeError("GET %s: %d %s" % (path, status, body))
    return body


def setup_namespaces(sim, dgds, workdir):
    sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"), timeout=120)
    sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=60s")
    path = os.path.join(workdir, "namespaces.json")
    write_list(path, namespace_objects(dgds))
    sim.kubectl("apply", "--server-side", "--field-manager=bench", "-f", path, timeout=600)
    if CACHE == "warm":
        fill_model_caches(sim, dgds, workdir)
    sim.kubectl("api-resources", timeout=60)  # discovery cached before any timing


def fill_model_caches(sim, dgds, workdir):
    """The state of a cluster whose caches already hold the models: in each namespace, the
    download Job the operator would create (its rendered form, owned by the PVC, field
    manager dgd-operator), completed. Untimed."""
    jobs_of = {}
    for _, _, recipe, _ in dgds:
        if recipe not in jobs_of:
            r = subprocess.run([DGDCTL, "render", "-f", recipe_file(recipe, ROOT), "-n", "x",
                                "-o", "json"], capture_output=True, text=True, check=True)
            jobs_of[recipe] = [o for o in objects_of(r.stdout) if o.get("kind") == "Job"]
    pvc_uid, objs, seen = {}, [], set()
    for ns, _, recipe, _ in dgds:
        for job in jobs_of[recipe]:
            claim = job["metadata"]["labels"]["nvidia.com/model-cache"]
            if (ns, job["metadata"]["name"]) in seen:
                continue
            seen.add((ns, job["metadata"]["name"]))
            if (ns, claim) not in pvc_uid:
                pvc_uid[(ns, claim)] = get(sim, "/api/v1/namespaces/%s/persistentvolumeclaims/%s" % (ns, claim))[
                    "metadata"]["uid"]
            o = json.loads(json.dumps(job))
            o["metadata"]["namespace"] = ns
            o["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim,
                                                 "uid": pvc_uid[(ns, claim)]}]
            objs.append(o)
    path = os.path.join(workdir, "download-jobs.json")
    write_list(path, objs)
    sim.kubectl("apply", "--server-side", "--field-manager=dgd-operator", "-f", path, timeout=600)

    def all_complete():
        done = 0
        for j in get(sim, "/apis/batch/v1/jobs")["items"]:
            if any(c.get("type") == "Complete" and c.get("status") == "True"
                   for c in (j.get("status") or {}).get("conditions") or []):
                done += 1
        return done >= len(objs)
    wait_for("%d download Jobs complete" % len(objs), all_complete, timeout=600, interval=0.5)
    log("model caches filled: %d download Jobs completed" % len(objs))


def last_seq(sim):
    return sim.admin("/sim/v1/requests?since=%d" % (1 << 62))["lastSeq"]


def requests_since(sim, seq):
    return sim.requests(since=seq)


def table_of(reqs, ua_prefix=OPERATOR_UA):
    """{"verb resource[/sub]": count} for one user agent prefix."""
    t = collections.Counter()
    for r in reqs:
        if not (r.get("userAgent") or "").startswith(ua_prefix):
            continue
        res = r.get("resource") or r.get("path") or "?"
        if r.get("subresource"):
            res += "/" + r["subresource"]
        t["%s %s" % (r.get("verb") or "GET", res)] += 1
    return dict(sorted(t.items()))


def writes_of(reqs):
    """Operator writes, leases (leader election) and events counted apart."""
    w = collections.Counter()
    for r in reqs:
        if not (r.get("userAgent") or "").startswith(OPERATOR_UA) or r.get("verb") not in WRITE_VERBS:
            continue
        res = r.get("resource")
        if res == "leases":
            w["lease"] += 1
        elif res == "events":
            w["event"] += 1
        elif r.get("subresource") == "status":
            w["status"] += 1
        else:
            w["child"] += 1
    return w


def all_ready(sim, n):
    items = get(sim, "/apis/nvidia.com/v1beta1/dynamographdeployments")["items"]
    ready = 0
    for d in items:
        for c in (d.get("status") or {}).get("conditions") or []:
            if c.get("type") == "Ready" and c.get("status") == "True":
                ready += 1
    return ready >= n


def deployments_rolled_out(sim, n_expected, rolled_at):
    """True when n_expected Deployments exist and all have rolled out; records in
    rolled_at[(namespace, name)] the time each was first seen rolled out."""
    items = get(sim, "/apis/apps/v1/deployments")["items"]
    now = time.time()
    done = len(items) >= n_expected
    for d in items:
        want = d["spec"].get("replicas", 1)
        st = d.get("status") or {}
        if (st.get("observedGeneration", 0) < d["metadata"].get("generation", 1) or st.get("updatedReplicas", 0) != want
                or st.get("readyReplicas", 0) != want or st.get("availableReplicas", 0) != want):
            done = False
        else:
            rolled_at.setdefault((d["metadata"]["namespace"], d["metadata"]["name"]), now)
    return done


def wait_converged(sim, t0, n, n_deployments, dgds_too, rolled_at):
    """Polls the Deployments (both runs pay the same polling) until all have rolled out,
    then, in the operator run, the DGDs until all are Ready. Returns seconds since t0 of
    (Deployments rolled out, DGDs Ready or None)."""
    interval = POLL or (0.25 if n < 1000 else 1.0)
    wait_for("%d Deployments rolled out" % n_deployments,
             lambda: deployments_rolled_out(sim, n_deployments, rolled_at), interval=interval)
    t_deploy = time.time() - t0
    if not dgds_too:
        return t_deploy, None
    wait_for("%d DGDs Ready" % n, lambda: all_ready(sim, n), interval=interval)
    return t_deploy, time.time() - t0


def request_time(r):
    return datetime.datetime.fromisoformat(r["time"].replace("Z", "+00:00")).timestamp()


def timeline(dgds, reqs, rolled_at, t0, writer_ua):
    """Per DGD, seconds since t0 of: the DGD stored (kubectl's apply; operator run only),
    the first and the last write of a child by writer_ua, every one of its Deployments
    rolled out (first poll that saw it), the last status write of the operator (the one
    that says Ready). Returns {phase: [seconds per DGD]} with the DGDs that have it."""
    prefix = {}  # namespace -> [(dgd name + "-", dgd)]
    for ns, name, _, _ in dgds:
        prefix.setdefault(ns, []).append((name + "-", (ns, name)))

    def owner(ns, child):
        for p, key in prefix.get(ns, []):
            if child.startswith(p):
                return key
        return None

    per = collections.defaultdict(dict)
    for r in reqs:
        if r.get("verb") not in WRITE_VERBS:
            continue
        ua, res, ns, name = r.get("userAgent") or "", r.get("resource"), r.get("namespace"), r.get("name")
        at = request_time(r) - t0
        if res == "dynamographdeployments":
            if r.get("subresource") == "status" and ua.startswith(OPERATOR_UA):
                per[(ns, name)]["ready_written"] = at
            elif not r.get("subresource") and ua.startswith("kubectl"):
                per[(ns, name)].setdefault("dgd_stored", at)
            continue
        if res in ("events", "leases") or not ua.startswith(writer_ua):
            continue
        key = owner(ns, name or "")
        if key:
            per[key].setdefault("first_child_write", at)
            per[key]["last_child_write"] = at
    for (ns, name), at in rolled_at.items():
        key = owner(ns, name)
        if key:
            per[key]["rolled_out"] = max(per[key].get("rolled_out", 0.0), at - t0)
    phases = collections.defaultdict(list)
    for times in per.values():
        for phase, at in times.items():
            phases[phase].append(at)
    return dict(phases)


def children_gone(sim):
    for prefix, plural in CHILD_KINDS:
        if get(sim, "%s/%s?labelSelector=%s&limit=1" % (prefix, plural, MANAGED))["items"]:
            return False
    pods = get(sim, "/api/v1/pods?labelSelector=nvidia.com/dynamo-graph-deployment-name&limit=1")["items"]
    return not pods


# -- the operator --------------------------------------------------------------------
class Operator:
    def __init__(self, sim, workdir, index):
        self.address = None  # one listener on port 0: the operator logs the port it bound
        self.log_path = os.path.join(workdir, "operator-%d.log" % index)
        args = [OPERATOR, "run", "--kubeconfig", sim.kubeconfig, "--metrics-addr", "127.0.0.1:0",
                "--health-addr", "127.0.0.1:0", "--leader-election-namespace", "default",
                "--log-level", os.environ.get("BENCH_OPERATOR_LOG_LEVEL", "info"),
                # kube-sim's pods serve nothing, so the smoke test could only fail (one
                # Serving=False write per DGD the floor has no counterpart for). On a real
                # cluster it adds one status write per DGD (Serving=True, as progress).
                "--serving-checks", os.environ.get("BENCH_SERVING_CHECKS", "false")] + os.environ.get("BENCH_OPERATOR_ARGS", "").split()
        with open(self.log_path, "w") as logf:
            self.started = time.time()
            self.proc = subprocess.Popen(args, stdout=logf, stderr=subprocess.STDOUT)

    def http(self, path):
        if self.address is None:
            self.address = wait_bound_addresses(self.log_path, self.proc, timeout=180)["metrics"]
        try:
            with urllib.request.urlopen("http://%s%s" % (self.address, path), timeout=5) as r:
                return r.status, r.read().decode()
        except Exception as e:  # noqa: BLE001 - not up yet
            return 0, str(e)

    def wait_synced(self):
        """Seconds from process start until /readyz answers 200 (every cache synced)."""
        def ready():
            if self.proc.poll() is not None:
                raise RuntimeError("operator exited %d:\n%s" % (self.proc.returncode, self.log_tail()))
            return self.http("/readyz")[0] == 200
        wait_for("operator /readyz", ready, timeout=180, interval=0.02)
        return time.time() - self.started

    def metric_sum(self, name):
        status, text = self.http("/metrics")
        total = 0.0
        for line in text.splitlines() if status == 200 else []:
            if line.startswith(name + "{") or line.startswith(name + " "):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def cpu(self):
        return cpu_seconds(self.proc.pid)

    def peak_rss_mib(self):
        return status_kb(self.proc.pid, "VmHWM") / 1024.0

    def rss_mib(self):
        return status_kb(self.proc.pid, "VmRSS") / 1024.0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def log_tail(self, lines=40):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-lines:])


# -- the runs --------------------------------------------------------------------------
def run_operator(n, dgds, profile_path, workdir, children_per_dgd, n_deployments):
    res = {}
    sim = start_sim(profile_path)
    try:
        setup_namespaces(sim, dgds, workdir)
        dgd_file = os.path.join(workdir, "dgds.json")
        write_list(dgd_file, [d for _, _, _, d in dgds])
        op = Operator(sim, workdir, 0)
        res["first_sync_s"] = op.wait_synced()
        time.sleep(1)
        res["operator_rss_empty_mib"] = op.rss_mib()  # the first lease writes and discovery settle
        seq0, sim_cpu0, op_cpu0 = last_seq(sim), cpu_seconds(sim.proc.pid), op.cpu()
        kubectl_cpu0 = children_cpu()
        t0 = time.time()
        sim.kubectl("apply", "--server-side", "--field-manager=bench", "-f", dgd_file, timeout=TIMEOUT)
        res["create_dgds_s"] = time.time() - t0
        rolled_at = {}
        res["deployments_s"], res["ready_s"] = wait_converged(sim, t0, n, n_deployments, True, rolled_at)
        res["operator_cpu_s"] = op.cpu() - op_cpu0
        res["kubesim_cpu_s"] = cpu_seconds(sim.proc.pid) - sim_cpu0
        res["kubectl_cpu_s"] = children_cpu() - kubectl_cpu0
        res["operator_peak_rss_mib"] = op.peak_rss_mib()
        # Let the last status writes land before counting (the DGD is Ready when the
        # status write that says so is stored; nothing else should follow).
        time.sleep(2)
        reqs = requests_since(sim, seq0)
        res["requests"] = table_of(reqs)
        res["timeline"] = timeline(dgds, reqs, rolled_at, t0, OPERATOR_UA)
        res["writes"] = dict(writes_of(reqs))
        res["writes_per_dgd"] = (res["writes"].get("child", 0) + res["writes"].get("status", 0)) / n
        res["status_writes_per_dgd"] = res["writes"].get("status", 0) / n
        res["children_per_dgd"] = children_per_dgd
        res["cache_objects"] = op.metric_sum("dgd_informer_cache_objects")
        res["reconciles"] = op.metric_sum("controller_runtime_reconcile_total")
        res["reconcile_seconds"] = op.metric_sum("controller_runtime_reconcile_time_seconds_sum")

        log("at rest for %.0f s" % REST_SECONDS)
        seq1, op_cpu1, sim_cpu1 = last_seq(sim), op.cpu(), cpu_seconds(sim.proc.pid)
        time.sleep(REST_SECONDS)
        rest = requests_since(sim, seq1)
        res["rest_writes"] = dict(writes_of(rest))
        res["rest_requests"] = table_of(rest)
        res["rest_operator_cpu_s"] = op.cpu() - op_cpu1
        res["rest_kubesim_cpu_s"] = cpu_seconds(sim.proc.pid) - sim_cpu1
        res["operator_rss_at_rest_mib"] = op.rss_mib()
        res["operator_peak_rss_mib"] = op.peak_rss_mib()

        log("operator restart")
        res["operator_cpu_total_s"] = op.cpu()
        op.stop()
        seq2 = last_seq(sim)
        op2 = Operator(sim, workdir, 1)
        res["restart_sync_s"] = op2.wait_synced()
        # Wait for the new leader to have reconciled every DGD once, then a quiet spell.
        wait_for("restart reconciles", lambda: op2.metric_sum("controller_runtime_reconcile_total") >= n, timeout=300)
        wait_for("restart queue drained", lambda: op2.metric_sum("workqueue_depth") == 0, timeout=300)
        res["restart_reconciled_s"] = time.time() - op2.started
        time.sleep(min(REST_SECONDS, 15))
        after = requests_since(sim, seq2)
        res["restart_writes"] = dict(writes_of(after))
        res["restart_requests"] = table_of(after)
        res["restart_operator_cpu_s"] = op2.cpu()
        res["restart_peak_rss_mib"] = op2.peak_rss_mib()
        res["restart_rss_mib"] = op2.rss_mib()
        res["restart_cache_objects"] = op2.metric_sum("dgd_informer_cache_objects")

        if os.environ.get("BENCH_SKIP_DELETE"):
            op2.stop()
            return res
        log("deleting all DGDs")
        t0 = time.time()
        for ns in sorted({ns for ns, _, _, _ in dgds}):
            status, body = sim.request("/apis/nvidia.com/v1beta1/namespaces/%s/dynamographdeployments" % ns, "DELETE",
                                       body={"apiVersion": "v1", "kind": "DeleteOptions",
                                             "propagationPolicy": "Background"}, timeout=300)
            if status >= 300:
                raise RuntimeError("deletecollection in %s: %d %s" % (ns, status, body))
        wait_for("children gone", lambda: children_gone(sim))
        res["delete_s"] = time.time() - t0
        op2.stop()
        res["counters_by_user_agent"] = sim.counters().get("byUserAgent")
    finally:
        for o in ("op", "op2"):
            if o in locals():
                locals()[o].stop()
        sim.stop()
        sim.cleanup()
    return res


def run_floor(n, dgds, profile_path, workdir, n_deployments_expected):
    res = {}
    # The children, rendered with their namespaces, split by DGD into P files.
    parts = [[] for _ in range(FLOOR_PARALLEL)]
    for i, (ns, name, _, d) in enumerate(dgds):
        r = subprocess.run([DGDCTL, "render", "-f", "-", "-o", "json"], input=json.dumps(d), capture_output=True,
                           text=True, check=True)
        # With warm caches the download Jobs exist already (fill_model_caches), as for the operator.
        objs = [o for o in objects_of(r.stdout) if not (CACHE == "warm" and o.get("kind") == "Job")]
        for o in objs:  # offline render names the DGD without its uid; the floor has no DGD
            o["metadata"].pop("ownerReferences", None)
        parts[i % FLOOR_PARALLEL] += objs
    files = []
    for k, objs in enumerate(parts):
        if objs:
            files.append(os.path.join(workdir, "floor-%d.json" % k))
            write_list(files[-1], objs)
    n_deployments = sum(1 for p in parts for o in p if o.get("kind") == "Deployment")
    assert n_deployments == n_deployments_expected, (n_deployments, n_deployments_expected)
    res["objects"] = sum(len(p) for p in parts)
    sim = start_sim(profile_path)
    try:
        setup_namespaces(sim, dgds, workdir)
        seq0, sim_cpu0, kubectl_cpu0 = last_seq(sim), cpu_seconds(sim.proc.pid), children_cpu()
        t0 = time.time()
        procs = [subprocess.Popen(["kubectl", "apply", "--server-side", "--field-manager=dgd-operator",
                                   "--force-conflicts", "-f", f], env=sim.env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for f in files]
        for p in procs:
            _, err = p.communicate(timeout=TIMEOUT)
            if p.returncode != 0:
                raise RuntimeError("kubectl apply failed: %s" % err[-2000:])
        res["apply_s"] = time.time() - t0
        rolled_at = {}
        res["ready_s"], _ = wait_converged(sim, t0, n, n_deployments, False, rolled_at)
        res["kubesim_cpu_s"] = cpu_seconds(sim.proc.pid) - sim_cpu0
        res["kubectl_cpu_s"] = children_cpu() - kubectl_cpu0
        reqs = requests_since(sim, seq0)
        res["requests"] = table_of(reqs, ua_prefix="kubectl")
        res["timeline"] = timeline(dgds, reqs, rolled_at, t0, "kubectl")
    finally:
        sim.stop()
        sim.cleanup()
    return res


def fmt(v, unit=""):
    if isinstance(v, float):
        return ("%.2f" % v if v < 100 else "%.0f" % v) + unit
    return str(v) + unit


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2.0


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def print_timeline(op, floor, pair):
    """Where the time goes: each phase's median and 90th percentile over the DGDs."""
    names = [("dgd_stored", "DGD stored (kubectl apply)"), ("first_child_write", "first child written"),
             ("last_child_write", "last child written"), ("rolled_out", "its Deployments rolled out"),
             ("ready_written", "Ready written (last status write)")]
    if "timeline" not in op:
        return
    print("\nPer-DGD timeline, pair %d: seconds from the start, median / 90th percentile over the DGDs "
          "(kube-sim CPU / wall: operator run %s, floor %s):\n" % (
              pair, fmt(op["kubesim_cpu_s"] / op["ready_s"]),
              fmt(floor["kubesim_cpu_s"] / floor["ready_s"]) if floor else "-"))
    print("| phase | operator run | floor |\n|---|---|---|")
    for key, label in names:
        cells = []
        for run in (op, floor):
            v = (run or {}).get("timeline", {}).get(key) or []
            cells.append("%s / %s (%d)" % (fmt(median(v)), fmt(percentile(v, 0.9)), len(v)) if v else "-")
        print("| %s | %s | %s |" % (label, cells[0], cells[1]))


def report(n, prof, pairs):
    """pairs: [{"operator": ..., "floor": ... or None, "load": (1, 5, 15 min)}]."""
    ops = [p["operator"] for p in pairs]
    floors = [p["floor"] for p in pairs if p["floor"]]

    def med(key, of=ops):
        return median([o[key] for o in of])

    def most_writes(key):
        return max(sum(v for k, v in o[key].items() if k != "lease") for o in ops)

    op = ops[len(ops) // 2]  # a representative run for the request tables
    w = {k: median([o["writes"].get(k, 0) for o in ops]) for k in ("child", "status", "event")}
    rows = [
        ("DGDs (mix of %d recipes)" % len(MIX), n),
        ("operator/floor pairs, interleaved (BENCH_REPEAT)", len(pairs)),
        ("model caches (BENCH_CACHE)", CACHE + (": download Jobs completed before the runs" if CACHE == "warm"
                                                else ": empty, the operator downloads")),
        ("bench profile nodes (H200/B200/CPU)", "%d/%d/%d" % (prof["h200_nodes"], prof["b200_nodes"], prof["cpu_nodes"])),
        ("children per DGD (rendered; the shared download Job not counted)", fmt(op["children_per_dgd"])),
        ("operator: caches synced after start (empty cluster)", fmt(med("first_sync_s"), " s")),
        ("operator: all Deployments rolled out", fmt(med("deployments_s"), " s")),
        ("operator: all DGDs Ready", fmt(med("ready_s"), " s")),
        ("  (kubectl apply of the DGDs alone)", fmt(med("create_dgds_s"), " s")),
    ]
    if floors:
        ratios = [p["operator"]["ready_s"] / p["floor"]["ready_s"] for p in pairs if p["floor"]]
        rows += [("floor: kubectl apply x%d of the children" % FLOOR_PARALLEL, fmt(med("apply_s", floors), " s")),
                 ("floor: all Deployments rolled out", fmt(med("ready_s", floors), " s")),
                 ("ratio operator / floor, median of the pairs (target <= 1.2)", fmt(median(ratios)))]
    rows += [
        ("operator writes: child / status / event", "%d / %d / %d" % (w["child"], w["status"], w["event"])),
        ("writes per DGD (child+status; target <= children + 2)", fmt(med("writes_per_dgd"))),
        ("operator CPU during convergence", fmt(med("operator_cpu_s"), " s")),
        ("kube-sim CPU during convergence", fmt(med("kubesim_cpu_s"), " s")),
        ("operator CPU / kube-sim CPU (target < 10%)",
         fmt(median([100.0 * o["operator_cpu_s"] / max(o["kubesim_cpu_s"], 1e-9) for o in ops]), " %")),
    ]
    if floors:
        rows += [("floor: kube-sim CPU / kubectl CPU", "%s / %s" % (fmt(med("kubesim_cpu_s", floors), " s"),
                                                                   fmt(med("kubectl_cpu_s", floors), " s")))]
    rows += [
        ("operator peak RSS (target < 64 MiB)", fmt(med("operator_peak_rss_mib"), " MiB")),
        ("objects in the operator's caches", fmt(med("cache_objects"))),
        ("reconciles per DGD (until all Ready) / mean reconcile time",
         "%s / %s" % (fmt(med("reconciles") / n),
                      fmt(median([1000.0 * o["reconcile_seconds"] / max(o["reconciles"], 1) for o in ops]), " ms"))),
        ("writes in %.0f s at rest, most of any run (target 0)" % REST_SECONDS, most_writes("rest_writes")),
        ("restart: caches synced", fmt(med("restart_sync_s"), " s")),
        ("restart: every DGD reconciled", fmt(med("restart_reconciled_s"), " s")),
        ("restart: writes, most of any run (target 0)", most_writes("restart_writes")),
        ("restart: operator peak RSS / RSS with caches full", "%s / %s" % (fmt(med("restart_peak_rss_mib"), " MiB"),
                                                                          fmt(med("restart_rss_mib"), " MiB"))),
        ("RSS per cached object ((full - empty) / objects)", fmt(median(
            [(o["restart_rss_mib"] - o["operator_rss_empty_mib"]) * 1048576.0 / max(o["restart_cache_objects"], 1)
             for o in ops]), " B")),
        ("delete all: children and pods gone",
         fmt(med("delete_s"), " s") if all("delete_s" in o for o in ops) else "not run (BENCH_SKIP_DELETE)"),
    ]
    print("\n### N = %d\n" % n)
    print("| measure | value |\n|---|---|")
    for k, v in rows:
        print("| %s | %s |" % (k, v))
    print("\nEach pair (load average 1/5/15 min at the pair's start):\n")
    print("| pair | load | operator: all DGDs Ready | floor: all rolled out | ratio | writes per DGD | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for i, p in enumerate(pairs):
        o, f = p["operator"], p["floor"]
        print("| %d | %.1f %.1f %.1f | %s | %s | %s | %s | %s |" % (
            i + 1, p["load"][0], p["load"][1], p["load"][2], fmt(o["ready_s"], " s"),
            fmt(f["ready_s"], " s") if f else "-", fmt(o["ready_s"] / f["ready_s"]) if f else "-",
            fmt(o["writes_per_dgd"]), fmt(o["operator_peak_rss_mib"], " MiB")))
    print_timeline(op, next((p["floor"] for p in pairs if p["operator"] is op), None), ops.index(op) + 1)
    print("\nOperator requests during convergence, pair %d (verb resource: count):" % (ops.index(op) + 1))
    print("  " + ", ".join("%s: %d" % kv for kv in op["requests"].items()))
    print("At rest: " + (", ".join("%s: %d" % kv for kv in op["rest_requests"].items()) or "none"))
    print("After restart: " + (", ".join("%s: %d" % kv for kv in op["restart_requests"].items()) or "none"))
    sys.stdout.flush()


def main():
    ns_list = [int(x) for x in os.environ.get("BENCH_N", "100,1000").split(",") if x.strip()]
    for b in (DGDCTL, OPERATOR, os.environ["KUBE_SIM"]):
        if not os.path.exists(b):
            sys.exit("scale: %s not built (cmake --build %s)" % (b, BUILD))
    os.makedirs(OUT_DIR, exist_ok=True)
    needs = recipe_gpus()
    load = os.getloadavg()
    print("## Scale benchmark (%s, load average %.1f %.1f %.1f at start, %d CPUs)" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load[0], load[1], load[2], os.cpu_count()))
    for n in ns_list:
        workdir = tempfile.mkdtemp(prefix="scale-%d-" % n)
        dgds = make_dgds(n)
        profile_path = os.path.join(workdir, "profile.yaml")
        prof = bench_profile(n, profile_path, needs)
        children = sum(needs[recipe]["objects"] for _, _, recipe, _ in dgds) / n
        n_deployments = sum(needs[recipe]["deployments"] for _, _, recipe, _ in dgds)
        pairs = []
        for i in range(REPEAT):
            load = os.getloadavg()
            log("N=%d pair %d/%d: operator run (workdir %s, load %.1f)" % (n, i + 1, REPEAT, workdir, load[0]))
            op = run_operator(n, dgds, profile_path, workdir, children, n_deployments)
            floor = None
            if not os.environ.get("BENCH_SKIP_FLOOR"):
                log("N=%d pair %d/%d: floor run" % (n, i + 1, REPEAT))
                floor = run_floor(n, dgds, profile_path, workdir, n_deployments)
            pairs.append({"operator": op, "floor": floor, "load": load, "loadavg_end": os.getloadavg()})
        result = {"n": n, "cache": CACHE, "profile": prof, "pairs": pairs, "operator_binary": OPERATOR,
                  "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with open(os.path.join(OUT_DIR, "scale-%d-%s.json" % (n, CACHE)), "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
        report(n, prof, pairs)
        load = os.getloadavg()
        print("(load average at the end: %.1f %.1f %.1f)" % load)

if __name__ == "__main__":
    main()
