#!/usr/bin/python3
"""The cache outlives the DGD: kept by default, deleted when asked, and a DGD on a cache
that already holds the revision starts at once.

1. `mc-first` asks the operator to create the PVC `operator-cache`; it downloads into it
   and turns Ready. Deleting `mc-first` keeps the PVC (no owner) and its completed download
   Job (owned by the PVC).
2. `mc-second` on the same cache, model and revision: no new download, ModelCacheReady=True,
   and its worker Deployment is created with its replicas at once (generation 1: it was never
   held at zero).
3. `mc-owned` with keepOnDelete: false: deleting it deletes its PVC and, with it, the Job.
"""
from mclib import (CACHE_LABEL, NS, OperatorEnv, apply_dgd, cache_jobs, cond, deployment, dgd_doc, sim_args,
                   wait_condition, wait_dgd_ready, wait_until)


def cache(claim, keep=None):
    c = {"claimName": claim, "create": {"size": "1Ti", "accessMode": "ReadWriteMany"}}
    if keep is not None:
        c["keepOnDelete"] = keep
    return {"cache": c}


def main():
    with OperatorEnv(profile=None, sim_args=sim_args(job_duration=0.5)) as env:
        env.prepare_namespace(NS)

        apply_dgd(env, dgd_doc("mc-first", model=cache("operator-cache")))
        wait_dgd_ready(env, "mc-first")
        pvc = env.get("pvc", "operator-cache", NS)
        assert not pvc["metadata"].get("ownerReferences"), pvc["metadata"]
        assert pvc["metadata"]["labels"].get(CACHE_LABEL) == "operator-cache", pvc["metadata"]["labels"]
        assert pvc["spec"]["accessModes"] == ["ReadWriteMany"], pvc["spec"]
        [job] = cache_jobs(env, "operator-cache")
        assert job["metadata"]["ownerReferences"][0]["uid"] == pvc["metadata"]["uid"], job["metadata"]

        env.kubectl("delete", "dgd", "mc-first", "-n", NS, "--wait=false")
        wait_until("mc-first gone", lambda: env.dgd("mc-first", NS) is None)
        wait_until("mc-first's Deployments gone", lambda: deployment(env, "mc-first", "Worker") is None, timeout=60)
        kept = env.get("pvc", "operator-cache", NS)
        assert kept["metadata"]["uid"] == pvc["metadata"]["uid"]
        assert [j["metadata"]["uid"] for j in cache_jobs(env, "operator-cache")] == [job["metadata"]["uid"]]

        apply_dgd(env, dgd_doc("mc-second", model=cache("operator-cache")))
        c = wait_condition(env, "mc-second", "ModelCacheReady", "True", "ModelInCache")
        worker = wait_until("mc-second worker", lambda: deployment(env, "mc-second", "Worker"))
        assert worker["spec"]["replicas"] == 1 and worker["metadata"]["generation"] == 1, worker["metadata"]
        wait_dgd_ready(env, "mc-second")
        assert [j["metadata"]["uid"] for j in cache_jobs(env, "operator-cache")] == [job["metadata"]["uid"]]

        apply_dgd(env, dgd_doc("mc-owned", model=cache("owned-cache", keep=False)))
        wait_dgd_ready(env, "mc-owned")
        owned = env.get("pvc", "owned-cache", NS)
        assert owned["metadata"]["ownerReferences"][0]["name"] == "mc-owned", owned["metadata"]
        assert len(cache_jobs(env, "owned-cache")) == 1
        env.kubectl("delete", "dgd", "mc-owned", "-n", NS, "--wait=false")
        wait_until("owned-cache PVC gone", lambda: env.get("pvc", "owned-cache", NS, check=False) is None, timeout=60)
        wait_until("its Job gone", lambda: not cache_jobs(env, "owned-cache"), timeout=60)
        # The other cache is untouched.
        assert env.get("pvc", "operator-cache", NS)["metadata"]["uid"] == pvc["metadata"]["uid"]
        assert cond(env, "mc-second", "Ready")["status"] == "True"
    print("PASS test_modelcache_lifecycle")


if __name__ == "__main__":
    main()
