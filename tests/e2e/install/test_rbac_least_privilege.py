#!/usr/bin/python3
"""The operator's RBAC is least privilege, in deploy/manifests/install.yaml
and in the chart rendered with its defaults, with watchNamespace set (the namespaced Role
variant) and without leader election:

- no wildcard verbs, resources, apiGroups or resourceNames; no nonResourceURLs;
- no access to Secrets (the operator needs none: the HF token is only referenced by
  name in the pods it renders), nor to what hands out identities or bypasses RBAC:
  serviceaccounts/token, pods/exec|attach|portforward, escalate, bind, impersonate;
  except `bind` limited by resourceNames to ClusterRoles of the install itself (the
  planner's role, which the operator binds in each namespace with a planner), which
  pass these same checks;
- what the operator hands on is held: every permission of the discovery Role it
  renders for a graph (dgdctl render) is granted by the operator's (Cluster)Role in
  that namespace, or Kubernetes refuses to create that Role (escalation prevention;
  test_rbac_missing_rule.py shows it live).

The checker is tried on broken copies first, so a check that cannot fail is noticed.
"""
import copy
import json
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import chart_lib  # noqa: E402

RBAC_KINDS = ("Role", "ClusterRole")
FORBIDDEN_RESOURCES = {"secrets", "serviceaccounts/token", "pods/exec", "pods/attach", "pods/portforward",
                       "nodes/proxy", "services/proxy", "pods/proxy", "tokenreviews", "subjectaccessreviews",
                       "certificatesigningrequests", "certificatesigningrequests/approval"}
FORBIDDEN_VERBS = {"escalate", "bind", "impersonate"}
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"


def bindable(objs, r):
    """A `bind` rule limited by name to ClusterRoles the install defines (their own rules
    are checked like every role's)."""
    ours = {o["metadata"]["name"] for o in objs if o.get("kind") == "ClusterRole"}
    names = r.get("resourceNames") or []
    return (r.get("apiGroups") == ["rbac.authorization.k8s.io"] and r.get("resources") == ["clusterroles"]
            and r.get("verbs") == ["bind"] and names and all(n in ours for n in names))


def problems(objs, where):
    """Every least-privilege violation of the Roles/ClusterRoles in objs."""
    out = []
    for o in objs:
        if o.get("kind") not in RBAC_KINDS:
            continue
        name = "%s %s %s" % (where, o["kind"], o["metadata"]["name"])
        if o.get("aggregationRule"):
            out.append("%s: aggregationRule (its rules are whatever other roles say)" % name)
        for i, r in enumerate(o.get("rules") or []):
            at = "%s rules[%d]" % (name, i)
            for field in ("verbs", "apiGroups", "resources", "resourceNames"):
                if any("*" in v for v in r.get(field) or []):
                    out.append("%s: wildcard in %s: %s" % (at, field, r[field]))
            if r.get("nonResourceURLs"):
                out.append("%s: nonResourceURLs %s" % (at, r["nonResourceURLs"]))
            bad = FORBIDDEN_RESOURCES.intersection(r.get("resources") or [])
            if bad:
                out.append("%s: grants %s" % (at, sorted(bad)))
            bad = FORBIDDEN_VERBS.intersection(r.get("verbs") or [])
            if bad == {"bind"} and bindable(objs, r):
                bad = set()
            if bad:
                out.append("%s: verb %s" % (at, sorted(bad)))
    return out


def grants(objs, ns):
    """(group, resource, verb) the operator's ServiceAccount holds in namespace ns: its
    ClusterRole(s) plus the Roles of that namespace bound to it."""
    bound = set()
    for o in objs:
        if o["kind"] in ("RoleBinding", "ClusterRoleBinding") and any(
                s.get("kind") == "ServiceAccount" and s.get("name") == "dgd-operator" for s in o.get("subjects", [])):
            if o["kind"] == "ClusterRoleBinding" or o["metadata"].get("namespace") == ns:
                bound.add((o["roleRef"]["kind"], o["roleRef"]["name"], o["metadata"].get("namespace")))
    out = set()
    for o in objs:
        if o["kind"] not in RBAC_KINDS:
            continue
        key = (o["kind"], o["metadata"]["name"], o["metadata"].get("namespace") if o["kind"] == "Role" else None)
        if o["kind"] == "ClusterRole":
            held = any(k == "ClusterRole" and n == key[1] for k, n, _ in bound)
        else:
            held = key in bound
        if not held:
            continue
        for r in o.get("rules") or []:
            if r.get("resourceNames"):
                continue  # limited to names: does not cover a whole resource
            for g in r.get("apiGroups") or []:
                for res in r.get("resources") or []:
                    for v in r.get("verbs") or []:
                        out.add((g, res, v))
    return out


