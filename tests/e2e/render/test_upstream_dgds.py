"""Upstream's own DGD files are accepted and rendered faithfully, or refused precisely.

Every file of upstream's example corpus (../shared/upstream-dgds, read at test time) goes
through what a user does with it:
- a nvidia.com/v1alpha1 file: `kubectl apply --dry-run=server` is refused at admission with
  a message naming the convert command, and `dgdctl convert -f FILE` converts it (exit 0);
- the v1beta1 DGDs (as written, or converted): `dgdctl validate`, and `kubectl apply
  --dry-run=server` against kube-sim with the project's CRD (schema and CEL enforced).

Accepted (validate exit 0): the server accepts it too, and a field-by-field checker walks
every field the DGD sets and finds it in `dgdctl render`'s objects (the podTemplate in the
component's Deployment, replicas, env, labels, the compilation cache volume and env, ...).
Refused: every error names a field path and says what to do instead.

Prints the per-file table of docs/compatibility.md and the counts.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

import yaml

from components import component_deployment
from kubesim import KubeSim

ROOT = os.environ.get("DGD_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DGDCTL = os.environ["DGDCTL"]
CORPUS = os.environ.get("UPSTREAM_DGDS", os.path.join(ROOT, "..", "shared", "upstream-dgds"))
NS = "upstream"
GLOBAL_DYNAMO_NAMESPACE = "dynamo"
VLLM_CACHE_DEFAULT = "/root/.cache/vllm"

# A refusal says what to do: one of these words starts or carries the alternative.
ALTERNATIVE = re.compile(r"\b(remove|use|add|set|move|run|convert|fit|size|scale|must|required|shorten|put)\b")
ERROR_LINE = re.compile(r"^(?P<src>[^:]+): (?P<dgd>[^:]+): error: (?P<path>[A-Za-z][\w.\[\]/-]*): (?P<msg>.+)$")

failures = []


def fail(msg):
    failures.append(msg)


def run(args, stdin=None):
    p = subprocess.run(args, capture_output=True, text=True, input=stdin, timeout=120)
    if p.returncode < 0 or p.returncode >= 128:
        fail("%s crashed (exit %d)" % (" ".join(args[:2]), p.returncode))
    return p


def dgd_documents(text):
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict) and d.get("kind") == "DynamoGraphDeployment"]


def child_name(dgd, component):
    return (dgd + "-" + component.lower()).replace(".", "-")


# ---------------------------------------------------------------------------------------
# The field checker: every field a DGD sets reaches the rendered objects.

def same_value(want, got):
    if want == got:
        return True
    # Quantities and numbers the renderer canonicalizes ("1" and 1, "8Gi").
    return got is not None and not isinstance(want, (dict, list)) and str(want) == str(got)


def list_key(items):
    """The field that tells the items of a list apart (unique in `items`), if any."""
    for key in ("name", "mountPath", "containerPort", "devicePath"):
        values = [i.get(key) for i in items if isinstance(i, dict)]
        if len(values) == len(items) and None not in values and len(set(map(str, values))) == len(values):
            return key
    return None


def reaches(want, got, path, problems):
    """Every leaf of `want` is in `got` at the same place (lists matched by their key)."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            problems.append("%s: not rendered" % path)
            return
        for k, v in want.items():
            if v == "" and k not in got and path.split(".")[-1].startswith("env["):
                continue  # an EnvVar's value "" is stored as no value (omitempty), and so rendered
            reaches(v, got.get(k), "%s.%s" % (path, k), problems)
    elif isinstance(want, list):
        if not isinstance(got, list):
            problems.append("%s: not rendered" % path)
            return
        key = list_key(want)
        if key and want:
            by_key = {g.get(key): g for g in got if isinstance(g, dict)}
            for item in want:
                reaches(item, by_key.get(item[key]), "%s[%s=%s]" % (path, key, item[key]), problems)
        elif want and all(isinstance(i, dict) for i in want):
            # Items without a key (tolerations, ...): each one is in the rendered list.
            for n, item in enumerate(want):
                if not any(not reaches_quietly(item, g) for g in got):
                    problems.append("%s[%d]: not rendered: %r" % (path, n, item))
        elif want != got:
            problems.append("%s: rendered %r, want %r" % (path, got, want))
    elif not same_value(want, got):
        problems.append("%s: rendered %r, want %r" % (path, got, want))


