#!/usr/bin/python3
"""Workers wait for the model download; two DGDs on one cache and revision share one Job.

Two DGDs on the recipe's cache `shared-model-cache` (the user made the PVC). The download
pods run for an hour, so the test sees the waiting state for as long as it looks:
  - exactly one download Job, owned by the PVC, pinned to the revision, the token from the
    Secret by secretKeyRef only;
  - both frontends run; the worker Deployments exist with 0 replicas and no worker pod;
  - Ready=False naming the cache, ModelCacheReady=False with the Job's progress.
Then the download finishes (the test shortens the Job's run time): both DGDs' workers
start, both turn Ready, ModelCacheReady=True, still one Job.
"""
import json

from mclib import (CLAIM, NS, REVISION, OperatorEnv, apply_dgd, cache_jobs, cond, deployment, dgd_doc, pods,
                   sim_args, wait_condition, wait_dgd_ready, wait_until)

A, B = "mc-hold-a", "mc-hold-b"


def main():
    with OperatorEnv(profile=None, sim_args=sim_args(job_duration=3600)) as env:
        env.prepare_namespace(NS)
        apply_dgd(env, dgd_doc(A))
        apply_dgd(env, dgd_doc(B))

        # The download pod runs; both DGDs report it.
        for name in (A, B):
            c = wait_condition(env, name, "ModelCacheReady", "False", "Downloading")
            wait_until("%s reports the running download" % name,
                       lambda: "download pod running" in (cond(env, name, "ModelCacheReady") or {}).get("message", ""))
        jobs = cache_jobs(env)
        assert len(jobs) == 1, [j["metadata"]["name"] for j in jobs]
        job = jobs[0]
        owners = job["metadata"].get("ownerReferences", [])
        pvc = env.get("pvc", CLAIM, NS)
        assert [(o["kind"], o["uid"]) for o in owners] == [("PersistentVolumeClaim", pvc["metadata"]["uid"])], owners
        container = job["spec"]["template"]["spec"]["containers"][0]
        env_vars = {e["name"]: e for e in container["env"]}
        assert env_vars["MODEL_REVISION"]["value"] == REVISION, env_vars
        assert env_vars["HF_TOKEN"] == {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {
            "name": "hf-token-secret", "key": "HF_TOKEN"}}}, env_vars["HF_TOKEN"]
        assert "test-token" not in json.dumps(job), "the token's value is in the Job"
        assert '--revision "$MODEL_REVISION"' in " ".join(container["command"]), container["command"]

        for name in (A, B):
            # The frontend runs; the workers are held at zero.
            wait_until("frontend of " + name, lambda: any(
                any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
                for p in pods(env, name, "frontend")))
            worker = deployment(env, name, "Worker")
            assert worker is not None and worker["spec"]["replicas"] == 0, worker and worker["spec"]
            assert not pods(env, name, "worker"), [p["metadata"]["name"] for p in pods(env, name, "worker")]
            ready = cond(env, name, "Ready")
            assert ready["status"] == "False" and ready["reason"] == "WaitingForModelCache", ready
            assert CLAIM in ready["message"] and job["metadata"]["name"] in ready["message"], ready

        # The download completes.
        env.kubectl("annotate", "job", job["metadata"]["name"], "-n", NS, "sim.dgd.dev/duration=0s", "--overwrite")
        for name in (A, B):
            wait_dgd_ready(env, name)
            c = cond(env, name, "ModelCacheReady")
            assert c["status"] == "True" and c["reason"] == "ModelInCache", c
            assert REVISION in c["message"], c
            assert deployment(env, name, "Worker")["spec"]["replicas"] == 1
            assert len(pods(env, name, "worker")) == 1
        assert [j["metadata"]["uid"] for j in cache_jobs(env)] == [job["metadata"]["uid"]]
    print("PASS test_modelcache_holdback")


if __name__ == "__main__":
    main()
