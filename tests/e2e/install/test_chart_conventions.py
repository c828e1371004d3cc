#!/usr/bin/python3
"""The chart's conventions, rendered by chart-render (Helm's template engine), each
checked where a user meets it:

- two releases of the same name in two namespaces have disjoint cluster-scoped objects
  (and disjoint objects in a shared watched namespace), and both install side by side on
  kube-sim, each binding its own ServiceAccount;
- CRDs: rendered from crds/ with the standard labels, helm.sh/resource-policy: keep unless
  crds.keep=false, none with crds.enabled=false;
- values.schema.json refuses typos, wrong types and a numeric image tag with a message
  naming the value; `fail` guards refuse contradictory values;
- values as Helm reads them: a numeric tag renders as Helm renders it (2.0250101e+07)
  when the schema is skipped, and YAML 1.1 strings ("y", "1234e56") stay quoted strings;
- image digest and global registry; standard labels on every object of every variant;
  nameOverride / fullnameOverride; topology spread; the ServiceMonitor's fields;
- NOTES follow the values (no Lease check without leader election) and name no file of
  the repository;
- the helm-lint-equivalent check passes, and fails on broken copies of the chart.
"""
import json
import os
import re
import shutil
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import chart_lib  # noqa: E402
from chart_lib import CHART, ROOT, find  # noqa: E402
from checklist import check, run_tests  # noqa: E402
from kubesim import KubeSim  # noqa: E402

CLUSTER_KINDS = {"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace"}
STANDARD = ("helm.sh/chart", "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
            "app.kubernetes.io/managed-by", "app.kubernetes.io/part-of", "app.kubernetes.io/component")
ALL_ON = {"createNamespace": True, "watchNamespace": "team-a",
          "metrics": {"serviceMonitor": {"enabled": True}},
          "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                         "whenUnsatisfiable": "ScheduleAnyway"}]}


def deployment(objs):
    return find(objs, "Deployment")[0]


def names_outside(objs, release_ns):
    """(kind, namespace, name) of what lies outside the release namespace."""
    return {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objs
            if o["kind"] in CLUSTER_KINDS or o["metadata"].get("namespace") not in (None, release_ns)}


def test_two_releases():
    a = chart_lib.objects(namespace="team-a", values={"watchNamespace": "shared"})
    b = chart_lib.objects(namespace="team-b", values={"watchNamespace": "shared", "crds": {"enabled": False}})
    out_a, out_b = names_outside(a, "team-a"), names_outside(b, "team-b")
    check(find(a, "ClusterRole") and find(a, "RoleBinding"), "the render has no ClusterRole or RoleBinding")
    check(not out_a & out_b, "two releases share %s" % sorted(out_a & out_b))
    with KubeSim() as sim:
        for ns in ("team-a", "team-b", "shared"):
            sim.kubectl("create", "namespace", ns)
        for objs in (a, b):
            sim.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [
                o for o in objs if o["kind"] != "Pod"]}))
        for ns in ("team-a", "team-b"):
            crb = json.loads(sim.kubectl("get", "clusterrolebinding", "dgd-operator-" + ns, "-o", "json").stdout)
            check(crb["subjects"] == [{"kind": "ServiceAccount", "name": "dgd-operator", "namespace": ns}],
                  "ClusterRoleBinding of %s binds %s" % (ns, crb["subjects"]))
            rb = json.loads(sim.kubectl("get", "rolebinding", "dgd-operator-" + ns, "-n", "shared", "-o",
                                        "json").stdout)
            check(rb["subjects"][0]["namespace"] == ns and rb["roleRef"]["name"] == "dgd-operator-" + ns,
                  "RoleBinding of %s in shared: %s" % (ns, rb))


def test_crds():
    top = {}
    for f in os.listdir(os.path.join(ROOT, "crds")):
        if f.endswith(".yaml"):
            with open(os.path.join(ROOT, "crds", f)) as fh:
                c = yaml.safe_load(fh)
            top[c["metadata"]["name"]] = c
    crds = find(chart_lib.objects(), "CustomResourceDefinition")
    check(sorted(c["metadata"]["name"] for c in crds) == sorted(top), "rendered CRDs != crds/")
    for c in crds:
        want = top.get(c["metadata"]["name"], {})
        check(c["spec"] == want.get("spec"), "CRD %s spec differs from crds/" % c["metadata"]["name"])
        check(c["metadata"].get("annotations", {}).get("helm.sh/resource-policy") == "keep",
              "CRD %s lacks helm.sh/resource-policy: keep" % c["metadata"]["name"])
        check(c["metadata"]["labels"].get("app.kubernetes.io/component") == "crd", "CRD component label")
    for c in find(chart_lib.objects(values={"crds": {"keep": False}}), "CustomResourceDefinition"):
        check("helm.sh/resource-policy" not in (c["metadata"].get("annotations") or {}),
              "crds.keep=false still keeps %s" % c["metadata"]["name"])
    check(not find(chart_lib.objects(values={"crds": {"enabled": False}}), "CustomResourceDefinition"),
          "crds.enabled=false renders CRDs")


