#!/usr/bin/python3
"""A failing download shows why in ModelCacheReady, and deleting the Job retries it.

kube-sim makes every download pod of the namespace fail with a Hugging Face error as its
termination message (annotation sim.dgd.dev/fail). After backoffLimit + 1 failed pods the
Job fails (BackoffLimitExceeded); the DGD reports that reason and the pod's message, and
its worker stays held at zero replicas. Then the cause goes away and the user deletes the
Job, as docs/model-cache.md says: the operator creates it again, it completes and the
graph turns Ready.
"""
from mclib import (NS, OperatorEnv, apply_dgd, cache_jobs, cond, deployment, dgd_doc, pods, sim_args,
                   wait_condition, wait_dgd_ready, wait_until)

NAME = "mc-fail"
HF_ERROR = "401 Client Error: Unauthorized for url: https://huggingface.co/api/models/deepseek-ai/DeepSeek-V4.1-Flash"


def main():
    with OperatorEnv(profile=None, sim_args=sim_args(job_duration=0.3)) as env:
        env.prepare_namespace(NS)
        env.kubectl("annotate", "namespace", NS, "sim.dgd.dev/fail=" + HF_ERROR, "--overwrite")
        apply_dgd(env, dgd_doc(NAME))

        c = wait_condition(env, NAME, "ModelCacheReady", "False", "DownloadFailed")
        assert "BackoffLimitExceeded" in c["message"], c
        assert HF_ERROR in c["message"], c
        assert "delete the Job" in c["message"], c
        ready = cond(env, NAME, "Ready")
        assert ready["status"] == "False" and ready["reason"] == "WaitingForModelCache", ready
        assert deployment(env, NAME, "Worker")["spec"]["replicas"] == 0
        assert not pods(env, NAME, "worker")
        [job] = cache_jobs(env)

        # Fixed; the user deletes the failed Job and the operator downloads again.
        env.kubectl("annotate", "namespace", NS, "sim.dgd.dev/fail-")
        env.kubectl("delete", "job", job["metadata"]["name"], "-n", NS)
        wait_dgd_ready(env, NAME)
        [again] = cache_jobs(env)
        assert again["metadata"]["uid"] != job["metadata"]["uid"]
        assert cond(env, NAME, "ModelCacheReady")["reason"] == "ModelInCache"
        wait_until("worker pod", lambda: pods(env, NAME, "worker"))
    print("PASS test_modelcache_failure")


if __name__ == "__main__":
    main()
