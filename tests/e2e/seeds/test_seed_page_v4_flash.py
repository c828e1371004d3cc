#!/usr/bin/python3
"""The DeepSeek-V4-Flash recipe page, replayed as written for each of its four targets
(tests/e2e/seeds/replay.py says what runs and what stands in): namespace and token Secret,
the model-cache PVC and the standalone `job/model-download`, `kubectl apply -f
${RECIPE}/deploy.yaml`, the page's awk line for the DGD name, `kubectl wait` on the graph's
pods, the smoke request through port 8000, and the benchmark Job `perf.yaml`.

Each target must end Ready, use the page's completed download (ModelCacheReady names Job
model-download and no second download Job exists in the cache), answer the smoke request,
and have the benchmark Job created. Every command of the page runs for some target.
"""
import sys

from replay import enter_private_network, replay_page

enter_private_network()

PAGE = "deepseek-v4-flash"
RECIPES = ["deepseek-v4-flash/vllm/agg-b200-agentic", "deepseek-v4-flash/vllm/disagg-b200-agentic",
           "deepseek-v4-flash/vllm/agg-h200-agentic", "deepseek-v4-flash/vllm/disagg-h200-agentic"]


def benchmark_job_targets_the_frontend(r):
    bench = r.env.get("job", "dsv4-bench", r.namespace())
    env = {e["name"]: e.get("value") for e in bench["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["ENDPOINT"] == "$(DGD)-frontend:8000", env


if __name__ == "__main__":
    sys.exit(replay_page(PAGE, RECIPES, check=benchmark_job_targets_the_frontend))