def reaches_quietly(want, got):
    problems = []
    reaches(want, got, "", problems)
    return problems


def main_container(pod):
    for c in pod.get("spec", {}).get("containers", []):
        if c.get("name") == "main":
            return c
    return {}


def env_of(container):
    return {e.get("name"): e for e in container.get("env", [])}


def check_rendered(dgd, objects):
    """Returns the fields of `dgd` that do not reach `objects`."""
    problems = []
    name = dgd["metadata"]["name"]
    spec = dgd.get("spec", {})
    deployments = [o for o in objects if o.get("kind") == "Deployment"]
    checked = {"backendFramework"}  # selects the framework's defaults (the compilation cache path and env)
    for i, comp in enumerate(spec.get("components", [])):
        base = "spec.components[%d]" % i
        dep = component_deployment(deployments, name, comp["name"])
        if dep is None:
            problems.append("%s: no Deployment %s" % (base, child_name(name, comp["name"])))
            continue
        pod = dep["spec"]["template"]
        main = main_container(pod)
        env = env_of(main)
        labels = pod.get("metadata", {}).get("labels", {})
        for field, value in comp.items():
            p = "%s.%s" % (base, field)
            if field == "name":
                if labels.get("nvidia.com/dynamo-component") != value:
                    problems.append("%s: pods not labelled nvidia.com/dynamo-component=%s" % (p, value))
            elif field == "type":
                if labels.get("nvidia.com/dynamo-component-type") != value:
                    problems.append("%s: pods not labelled nvidia.com/dynamo-component-type=%s" % (p, value))
            elif field == "replicas":
                if dep["spec"].get("replicas") != value:
                    problems.append("%s: Deployment replicas %r" % (p, dep["spec"].get("replicas")))
            elif field == "sharedMemorySize":
                shm = [v for v in pod["spec"].get("volumes", []) if v.get("name") == "shared-memory"]
                if str(value) == "0":
                    if shm:
                        problems.append("%s: \"0\" still mounts /dev/shm" % p)
                elif not shm or not same_value(value, shm[0].get("emptyDir", {}).get("sizeLimit")):
                    problems.append("%s: /dev/shm not sized %s" % (p, value))
            elif field == "podTemplate":
                reaches(value, pod, p, problems)
            elif field == "compilationCache":
                pvc, mount = value["pvcName"], value.get("mountPath", VLLM_CACHE_DEFAULT)
                vols = [v for v in pod["spec"].get("volumes", []) if v.get("name") == pvc]
                if not vols or vols[0].get("persistentVolumeClaim", {}).get("claimName") != pvc:
                    problems.append("%s.pvcName: no volume of PVC %s" % (p, pvc))
                if not any(m.get("name") == pvc and m.get("mountPath") == mount and not m.get("readOnly")
                           for m in main.get("volumeMounts", [])):
                    problems.append("%s.mountPath: %s not mounted writable at %s" % (p, pvc, mount))
                if spec.get("backendFramework", "vllm") == "vllm" and "VLLM_CACHE_ROOT" not in env:
                    problems.append("%s: VLLM_CACHE_ROOT not set" % p)
            elif field == "globalDynamoNamespace":
                got = env.get("DYN_NAMESPACE", {}).get("value")
                if (got == GLOBAL_DYNAMO_NAMESPACE) != bool(value):
                    problems.append("%s: DYN_NAMESPACE is %r" % (p, got))
            else:
                problems.append("%s: the checker does not know where this field goes" % p)
        for j, e in enumerate(spec.get("env", [])):
            user = {x.get("name") for x in comp.get("podTemplate", {}).get("spec", {}).get("containers", [{}])[0].get("env", [])}
            if e["name"] not in env or (e["name"] not in user and env[e["name"]] != e):
                problems.append("spec.env[%d] (%s): not in %s's container main" % (j, e["name"], comp["name"]))
        for k, v in spec.get("annotations", {}).items():
            if dep["metadata"].get("annotations", {}).get(k) != v:
                problems.append("spec.annotations.%s: not on %s" % (k, dep["metadata"]["name"]))
        for k, v in spec.get("labels", {}).items():
            if dep["metadata"].get("labels", {}).get(k) != v:
                problems.append("spec.labels.%s: not on %s" % (k, dep["metadata"]["name"]))
    checked |= {"components", "env", "annotations", "labels"}
    for field in spec:
        if field not in checked:
            problems.append("spec.%s: the checker does not know where this field goes" % field)
    return problems


