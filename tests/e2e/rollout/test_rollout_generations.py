"""A worker change rolls a 1P1D graph to a new worker generation without mixing
generations and without losing capacity (kube-sim, 4x H200).

  - the KV-cache dtype of both workers changes (the new pods held unready by the kubelet's
    sim.dgd.dev/ready annotation until the test releases them);
  - throughout, watched pod by pod (rollout_lib.PodWatch): no prefill and decode pod of
    different specs share a Dynamo namespace, and one complete generation is Ready;
  - while held: the new generation runs beside the old one in its own Dynamo namespace,
    the old Deployments keep their replicas, status.rollingUpdate.phase is InProgress and
    Ready=False with reason rolling_update_in_progress; still so once the new prefill pod
    alone is Ready (the new generation cannot serve without its decode pod);
  - released: the old generation is removed, Ready=True, rollingUpdate Completed with
    startTime <= endTime and every worker in updatedComponents;
  - writes: each new worker Deployment written once, each old one at most twice, the
    frontend's not at all (frontend-only state rolls in place, worker changes do not touch it).
"""
from rollout_lib import (NS, RECIPE, OperatorEnv, PodWatch, condition, deployment_writes, edit_workers,
                         generation_of, hold_unready, release, rolling_update, wait_until, worker_deployments)


def main():
    with OperatorEnv(profile="h200-4x", local=True) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)
        old = worker_deployments(env, name)
        assert len(old) == 2, sorted(old)
        old_gen = generation_of(old)
        frontend = env.deployment_of(name, "Frontend", NS)["metadata"]["name"]

        with PodWatch(env, name) as watch:
            watch.arm()
            seq = env.last_seq()

            def change(c):
                c.setdefault("engine", {})["kvCacheDtype"] = "auto"
                hold_unready(c)
            gen = edit_workers(env, name, change)

            def new_running():
                deps = worker_deployments(env, name)
                new = {n: d for n, d in deps.items() if n not in old}
                pods = [s for s in watch.snapshot().values() if s["hash"] not in ("", old_gen)]
                running = len(new) == 2 and len(pods) == 2 and {s["type"] for s in pods} == {"prefill", "decode"}
                return new if running else None
            new = wait_until("the new generation beside the old one", new_running, timeout=300)
            new_gen = generation_of(new)
            assert new_gen != old_gen and all(n.endswith("-" + new_gen) for n in new), sorted(new)
            wait_until("status of generation %d" % gen,
                       lambda: env.dgd(name, NS)["status"]["observedGeneration"] == gen, timeout=300)
            env.reconcile_now(name, NS)
            d = env.dgd(name, NS)
            ru, ready = d["status"].get("rollingUpdate") or {}, condition(d, "Ready")
            assert ru.get("phase") == "InProgress" and ru.get("startTime") and "endTime" not in ru, ru
            assert ready["status"] == "False" and ready["reason"] == "rolling_update_in_progress", ready
            still = worker_deployments(env, name)
            for n in old:
                assert n in still and still[n]["spec"]["replicas"] == 1, (n, sorted(still))
            for s in watch.snapshot().values():
                if s["hash"] == new_gen:
                    assert s["ns"] == "%s-%s-%s" % (NS, name, new_gen), s
                elif s["type"] in ("prefill", "decode"):
                    assert s["ns"] == "%s-%s-%s" % (NS, name, old_gen), s

            # Only the new prefill pod Ready: the new generation cannot serve yet, so the
            # old one stays whole.
            release(env, name, "prefill")
            new_prefill = next(n for n, d in new.items()
                               if d["metadata"]["labels"]["nvidia.com/dynamo-component-type"] == "prefill")
            wait_until("the new prefill Deployment available", lambda: (
                worker_deployments(env, name)[new_prefill].get("status") or {}).get("availableReplicas") == 1)
            env.reconcile_now(name, NS)
            still = worker_deployments(env, name)
            assert all(n in still and still[n]["spec"]["replicas"] == 1 for n in old), sorted(still)

            def done():
                release(env, name)
                d = env.dgd(name, NS)
                c = condition(d, "Ready") or {}
                ru = (d.get("status") or {}).get("rollingUpdate") or {}
                return d if c.get("status") == "True" and c.get("observedGeneration") == gen and \
                    ru.get("phase") == "Completed" else None
            d = wait_until("the rollout to complete", done, timeout=300)
            ru = d["status"]["rollingUpdate"]
            assert ru["startTime"] <= ru["endTime"], ru
            assert ru["updatedComponents"] == ["DecodeWorker", "PrefillWorker"], ru
            assert sorted(worker_deployments(env, name)) == sorted(new)
            wait_until("old pods gone", lambda: all(s["hash"] == new_gen for s in watch.snapshot().values()
                                                    if s["type"] in ("prefill", "decode")))

        assert watch.states > 5, watch.states
        assert not watch.violations, "\n".join(watch.violations[:10])
        writes = deployment_writes(env, seq)
        for n in new:
            assert writes.get(n) == 1, ("new", n, writes)
        for n in old:
            assert 1 <= writes.get(n, 0) <= 2, ("old", n, writes)
        assert frontend not in writes, writes
        # `kubectl get dgd` shows the truth: Ready again, the rollout completed.
        out = env.kubectl("get", "dgd", name, "-n", NS, "-o", "jsonpath={.status.rollingUpdate.phase}").stdout
        assert out == "Completed", out
    print("ok")


if __name__ == "__main__":
    main()