def uncovered(objs, ns, worker_roles):
    held = grants(objs, ns)
    missing = []
    for role in worker_roles:
        for r in role.get("rules") or []:
            for g in r.get("apiGroups") or []:
                for res in r.get("resources") or []:
                    for v in r.get("verbs") or []:
                        if (g, res, v) not in held:
                            missing.append("%s %s/%s %s" % (role["metadata"]["name"], g or "core", res, v))
    return missing


def rendered_worker_roles(ns):
    dgdctl = os.environ.get("DGDCTL") or os.path.join(ROOT, "build", "dgdctl")
    out = subprocess.run([dgdctl, "render", "-f", os.path.join(ROOT, "recipes", RECIPE, "deploy.yaml"), "-n", ns,
                          "-o", "json"], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    items = doc["items"] if isinstance(doc, dict) and "items" in doc else doc
    roles = [o for o in items if o.get("kind") == "Role"]
    assert roles, "dgdctl render gave no Role: %s" % out[:500]
    return roles


def install_objects():
    with open(os.path.join(ROOT, "deploy", "manifests", "install.yaml")) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def variants():
    yield "install.yaml", install_objects(), "dynamo"
    yield "chart defaults", chart_lib.objects(), "dynamo"
    yield "chart watchNamespace=team-a", chart_lib.objects(sets=["watchNamespace=team-a"]), "team-a"
    yield "chart leaderElection.enabled=false", \
        chart_lib.objects(sets=["leaderElection.enabled=false", "replicaCount=1"]), "dynamo"


def self_test(objs, ns, workers):
    """The checks bite: each breakage below must be reported."""
    role = next(o for o in objs if o["kind"] == "ClusterRole")
    breakages = {
        "wildcard verb": lambda r: r["rules"][0].__setitem__("verbs", ["*"]),
        "wildcard group": lambda r: r["rules"][0].__setitem__("apiGroups", ["*"]),
        "wildcard resource": lambda r: r["rules"][0]["resources"].append("*"),
        "secrets": lambda r: r["rules"].append({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}),
        "escalate": lambda r: r["rules"].append({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
                                                 "verbs": ["escalate"]}),
        "bind any role": lambda r: r["rules"].append({"apiGroups": ["rbac.authorization.k8s.io"],
                                                      "resources": ["clusterroles"], "verbs": ["bind"]}),
        "bind a role of elsewhere": lambda r: r["rules"].append({"apiGroups": ["rbac.authorization.k8s.io"],
                                                                 "resources": ["clusterroles"], "verbs": ["bind"],
                                                                 "resourceNames": ["cluster-admin"]}),
    }
    for what, brk in breakages.items():
        broken = copy.deepcopy(objs)
        brk(next(o for o in broken if o["kind"] == "ClusterRole" and o["metadata"]["name"] == role["metadata"]["name"]))
        assert problems(broken, "self-test"), "the checker misses: " + what
    broken = copy.deepcopy(objs)
    cr = next(o for o in broken if o["kind"] == "ClusterRole" and o["metadata"]["name"] == role["metadata"]["name"])
    cr["rules"] = [r for r in cr["rules"] if "endpointslices" not in r.get("resources", [])]
    assert uncovered(broken, ns, workers), "the coverage check misses a dropped endpointslices rule"


def main():
    checked = 0
    for where, objs, ns in variants():
        kinds = [o["kind"] for o in objs]
        assert "ClusterRole" in kinds, "%s: no ClusterRole" % where
        bad = problems(objs, where)
        assert not bad, "\n".join(bad)
        workers = rendered_worker_roles(ns)
        missing = uncovered(objs, ns, workers)
        assert not missing, "%s: the operator cannot grant what it does not hold (namespace %s):\n%s" % (
            where, ns, "\n".join(missing))
        # Nothing else can read Secrets either: no rule names them at all.
        assert "secrets" not in json.dumps([o for o in objs if o["kind"] in RBAC_KINDS]), where
        if where == "install.yaml":
            self_test(objs, ns, workers)
        checked += 1
    print("rbac least privilege: %d variants clean" % checked)


if __name__ == "__main__":
    main()
