#!/usr/bin/python3
"""The DeepSeek-V4.1-Flash recipe page, replayed as written for each of its eight targets
(tests/e2e/seeds/replay.py says what runs and what stands in). Before the page's commands,
the prerequisites its prose asks for: the namespace, the token Secret, and the cache
populated with the recipe's model-cache manifests (recipes/deepseek-v4.1-flash/model-cache,
`job/model-download`). Then, for a vLLM target, `kustomize build` of the target into
"${CLUSTER_CONFIG}/recipe.yaml" and the two `kustomize build ... | kubectl apply` lines (dry
run, then for real); for an SGLang target, `kubectl apply -f` of its deploy.yaml /
deploy-generic.yaml (the page's SGLang tab; the CLUSTER_CONFIG lines belong to the vLLM tab).
Then the port-forward of the target's frontend Service and the smoke curl.

Each target must end Ready, use the completed download (no second download Job), and answer
the smoke request. Every command of the page runs for some target.
"""
import os
import sys

from replay import Replay, Target, enter_private_network, print_substitutions, select, unused

enter_private_network()

from seed_pages import commands  # noqa: E402
from servinglib import Standin  # noqa: E402

PAGE = "deepseek-v4.1-flash"
RECIPES = ["deepseek-v4.1-flash/vllm/agg-gb200-agentic", "deepseek-v4.1-flash/vllm/disagg-gb200-agentic",
           "deepseek-v4.1-flash/vllm/agg-b200-agentic", "deepseek-v4.1-flash/vllm/agg-h200-agentic",
           "deepseek-v4.1-flash/vllm/disagg-h200-agentic", "deepseek-v4.1-flash/vllm/disagg-b200-agentic",
           "deepseek-v4.1-flash/sglang/agg-gb200", "deepseek-v4.1-flash/sglang/disagg-gb200"]
MODEL_CACHE = os.path.join("recipes", "deepseek-v4.1-flash", "model-cache")


def main():
    page = commands(PAGE)
    print("%s: %d commands on the page" % (PAGE, len(page)))
    print_substitutions()
    targets = [Target(r) for r in RECIPES]
    used = set()
    with Standin(mode="ready") as standin:
        for t in targets:
            only_vllm = (lambda cmd: "CLUSTER_CONFIG" in cmd) if t.framework == "sglang" else (lambda cmd: False)
            with Replay(t, standin) as r:
                prepared = False
                for _, cmd in select(page, t, [o for o in targets if o is not t], skip=only_vllm):
                    if not prepared and not cmd.startswith("export "):
                        r.prerequisites(r.namespace(), MODEL_CACHE)
                        prepared = True
                    r.run(cmd)
                    used.add(cmd)
                r.check_outcome()
                r.report()
    left = unused(page, used)
    assert not left, "commands of the page no target ran: %s" % left
    print("ok: every command of the %s page ran" % PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
