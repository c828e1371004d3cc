"""Server-side apply checked against structured-merge-diff, the library kube-apiserver uses.

Random sequences of writes by 2-4 field managers (applies with and without force, PUTs, merge
patches; ssa_sequences.py) go to kube-sim over HTTP and, with kube-sim's answers, to the referee
(tests/referees/ssa: structured-merge-diff 4.1.2 with the schema kube-openapi's schemaconv makes
from the Kubernetes 1.32 OpenAPI document and from the DGD CRD). After every write the test
compares whether a conflict happened (managers and fields), the object, and each manager's
owned field set (kube-sim's FieldsV1 decoded by the library's own decoder). Each write is
judged on its own: the referee starts it from the state kube-sim held before it (object and
managedFields), so a difference is reported at the write that makes it and does not hide
the later ones. Fails on any difference; the summary counts them by category
with an example of each (seed, sequence, expected vs actual).

SSA_SEQUENCES (default 10000) sets how many sequences run, SSA_SEED (default 1) the seed;
sequence i uses random.Random("SEED-i"), SSA_ONLY=i runs just that one."""
import http.client
import json
import os
import random
import re
import sys
import urllib.parse

import yaml

from kubesim import KubeSim
from referee_lib import DGD_CRD, poll
from ssa_referee import Referee
from ssa_sequences import put_body, sequence

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
SERVER_METADATA = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink")


class Client:
    """One keep-alive HTTP connection to kube-sim."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)

    def request(self, method, path, body=None, content_type="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": content_type} if data is not None else {}
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        try:
            return resp.status, json.loads(raw) if raw else None
        except ValueError:
            return resp.status, raw.decode(errors="replace")


def run_on_kubesim(client, rng, kind, name, ops):
    """Sends the operations; returns [(step, status, body)] and the referee's requests."""
    path = kind.collection + "/" + name
    results, requests = [], [{"op": "begin", "apiVersion": kind.api_version, "kind": kind.kind,
                              "resetFields": kind.reset_fields}]
    current = None
    for step in ops:
        q = "?fieldManager=" + step["manager"]
        op = step["op"]
        if op == "apply":
            q += "&force=true" if step["force"] else ""
            status, body = client.request("PATCH", path + q, step["object"], APPLY)
            req = {"op": "apply", "manager": step["manager"], "force": step["force"], "object": step["object"]}
        elif op == "create":
            status, body = client.request("POST", kind.collection + q, step["object"])
            req = {"op": "update", "manager": step["manager"], "object": step["object"]}
        elif op == "put":
            if current is None:
                step["skipped"] = True
                continue
            step["object"] = put_body(rng, kind, current)
            status, body = client.request("PUT", path + q, step["object"])
            req = {"op": "update", "manager": step["manager"], "object": step["object"]}
        else:
            if current is None:
                step["skipped"] = True
                continue
            step["patch"] = kind.patch(rng, current)
            status, body = client.request("PATCH", path + q, step["patch"], MERGE)
            req = {"op": "update", "manager": step["manager"], "patch": step["patch"]}
        ok = 200 <= status < 300
        req["state"] = current
        if ok:
            current = body
        req["server"] = body if ok else None
        results.append((step, status, body))
        requests.append(req)
    return results, requests


def normalized(obj, reset_fields):
    """The object without server-set metadata, reset fields, nulls and empty maps (which Go's
    omitempty encoding does not distinguish from absent), lists of objects in a canonical order:
    structured-merge-diff 4.1.2 keeps the stored order of list-map entries and appends new ones,
    while 4.2.0 and later (Kubernetes 1.22.4+) prefer the order of the applied configuration;
    the order of list-maps is not compared. Lists of scalars (atomic: args, command) keep
    their order."""
    def clean(v):
        if isinstance(v, dict):
            out = {k: clean(c) for k, c in v.items()}
            return {k: c for k, c in out.items() if c is not None and c != {}}
        if isinstance(v, list):
            items = [clean(c) for c in v]
            if items and all(isinstance(c, dict) for c in items):
                items.sort(key=lambda c: json.dumps(c, sort_keys=True))
            return items
        return v
    obj = json.loads(json.dumps(obj))
    for f in SERVER_METADATA:
        obj.get("metadata", {}).pop(f, None)
    for f in reset_fields:
        obj.pop(f, None)
    return clean(obj)