# ---------------------------------------------------------------------------------------

def reason_of(path, msg):
    """A refusal's reason for the table: the field, with component indexes dropped."""
    field = re.sub(r"\[\d+\]", "[]", path)
    if field.endswith(".type"):
        m = re.search(r"type (\w+)", msg)
        value = re.search(r'unsupported value "([^"]+)"', msg)
        if value:
            return "type %s (unknown)" % value.group(1)
        if "needs" in msg:
            return "prefill without decode"
        if "required" in msg:
            return "component without type"
        return "type %s" % m.group(1) if m else field
    return field


def check_refusal(label, stderr):
    lines = [line for line in stderr.splitlines() if ": error: " in line]
    if not lines:
        fail("%s: refused without an error line: %r" % (label, stderr[:300]))
    reasons = []
    for line in lines:
        m = ERROR_LINE.match(line)
        if not m:
            fail("%s: refusal names no field: %r" % (label, line))
            continue
        if not ALTERNATIVE.search(m.group("msg")):
            fail("%s: refusal of %s says nothing to do instead: %r" % (label, m.group("path"), m.group("msg")))
        reasons.append(reason_of(m.group("path"), m.group("msg")))
    return sorted(set(reasons))


def apply_dry_run(sim, dgd):
    doc = dict(dgd)
    doc["metadata"] = {k: v for k, v in dgd["metadata"].items() if k != "namespace"}
    return sim.kubectl("apply", "--dry-run=server", "-n", NS, "-f", "-", check=False, input=yaml.safe_dump(doc))


# Upstream's CEL rules, carried by the CRD: each case's message comes back from the server.
IMAGE = {"spec": {"containers": [{"name": "main", "image": "rt:1"}]}}
UPSTREAM_RULES = [
    ("spec.restart must be unset on create",
     {"restart": {"id": "r1"}, "components": [{"name": "W", "type": "worker", "podTemplate": IMAGE}]}),
    ("minAvailable must be less than or equal to replicas unless replicas is 0",
     {"components": [{"name": "W", "type": "worker", "replicas": 1, "minAvailable": 2, "podTemplate": IMAGE}]}),
    ("at most one component may have type epp",
     {"components": [{"name": "E1", "type": "epp", "podTemplate": IMAGE},
                     {"name": "E2", "type": "epp", "podTemplate": IMAGE}]}),
    ("eppConfig may only be set when type is epp",
     {"components": [{"name": "W", "type": "worker", "eppConfig": {"config": {}}, "podTemplate": IMAGE}]}),
]


def check_upstream_rules(sim):
    for message, spec in UPSTREAM_RULES:
        dgd = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "rules"},
               "spec": spec}
        p = apply_dry_run(sim, dgd)
        if p.returncode == 0 or message not in p.stderr:
            fail("upstream's rule %r not enforced: %s" % (message, p.stderr[:400]))


