#!/usr/bin/python3
"""An upstream-style explicit DGD renders with its args untouched and upstream's names,
labels, ports and injected env.

Input: tests/golden/upstream/dsv4-flash-disagg-h200-agentic.yaml, written by hand from
recipes.md §5 in upstream's v1beta1 shape (podTemplate with container `main`, explicit
bash -lc script, no typed blocks). Rendered with `$DGDCTL render -f FILE -o json`; checked
against dynamo-api.md: Deployment and Service `<dgd>-<lowercase component>` (§11, §13.2),
labels (§11, §14.1), Service selector and discovery labels (§13.2), ports (§13.1: frontend
`http` 8000, workers `system` 9090), env injected into `main` (§15), the per-DGD discovery
ServiceAccount / Role / RoleBinding (§9 step 8). Everything the user wrote (command, args,
env, envFrom, resources, placement, volumes) must come out unchanged, and /dev/shm must be
mounted once (the user's 64Gi volume, not an added default).

Also, for all 12 catalog recipes: `dgdctl expand` (the explicit, upstream-compatible form)
leaves no typed block, and rendering the expanded DGD reproduces the typed recipe's children
exactly (with the side objects expand prints next to it: ComputeDomain, ConfigMap, Job).
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_reference_lib as lib  # noqa: E402
from components import component_deployment, deployment_name_ok  # noqa: E402

UPSTREAM = "tests/golden/upstream/dsv4-flash-disagg-h200-agentic.yaml"


def subset_problems(want, got, what):
    """Every key of `want` present in `got` with an equal value."""
    out = []
    for k, v in (want or {}).items():
        if k not in (got or {}):
            out.append(f"{what} {k} missing (expected {json.dumps(v)})")
        elif not lib.strict_equal(v, got[k]):
            out.append(f"{what} {k} expected {json.dumps(v)}, got {json.dumps(got[k])}")
    return out


def check(items, dgd_doc, f):
    dgd = dgd_doc["metadata"]["name"]
    comps = dgd_doc["spec"]["components"]
    if lib.by_kind(items, "ComputeDomain"):
        f.fail("", "a ComputeDomain was rendered for a DGD that asks for none")
    for kind, note in (("Job", "no spec.model in the DGD"), ("PersistentVolumeClaim", "no spec.model in the DGD"),
                       ("ConfigMap", "vLLM, no typed engine block")):
        if lib.by_kind(items, kind):
            f.info("", f"{kind}s rendered: {[o['metadata']['name'] for o in lib.by_kind(items, kind)]} ({note})")
    # §9 step 8: Kubernetes-discovery RBAC per DGD.
    for kind, name in (("ServiceAccount", f"{dgd}-k8s-service-discovery"),
                       ("Role", f"{dgd}-k8s-service-discovery-role"),
                       ("RoleBinding", f"{dgd}-k8s-service-discovery-binding")):
        if lib.find_object(items, kind, name) is None:
            f.fail("", f"{kind} {name} not rendered (dynamo-api.md §9 step 8)")
    for d in lib.by_kind(items, "Deployment"):
        if not any(deployment_name_ok(dgd, c["name"], d["metadata"]["name"]) for c in comps):
            f.fail("", f"unexpected Deployment {d['metadata']['name']}")
    for comp in comps:
        check_component(items, dgd, comp, f)


def check_component(items, dgd, comp, f):
    where = comp["name"]
    name = f"{dgd}-{comp['name'].lower()}".replace(".", "-")
    dep = component_deployment(items, dgd, comp["name"])
    if dep is None:
        f.fail(where, f"Deployment {name} not rendered (have {[d['metadata']['name'] for d in lib.by_kind(items, 'Deployment')]})")
        return
    ns = dep["metadata"].get("namespace") or "default"
    dyn_ns = f"{ns}-{dgd}"
    ctype = comp["type"]
    is_worker = ctype in ("worker", "prefill", "decode")
    # A worker's Deployment is named after its generation, which its pods' Dynamo
    # namespace carries (DYN_NAMESPACE_WORKER_SUFFIX).
    dep_name = dep["metadata"]["name"]
    generation = dep_name[len(name) + 1:] if is_worker else ""
    if not deployment_name_ok(dgd, comp["name"], dep_name, worker=is_worker):
        f.fail(where, f"Deployment name {dep_name}: expected {name}" + ("-<8 hex>" if is_worker else ""))
    elif is_worker and lib.labels_of(dep).get("nvidia.com/dynamo-worker-hash") != generation:
        f.fail(where, f"label nvidia.com/dynamo-worker-hash expected {generation}")
    # Labels (§11, §14.1) on the Deployment and its pods.
    want_labels = {lib.LBL_DGD: dgd, lib.LBL_COMPONENT: comp["name"], lib.LBL_TYPE: ctype,
                   "nvidia.com/dynamo-namespace": dyn_ns}
    pod_labels = lib.get_path(dep, "spec.template.metadata.labels") or {}
    for p in subset_problems(want_labels, lib.labels_of(dep), "Deployment label"):
        f.fail(where, p)
    for p in subset_problems(dict(want_labels, **{"nvidia.com/selector": dep_name}), pod_labels, "pod label"):
        f.fail(where, p)
    sel = lib.get_path(dep, "spec.selector.matchLabels") or {}
    if not sel:
        f.fail(where, "Deployment has no spec.selector.matchLabels")
    for p in subset_problems(sel, pod_labels, "selector vs pod label"):
        f.fail(where, p)
    if lib.get_path(dep, "spec.replicas") != comp.get("replicas", 1):
        f.fail(where, f"replicas expected {comp.get('replicas', 1)}, got {lib.get_path(dep, 'spec.replicas')}")
    # What the user wrote comes out unchanged.
    in_pod = comp["podTemplate"]["spec"]
    in_main = [c for c in in_pod["containers"] if c["name"] == "main"][0]
    pod = lib.get_path(dep, "spec.template.spec") or {}
    out_main = [c for c in pod.get("containers") or [] if c.get("name") == "main"]
    if not out_main:
        f.fail(where, "no container named main")
        return
    out_main = out_main[0]
    if out_main.get("args") != in_main["args"]:
        f.fail(where, f"args changed: expected {json.dumps(in_main['args'])[:300]}, got {json.dumps(out_main.get('args'))[:300]}")
    if out_main.get("command") != in_main["command"]:
        f.fail(where, f"command changed: expected {in_main['command']}, got {out_main.get('command')}")
    for k in ("image", "workingDir", "securityContext", "envFrom"):
        if k in in_main and not lib.strict_equal(in_main[k], out_main.get(k)):
            f.fail(where, f"{k} changed: expected {json.dumps(in_main[k])}, got {json.dumps(out_main.get(k))}")
    if not lib.strict_equal(in_main.get("resources", {}), out_main.get("resources", {})):
        f.fail(where, f"resources changed: expected {json.dumps(in_main.get('resources'))}, "
                      f"got {json.dumps(out_main.get('resources'))}")
    env = lib.env_map(out_main, f, where)
    for e in in_main.get("env") or []:
        if env.get(e["name"]) != e.get("value"):
            f.fail(where, f"user env {e['name']} expected {e.get('value')!r}, got {env.get(e['name'])!r}")
    for k in ("nodeSelector", "runtimeClassName", "schedulerName"):
        if k in in_pod and not lib.strict_equal(in_pod[k], pod.get(k)):
            f.fail(where, f"pod {k} changed: expected {json.dumps(in_pod[k])}, got {json.dumps(pod.get(k))}")
    for t in in_pod.get("tolerations") or []:
        if t not in (pod.get("tolerations") or []):
            f.fail(where, f"toleration {t} dropped")
    out_vols = {v.get("name"): v for v in pod.get("volumes") or []}
    for v in in_pod.get("volumes") or []:
        if not lib.strict_equal(v, out_vols.get(v["name"])):
            f.fail(where, f"volume {v['name']} changed: expected {json.dumps(v)}, got {json.dumps(out_vols.get(v['name']))}")
    mounts = out_main.get("volumeMounts") or []
    for m in in_main.get("volumeMounts") or []:
        if m not in mounts:
            f.fail(where, f"volumeMount {m} dropped or changed")
    shm = [m for m in mounts if m.get("mountPath") == "/dev/shm"]
    in_shm = [m for m in in_main.get("volumeMounts") or [] if m.get("mountPath") == "/dev/shm"]
    if in_shm and len(shm) != 1:
        f.fail(where, f"/dev/shm mounted {len(shm)} times (the user's shared-memory volume must be the only one)")
    elif in_shm:
        size = lib.get_path(out_vols.get(shm[0]["name"]) or {}, "emptyDir.sizeLimit")
        if lib.quantity(size) != lib.quantity(lib.get_path([v for v in in_pod["volumes"] if v["name"] == in_shm[0]["name"]][0],
                                                          "emptyDir.sizeLimit")):
            f.fail(where, f"/dev/shm sizeLimit changed to {size}")
    paths = [m.get("mountPath") for m in mounts]
    for p in sorted({p for p in paths if paths.count(p) > 1}):
        f.fail(where, f"mountPath {p} mounted {paths.count(p)} times")
    # Ports (§13.1).
    ports = {p.get("name"): p.get("containerPort") for p in out_main.get("ports") or []}
    want_port = ("http", 8000) if ctype == "frontend" else ("system", 9090)
    if ports.get(want_port[0]) != want_port[1]:
        f.fail(where, f"container port {want_port[0]} expected {want_port[1]}, got {ports}")
    if is_worker and "nixl" in ports:
        f.info(where, f"NIXL telemetry port {ports['nixl']}")
    # Service (§13.2).
    svc = lib.find_object(items, "Service", name)
    if svc is None:
        f.fail(where, f"Service {name} not rendered")
    else:
        sp = {p.get("name"): p for p in lib.get_path(svc, "spec.ports") or []}
        p = sp.get(want_port[0])
        if not p or p.get("port") != want_port[1]:
            f.fail(where, f"Service port {want_port[0]} expected {want_port[1]}, got {json.dumps(lib.get_path(svc, 'spec.ports'))}")
        elif p.get("targetPort") not in (want_port[0], want_port[1]):
            f.fail(where, f"Service port {want_port[0]} targetPort expected {want_port[0]}, got {p.get('targetPort')}")
        ssel = lib.get_path(svc, "spec.selector") or {}
        for p in subset_problems({lib.LBL_TYPE: ctype, "nvidia.com/dynamo-namespace": dyn_ns,
                                  lib.LBL_COMPONENT: comp["name"]}, ssel, "Service selector"):
            f.fail(where, p)
        for p in subset_problems(ssel, pod_labels, "Service selector vs pod label"):
            f.fail(where, p)
        for p in subset_problems({"nvidia.com/dynamo-discovery-backend": "kubernetes",
                                  "nvidia.com/dynamo-discovery-enabled": "true"}, lib.labels_of(svc), "Service label"):
            f.fail(where, p)
    # Injected env (§15).
    want_env = {"DYN_NAMESPACE": dyn_ns, "DYN_COMPONENT": ctype, "DYN_PARENT_DGD_K8S_NAME": dgd,
                "DYN_PARENT_DGD_K8S_NAMESPACE": ns, "DYN_DISCOVERY_BACKEND": "kubernetes"}
    if ctype == "frontend":
        want_env.update({"DYNAMO_PORT": "8000", "DYN_HTTP_PORT": "8000", "DYN_NAMESPACE_PREFIX": dyn_ns,
                         "DYN_NAMESPACE_PREFIX_STRICT": "true"})
    else:
        want_env.update({"DYN_NAMESPACE_WORKER_SUFFIX": generation, "DYN_SYSTEM_ENABLED": "true", "DYN_SYSTEM_PORT": "9090", "DYN_HEALTH_CHECK_ENABLED": "false",
                         "NIXL_TELEMETRY_ENABLE": "n", "NIXL_TELEMETRY_EXPORTER": "prometheus",
                         "NIXL_TELEMETRY_PROMETHEUS_PORT": "19090"})
    for k, v in want_env.items():
        got = env.get(k)
        if isinstance(got, dict):
            ref = lib.get_path(got, "valueFrom.fieldRef.fieldPath")
            ok = (k == "DYN_PARENT_DGD_K8S_NAMESPACE" and ref == "metadata.namespace")
            if not ok:
                f.fail(where, f"injected env {k} expected {v!r}, got valueFrom {json.dumps(got['valueFrom'])}")
        elif got != v:
            f.fail(where, f"injected env {k} expected {v!r}, got {got!r}")
    if is_worker:
        raw = env.get("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS")
        try:
            ok = isinstance(raw, str) and json.loads(raw) == ["generate"]
        except json.JSONDecodeError:
            ok = False
        if not ok:
            f.fail(where, f"injected env DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS expected [\"generate\"], got {raw!r}")
    for k, path in (("POD_NAME", "metadata.name"), ("POD_NAMESPACE", "metadata.namespace"), ("POD_UID", "metadata.uid")):
        got = env.get(k)
        if not isinstance(got, dict) or lib.get_path(got, "valueFrom.fieldRef.fieldPath") != path:
            f.fail(where, f"injected env {k} expected fieldRef {path}, got {json.dumps(got)}")
    for k in ("DYN_NAMESPACE_WORKER_SUFFIX", "DYN_FORWARDPASS_METRIC_PORT", "DYN_NAMESPACE_PREFIX_STRICT"):
        if k in env:
            f.info(where, f"env {k}={env[k]!r} (version-dependent, §15)")
    names = [e.get("name") for e in out_main.get("env") or []]
    if names != sorted(names):
        f.info(where, "env is not sorted by name (upstream sorts the final list, §15)")
    f.info(where, f"probes: {sorted(k for k in ('startupProbe', 'livenessProbe', 'readinessProbe') if out_main.get(k))}; "
                  f"serviceAccountName: {pod.get('serviceAccountName')}")


TYPED_SPEC_KEYS = ("recipe", "model", "placement")
TYPED_COMPONENT_KEYS = ("engine", "router")


def check_expand_roundtrip(dgdctl, src, f):
    """For every catalog recipe: `dgdctl expand` prints an upstream-style DGD (no typed block
    left) plus the side objects upstream users apply next to it, and rendering that explicit
    DGD gives, together with those side objects, exactly the children of the typed recipe."""
    key = lambda o: (o.get("kind"), o.get("metadata", {}).get("name"))  # noqa: E731
    for label, path in lib.expectation_files(src):
        target = lib.load_yaml(path)["target"]
        where = f"expand {target}"
        try:
            dgd_file = lib.recipe_file(target, src)
        except KeyError as e:
            f.fail(where, str(e))
            continue
        p = subprocess.run([dgdctl, "expand", "-f", dgd_file, "-o", "json"], capture_output=True, text=True,
                           cwd=src, timeout=60)
        if p.returncode != 0:
            f.fail(where, f"`dgdctl expand` exited {p.returncode}: {p.stderr.strip()[:500]}")
            continue
        doc = json.loads(p.stdout)
        items = doc["items"] if doc.get("kind") == "List" else [doc]
        dgds = [i for i in items if i.get("kind") == "DynamoGraphDeployment"]
        side = [i for i in items if i.get("kind") != "DynamoGraphDeployment"]
        if len(dgds) != 1:
            f.fail(where, f"expand printed {len(dgds)} DGDs")
            continue
        spec = dgds[0].get("spec", {})
        typed = [f"spec.{k}" for k in TYPED_SPEC_KEYS if k in spec]
        typed += [f"spec.components[{c.get('name')}].{k}" for c in spec.get("components", [])
                  for k in TYPED_COMPONENT_KEYS if k in c]
        if typed:
            f.fail(where, f"expanded DGD still has typed blocks: {typed}")
        explicit, err = lib.run_render(dgdctl, None, stdin_text=json.dumps(dgds[0]), cwd=src)
        direct, err2 = lib.run_render(dgdctl, dgd_file, cwd=src)
        if err or err2:
            f.fail(where, err or err2)
            continue
        diffs = lib.diff_outputs({"items": sorted(direct, key=key)}, {"items": sorted(explicit + side, key=key)})
        if diffs:
            f.fail(where, "render(expanded DGD) + expand's side objects differs from render(recipe): " + "; ".join(diffs))


def model_render(doc, ns="default"):
    """What a correct render of `doc` looks like under dynamo-api.md (hand-coded rules, used only
    by the self-test to prove this checker passes good output and catches bad output)."""
    dgd = doc["metadata"]["name"]
    dyn_ns = f"{ns}-{dgd}"
    items = [{"kind": "ServiceAccount", "metadata": {"name": f"{dgd}-k8s-service-discovery"}},
             {"kind": "Role", "metadata": {"name": f"{dgd}-k8s-service-discovery-role"}},
             {"kind": "RoleBinding", "metadata": {"name": f"{dgd}-k8s-service-discovery-binding"}}]
    for comp in doc["spec"]["components"]:
        name = f"{dgd}-{comp['name'].lower()}"
        ctype = comp["type"]
        labels = {lib.LBL_DGD: dgd, lib.LBL_COMPONENT: comp["name"], lib.LBL_TYPE: ctype,
                  "nvidia.com/dynamo-namespace": dyn_ns}
        dep_name, dep_labels = name, dict(labels)
        if ctype != "frontend":
            dep_name, dep_labels["nvidia.com/dynamo-worker-hash"] = name + "-0123abcd", "0123abcd"
        pod = lib.deepcopy(comp["podTemplate"]["spec"])
        main = [c for c in pod["containers"] if c["name"] == "main"][0]
        env = [{"name": "DYN_NAMESPACE", "value": dyn_ns}, {"name": "DYN_COMPONENT", "value": ctype},
               {"name": "DYN_PARENT_DGD_K8S_NAME", "value": dgd}, {"name": "DYN_PARENT_DGD_K8S_NAMESPACE", "value": ns},
               {"name": "DYN_DISCOVERY_BACKEND", "value": "kubernetes"}]
        env += [{"name": k, "valueFrom": {"fieldRef": {"fieldPath": p}}}
                for k, p in (("POD_NAME", "metadata.name"), ("POD_NAMESPACE", "metadata.namespace"), ("POD_UID", "metadata.uid"))]
        if ctype == "frontend":
            env += [{"name": "DYNAMO_PORT", "value": "8000"}, {"name": "DYN_HTTP_PORT", "value": "8000"},
                    {"name": "DYN_NAMESPACE_PREFIX", "value": dyn_ns}, {"name": "DYN_NAMESPACE_PREFIX_STRICT", "value": "true"}]
            port = {"name": "http", "containerPort": 8000, "protocol": "TCP"}
        else:
            env += [{"name": "DYN_SYSTEM_ENABLED", "value": "true"}, {"name": "DYN_SYSTEM_PORT", "value": "9090"},
                    {"name": "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "value": '["generate"]'},
                    {"name": "DYN_HEALTH_CHECK_ENABLED", "value": "false"}, {"name": "NIXL_TELEMETRY_ENABLE", "value": "n"},
                    {"name": "NIXL_TELEMETRY_EXPORTER", "value": "prometheus"},
                    {"name": "NIXL_TELEMETRY_PROMETHEUS_PORT", "value": "19090"},
                    {"name": "DYN_NAMESPACE_WORKER_SUFFIX", "value": "0123abcd"}]
            port = {"name": "system", "containerPort": 9090, "protocol": "TCP"}
        main["env"] = sorted((main.get("env") or []) + env, key=lambda e: e["name"])
        main["ports"] = [port]
        items.append({"kind": "Deployment", "metadata": {"name": dep_name, "labels": dep_labels},
                      "spec": {"replicas": comp.get("replicas", 1), "selector": {"matchLabels": {"nvidia.com/selector": dep_name}},
                               "template": {"metadata": {"labels": dict(dep_labels, **{"nvidia.com/selector": dep_name})},
                                            "spec": pod}}})
        items.append({"kind": "Service", "metadata": {"name": name, "labels": dict(labels, **{
            "nvidia.com/dynamo-discovery-backend": "kubernetes", "nvidia.com/dynamo-discovery-enabled": "true"})},
            "spec": {"selector": {lib.LBL_TYPE: ctype, "nvidia.com/dynamo-namespace": dyn_ns, lib.LBL_COMPONENT: comp["name"]},
                     "ports": [{"name": port["name"], "port": port["containerPort"], "targetPort": port["name"]}]}})
    return items


def self_test(src=None):
    """The checker passes a correct render and catches each kind of deviation; returns missed cases."""
    src = src or lib.source_dir()
    doc = lib.load_yaml(os.path.join(src, UPSTREAM))
    good = model_render(doc)

    def dep(items, comp):
        return component_deployment(items, doc["metadata"]["name"], comp)

    def main_of(items, comp):
        return lib.main_container(dep(items, comp))

    def add_shm(items):
        c = main_of(items, "VllmDecodeWorker")
        c["volumeMounts"].append({"name": "dshm", "mountPath": "/dev/shm"})
        dep(items, "VllmDecodeWorker")["spec"]["template"]["spec"]["volumes"].append(
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}})

    cases = [
        ("a correct render passes", lambda it: None, None),
        ("args rewritten", lambda it: main_of(it, "VllmPrefillWorker").update(
            {"args": [main_of(it, "VllmPrefillWorker")["args"][0].replace("--max-num-seqs 128", "--max-num-seqs 64")]}),
         "VllmPrefillWorker: args changed"),
        ("flag appended", lambda it: main_of(it, "Frontend").update({"args": main_of(it, "Frontend")["args"] + ["--x"]}),
         "Frontend: args changed"),
        ("lower-case name missing", lambda it: dep(it, "Frontend")["metadata"].update({"name": "dsv4-frontend"}),
         "Frontend: Deployment name dsv4-frontend: expected dsv4-flash-disagg-h200-agentic-frontend"),
        ("worker generation missing", lambda it: dep(it, "VllmDecodeWorker")["metadata"].update(
            {"name": "dsv4-flash-disagg-h200-agentic-vllmdecodeworker"}),
         "VllmDecodeWorker: Deployment name dsv4-flash-disagg-h200-agentic-vllmdecodeworker: expected "
         "dsv4-flash-disagg-h200-agentic-vllmdecodeworker-<8 hex>"),
        ("worker namespace suffix missing", lambda it: main_of(it, "VllmPrefillWorker").update(
            {"env": [e for e in main_of(it, "VllmPrefillWorker")["env"] if e["name"] != "DYN_NAMESPACE_WORKER_SUFFIX"]}),
         "VllmPrefillWorker: injected env DYN_NAMESPACE_WORKER_SUFFIX expected"),
        ("graph label missing", lambda it: dep(it, "VllmDecodeWorker")["spec"]["template"]["metadata"]["labels"].pop(lib.LBL_DGD),
         "VllmDecodeWorker: pod label nvidia.com/dynamo-graph-deployment-name missing"),
        ("component type label wrong", lambda it: dep(it, "VllmDecodeWorker")["metadata"]["labels"].update({lib.LBL_TYPE: "worker"}),
         "VllmDecodeWorker: Deployment label nvidia.com/dynamo-component-type expected \"decode\""),
        ("frontend port wrong", lambda it: main_of(it, "Frontend").update({"ports": [{"name": "http", "containerPort": 8080}]}),
         "Frontend: container port http expected 8000"),
        ("worker Service port name wrong", lambda it: lib.find_object(it, "Service", "dsv4-flash-disagg-h200-agentic-vllmdecodeworker")[
            "spec"].update({"ports": [{"name": "metrics", "port": 9090}]}), "VllmDecodeWorker: Service port system expected 9090"),
        ("injected env missing", lambda it: main_of(it, "VllmPrefillWorker").update(
            {"env": [e for e in main_of(it, "VllmPrefillWorker")["env"] if e["name"] != "DYN_SYSTEM_PORT"]}),
         "VllmPrefillWorker: injected env DYN_SYSTEM_PORT expected '9090', got None"),
        ("user env overwritten", lambda it: [e.update({"value": "rc"}) for e in main_of(it, "VllmDecodeWorker")["env"]
                                              if e["name"] == "UCX_TLS"],
         "VllmDecodeWorker: user env UCX_TLS expected"),
        ("second /dev/shm added", add_shm, "VllmDecodeWorker: /dev/shm mounted 2 times"),
        ("resources changed", lambda it: main_of(it, "VllmDecodeWorker")["resources"]["requests"].update({"cpu": "16"}),
         "VllmDecodeWorker: resources changed"),
        ("discovery RBAC missing", lambda it: it.remove(lib.find_object(it, "Role", "dsv4-flash-disagg-h200-agentic-k8s-service-discovery-role")),
         "Role dsv4-flash-disagg-h200-agentic-k8s-service-discovery-role not rendered"),
    ]
    missed = []
    for desc, mutate, want in cases:
        items = lib.deepcopy(good)
        mutate(items)
        f = lib.Findings("upstream")
        check(items, doc, f)
        fails = f.lines(with_info=False)
        ok = (not fails) if want is None else any(want in line for line in fails)
        print(f"{'ok  ' if ok else 'FAIL'} upstream self-test {desc}" + ("" if ok else f": want {want!r}, got {fails[:4]}"))
        if not ok:
            missed.append(desc)
    return missed


def main():
    src = lib.source_dir()
    if "--self-test" in sys.argv[1:]:
        missed = self_test(src)
        return 1 if missed else 0
    dgdctl = os.environ.get("DGDCTL")
    f = lib.Findings("upstream/dsv4-flash-disagg-h200-agentic")
    path = os.path.join(src, UPSTREAM)
    doc = lib.load_yaml(path)
    if not dgdctl or not os.access(dgdctl, os.X_OK):
        print(f"FAIL DGDCTL is not an executable: {dgdctl!r}")
        return 1
    v = subprocess.run([dgdctl, "validate", "-f", path], capture_output=True, text=True, timeout=60)
    if v.returncode != 0:
        f.fail("", f"`dgdctl validate` exited {v.returncode}: {(v.stdout + v.stderr).strip()[:1000]}")
    elif "warn" in (v.stdout + v.stderr).lower():
        f.fail("", f"`dgdctl validate` warned on a valid DGD: {(v.stdout + v.stderr).strip()[:500]}")
    items, err = lib.run_render(dgdctl, path, cwd=src)
    if err:
        f.fail("", err)
    else:
        check(items, doc, f)
    roundtrip = lib.Findings("expand-roundtrip")
    check_expand_roundtrip(dgdctl, src, roundtrip)
    f.items += roundtrip.items
    for line in f.lines():
        print(line)
    print(f"upstream explicit DGD: {'OK' if not f.failures else str(len(f.failures)) + ' failure(s)'}")
    return 1 if f.failures else 0


if __name__ == "__main__":
    sys.exit(main())
