"""The chaos scenario shared by test_chaos.py (one operator) and test_chaos_two_replicas.py.

50 DGDs of mixed catalog recipes (one namespace each) are created, edited (replicas, engine
flags, components added and removed) and deleted (some re-created) on a schedule drawn from
a fixed seed, while kube-sim injects every kind of fault into the operator's requests
(latency, 409, 429 + Retry-After, 500/503, watch cuts, 410 on resume, outages, server
restarts) and the harness SIGKILLs and restarts the operator. Then faults go off and the
operator must converge: every live DGD Ready with exactly the children `dgdctl render`
gives for its spec (and holding the rendered fields), nothing left of deleted DGDs or
removed components, nothing stuck deleting, observedGeneration == generation.

The harness itself (urllib, kubectl) is never faulted: the fault profile selects the
operator's user agent. Everything is bounded by counts; waits poll with deadlines.
Environment: CHAOS_SEED (default 20261130), CHAOS_DGDS (50), CHAOS_OPS (180);
CHAOS_ARTIFACTS=DIR keeps, when the run fails or a clique was full, the operator logs, kube-sim's log and request
log, and the final DGDs, pods, nodes and ComputeDomains in DIR;
DGD_TEST_TIME_FACTOR (default 1): multiplies the waits' deadlines (convergence, leader
election, CRD established) for slower builds; `make test-sanitize` sets it (ASan runs
the operator, kube-sim and dgdctl several times slower). No assertion changes with it.
"""
import copy
import datetime
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from binaries import find_binary  # noqa: E402,F401
from kubesim import KubeSim  # noqa: E402
from recipe_paths import all_recipe_files  # noqa: E402

TIME_FACTOR = float(os.environ.get("DGD_TEST_TIME_FACTOR") or "1")
assert TIME_FACTOR >= 1, "DGD_TEST_TIME_FACTOR must be >= 1 (it only lengthens deadlines)"
ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
GROUP, VERSION, PLURAL = "nvidia.com", "v1beta1", "dynamographdeployments"
DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"
MANAGED_BY = "app.kubernetes.io/managed-by"
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection"}

# Child kinds the operator creates: kind -> collection path (all namespaces).
CHILD_KINDS = {
    "ServiceAccount": "/api/v1/serviceaccounts",
    "Role": "/apis/rbac.authorization.k8s.io/v1/roles",
    "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/rolebindings",
    "Job": "/apis/batch/v1/jobs",
    "ConfigMap": "/api/v1/configmaps",
    "Service": "/api/v1/services",
    "Deployment": "/apis/apps/v1/deployments",
    "PersistentVolumeClaim": "/api/v1/persistentvolumeclaims",
    "ComputeDomain": "/apis/resource.nvidia.com/v1beta1/computedomains",
}

# What kube-sim injects into the operator's requests during the operations.
FAULTS = {
    "latencyMs": 2, "jitterMs": 15,
    "conflict": 0.05, "throttle": 0.05, "retryAfterSeconds": 1, "serverError": 0.05,
    "watchCut": 0.02, "watchMaxSeconds": 8, "expireResume": 0.3,
    "userAgents": ["dgd-operator"],
}
# DGDs per NVLink clique that may end Pending because the clique is full (refusal_cap_problems()).
MAX_REFUSED_PER_CLIQUE = 1
SIM_ARGS = ["--profile", os.path.join(ROOT, "tests", "kubesim", "profiles", "large.yaml"),
            "--kubelet-start-delay", "0.05", "--kubelet-ready-delay", "0.1", "--job-duration", "0.1",
            "--pod-termination-delay", "0.05"]


