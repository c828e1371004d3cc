"""Reverting a worker change mid-rollout keeps the generation that serves (kube-sim, 4x H200).

Generation B serves. A change to the workers' image starts generation C, whose pods are
held unready; the DGD is then put back (kubectl replace) to B's spec. B is the desired
generation again: its Deployments and pods are never written nor deleted, C is removed,
the rollout completes, and, watched pod by pod, capacity never reaches zero and no Dynamo
namespace mixes specs.
"""
import json

from rollout_lib import (NS, RECIPE, OperatorEnv, PodWatch, condition, deployment_writes, edit_workers,
                         generation_of, hold_unready, rolling_update, wait_until, worker_deployments)


def main():
    with OperatorEnv(profile="h200-4x", local=True) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)
        serving = worker_deployments(env, name)
        b = generation_of(serving)
        spec_b = env.dgd(name, NS)["spec"]

        with PodWatch(env, name) as watch:
            watch.arm()
            b_pods = {n for n, s in watch.snapshot().items() if s["hash"] == b}
            assert len(b_pods) == 2, watch.snapshot()
            seq = env.last_seq()

            def change(c):
                main = c["podTemplate"]["spec"]["containers"][0]
                main["image"] = main["image"] + "-next"
                hold_unready(c)
            edit_workers(env, name, change)
            c_deps = wait_until("generation C created", lambda: (lambda deps: deps if len(deps) == 2 else None)(
                {n: d for n, d in worker_deployments(env, name).items() if n not in serving}), timeout=300)
            c = generation_of(c_deps)
            wait_until("C's pods", lambda: len([s for s in watch.snapshot().values() if s["hash"] == c]) == 2,
                       timeout=300)
            wait_until("rollingUpdate in progress",
                       lambda: rolling_update(env, name).get("phase") in ("Pending", "InProgress"))

            # Back to B: kubectl replace (it also drops every annotation the DGD carried).
            d = env.dgd(name, NS)
            d["spec"] = spec_b
            d.pop("status", None)
            env.kubectl("replace", "-f", "-", input=json.dumps(d))
            gen = env.dgd(name, NS)["metadata"]["generation"]

            def back():
                d = env.dgd(name, NS)
                ready = condition(d, "Ready") or {}
                ok = ready.get("status") == "True" and ready.get("observedGeneration") == gen and \
                    rolling_update(env, name).get("phase") == "Completed" and \
                    sorted(worker_deployments(env, name)) == sorted(serving)
                return d if ok else None
            wait_until("B alone, Ready", back, timeout=300)
            wait_until("C's pods gone", lambda: not [s for s in watch.snapshot().values() if s["hash"] == c],
                       timeout=300)

        assert not watch.violations, "\n".join(watch.violations[:10])
        assert not (b_pods & watch.deleted), "pods of the serving generation were deleted: %s" % (b_pods & watch.deleted)
        writes = deployment_writes(env, seq)
        for n in serving:
            assert n not in writes, ("the serving generation was written", n, writes)
        for n in c_deps:
            assert 1 <= writes.get(n, 0) <= 2, (n, writes)
        now = worker_deployments(env, name)
        for n, dep in serving.items():
            assert now[n]["metadata"]["uid"] == dep["metadata"]["uid"], n
    print("ok")


if __name__ == "__main__":
    main()
