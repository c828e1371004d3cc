"""GB200 disaggregated on the NVL72 profile: the DGD's ComputeDomain exists while the DGD
does, both workers carry its claim and run in one nvidia.com/gpu.clique, Placement=True;
deleting the DGD deletes the ComputeDomain."""
from placement_lib import OperatorEnv, node_clique, plan, pods_by_type, recipe_file, wait_placement, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic"


def main():
    with OperatorEnv("gb200-nvl72", local=True) as env:
        rc, _ = plan(env, recipe_file(RECIPE))
        assert rc == 0, "plan exit %d" % rc
        name = env.apply_recipe(RECIPE)
        env.wait_ready(name)
        dgd = env.dgd(name)
        cds = env.items("computedomains", "dynamo")
        owned = [cd for cd in cds
                 if any(o.get("uid") == dgd["metadata"]["uid"] for o in cd["metadata"].get("ownerReferences", []))]
        assert len(owned) == 1, [cd["metadata"]["name"] for cd in cds]
        template = owned[0]["spec"]["channel"]["resourceClaimTemplate"]["name"]

        pods = pods_by_type(env, name)
        workers = pods["prefill"] + pods["decode"]
        assert len(workers) == 2, pods.keys()
        cliques = set()
        for p in workers:
            claims = [c.get("resourceClaimTemplateName") for c in p["spec"].get("resourceClaims", [])]
            assert claims == [template], claims
            cliques.add(node_clique(env, p["spec"]["nodeName"]))
        assert len(cliques) == 1 and "" not in cliques, cliques
        wait_placement(env, name, "True")

        env.kubectl("delete", "dgd", name, "-n", "dynamo", "--wait=true", "--timeout=60s", timeout=90)
        wait_until("ComputeDomain deleted with the DGD",
                   lambda: not [cd for cd in env.items("computedomains", "dynamo")
                                if cd["metadata"]["name"] == owned[0]["metadata"]["name"]], timeout=60)
    print("ok")


if __name__ == "__main__":
    main()