def test_schema_and_guards():
    cases = [
        ({"replicas": 2}, "(root): Additional property replicas is not allowed"),
        ({"image": {"tag": 20250101}}, "image.tag: Invalid type. Expected: string, given: integer"),
        ({"image": {"tga": "x"}}, "image: Additional property tga is not allowed"),
        ({"replicaCount": "two"}, "replicaCount: Invalid type. Expected: integer, given: string"),
        ({"logLevel": "warning"}, "logLevel: logLevel must be one of the following"),
        ({"podLabels": {"team": True}}, "podLabels.team: Invalid type. Expected: string, given: boolean"),
        ({"leaderElection": {"enabled": False}},
         "leaderElection.enabled=false with replicaCount=2: every replica would reconcile"),
        ({"leaderElection": {"renewDeadline": 20}},
         "leaderElection.leaseDuration (15) must be greater than leaderElection.renewDeadline (20)"),
        ({"metrics": {"port": 8081}}, "metrics.port and health.port are both 8081"),
    ]
    for values, message in cases:
        err = chart_lib.refusal(values=values)
        check(message in err, "%s: want %r in:\n%s" % (values, message, err))
    # Helm's --set makes an integer too: refused the same way (--set-string is the way).
    check("image.tag: Invalid type" in chart_lib.refusal(sets=["image.tag=20250101"]), "--set image.tag=20250101")
    ok = chart_lib.objects(values={"leaderElection": {"enabled": False}, "replicaCount": 1})
    check("--leader-elect=false" in deployment(ok)["spec"]["template"]["spec"]["containers"][0]["args"],
          "leader election off with one replica")


def test_values_as_helm_reads_them():
    # A values file, as a user writes it: YAML numbers are float64 in Helm.
    text = chart_lib.template(value_texts=["image:\n  tag: 20250101\n"], extra=["--skip-schema-validation"])
    image = [line.strip() for line in text.splitlines() if line.strip().startswith("image: \"ghcr.io")]
    check(image == ['image: "ghcr.io/dgd-operator/dgd-operator:2.0250101e+07"'],
          "numeric tag without the schema: %s (Helm renders 2.0250101e+07)" % image)
    text = chart_lib.template(value_texts=['image:\n  tag: "20250101"\n'])
    check('image: "ghcr.io/dgd-operator/dgd-operator:20250101"' in text, "quoted tag")
    values = 'podLabels:\n  a: "y"\n  b: "1234e56"\n  c: "0x1F"\npodAnnotations:\n  d: "on"\n'
    text = chart_lib.template(value_texts=[values])
    for line in ('a: "y"', 'b: "1234e56"', 'c: "0x1F"', 'd: "on"'):
        check(re.search(r"^\s+%s$" % re.escape(line), text, re.M), "%s not quoted in the output" % line)
    pod = deployment([d for d in yaml.safe_load_all(text) if d])["spec"]["template"]["metadata"]
    check({k: pod["labels"][k] for k in "abc"} == {"a": "y", "b": "1234e56", "c": "0x1F"} and
          pod["annotations"] == {"d": "on"}, "YAML 1.1 strings read back as %r" % pod)
    err = chart_lib.refusal(value_texts=["podLabels:\n  a: y\n"])
    check("podLabels.a: Invalid type. Expected: string, given: boolean" in err, "unquoted y: " + err)


def test_images():
    digest = "sha256:" + "0123456789abcdef" * 4
    objs = chart_lib.objects(values={"image": {"digest": digest, "tag": "ignored"},
                                     "global": {"imageRegistry": "mirror.example.com:5000"}})
    c = deployment(objs)["spec"]["template"]["spec"]["containers"][0]
    check(c["image"] == "mirror.example.com:5000/dgd-operator/dgd-operator@" + digest, "digest: %s" % c["image"])
    test_pod = find(objs, "Pod")[0]["spec"]["containers"][0]
    check(test_pod["image"] == "mirror.example.com:5000/curlimages/curl:8.11.1", "test image: %s" % test_pod["image"])
    c = deployment(chart_lib.objects())["spec"]["template"]["spec"]["containers"][0]
    check(c["image"] == "ghcr.io/dgd-operator/dgd-operator:0.1.0", "default image %s" % c["image"])
    check("image.digest: Does not match pattern" in chart_lib.refusal(values={"image": {"digest": "latest"}}),
          "a malformed digest")