def diff_paths(a, b, path=""):
    """Paths where two JSON values differ (lists by index)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += diff_paths(a.get(k), b.get(k), path + "." + k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff_paths(x, y, "%s[%d]" % (path, i))
        return out
    return [] if a == b else ["%s: referee %s, kube-sim %s" % (path, json.dumps(a), json.dumps(b))]


def general(path):
    """A field path with list-map keys and indices replaced by *, for the summary."""
    return re.sub(r"\[[^\]]*\]", "[*]", path)


def kubesim_conflicts(body):
    out = set()
    for c in (body.get("details") or {}).get("causes") or []:
        msg = c.get("message", "")
        if not msg.startswith('conflict with "'):
            continue
        manager = msg[len('conflict with "'):].split('"', 1)[0]
        op = "Update" if '" using ' in msg else "Apply"
        out.add((manager, op, c.get("field", "")))
    return out


def entry_format(kind, entry):
    """What is wrong with one managedFields entry as the API server encodes it, or None."""
    if entry.get("operation") not in ("Apply", "Update"):
        return "operation %r" % entry.get("operation")
    if entry.get("apiVersion") != kind.api_version:
        return "apiVersion %r" % entry.get("apiVersion")
    if entry.get("fieldsType") != "FieldsV1" or not entry.get("fieldsV1"):
        return "fieldsType/fieldsV1"
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry.get("time") or ""):
        return "time %r" % entry.get("time")
    if not entry.get("manager"):
        return "manager missing"
    return None


def invalid_fields(kind, obj):
    """The fields of the referee's object that the rules a sequence can break refuse: an entry
    of a list-map keeps living, without a required field, while another manager still owns
    some of it (a container without image, a volume without a source, one of several Service
    ports without name)."""
    out = []
    spec = (obj or {}).get("spec") or {}
    if kind.kind == "Deployment":
        containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
        out += ["spec.template.spec.containers[%d].image" % i for i, c in enumerate(containers) if not c.get("image")]
        volumes = ((spec.get("template") or {}).get("spec") or {}).get("volumes") or []
        out += ["spec.template.spec.volumes[%d]: Required value: must specify a volume type" % i
                for i, v in enumerate(volumes) if not set(v) - {"name"}]
    if kind.kind == "Service":
        ports = spec.get("ports") or []
        if len(ports) > 1:
            out += ["spec.ports[%d].name" % i for i, p in enumerate(ports) if not p.get("name")]
    return out


def compare_step(kind, status, body, answer):
    """([category], detail) of the differences at this step, or None."""
    if answer.get("error") and not answer.get("conflicts"):
        if status >= 300:
            return ("kube-sim refused, referee error", "%d %s / %s" % (status, body, answer["error"]))
        return ("referee error", answer["error"])
    if status == 409:
        got = kubesim_conflicts(body)
        if answer.get("conflicts") is None:
            return (["conflict in kube-sim only, on " + general(c[2]) for c in sorted(got)],
                    "kube-sim: %s (%s)" % (sorted(got), body.get("message")))
        want = {(c["manager"].split("/")[0], c["manager"].split("/")[1], c["field"]) for c in answer["conflicts"]}
        if got != want:
            return (["conflict with %s on %s" % ("referee only" if c in want else "kube-sim only", general(c[2]))
                     for c in sorted(want ^ got)],
                    "referee %s, kube-sim %s" % (sorted(want), sorted(got)))
        return None
    if answer.get("conflicts"):
        want = sorted((c["manager"], c["field"]) for c in answer["conflicts"])
        return (["conflict in referee only, on " + general(f) for _, f in want],
                "referee: %s; kube-sim answered %d" % (want, status))
    if status == 422 and isinstance(body, dict):
        invalid = invalid_fields(kind, answer.get("object"))
        if invalid and all(f in body.get("message", "") for f in invalid):
            return None
    if not 200 <= status < 300:
        reason = body.get("reason") if isinstance(body, dict) else ""
        msg = body.get("message") if isinstance(body, dict) else body
        return ("kube-sim refused (%d %s)" % (status, reason), msg)
    if answer.get("server_error"):
        return ("kube-sim object or managedFields not decodable", answer["server_error"])
    for entry in (body.get("metadata") or {}).get("managedFields") or []:
        bad = entry_format(kind, entry)
        if bad:
            return ("managedFields entry: " + bad, json.dumps(entry))
    want = normalized(answer["object"], kind.reset_fields)
    got = normalized(body, kind.reset_fields)
    if want != got:
        paths = diff_paths(want, got)
        return (["object: " + x for x in sorted({general(p.split(":")[0]) for p in paths})], "; ".join(paths))
    want_m = answer["managed"]
    got_m = {k: v for k, v in (answer.get("server_managed") or {}).items()}
    if want_m != got_m:
        lines, signature = [], set()
        for m in sorted(set(want_m) | set(got_m)):
            w, g = set(want_m.get(m, [])), set(got_m.get(m, []))
            if w != g:
                lines.append("%s: referee only %s, kube-sim only %s" % (m, sorted(w - g), sorted(g - w)))
                op = m.split("/", 1)[1]
                signature |= {"%s: %s %s" % (op, "referee only" if p in w else "kube-sim only", general(p))
                              for p in w ^ g}
        return (["managed fields of an " + x for x in sorted(signature)], "; ".join(lines))
    return None


def describe(seed, index, kind, results, step_index, detail):
    out = ["seed %s sequence %d (SSA_SEED=%s SSA_ONLY=%d): %s, step %d" % (
        seed, index, seed, index, kind.kind, step_index + 1)]
    for n, (step, status, _) in enumerate(results[:step_index + 1]):
        what = {k: v for k, v in step.items() if k in ("op", "manager", "force")}
        body = step.get("object", step.get("patch"))
        if step["op"] == "put":
            body = "(the object read back, changed)"
        out.append("  %d. %s -> %d: %s" % (n + 1, json.dumps(what), status, json.dumps(body)))
    out.append("  difference: " + detail)
    return "\n".join(out)


def install_dgd_crd(client):
    with open(DGD_CRD) as f:
        crd = yaml.safe_load(f)
    status, body = client.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert status == 201, (status, body)
    poll("the DGD CRD to be served", lambda: client.request(
        "GET", "/apis/nvidia.com/v1beta1/namespaces/default/dynamographdeployments")[0] == 200)


def check_referee(referee):
    """The referee reproduces what a real API server records: `kubectl create configmap` owns
    the maps it created (`f:data: {".": {}, "f:k": {}}`), and an apply that changes a field
    another applier owns conflicts on exactly that field."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
          "data": {"k": "1"}}
    changed = json.loads(json.dumps(cm))
    changed["data"]["k"] = "2"
    answers = referee.run([
        {"op": "begin", "apiVersion": "v1", "kind": "ConfigMap", "resetFields": []},
        {"op": "update", "manager": "kubectl-create", "object": cm, "server": cm},
        {"op": "apply", "manager": "a", "force": False, "object": cm, "server": cm},
        {"op": "apply", "manager": "b", "force": False, "object": changed},
    ])
    assert answers[1]["managed"] == {"kubectl-create/Update": [".data", ".data.k"]}, answers[1]
    want = [{"manager": "a/Apply", "field": ".data.k"}, {"manager": "kubectl-create/Update", "field": ".data.k"}]
    assert sorted(answers[3]["conflicts"] or [], key=json.dumps) == want, answers[3]


