#!/usr/bin/python3
"""The Helm chart's contents and what it renders (docs/install.md, "What is checked").

- Chart.yaml and values.yaml parse; the chart's appVersion is the operator's version.
- Every `.Values.<path>` a template (or NOTES.txt) reads exists in values.yaml, every
  value in values.yaml is read by a template, and every value is documented by a comment.
- The chart's files/crds/ equal the top-level crds/ byte for byte.
- Rendered with deploy/tools/chart-render (Helm's template engine; --strict: a value
  missing from values.yaml is an error), in the default and the optional variants: the Deployment
  is hardened and probes the operator's real health port; its flags are flags
  `dgd-operator run` accepts; RBAC has no wildcard and no Secrets, grants what the
  operator needs (the list of HELPERS.md plus what the discovery Role it creates needs),
  and the one-namespace variant grants the same rules namespaced.
"""
import os
import re
import subprocess
import sys

import yaml

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import chart_lib  # noqa: E402
from checklist import FAILURES, check, run_tests  # noqa: E402

CHART = os.path.join(ROOT, "deploy", "helm", "dgd-operator")


def templates_text():
    out = {}
    for d, _, files in os.walk(os.path.join(CHART, "templates")):
        for f in sorted(files):
            with open(os.path.join(d, f)) as fh:
                out[os.path.relpath(os.path.join(d, f), CHART)] = fh.read()
    return out


def leaf_paths(v, prefix=()):
    if isinstance(v, dict) and v:
        for k, x in v.items():
            yield from leaf_paths(x, prefix + (k,))
    else:
        yield prefix