def test_labels_and_names():
    for values in ({}, ALL_ON, dict(ALL_ON, nameOverride="dgd"), dict(ALL_ON, fullnameOverride="op")):
        objs = chart_lib.objects(values=values, release="prod")
        for o in objs:
            labels = o["metadata"].get("labels") or {}
            missing = [k for k in STANDARD if k not in labels]
            check(not missing, "%s %s %s lacks %s" % (values.keys(), o["kind"], o["metadata"]["name"], missing))
            check(labels.get("app.kubernetes.io/managed-by") == "Helm" and
                  labels.get("app.kubernetes.io/part-of") == "dgd-operator" and
                  labels.get("helm.sh/chart") == "dgd-operator-" + chart_lib.load_chart()[0]["version"] and
                  labels.get("app.kubernetes.io/instance") == "prod", "%s %s labels %s" % (
                      o["kind"], o["metadata"]["name"], labels))
        d = deployment(objs)
        pod_labels = d["spec"]["template"]["metadata"]["labels"]
        for o in find(objs, "Service") + find(objs, "PodDisruptionBudget"):
            sel = o["spec"]["selector"].get("matchLabels", o["spec"]["selector"])
            check(sel.items() <= pod_labels.items(), "%s does not select the pods" % o["kind"])
        want_name = values.get("nameOverride", "dgd-operator")
        want_full = values.get("fullnameOverride") or "prod-" + want_name
        check(d["metadata"]["name"] == want_full and pod_labels["app.kubernetes.io/name"] == want_name,
              "names with %s: %s %s" % (values.keys(), d["metadata"]["name"], pod_labels))
        check(d["spec"]["template"]["spec"]["serviceAccountName"] == want_full, "serviceAccountName")
        for o in find(objs, "ClusterRole") + find(objs, "ClusterRoleBinding"):
            # The planner's ClusterRole (bound per namespace by the operator) adds a suffix.
            names = [want_full + "-dgd-system"] + ([want_full + "-dgd-system-planner"] if o["kind"] == "ClusterRole" else [])
            check(o["metadata"]["name"] in names, "cluster name %s" % o["metadata"]["name"])


def test_topology_spread():
    spec = deployment(chart_lib.objects(values=ALL_ON))["spec"]["template"]["spec"]
    tsc = spec.get("topologySpreadConstraints") or [{}]
    sel = tsc[0].get("labelSelector", {}).get("matchLabels", {})
    check(tsc[0].get("topologyKey") == "topology.kubernetes.io/zone" and sel == {"app.kubernetes.io/name": "dgd-operator", "app.kubernetes.io/instance": "dgd-operator",
                           "app.kubernetes.io/component": "operator"}, "topology spread: %s" % tsc)
    own = {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"x": "y"}}}
    spec = deployment(chart_lib.objects(values={"topologySpreadConstraints": [own]}))["spec"]["template"]["spec"]
    check(spec["topologySpreadConstraints"] == [own], "a constraint's own labelSelector is kept")
    check("topologySpreadConstraints" not in deployment(chart_lib.objects())["spec"]["template"]["spec"],
          "no constraint by default")


def test_service_monitor():
    sm_values = {"enabled": True, "namespace": "monitoring", "interval": "15s", "scrapeTimeout": "5s",
                 "honorLabels": True, "labels": {"release": "prom"},
                 "relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"}],
                 "metricRelabelings": [{"sourceLabels": ["__name__"], "regex": "go_.*", "action": "drop"}]}
    objs = chart_lib.objects(values={"metrics": {"serviceMonitor": sm_values}})
    sm = find(objs, "ServiceMonitor")[0]
    ep = sm["spec"]["endpoints"][0]
    check(sm["metadata"]["namespace"] == "monitoring" and sm["metadata"]["labels"]["release"] == "prom",
          "ServiceMonitor metadata %s" % sm["metadata"])
    check(sm["spec"]["namespaceSelector"] == {"matchNames": ["dgd-system"]}, "namespaceSelector")
    check(ep == {"port": "metrics", "path": "/metrics", "scheme": "http", "interval": "15s", "scrapeTimeout": "5s",
                 "honorLabels": True, "relabelings": sm_values["relabelings"],
                 "metricRelabelings": sm_values["metricRelabelings"]}, "endpoint %s" % ep)
    svc = find(objs, "Service")[0]
    check(sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(),
          "the ServiceMonitor does not select the metrics Service")
    check(any(p["name"] == "metrics" for p in svc["spec"]["ports"]), "the Service has no port metrics")
    sm = find(chart_lib.objects(values={"metrics": {"serviceMonitor": {"enabled": True}}}), "ServiceMonitor")[0]
    check(sm["metadata"]["namespace"] == "dgd-system", "ServiceMonitor namespace defaults to the release's")