def main():
    count = int(os.environ.get("SSA_SEQUENCES", "10000"))
    seed = os.environ.get("SSA_SEED", "1")
    only = os.environ.get("SSA_ONLY")
    indices = [int(only)] if only else range(count)
    referee = Referee(crds=[DGD_CRD])
    check_referee(referee)
    categories, examples, steps, agreed_conflicts, different = {}, {}, 0, 0, 0
    try:
        with KubeSim() as sim:
            client = Client(sim.url)
            install_dgd_crd(client)
            for i in indices:
                rng = random.Random("%s-%d" % (seed, i))
                name = "s%d" % i
                kind, ops = sequence(rng, name)
                results, requests = run_on_kubesim(client, rng, kind, name, ops)
                answers = referee.run(requests)
                begin = answers[0]
                if begin.get("error"):
                    raise RuntimeError("referee: " + begin["error"])
                seq_different = False
                for n, ((step, status, body), answer) in enumerate(zip(results, answers[1:])):
                    steps += 1
                    diff = compare_step(kind, status, body, answer)
                    agreed_conflicts += status == 409 and not diff
                    if diff:
                        seq_different = True
                        labels = [diff[0]] if isinstance(diff[0], str) else diff[0]
                        for label in dict.fromkeys(labels):
                            category = "%s: %s" % (kind.kind, label)
                            categories[category] = categories.get(category, 0) + 1
                            examples.setdefault(category, []).append(describe(seed, i, kind, results, n, diff[1]))
                different += seq_different
    finally:
        referee.close()
    ran = len(indices)
    print("server-side apply vs structured-merge-diff: %d sequences, %d writes compared "
          "(%d refused with the same conflicts by both), %d sequences with a difference; "
          "writes per category (one write can show several):"
          % (ran, steps, agreed_conflicts, different))
    for category in sorted(categories, key=lambda c: -categories[c]):
        print("  %5d  %s" % (categories[category], category))
    for category in sorted(examples):
        print("\n== %s (%d), first examples:" % (category, categories[category]))
        for e in examples[category][:2]:
            print(e)
    sys.stdout.flush()
    assert not different, "kube-sim's server-side apply differs from structured-merge-diff (see above)"
    print("server-side apply vs structured-merge-diff: no difference")


if __name__ == "__main__":
    main()