def operator_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(dgd_operator VERSION (\S+)", f.read()).group(1)


# -- files ----------------------------------------------------------------------------------

def test_chart_yaml():
    meta, values = chart_lib.load_chart()
    check(meta.get("apiVersion") == "v2", "Chart.yaml: apiVersion must be v2, got %r" % meta.get("apiVersion"))
    check(meta.get("name") == "dgd-operator", "Chart.yaml: name %r" % meta.get("name"))
    check(re.fullmatch(r"\d+\.\d+\.\d+(-[\w.]+)?", str(meta.get("version", ""))), "Chart.yaml: version not SemVer")
    check(str(meta.get("appVersion")) == operator_version(),
          "Chart.yaml: appVersion %r != CMake project version %r (the image tag)" % (meta.get("appVersion"),
                                                                                  operator_version()))
    check(isinstance(values, dict) and values, "values.yaml: not a map")


def test_values_paths():
    _, values = chart_lib.load_chart()
    used = set()
    for fname, text in templates_text().items():
        for m in re.finditer(r"(?:\$?\.Values|\$le|\$sm)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text):
            prefix = {"$le": ("leaderElection",), "$sm": ("metrics", "serviceMonitor")}.get(
                m.group(0).split(".")[0], ())
            path = prefix + tuple(m.group(1)[1:].split("."))
            used.add(path)
            cur = values
            for p in path:
                if not isinstance(cur, dict) or p not in cur:
                    FAILURES.append("%s: .Values.%s is not in values.yaml" % (fname, ".".join(path)))
                    break
                cur = cur[p]
    for leaf in leaf_paths(values):
        if not any(leaf[:len(u)] == u for u in used):
            FAILURES.append("values.yaml: %s is read by no template" % ".".join(leaf))


def test_values_documented():
    """Each value has a comment: on its own line(s) above, at the end of its line, or on
    an enclosing map (e.g. resources: its requests and limits)."""
    with open(os.path.join(CHART, "values.yaml")) as f:
        lines = f.read().split("\n")
    stack = []  # (indent, documented)
    prev_comment_indent = None
    for line in lines:
        s = line.strip()
        if not s:
            prev_comment_indent = None
            continue
        indent = len(line) - len(line.lstrip(" "))
        if s.startswith("#"):
            prev_comment_indent = indent
            continue
        m = re.match(r"(\s*)([A-Za-z_][\w.-]*):(.*)$", line)
        if not m or s.startswith("- "):
            prev_comment_indent = None
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        own = prev_comment_indent == indent or "#" in m.group(3)
        documented = own or any(d for _, d in stack)
        rest = m.group(3).split("#")[0].strip()
        if rest not in ("",) and not documented:  # a leaf
            FAILURES.append("values.yaml: %s has no comment" % m.group(2))
        if rest == "":
            stack.append((indent, documented))
        prev_comment_indent = None


def test_crds_identical():
    top = os.path.join(ROOT, "crds")
    ours = os.path.join(CHART, "files", "crds")
    a = sorted(f for f in os.listdir(top) if f.endswith(".yaml"))
    b = sorted(f for f in os.listdir(ours)) if os.path.isdir(ours) else []
    regen = "(run deploy/tools/chart-render.sh write-install .)"
    check(a == b, "chart files/crds/ %s != crds/ %s %s" % (b, a, regen))
    for f in set(a) & set(b):
        with open(os.path.join(top, f), "rb") as x, open(os.path.join(ours, f), "rb") as y:
            check(x.read() == y.read(), "chart files/crds/%s differs from crds/%s %s" % (f, f, regen))


# -- rendered ---------------------------------------------------------------------------------

def objects(sets=(), values=None):
    return chart_lib.objects(sets=sets, values=values)


find = chart_lib.find
CLUSTER_NAME = "dgd-operator-dgd-system"  # cluster-scoped names carry the release namespace


def deployment(objs):
    d = find(objs, "Deployment")
    assert len(d) == 1, [o["kind"] for o in objs]
    return d[0]


def flag_values(container):
    out = {}
    for a in container["args"][1:]:
        k, _, v = a.partition("=")
        out[k] = v
    return out


def test_default_deployment():
    objs = objects()
    d = deployment(objs)
    spec = d["spec"]
    pod = spec["template"]["spec"]
    c = pod["containers"][0]
    check(spec["replicas"] == 2, "default replicas %r, want 2" % spec["replicas"])
    check(c["args"][0] == "run", "the container must run `dgd-operator run`: %r" % c["args"])
    f = flag_values(c)
    check(f.get("--leader-elect") == "true", "leader election off by default: %r" % c["args"])
    psc, sc = pod.get("securityContext") or {}, c.get("securityContext") or {}
    check(psc.get("runAsNonRoot") is True, "pod securityContext.runAsNonRoot")
    check((psc.get("seccompProfile") or {}).get("type") == "RuntimeDefault", "seccompProfile RuntimeDefault")
    check(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    check(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation false")
    check((sc.get("capabilities") or {}).get("drop") == ["ALL"], "capabilities drop ALL")
    req = (c.get("resources") or {}).get("requests") or {}
    check("cpu" in req and "memory" in req, "cpu and memory requests")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    health_port = int(f["--health-addr"].rsplit(":", 1)[1])
    metrics_port = int(f["--metrics-addr"].rsplit(":", 1)[1])
    check(ports.get("health") == health_port, "port 'health' %r != --health-addr %r" % (ports, f["--health-addr"]))
    check(ports.get("metrics") == metrics_port, "port 'metrics' != --metrics-addr")
    check(c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}, "liveness /healthz on health")
    check(c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}, "readiness /readyz on health")
    check(pod["serviceAccountName"] == find(objs, "ServiceAccount")[0]["metadata"]["name"], "serviceAccountName")
    sel = spec["selector"]["matchLabels"]
    labels = spec["template"]["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in sel.items()), "selector does not match the pod labels")
    svc = find(objs, "Service", "dgd-operator-metrics")
    check(len(svc) == 1, "metrics Service")
    if svc:
        check(sel.items() <= svc[0]["spec"]["selector"].items() <= labels.items(),
              "metrics Service selects the operator pods: %r" % svc[0]["spec"]["selector"])
        check(svc[0]["spec"]["ports"][0]["targetPort"] == "metrics", "metrics Service targets port 'metrics'")
    pdb = find(objs, "PodDisruptionBudget")
    check(len(pdb) == 1 and sel.items() <= pdb[0]["spec"]["selector"]["matchLabels"].items() <= labels.items(),
          "PodDisruptionBudget for the pods")
    check(not find(objs, "ServiceMonitor"), "ServiceMonitor must be off by default")
    check(not find(objs, "Namespace"), "the chart renders no Namespace by default (helm --create-namespace)")
    aff = pod.get("affinity") or {}
    check("podAntiAffinity" in aff, "default affinity spreads the replicas")
    lease = find(objs, "Role", "dgd-operator-leader-election")
    check(len(lease) == 1 and lease[0]["metadata"]["namespace"] == "dgd-system", "Lease Role in the release ns")
    if lease:
        check(lease[0]["rules"] == [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                                     "verbs": ["get", "create", "update"]}], "Lease Role rules")


def test_flags_exist():
    """Every flag the Deployment passes is one `dgd-operator run` accepts, and the chart's
    leader-election timings are the binary's defaults."""
    binary = os.environ.get("DGD_OPERATOR")
    if not binary or not os.path.exists(binary):
        FAILURES.append("DGD_OPERATOR not set (run under ctest)")
        return
    help_text = subprocess.run([binary, "run", "--help"], capture_output=True, text=True, timeout=30).stdout
    for sets in ([], ["watchNamespace=team-a", "extraArgs={--kind-probe-interval=60}"]):
        c = deployment(objects(sets))["spec"]["template"]["spec"]["containers"][0]
        for flag in flag_values(c):
            check(re.search(r"(^|\s)%s\b" % re.escape(flag), help_text),
                  "%s: flag %s is not accepted by dgd-operator run" % (sets, flag))
    f = flag_values(deployment(objects())["spec"]["template"]["spec"]["containers"][0])
    for flag in ("--leader-election-id", "--leader-election-lease-duration", "--leader-election-renew-deadline",
                 "--leader-election-retry-period", "--concurrency", "--kube-api-burst"):
        m = re.search(r"^\s*%s [^\n=]*=(\S+)" % re.escape(flag), help_text, re.M)  # CLI11: "--x TYPE=default"
        check(m and m.group(1) == f[flag], "%s: chart %r, binary default %r" % (flag, f.get(flag),
                                                                               m and m.group(1)))


def rule_set(rules):
    out = set()
    for r in rules:
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                for v in r.get("verbs", []):
                    out.add((g, res, v))
    return out


# What the operator needs (HELPERS.md, "Operator permissions"), reviewed by hand.
RW = ("get", "list", "watch", "create", "patch", "update", "delete")
NEEDED = {("nvidia.com", "dynamographdeployments", v) for v in ("get", "list", "watch")} \
    | {("nvidia.com", "dynamographdeployments/status", v) for v in ("update", "patch")} \
    | {(g, r, v) for g, r in [("", "serviceaccounts"), ("rbac.authorization.k8s.io", "roles"),
                               ("rbac.authorization.k8s.io", "rolebindings"), ("", "persistentvolumeclaims"),
                               ("batch", "jobs"), ("resource.nvidia.com", "computedomains"), ("", "configmaps"),
                               ("", "services"), ("apps", "deployments")] for v in RW} \
    | {("", "events", v) for v in ("create", "patch")} \
    | {("", r, v) for r in ("pods", "nodes") for v in ("get", "list", "watch")} \
    | {("nvidia.com", "dynamographdeploymentscalingadapters", v) for v in ("get", "list", "watch", "create", "delete")} \
    | {("nvidia.com", "dynamographdeploymentscalingadapters/status", "patch"),
       ("rbac.authorization.k8s.io", "clusterroles", "bind")}  # bind: the planner role only (resourceNames)


def discovery_role_rules():
    """Rules of the Roles the operator creates for a graph (rendered by dgdctl)."""
    dgdctl = os.environ.get("DGDCTL")
    if not dgdctl or not os.path.exists(dgdctl):
        FAILURES.append("DGDCTL not set (run under ctest)")
        return set()
    path = os.path.join(ROOT, "recipes", "deepseek-v4.1-flash", "vllm", "disagg-h200-agentic", "deploy.yaml")
    p = subprocess.run([dgdctl, "render", "-f", path], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        FAILURES.append("dgdctl render failed: %s" % p.stderr)
        return set()
    out = set()
    roles = [o for o in yaml.safe_load_all(p.stdout) if o and o.get("kind") == "Role"]
    check(roles, "dgdctl render produced no Role (the discovery Role)")
    for r in roles:
        out |= rule_set(r["rules"])
    return out


def test_rbac():
    cluster = objects()
    cr = find(cluster, "ClusterRole", CLUSTER_NAME)
    check(len(cr) == 1, "ClusterRole " + CLUSTER_NAME)
    granted = rule_set(cr[0]["rules"]) if cr else set()
    missing = NEEDED - granted
    check(not missing, "ClusterRole lacks %s" % sorted(missing))
    # Kubernetes refuses to create a Role granting more than its creator holds.
    disc = discovery_role_rules()
    check(not (disc - granted), "ClusterRole lacks what the discovery Role grants (RBAC escalation check would "
          "refuse to create it): %s" % sorted(disc - granted))
    extra = granted - NEEDED - disc
    check(not extra, "ClusterRole grants more than needed: %s" % sorted(extra))

    # metrics.podMonitors.enabled: the flag, and RBAC on podmonitors only then.
    check(not {g for g, _, _ in granted} & {"monitoring.coreos.com"}, "podmonitors granted by default")
    pm = objects(["metrics.podMonitors.enabled=true"])
    pm_cr = find(pm, "ClusterRole", CLUSTER_NAME)
    pm_granted = rule_set(pm_cr[0]["rules"]) if pm_cr else set()
    check(pm_granted - granted == {("monitoring.coreos.com", "podmonitors", v) for v in RW} and granted <= pm_granted,
          "metrics.podMonitors.enabled: ClusterRole adds %s" % sorted(pm_granted ^ granted))
    check("--pod-monitors=true" in deployment(pm)["spec"]["template"]["spec"]["containers"][0]["args"],
          "metrics.podMonitors.enabled: --pod-monitors=true")
    check("--pod-monitors=true" not in deployment(cluster)["spec"]["template"]["spec"]["containers"][0]["args"],
          "--pod-monitors by default")
    pm_ns = objects(["metrics.podMonitors.enabled=true", "watchNamespace=team-a"])
    pm_role = find(pm_ns, "Role", CLUSTER_NAME)
    check(pm_role and ("monitoring.coreos.com", "podmonitors", "watch") in rule_set(pm_role[0]["rules"]),
          "metrics.podMonitors.enabled with watchNamespace: podmonitors in the Role")

    ns = objects(["watchNamespace=team-a"])
    role = find(ns, "Role", CLUSTER_NAME)
    check(len(role) == 1 and role[0]["metadata"]["namespace"] == "team-a", "watchNamespace: Role in team-a")
    ns_cr = find(ns, "ClusterRole", CLUSTER_NAME)
    check(len(ns_cr) == 1, "watchNamespace: ClusterRole for nodes")
    if role and ns_cr:
        cluster_part = rule_set(ns_cr[0]["rules"])
        check({r for _, r, _ in cluster_part} == {"nodes"},
              "watchNamespace: only nodes stay cluster-wide, got %s" % sorted(cluster_part))
        check(rule_set(role[0]["rules"]) | cluster_part == granted,
              "watchNamespace: Role + ClusterRole %s != cluster-wide ClusterRole"
              % sorted((rule_set(role[0]["rules"]) | cluster_part) ^ granted))
    rb = find(ns, "RoleBinding", CLUSTER_NAME)
    check(len(rb) == 1 and rb[0]["metadata"]["namespace"] == "team-a" and
          rb[0]["subjects"] == [{"kind": "ServiceAccount", "name": "dgd-operator", "namespace": "dgd-system"}] and
          rb[0]["roleRef"]["name"] == CLUSTER_NAME, "watchNamespace: RoleBinding to the ServiceAccount")
    c = deployment(ns)["spec"]["template"]["spec"]["containers"][0]
    check("--namespace=team-a" in c["args"], "watchNamespace: --namespace=team-a in %r" % c["args"])

    for sets in ([], ["watchNamespace=team-a"]):
        for o in objects(sets):
            if o["kind"] not in ("Role", "ClusterRole"):
                continue
            for r in o["rules"]:
                for field in ("apiGroups", "resources", "verbs"):
                    check("*" not in r.get(field, []), "%s %s: wildcard in %s" % (o["kind"], o["metadata"]["name"],
                                                                                  field))
                check("secrets" not in r.get("resources", []), "%s grants secrets" % o["metadata"]["name"])
        for b in find(objects(sets), "ClusterRoleBinding") + find(objects(sets), "RoleBinding"):
            check(b["subjects"] == [{"kind": "ServiceAccount", "name": "dgd-operator", "namespace": "dgd-system"}],
                  "%s %s subjects" % (b["kind"], b["metadata"]["name"]))


def test_optional_variants():
    objs = objects(["metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.labels.release=prom"])
    sm = find(objs, "ServiceMonitor", "dgd-operator")
    check(len(sm) == 1, "serviceMonitor.enabled renders the ServiceMonitor")
    if sm:
        svc = find(objs, "Service", "dgd-operator-metrics")[0]
        check(all(svc["metadata"]["labels"].get(k) == v for k, v in sm[0]["spec"]["selector"]["matchLabels"].items()),
              "ServiceMonitor selects the metrics Service")
        check(sm[0]["spec"]["endpoints"][0]["port"] == "metrics", "ServiceMonitor scrapes port metrics")
        check(sm[0]["metadata"]["labels"].get("release") == "prom", "ServiceMonitor extra labels")

    objs = objects(["leaderElection.enabled=false", "replicaCount=1", "podDisruptionBudget.enabled=false"])
    c = deployment(objs)["spec"]["template"]["spec"]["containers"][0]
    check("--leader-elect=false" in c["args"], "leaderElection.enabled=false passes --leader-elect=false")
    check(not find(objs, "Role", "dgd-operator-leader-election"), "no Lease Role without leader election")
    check(not find(objs, "PodDisruptionBudget"), "podDisruptionBudget.enabled=false")

    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["system"]}]}]}}}
    objs = objects(["image.tag=1.2.3", "logFormat=text", "logLevel=debug", "concurrency=8",
                    "priorityClassName=system-cluster-critical"],
                   values={"affinity": aff, "nodeSelector": {"kubernetes.io/os": "linux"},
                           "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                           "podAnnotations": {"a": "b"}, "imagePullSecrets": [{"name": "regcred"}]})
    pod = deployment(objs)["spec"]["template"]
    spec = pod["spec"]
    c = spec["containers"][0]
    check(spec["affinity"] == aff, "affinity replaces the default: %r" % spec.get("affinity"))
    check(spec.get("nodeSelector") == {"kubernetes.io/os": "linux"}, "nodeSelector")
    check(spec.get("tolerations") == [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}], "tolerations")
    check(c["image"] == "ghcr.io/dgd-operator/dgd-operator:1.2.3", "image.tag: %r" % c["image"])
    check({"--log-format=text", "--log-level=debug", "--concurrency=8"} <= set(c["args"]), "log and concurrency flags")
    check(pod["metadata"].get("annotations") == {"a": "b"}, "podAnnotations")
    check(spec.get("priorityClassName") == "system-cluster-critical", "priorityClassName")
    check(spec.get("imagePullSecrets") == [{"name": "regcred"}], "imagePullSecrets")


def test_every_template_renders_something():
    produced = set()
    for sets in ([], ["createNamespace=true", "watchNamespace=team-a", "metrics.serviceMonitor.enabled=true"]):
        text = chart_lib.template(sets=sets)
        produced |= set(re.findall(r"^# Source: dgd-operator/(templates/\S+)$", text, re.M))
    for d, _, files in os.walk(os.path.join(CHART, "templates")):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), CHART)
            if f.endswith(".yaml"):
                check(rel in produced, "%s renders nothing in any tested variant" % rel)


def test_renderer_is_strict():
    """--strict refuses a value values.yaml lacks (what makes the value-path checks bite)."""
    import shutil
    import tempfile
    work = tempfile.mkdtemp()
    try:
        chart = os.path.join(work, "dgd-operator")
        shutil.copytree(CHART, chart)
        with open(os.path.join(chart, "templates", "typo.yaml"), "w") as f:
            f.write("# {{ .Values.leaderElection.enabledd }}\n")
        rc, _, err = chart_lib.run("template", "--strict", chart=chart)
        check(rc == 1 and 'map has no entry for key "enabledd"' in err,
              "chart-render --strict accepted a missing value: %d %s" % (rc, err))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