def log(msg):
    sys.stdout.write("[%s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()


def dgd_path(ns, name=None):
    p = "/apis/%s/%s/namespaces/%s/%s" % (GROUP, VERSION, ns, PLURAL)
    return p + "/" + name if name else p


def condition(obj, ctype):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


# -- the schedule ---------------------------------------------------------------------

def load_recipes():
    out = []
    for name, f in all_recipe_files(ROOT).items():
        with open(f) as fh:
            out.append((name, yaml.safe_load(fh)))
    assert len(out) >= 10, "catalog recipes not found under recipes/"
    return out


class Graph:
    """One DGD the harness drives: its namespace, recipe and the spec last written."""

    def __init__(self, idx, recipe, doc):
        self.ns = "chaos-%02d" % idx
        self.recipe = recipe
        self.name = doc["metadata"]["name"]
        self.base = doc
        self.spec = copy.deepcopy(doc["spec"])
        self.live = False  # created and not deleted (as far as the harness asked)
        self.created = 0
        self.gb200 = "gb200" in recipe

    def body(self):
        return {"apiVersion": "%s/%s" % (GROUP, VERSION), "kind": "DynamoGraphDeployment",
                "metadata": {"name": self.name, "namespace": self.ns}, "spec": copy.deepcopy(self.spec)}


def edit_spec(rng, g):
    """A random valid edit of g.spec (returns a description). Worker replicas stay within the
    recipe's own count so the cluster always fits; GB200 graphs get no extra worker."""
    spec = copy.deepcopy(g.spec)
    comps = spec["components"]
    base = {c["name"]: c for c in g.base["spec"]["components"]}
    kinds = ["replicas", "engine", "add", "remove"]
    kind = rng.choice(kinds)
    extra = [c for c in comps if c["name"] not in base]
    if kind == "remove" and not extra:
        kind = "add"
    if kind == "add" and len(extra) >= 2:
        kind = "remove"
    if kind == "replicas":
        c = rng.choice(comps)
        top = 3 if c["type"] == "frontend" else base.get(c["name"], {}).get("replicas", 1)
        choices = [r for r in range(1, max(1, top) + 1) if r != c.get("replicas", 1)] or [1]
        c["replicas"] = rng.choice(choices)
        what = "%s.replicas=%d" % (c["name"], c["replicas"])
    elif kind == "engine":
        workers = [c for c in comps if c["type"] != "frontend"]
        c = rng.choice(workers)
        c.setdefault("engine", {})["maxNumSeqs"] = rng.choice([64, 128, 256, 512, 768])
        what = "%s.engine.maxNumSeqs=%d" % (c["name"], c["engine"]["maxNumSeqs"])
    elif kind == "add":
        names = {c["name"] for c in comps}
        if "Frontend2" not in names and (g.gb200 or rng.random() < 0.5 or "ExtraWorker" in names):
            c = copy.deepcopy(next(c for c in comps if c["type"] == "frontend"))
            c["name"], c["replicas"] = "Frontend2", 1
        elif "ExtraWorker" not in names and not g.gb200:
            c = copy.deepcopy(comps[-1] if comps[-1]["name"] in base else
                              next(c for c in comps if c["type"] != "frontend"))
            c["name"], c["replicas"] = "ExtraWorker", 1
        else:
            return None
        comps.append(c)
        what = "+" + c["name"]
    else:
        c = rng.choice(extra)
        comps.remove(c)
        what = "-" + c["name"]
    g.spec = spec
    return what


def schedule(seed, n_dgds, n_ops):
    """The operations, drawn from `seed`: a list of (op, index) plus fault points."""
    rng = random.Random(seed)
    recipes = load_recipes()
    order = [recipes[i % len(recipes)] for i in range(n_dgds)]
    rng.shuffle(order)
    graphs = [Graph(i, r, d) for i, (r, d) in enumerate(order)]
    return rng, graphs


# -- processes --------------------------------------------------------------------------

class Operators:
    """dgd-operator processes (replicas "a", "b", ...), each with its own kube-sim user
    (a bearer token), so the request log tells them apart."""

    def __init__(self, sim, workdir, replicas, leader_elect):
        self.sim = sim
        self.dir = workdir
        self.procs = {}
        self.logs = {}
        self.kills = 0
        self.unexpected_exits = []
        self.starts = 0
        self.started_at = {}  # replica -> time its current process started
        self.leader_elect = leader_elect
        self.kubeconfigs = {}
        with open(sim.kubeconfig) as f:
            base = yaml.safe_load(f)
        for r in replicas:
            kc = copy.deepcopy(base)
            kc["users"][0]["user"]["token"] = "token-" + r
            path = os.path.join(workdir, "kubeconfig-" + r)
            with open(path, "w") as f:
                yaml.safe_dump(kc, f)
            self.kubeconfigs[r] = path
            sim.admin("/sim/v1/tokens", "POST", {"token": "token-" + r, "user": "replica-" + r,
                                                 "groups": ["system:masters"]})

    def args(self, r):
        a = [find_binary("DGD_OPERATOR", "dgd-operator"), "run", "--kubeconfig", self.kubeconfigs[r],
             "--metrics-addr", "0", "--health-addr", "0", "--log-level", "debug", "--concurrency", "8"]
        if self.leader_elect:
            a += ["--leader-elect", "true", "--leader-election-namespace", "default",
                  "--leader-election-lease-duration", "4", "--leader-election-renew-deadline", "3",
                  "--leader-election-retry-period", "1"]
        else:
            a += ["--leader-elect", "false"]
        return a

    def start(self, r):
        assert r not in self.procs or self.procs[r].poll() is not None
        path = os.path.join(self.dir, "operator-%s-%d.log" % (r, self.starts))
        self.starts += 1
        self.started_at[r] = time.time()
        self.logs.setdefault(r, []).append(path)
        with open(path, "w") as out:
            self.procs[r] = subprocess.Popen(self.args(r), stdout=out, stderr=subprocess.STDOUT)

    def kill(self, r):
        p = self.procs.get(r)
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            self.kills += 1

    def alive(self, r):
        p = self.procs.get(r)
        return p is not None and p.poll() is None

    def reap(self):
        """Restarts replicas that exited on their own (e.g. leadership lost: exit 1)."""
        for r, p in list(self.procs.items()):
            if p.poll() is not None and p.returncode != -signal.SIGKILL:
                self.unexpected_exits.append((r, p.returncode))
                del self.procs[r]
                self.start(r)

    def stop_all(self):
        for r, p in self.procs.items():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for r, p in self.procs.items():
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def tail(self, lines=40):
        out = []
        for r, paths in self.logs.items():
            with open(paths[-1]) as f:
                out.append("---- operator %s (%s) ----\n%s" % (r, paths[-1], "\n".join(f.read().splitlines()[-lines:])))
        return "\n".join(out)


# -- the single-writer check --------------------------------------------------------------

class WriterAudit:
    """Reads kube-sim's request log as it grows. A replica is the leader from its successful
    Lease write until another replica's; every other write of a replica must fall inside
    its own leadership (no write from the non-leader at any time)."""

    def __init__(self, sim, replicas):
        self.sim = sim
        self.users = {"replica-" + r: r for r in replicas}
        self.seq = 0
        self.leader = None
        self.terms = []  # (seq, replica) at each change of leader
        self.writes = {r: 0 for r in replicas}
        self.violations = []
        self.gaps = 0
        self.last_lease_write = {}  # replica -> time (s since the epoch) of its last successful Lease write

    def poll(self):
        items = self.sim.admin_retry("/sim/v1/requests?since=%d" % self.seq)["items"]
        if items and items[0]["seq"] != self.seq + 1:
            self.gaps += 1  # the log dropped records (capacity): the audit is incomplete
        for it in items:
            self.seq = it["seq"]
            r = self.users.get(it.get("user"))
            if r is None or it.get("verb") not in WRITE_VERBS:
                continue
            ok = 200 <= it.get("code", 0) < 300
            if it.get("resource") == "leases":
                if ok and it.get("verb") in ("create", "update"):
                    self.last_lease_write[r] = datetime.datetime.fromisoformat(
                        it["time"].replace("Z", "+00:00")).timestamp()
                if ok and it.get("verb") in ("create", "update") and r != self.leader:
                    self.leader = r
                    self.terms.append((it["seq"], r))
                continue
            self.writes[r] += 1
            if r != self.leader:
                self.violations.append(it)
        return self.leader


# -- checks ------------------------------------------------------------------------------

def render(g, live_spec):
    doc = {"apiVersion": "%s/%s" % (GROUP, VERSION), "kind": "DynamoGraphDeployment",
           "metadata": {"name": g.name, "namespace": g.ns}, "spec": live_spec}
    p = subprocess.run([find_binary("DGDCTL", "dgdctl"), "render", "-f", "-", "-o", "json", "-n", g.ns],
                       input=json.dumps(doc), capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError("dgdctl render %s/%s failed: %s" % (g.ns, g.name, p.stderr))
    return json.loads(p.stdout)["items"]


def same_scalar(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def holds(want, have, path, out):
    """Every field of `want` is in `have` with the same value (server defaults may add more)."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            out.append("%s: want an object, live has %r" % (path, have))
            return
        for k, v in want.items():
            if path == "" and k in ("status", "apiVersion", "kind"):  # list items may omit the type
                continue
            if path == ".metadata" and k not in ("name", "namespace", "labels", "annotations"):
                continue
            if k not in have:
                out.append("%s.%s: missing" % (path, k))
            else:
                holds(v, have[k], "%s.%s" % (path, k), out)
    elif isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            out.append("%s: want %d items, live has %r" % (path, len(want), have if not isinstance(have, list)
                                                            else "%d items" % len(have)))
            return
        for i, (w, h) in enumerate(zip(want, have)):
            holds(w, h, "%s[%d]" % (path, i), out)
    elif not same_scalar(want, have):
        out.append("%s: want %r, live has %r" % (path, want, have))


def pvc_controlled(obj):
    return any(r.get("controller") and r.get("kind") == "PersistentVolumeClaim"
               for r in obj["metadata"].get("ownerReferences") or [])


def list_all(sim, path):
    status, out = sim.request_retry(path)
    if status == 404:
        return []
    assert status == 200, (path, status, out)
    return out["items"]


GPU = "nvidia.com/gpu"
CLIQUE_LABEL = "nvidia.com/gpu.clique"


def gpus_of(pod):
    n = 0
    for c in pod["spec"].get("containers") or []:
        res = c.get("resources") or {}
        v = (res.get("requests") or {}).get(GPU, (res.get("limits") or {}).get(GPU, 0))
        n += int(v)
    return n


class ClusterView:
    """kube-sim's pods and nodes as the scheduler sees them (read once per check, on demand)."""

    def __init__(self, sim):
        self.nodes = {n["metadata"]["name"]: n for n in list_all(sim, "/api/v1/nodes")}
        self.pods = [p for p in list_all(sim, "/api/v1/pods")
                     if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]

    def full_clique(self, ns, live_namespaces):
        """The NVLink clique (label value) that pods of `ns` wait for, when it truly has no room:
        some of the namespace's ComputeDomain pods are bound in one clique, the others pending,
        no node of that clique has the GPUs a pending pod asks for, and every pod holding the
        clique's GPUs is a settled pod of a live DGD (none terminating, none left by a deleted
        DGD), so the refusal lasts. None otherwise (room exists, or it is still changing)."""
        claimed = [p for p in self.pods if p["metadata"]["namespace"] == ns and p["spec"].get("resourceClaims")]
        pending = [p for p in claimed if not p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")]
        bound = [p for p in claimed if p["spec"].get("nodeName")]
        cliques = {((self.nodes.get(p["spec"]["nodeName"]) or {}).get("metadata", {}).get("labels") or {})
                   .get(CLIQUE_LABEL) for p in bound}
        if not pending or len(cliques) != 1 or None in cliques:
            return None
        clique = cliques.pop()
        members = {name for name, n in self.nodes.items()
                   if (n["metadata"].get("labels") or {}).get(CLIQUE_LABEL) == clique}
        used = {name: 0 for name in members}
        for p in self.pods:
            node = p["spec"].get("nodeName")
            if node not in members:
                continue
            if p["metadata"].get("deletionTimestamp") or p["metadata"]["namespace"] not in live_namespaces:
                return None
            used[node] += gpus_of(p)
        need = max(gpus_of(p) for p in pending)
        free = [int(self.nodes[n]["status"]["allocatable"].get(GPU, 0)) - used[n] for n in members]
        if need <= 0 or any(f >= need for f in free):
            return None
        return clique


def refusal_cap_problems(refused, graphs):
    """What exceeds the exemption of DGDs left Pending by a full NVLink clique (`refused`:
    ns -> clique, from check()): one such DGD per clique, and only GB200 graphs. The
    cliques fill one after another (kube-sim packs GPU pods in node-name order) and a
    clique's last free tray goes to the graph whose pods are being bound as it fills, so one
    graph straddles each fill; runs so far have ended with none or one (docs/reliability.md).
    More is a state to read, not to exempt."""
    problems = []
    per_clique = {}
    for ns, clique in refused.items():
        per_clique.setdefault(clique, []).append(ns)
    for clique, namespaces in sorted(per_clique.items()):
        if len(namespaces) > MAX_REFUSED_PER_CLIQUE:
            problems.append("%d DGDs left Pending by the full NVLink clique %s (at most %d): %s" % (
                len(namespaces), clique, MAX_REFUSED_PER_CLIQUE, sorted(namespaces)))
    by_ns = {g.ns: g for g in graphs}
    not_gb200 = sorted(ns for ns in refused if ns in by_ns and not by_ns[ns].gb200)
    if not_gb200:
        problems.append("DGDs exempted as left Pending by a full NVLink clique are not GB200 graphs: %s" % not_gb200)
    return problems


def check(sim, graphs, render_cache, refused=None):
    """Returns (mismatches, not_ready). Mismatches are final-state errors; not_ready lists
    DGDs still converging (not an error until the deadline). A DGD whose NVLink clique is
    full (its ComputeDomain is bound to a clique the other live graphs filled; kube-sim, like
    the DRA driver, never splits a domain) cannot become Ready: it is not waited for when
    its Placement condition says so (False/NVLinkClique naming that clique) and the cluster
    confirms it; it is then listed in `refused` (ns -> clique) and every other check holds."""
    mismatches, waiting = [], []
    if refused is not None:
        refused.clear()
    view = None
    live_namespaces = {g.ns for g in graphs if g.live}
    dgds = {(d["metadata"]["namespace"], d["metadata"]["name"]): d
            for d in list_all(sim, "/apis/%s/%s/%s" % (GROUP, VERSION, PLURAL))}
    children = {}
    for kind, path in CHILD_KINDS.items():
        for o in list_all(sim, path):
            md = o["metadata"]
            owned = [r for r in md.get("ownerReferences") or [] if r.get("kind") == "DynamoGraphDeployment"]
            labels = md.get("labels") or {}
            # The model-cache download Job belongs to its PVC, not to a DGD (docs/model-cache.md).
            if DGD_LABEL not in labels and not owned and labels.get(MANAGED_BY) != "dgd-operator":
                continue
            children.setdefault(md["namespace"], {}).setdefault((kind, md["name"]), []).append(o)
    pvc_uids = {(o["metadata"]["namespace"], o["metadata"]["name"]): o["metadata"]["uid"]
                for o in list_all(sim, CHILD_KINDS["PersistentVolumeClaim"])}
    by_ns = {g.ns: g for g in graphs}
    for (ns, name), d in dgds.items():
        g = by_ns.get(ns)
        if g is None or not g.live or g.name != name:
            waiting.append("%s/%s: exists but was deleted%s" % (
                ns, name, " (stuck deleting)" if d["metadata"].get("deletionTimestamp") else ""))
    for g in graphs:
        kids = children.get(g.ns, {})
        d = dgds.get((g.ns, g.name))
        if not g.live:
            # The download Job is the PVC's (it outlives the DGDs that used it).
            kids = {k: v for k, v in kids.items() if not pvc_controlled(v[0])}
            if kids:
                waiting.append("%s: children of deleted %s remain: %s" % (g.ns, g.name, sorted(kids)))
            continue
        if d is None:
            mismatches.append("%s/%s: missing" % (g.ns, g.name))
            continue
        md, st = d["metadata"], d.get("status") or {}
        if d["spec"] != g.spec:
            mismatches.append("%s/%s: live spec differs from the last edit" % (g.ns, g.name))
        if md.get("deletionTimestamp"):
            waiting.append("%s/%s: deleting" % (g.ns, g.name))
        if st.get("observedGeneration") != md.get("generation"):
            waiting.append("%s/%s: observedGeneration %s != generation %s" % (
                g.ns, g.name, st.get("observedGeneration"), md.get("generation")))
            continue
        ready = condition(d, "Ready")
        placed = condition(d, "Placement")
        clique = None
        if (ready or {}).get("status") != "True" and (placed or {}).get("status") == "False" \
                and placed.get("reason") == "NVLinkClique" and refused is not None:
            view = view or ClusterView(sim)
            clique = view.full_clique(g.ns, live_namespaces)
            if clique and clique not in placed.get("message", ""):
                mismatches.append("%s/%s: Placement=False/NVLinkClique does not name the full clique %s: %s" % (
                    g.ns, g.name, clique, placed.get("message")))
            elif clique:
                refused[g.ns] = clique
        if clique is None and (not ready or ready.get("status") != "True"):
            # Placement says whether the scheduler could not place a pod (capacity, clique).
            waiting.append("%s/%s: Ready=%s (%s); Placement=%s %s (%s)" % (
                g.ns, g.name, ready and ready.get("status"), ready and ready.get("message"),
                placed and placed.get("status"), placed and placed.get("reason"), placed and placed.get("message")))
        key = (g.ns, md.get("generation"))
        if key not in render_cache:
            render_cache[key] = render(g, d["spec"])
        want = {(o["kind"], o["metadata"]["name"]): o for o in render_cache[key]}
        for k in sorted(set(want) - set(kids)):
            waiting.append("%s/%s: missing child %s/%s" % (g.ns, g.name, k[0], k[1]))
        for k in sorted(set(kids) - set(want)):
            waiting.append("%s/%s: unexpected child %s/%s" % (g.ns, g.name, k[0], k[1]))
        for k in sorted(set(kids) & set(want)):
            if len(kids[k]) > 1:
                mismatches.append("%s/%s: child %s/%s exists %d times" % (g.ns, g.name, k[0], k[1], len(kids[k])))
            live = kids[k][0]
            owners = [r for r in live["metadata"].get("ownerReferences") or [] if r.get("controller")]
            controller = md["uid"]
            if k[0] == "Job" and owners and owners[0].get("kind") == "PersistentVolumeClaim":
                controller = pvc_uids.get((g.ns, owners[0].get("name")))
            if [r.get("uid") for r in owners] != [controller]:
                waiting.append("%s/%s: child %s/%s controlled by %s" % (g.ns, g.name, k[0], k[1],
                                                                       [r.get("uid") for r in owners]))
            diffs = []
            holds(want[k], live, "", diffs)
            if diffs:
                waiting.append("%s/%s: child %s/%s differs: %s" % (g.ns, g.name, k[0], k[1], "; ".join(diffs[:4])))
    return mismatches, waiting


# -- artifacts -----------------------------------------------------------------------------

def keep_artifacts(sim, workdir):
    """On failure, copies what explains it to $CHAOS_ARTIFACTS (if set): operator logs,
    kube-sim's log and request log, and the final DGDs, pods, nodes, ComputeDomains."""
    dest = os.environ.get("CHAOS_ARTIFACTS")
    if not dest:
        return
    os.makedirs(dest, exist_ok=True)
    for f in glob.glob(os.path.join(workdir, "operator-*.log")):
        shutil.copy(f, dest)
    with open(os.path.join(dest, "kube-sim.log"), "w") as f:
        f.write(sim.log())
    dumps = {"dgds": "/apis/%s/%s/%s" % (GROUP, VERSION, PLURAL), "pods": "/api/v1/pods", "nodes": "/api/v1/nodes",
             "computedomains": CHILD_KINDS["ComputeDomain"], "deployments": CHILD_KINDS["Deployment"],
             "replicasets": "/apis/apps/v1/replicasets", "events": "/api/v1/events",
             "requests": "/sim/v1/requests?since=0"}
    for name, path in dumps.items():
        try:
            status, out = sim.request_retry(path, deadline=20)
        except RuntimeError as e:
            status, out = None, str(e)
        with open(os.path.join(dest, name + ".json"), "w") as f:
            json.dump(out, f)
    sys.stderr.write("\nartifacts kept in %s\n" % dest)


# -- the run -------------------------------------------------------------------------------

def run(replicas=("a",), leader_elect=False, title="chaos"):
    seed = int(os.environ.get("CHAOS_SEED", "20261130"))
    n_dgds = int(os.environ.get("CHAOS_DGDS", "50"))
    n_ops = int(os.environ.get("CHAOS_OPS", "180"))
    rng, graphs = schedule(seed, n_dgds, n_ops)
    t0 = time.time()
    figures = {"seed": seed, "dgds": n_dgds, "creates": 0, "edits": 0, "deletes": 0, "recreates": 0,
               "outages": 0, "serverRestarts": 0, "leaderKills": 0}
    with KubeSim(extra_args=SIM_ARGS + ["--history-window", "20000"]) as sim:
        workdir = tempfile.mkdtemp(prefix="chaos-", dir=sim.dir)
        ops = None
        try:
            sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
            sim.kubectl("wait", "--for=condition=Established", "crd/" + PLURAL + "." + GROUP,
                        "--timeout=%ds" % (30 * TIME_FACTOR))
            for g in graphs:
                claim = ((g.spec.get("model") or {}).get("cache") or {}).get("claimName", "shared-model-cache")
                sim.request_retry("/api/v1/namespaces", "POST",
                                  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": g.ns}})
                sim.request_retry("/api/v1/namespaces/%s/secrets" % g.ns, "POST",
                                  {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "hf-token-secret"},
                                   "stringData": {"HF_TOKEN": "test-token"}})
                sim.request_retry("/api/v1/namespaces/%s/persistentvolumeclaims" % g.ns, "POST",
                                  {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                                   "spec": {"accessModes": ["ReadWriteMany"],
                                            "resources": {"requests": {"storage": "1Ti"}}}})
            ops = Operators(sim, workdir, replicas, leader_elect)
            audit = WriterAudit(sim, replicas)
            for r in replicas:
                ops.start(r)
            sim.set_chaos(seed=seed, **FAULTS)
            log("%s: seed %d, %d DGDs, %d operations, replicas %s, faults %s" % (
                title, seed, n_dgds, n_ops, ",".join(replicas), json.dumps(FAULTS)))

            kill_at = set(rng.sample(range(5, n_ops), max(1, n_ops // 12)))
            outage_at = set(rng.sample(range(10, n_ops), 3))
            restart_at = set(rng.sample(range(10, n_ops), 3))
            pending_restart = []
            next_create = 0
            for i in range(n_ops):
                time.sleep(rng.uniform(0, 0.05))
                # Operator kills: a replica (the leader, when electing) dies; it comes back
                # one or two operations later, as a Deployment's pod would.
                for item in list(pending_restart):
                    item[1] -= 1
                    if item[1] <= 0:
                        ops.start(item[0])
                        pending_restart.remove(item)
                ops.reap()
                if i in kill_at:
                    victim = (audit.poll() if leader_elect else None) or rng.choice(replicas)
                    if ops.alive(victim):
                        # A kill of the lease holder (its current process wrote the Lease), not
                        # of a replica restarted since, which waits for the lease to expire.
                        if leader_elect and victim == audit.leader and \
                                audit.last_lease_write.get(victim, 0) >= ops.started_at[victim]:
                            figures["leaderKills"] += 1
                        ops.kill(victim)
                        pending_restart.append([victim, rng.choice([0, 1, 2])])
                        for item in list(pending_restart):
                            if item[1] <= 0:
                                ops.start(item[0])
                                pending_restart.remove(item)
                if i in outage_at:
                    sim.outage(1.0)
                    figures["outages"] += 1
                if i in restart_at:
                    sim.restart_server(0.5)
                    figures["serverRestarts"] += 1
                if leader_elect and i % 10 == 0:
                    audit.poll()
                # One operation on the graphs.
                live = [g for g in graphs if g.live]
                dead = [g for g in graphs if not g.live and g.created]
                r = rng.random()
                if next_create < len(graphs) and (r < 0.35 or len(live) < 3):
                    g = graphs[next_create]
                    next_create += 1
                    create(sim, g)
                    figures["creates"] += 1
                elif r < 0.85 and live:
                    g = rng.choice(live)
                    what = edit_spec(rng, g)
                    if what:
                        update(sim, g)
                        figures["edits"] += 1
                elif r < 0.95 and live and len(live) > n_dgds // 2:
                    g = rng.choice(live)
                    delete(sim, g)
                    figures["deletes"] += 1
                elif dead:
                    # Re-create one whose deletion has finished (a new object, new UID).
                    g = rng.choice(dead)
                    if sim.request_retry(dgd_path(g.ns, g.name))[0] == 404:
                        g.spec = copy.deepcopy(g.base["spec"])
                        create(sim, g)
                        figures["recreates"] += 1
            while next_create < len(graphs):  # every DGD was created at least once
                create(sim, graphs[next_create])
                next_create += 1
                figures["creates"] += 1
            for r, _ in pending_restart:
                ops.start(r)
            ops.reap()
            t_ops = time.time() - t0

            if leader_elect:
                # Takeover: the leader dies for good; the other replica must finish the work.
                leader = audit.poll()
                wait = time.time() + 30 * TIME_FACTOR
                while leader is None and time.time() < wait:
                    time.sleep(0.5)
                    leader = audit.poll()
                assert leader, "no leader elected"
                ops.kill(leader)
                del ops.procs[leader]
                figures["finalLeaderKilled"] = leader

            injected = sim.clear_chaos()["injected"]
            log("%s: operations done in %.0f s; faults off; waiting for convergence" % (title, t_ops))

            render_cache = {}
            refused = {}
            deadline = time.time() + 240 * TIME_FACTOR
            while True:
                ops.reap()
                mismatches, waiting = check(sim, graphs, render_cache, refused)
                if not mismatches and not waiting:
                    break
                if time.time() > deadline:
                    break
                if int(time.time() - t0) % 10 == 0:
                    log("%s: converging: %d left, e.g. %s" % (title, len(mismatches) + len(waiting),
                                                              (mismatches + waiting)[0]))
                time.sleep(1)
            figures["convergeSeconds"] = round(time.time() - t0 - t_ops)
            figures["operatorKills"] = ops.kills
            figures["operatorStarts"] = ops.starts
            figures["unexpectedExits"] = ops.unexpected_exits
            figures["liveDgds"] = sum(1 for g in graphs if g.live)
            figures["faultsInjected"] = injected
            figures["faultsTotal"] = sum(v for k, v in injected.items())
            if leader_elect:
                audit.poll()
                figures["leaderTerms"] = len(audit.terms)
                figures["writesByReplica"] = audit.writes
                figures["nonLeaderWrites"] = len(audit.violations)
                figures["requestLogGaps"] = audit.gaps
                if leader_elect and figures.get("finalLeaderKilled"):
                    takeover = [r for _, r in audit.terms][-1]
                    figures["takeoverBy"] = takeover
            # DGDs left Pending by a full NVLink clique, reported so (check()); not a mismatch,
            # within refusal_cap_problems()'s cap.
            figures["nvlinkCliqueFull"] = sorted(refused)
            figures["finalMismatches"] = len(mismatches) + len(waiting)
            log("%s figures: %s" % (title, json.dumps(figures, sort_keys=True)))
            problems = mismatches + waiting
            # A replica may exit 1 when it loses its lease (it is restarted); a crash is a bug.
            crashes = [(r, rc) for r, rc in ops.unexpected_exits if rc != 1 or not leader_elect]
            assert not crashes, "operator exits other than a lost lease: %r" % crashes
            assert not problems, "%d final mismatches:\n  %s" % (len(problems), "\n  ".join(problems[:40]))
            over_cap = refusal_cap_problems(refused, graphs)
            assert not over_cap, "; ".join(over_cap)
            if leader_elect:
                assert not audit.gaps, "the request log dropped records; the single-writer audit is incomplete"
                assert not audit.violations, "writes from a non-leader:\n  %s" % "\n  ".join(
                    json.dumps(v) for v in audit.violations[:20])
                assert len(audit.terms) >= 2, "no takeover happened: %r" % audit.terms
                assert figures["takeoverBy"] != figures["finalLeaderKilled"]
            if refused:
                keep_artifacts(sim, workdir)  # evidence of each full clique, when asked for
            ops.stop_all()
        except BaseException:
            keep_artifacts(sim, workdir)
            if ops is not None:
                sys.stderr.write(ops.tail())
                ops.stop_all()
            sys.stderr.write("\n---- kube-sim log (tail) ----\n%s\n" % "\n".join(sim.log().splitlines()[-30:]))
            raise
    log("%s: ok in %.0f s" % (title, time.time() - t0))
    return figures


def create(sim, g):
    status, out = sim.request_retry(dgd_path(g.ns), "POST", g.body())
    assert status in (201, 409), ("create", g.ns, status, out)  # 409: an earlier attempt landed
    g.live = True
    g.created += 1
    if status == 409:
        update(sim, g)


def update(sim, g):
    for _ in range(50):
        status, cur = sim.request_retry(dgd_path(g.ns, g.name))
        if status == 404:
            return create(sim, g)
        assert status == 200, ("get", g.ns, status, cur)
        cur["spec"] = copy.deepcopy(g.spec)
        status, out = sim.request_retry(dgd_path(g.ns, g.name), "PUT", cur)
        if status == 200:
            return
        assert status in (404, 409), ("update", g.ns, status, out)
    raise AssertionError("update %s/%s: conflicts did not stop" % (g.ns, g.name))


def delete(sim, g):
    status, out = sim.request_retry(dgd_path(g.ns, g.name), "DELETE")
    assert status in (200, 202, 404), ("delete", g.ns, status, out)
    g.live = False
