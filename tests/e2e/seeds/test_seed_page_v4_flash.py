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

from replay import Replay, Target, enter_private_network, print_substitutions, select, unused

enter_private_network()

from seed_pages import commands  # noqa: E402
from servinglib import Standin  # noqa: E402

PAGE = "deepseek-v4-flash"
RECIPES = ["deepseek-v4-flash/vllm/agg-b200-agentic", "deepseek-v4-flash/vllm/disagg-b200-agentic",
           "deepseek-v4-flash/vllm/agg-h200-agentic", "deepseek-v4-flash/vllm/disagg-h200-agentic"]


def main():
    page = commands(PAGE)
    print("%s: %d commands on the page" % (PAGE, len(page)))
    print_substitutions()
    targets = [Target(r) for r in RECIPES]
    used = set()
    with Standin(mode="ready") as standin:
        for t in targets:
            with Replay(t, standin) as r:
                for _, cmd in select(page, t, [o for o in targets if o is not t]):
                    r.run(cmd)
                    used.add(cmd)
                r.check_outcome()
                bench = r.env.get("job", "dsv4-bench", r.namespace())
                env = {e["name"]: e.get("value") for e in bench["spec"]["template"]["spec"]["containers"][0]["env"]}
                assert env["ENDPOINT"] == "$(DGD)-frontend:8000", env
                r.report()
    left = unused(page, used)
    assert not left, "commands of the page no target ran: %s" % left
    print("ok: every command of the %s page ran" % PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