def test_notes():
    repo_path = re.compile(r"(docs|recipes|crds|deploy|tests|src)/|\.md\b|\.py\b")
    variants = [({}, True), ({"leaderElection": {"enabled": False}, "replicaCount": 1}, False),
                (dict(ALL_ON, crds={"enabled": False}, tests={"enabled": False}), True),
                ({"crds": {"keep": False}}, True)]
    for values, lease in variants:
        text = chart_lib.notes(values=values)
        check(not repo_path.search(text), "NOTES name a repository path with %s:\n%s" % (values, text))
        check(("get lease dgd-operator-leader" in text) == lease, "NOTES Lease check with %s:\n%s" % (values, text))
        tests_on = values.get("tests", {}).get("enabled", True)
        check(("helm test dgd-operator" in text) == tests_on, "NOTES helm test line with %s" % values)
        crds = values.get("crds", {})
        if not crds.get("enabled", True):
            check("crds.enabled=false" in text, "NOTES do not say the CRDs are not installed")
        elif not crds.get("keep", True):
            check("DELETES" in text, "NOTES do not warn that uninstall deletes the CRDs")
        else:
            check("keeps them" in text, "NOTES do not say the CRDs are kept")
        if values.get("watchNamespace"):
            check("in the namespace team-a only" in text, "NOTES watchNamespace")
    text = chart_lib.notes(values={"leaderElection": {"leaseName": "my-lease"}}, release="x", namespace="ops")
    check("kubectl -n ops get lease my-lease" in text and "deployment/x-dgd-operator" in text, text)


def lint(chart):
    return chart_lib.run("lint", "--strict", chart=chart)


def test_lint():
    rc, out, err = lint(CHART)
    check(rc == 0 and "1 chart(s) linted, 0 chart(s) failed" in out, "lint of the chart:\n%s%s" % (out, err))
    # As Helm: a chart without an icon is told so, and passes even with --strict.
    check("[INFO] Chart.yaml: icon is recommended" in out, "lint does not recommend an icon:\n" + out)
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        meta_text = f.read()
    breakages = {
        "license field": (lambda t: t + "license: Apache-2.0\n", 'unknown field "license"'),
        "icon not a URL": (lambda t: t + "icon: dgd.svg\n", "invalid icon URL 'dgd.svg'"),
        "no license annotation": (lambda t: t.replace("artifacthub.io/license", "x-license"),
                                  "annotation artifacthub.io/license is required"),
        "maintainer without a name": (lambda t: t + "maintainers:\n- email: a@example.com\n",
                                      "each maintainer requires a name"),
        "source not a URL": (lambda t: t + "sources:\n- not a url\n", "invalid source URL 'not a url'"),
        "version": (lambda t: re.sub(r"(?m)^version:.*$", "version: 1.0.0.0", t), "version '1.0.0.0' is not a valid SemVer"),
        "numeric appVersion": (lambda t: re.sub(r"(?m)^appVersion:.*$", "appVersion: 1.10", t),
                               "appVersion should be of type string but it's of type float64"),
    }
    work = tempfile.mkdtemp()
    try:
        for what, (edit, message) in breakages.items():
            chart = os.path.join(work, what.replace(" ", "-"), "dgd-operator")
            shutil.copytree(CHART, chart)
            with open(os.path.join(chart, "Chart.yaml"), "w") as f:
                f.write(edit(meta_text))
            rc, out, err = lint(chart)
            check(rc == 1 and message in out, "lint passed a chart with %s (%d):\n%s%s" % (what, rc, out, err))
        chart = os.path.join(work, "values", "dgd-operator")
        shutil.copytree(CHART, chart)
        with open(os.path.join(chart, "values.yaml"), "a") as f:
            f.write("replicas: 3\n")
        rc, out, _ = lint(chart)
        check(rc == 1 and "Additional property replicas is not allowed" in out, "lint passed a values typo:\n" + out)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
