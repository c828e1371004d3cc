"""kube-sim's strategic merge patch checked against apimachinery's, run by kubectl v1.32.

`kubectl patch --local -f OBJECT --type strategic --patch-file PATCH -o json` applies a
strategic merge patch with the Go library kube-apiserver uses, without a server. Each case
(smp_cases.py: hand-written directives and errors, then SMP_SEQUENCES random sequences of
SMP_STEPS patches over Deployments, Pods, Services and Jobs, each step starting from the
result kubectl gave the step before) goes to kubectl and to kube-sim's implementation
(kubesim-strategic-merge, the code kube-sim runs for a PATCH). The results must be equal,
or both must fail with the same message. Go visits map keys in random order, so where a
patch holds several errors kubectl may name any of them: a differing message is
retried against kubectl before it counts, and so is a differing result (a patch that both
adds to and deletes from one list has two). kube-sim visits keys in sorted order; the patch
files kubectl reads list them in that order, which Go's iteration follows 7 times in 8.

Fails on any difference; prints each with its case, patch, and both answers."""
import concurrent.futures
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile

from binaries import find_binary
import smp_cases

SEQUENCES = int(os.environ.get("SMP_SEQUENCES", "60"))
STEPS = int(os.environ.get("SMP_STEPS", "6"))
SEED = os.environ.get("SMP_SEED", "1")
RETRIES = 8


class Kubectl:
    """kubectl patch --local in a scratch HOME, so that no kubeconfig or cache is read."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.env = dict(os.environ, HOME=workdir, KUBECONFIG=os.path.join(workdir, "none"))
        self.counter = 0

    def patch(self, obj, patch):
        fd, path = tempfile.mkstemp(dir=self.workdir, suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f)
        ppath = path[:-5] + ".patch.json"
        with open(ppath, "w") as f:
            # Keys in sorted order: Go's map iteration mostly follows insertion order, which
            # is then kube-sim's order (sorted keys).
            json.dump(patch, f, sort_keys=True)
        try:
            proc = subprocess.run(["kubectl", "patch", "--local", "-f", path, "--type", "strategic",
                                   "--patch-file", ppath, "-o", "json"],
                                  capture_output=True, text=True, env=self.env, timeout=60)
        finally:
            os.unlink(path)
            os.unlink(ppath)
        if proc.returncode == 0:
            return {"object": json.loads(proc.stdout)}
        message = proc.stderr.strip()
        if message.startswith("error: "):
            message = message[len("error: "):]
        return {"error": message}


def words(text):
    return re.sub(r"\s+", " ", text or "").strip()


def kubesim_answers(driver, cases):
    lines = "".join(json.dumps({"apiVersion": c["object"]["apiVersion"], "kind": c["object"]["kind"],
                                "object": c["object"], "patch": c["patch"]}) + "\n" for c in cases)
    proc = subprocess.run([driver], input=lines, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    out = [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]
    assert len(out) == len(cases), (len(out), len(cases), proc.stderr[-2000:])
    return out


def run_sequence(kubectl, name, start, index):
    rng = random.Random("%s-%d" % (SEED, index))
    current, cases = start, []
    for step in range(STEPS):
        patch = smp_cases.generated_patch(rng, current)
        answer = kubectl.patch(current, patch)
        cases.append({"case": "sequence %d (%s) step %d" % (index, name, step), "object": copy.deepcopy(current),
                      "patch": patch, "kubectl": answer})
        if "object" in answer:
            current = answer["object"]
    return cases


def same(ref, sim):
    if "object" in ref:
        return "object" in sim and sim["object"] == ref["object"]
    return "object" not in sim and words(ref["error"]) == words(sim["library_message"])


def shown(answer):
    if "object" in answer:
        return json.dumps(answer["object"], sort_keys=True)
    return "error %s%s" % (answer.get("code", "") and "%s " % answer["code"],
                           answer.get("library_message", answer.get("error")))


def differs(kubectl, case, sim):
    """None when kube-sim's answer is one kubectl gives for `case`, else a description.

    Go visits a map's keys in random order, so a patch with several errors, or one that
    both adds to and deletes from a list, can have more than one answer: kubectl runs again
    (up to RETRIES times) before a difference counts."""
    seen = [case["kubectl"]]
    for _ in range(RETRIES):
        if same(seen[-1], sim):
            return None
        seen.append(kubectl.patch(case["object"], case["patch"]))
    if same(seen[-1], sim):
        return None
    answers = sorted(set(shown(a) for a in seen))
    return "kubectl: %s\nkube-sim: %s" % ("\n     or: ".join(answers), shown(sim))


def main():
    driver = find_binary("KUBESIM_STRATEGIC_MERGE", "tests/kubesim/kubesim-strategic-merge")
    if "KUBE_SIM" in os.environ and "KUBESIM_STRATEGIC_MERGE" not in os.environ:
        candidate = os.path.join(os.path.dirname(os.environ["KUBE_SIM"]), "kubesim-strategic-merge")
        driver = candidate if os.path.exists(candidate) else driver
    with tempfile.TemporaryDirectory() as workdir:
        kubectl = Kubectl(workdir)
        objects = smp_cases.objects()
        cases = []
        for description, name, patch in smp_cases.handwritten():
            obj = copy.deepcopy(objects[name])
            cases.append({"case": description, "object": obj, "patch": patch})
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            refs = list(pool.map(lambda c: kubectl.patch(c["object"], c["patch"]), cases))
            for c, r in zip(cases, refs):
                c["kubectl"] = r
            names = sorted(objects)
            runs = pool.map(lambda i: run_sequence(kubectl, names[i % len(names)],
                                                   copy.deepcopy(objects[names[i % len(names)]]), i),
                            range(SEQUENCES))
            for seq in runs:
                cases.extend(seq)
        answers = kubesim_answers(driver, cases)
        failures = []
        for case, sim in zip(cases, answers):
            why = differs(kubectl, case, sim)
            if why:
                failures.append("%s\n  object: %s\n  patch: %s\n  %s" % (
                    case["case"], json.dumps(case["object"], sort_keys=True), json.dumps(case["patch"], sort_keys=True),
                    why.replace("\n", "\n  ")))
        errors = sum(1 for c in cases if "error" in c["kubectl"])
        print("%d cases (%d hand-written, %d generated in %d sequences), %d refused by kubectl, %d differences" % (
            len(cases), len(smp_cases.handwritten()), len(cases) - len(smp_cases.handwritten()), SEQUENCES, errors,
            len(failures)))
        for f in failures[:40]:
            print("DIFFERENCE:", f, "\n")
        if failures:
            sys.exit(1)
        # Both kinds of answers must be exercised, or the comparison proves little.
        assert errors > 10 and len(cases) - errors > 100, (errors, len(cases))


if __name__ == "__main__":
    main()