def main():
    files = sorted(os.path.relpath(os.path.join(d, f), CORPUS)
                   for d, _, fs in os.walk(os.path.join(CORPUS, "examples")) for f in fs if f.endswith(".yaml"))
    if len(files) < 100:
        print("FAIL upstream corpus not found or incomplete at %s (%d files)" % (CORPUS, len(files)))
        return 1
    rows = []
    counts = collections.Counter()
    by_reason = collections.Counter()
    plugin_checked = False
    with KubeSim() as sim, tempfile.TemporaryDirectory() as tmp:
        sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
        sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=60s")
        sim.kubectl("create", "namespace", NS)
        check_upstream_rules(sim)
        for rel in files:
            path = os.path.join(CORPUS, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            dgds = dgd_documents(text)
            alpha = any(d.get("apiVersion") == "nvidia.com/v1alpha1" for d in dgds)
            if alpha:
                refused = apply_dry_run(sim, [d for d in dgds if d.get("apiVersion") == "nvidia.com/v1alpha1"][0])
                if refused.returncode == 0 or "kubectl dgd convert" not in refused.stderr:
                    fail("%s: v1alpha1 not refused at admission with the convert command: %s" % (rel, refused.stderr[:300]))
                conv = run([DGDCTL, "convert", "-f", path])
                if conv.returncode != 0:
                    fail("%s: dgdctl convert failed: %s" % (rel, conv.stderr[:500]))
                    rows.append((rel, "v1alpha1", "convert failed", ""))
                    continue
                dgds = dgd_documents(conv.stdout)
                if not plugin_checked:
                    # The kubectl plugin form (kubectl-dgd, a link to dgdctl beside it) prints the same.
                    env = dict(os.environ, PATH=os.path.dirname(DGDCTL) + os.pathsep + os.environ.get("PATH", ""))
                    plugin = subprocess.run(["kubectl", "dgd", "convert", "-f", path], capture_output=True, text=True,
                                            env=env, timeout=120)
                    if plugin.returncode != 0 or plugin.stdout != conv.stdout:
                        fail("%s: `kubectl dgd convert` differs from `dgdctl convert`: %s" % (rel, plugin.stderr[:300]))
                    plugin_checked = True
            reasons, problems, admission = [], [], []
            for n, dgd in enumerate(dgds):
                label = "%s#%d" % (rel, n + 1)
                doc_path = os.path.join(tmp, "dgd.yaml")
                with open(doc_path, "w", encoding="utf-8") as f:
                    yaml.safe_dump(dgd, f)
                v = run([DGDCTL, "validate", "-f", doc_path])
                server = apply_dry_run(sim, dgd)
                if v.returncode == 0:
                    if server.returncode != 0:
                        fail("%s: dgdctl accepts, kube-sim refuses: %s" % (label, server.stderr.strip()[:400]))
                    r = run([DGDCTL, "render", "-n", NS, "-f", doc_path])
                    if r.returncode != 0:
                        fail("%s: accepted but render failed: %s" % (label, r.stderr[:400]))
                        continue
                    rendered = [o for o in yaml.safe_load_all(r.stdout) if isinstance(o, dict)]
                    for p in check_rendered(dgd, rendered):
                        problems.append(p)
                        fail("%s: accepted and ignored: %s" % (label, p))
                else:
                    if v.returncode != 1:
                        fail("%s: validate exit %d" % (label, v.returncode))
                    reasons += check_refusal(label, v.stderr)
                    admission.append(server.returncode != 0)
            reasons = sorted(set(reasons))
            if reasons:
                where = "admission" if all(admission) else "status" if not any(admission) else "admission, status"
                outcome = "refused"
                detail = "; ".join(reasons) + " (" + where + ")"
                for reason in reasons:
                    by_reason[reason] += 1
            else:
                outcome = "converted" if alpha else "accepted"
                detail = ""
            counts[outcome] += 1
            if alpha and outcome == "refused":
                counts["converted, then refused"] += 1
            rows.append((rel, "v1alpha1" if alpha else "v1beta1", outcome, detail))

    print("| file | apiVersion | outcome | refused for |")
    print("|---|---|---|---|")
    for row in rows:
        print("| `%s` | %s | %s | %s |" % row)
    print()
    print("files: %d; accepted: %d; converted (v1alpha1, accepted after dgdctl convert): %d; refused: %d "
          "(of which v1alpha1 converted, then refused: %d)" % (
              len(rows), counts["accepted"], counts["converted"], counts["refused"], counts["converted, then refused"]))
    print("refusals by reason (files):")
    for reason, n in sorted(by_reason.items(), key=lambda x: (-x[1], x[0])):
        print("  %3d  %s" % (n, reason))
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
