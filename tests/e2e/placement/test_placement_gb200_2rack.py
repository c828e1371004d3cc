"""GB200 on the two-rack profile with rack r0 nearly full (17 of 18 trays taken by other
work): the first worker takes r0's last tray, the second is not split off to rack r1: it
stays Pending and the DGD reports Placement=False naming the clique constraint.
`dgdctl plan` (which counts the DGD's own pods as free) advises rack r1, which holds both."""
import json

from gb200_cliques import R0, R1, clique_filler
from placement_lib import OperatorEnv, node_clique, plan, plan_lines, pods_by_type, recipe_file, wait_placement, \
    wait_until

RECIPE = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic"
FILLER = clique_filler(R0, 17)


def main():
    with OperatorEnv("gb200-2rack", local=True) as env:
        env.kubectl("apply", "-f", "-", input=json.dumps(FILLER))
        env.kubectl("rollout", "status", "deploy/filler", "-n", "default", "--timeout=60s", timeout=90)

        name = env.apply_recipe(RECIPE)
        c = wait_placement(env, name, "False")
        assert c["reason"] == "NVLinkClique", c
        msg = c["message"]
        assert "must join nvidia.com/gpu.clique " + R0 in msg, msg
        assert "no node there has 4 free nvidia.com/gpu" in msg and "NVLink domain is not split" in msg, msg

        pods = pods_by_type(env, name)
        workers = pods["prefill"] + pods["decode"]
        bound = [p for p in workers if p["spec"].get("nodeName")]
        assert len(workers) == 2 and len(bound) == 1, [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in workers]
        assert node_clique(env, bound[0]["spec"]["nodeName"]) == R0

        rc, out = plan(env, recipe_file(RECIPE))
        assert rc == 0, "plan exit %d" % rc
        lines = plan_lines(out)
        for w in ("PrefillWorker[0]", "DecodeWorker[0]"):
            assert ("clique " + R1) in lines[w], lines

        # Stable at rest: the same condition (message and transition time) after other events.
        again = wait_placement(env, name, "False")
        assert again == c, (again, c)

        # One tray freed in r0: the second worker joins the first; Placement turns True.
        env.kubectl("scale", "deploy/filler", "-n", "default", "--replicas=16")
        wait_placement(env, name, "True")
        cliques = {node_clique(env, p["spec"]["nodeName"]) for t in ("prefill", "decode")
                   for p in pods_by_type(env, name)[t]}
        assert cliques == {R0}, cliques
    print("ok")


if __name__ == "__main__":
    main()
