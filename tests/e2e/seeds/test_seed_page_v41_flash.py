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

from replay import enter_private_network, replay_page

enter_private_network()

PAGE = "deepseek-v4.1-flash"
RECIPES = ["deepseek-v4.1-flash/vllm/agg-gb200-agentic", "deepseek-v4.1-flash/vllm/disagg-gb200-agentic",
           "deepseek-v4.1-flash/vllm/agg-b200-agentic", "deepseek-v4.1-flash/vllm/agg-h200-agentic",
           "deepseek-v4.1-flash/vllm/disagg-h200-agentic", "deepseek-v4.1-flash/vllm/disagg-b200-agentic",
           "deepseek-v4.1-flash/sglang/agg-gb200", "deepseek-v4.1-flash/sglang/disagg-gb200"]
MODEL_CACHE = os.path.join("recipes", "deepseek-v4.1-flash", "model-cache")


def vllm_only(target):
    """The CLUSTER_CONFIG lines belong to the page's vLLM tab."""
    return (lambda cmd: "CLUSTER_CONFIG" in cmd) if target.framework == "sglang" else (lambda cmd: False)


if __name__ == "__main__":
    sys.exit(replay_page(PAGE, RECIPES, skip=vllm_only,
                         prepare=lambda r: r.prerequisites(r.namespace(), MODEL_CACHE)))
