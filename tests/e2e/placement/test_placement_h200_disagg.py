"""H200 disaggregated on the 4x H200 profile: `dgdctl plan` predicts a fit with prefill and
decode on different nodes; once applied, they run on different nodes, each pod requests 4
rdma/ib and starts through the UCX_NET_DEVICES wrapper, and the DGD reports
Placement=True."""
import os

from placement_lib import ROOT, OperatorEnv, plan, plan_lines, pods_by_type, recipe_file, wait_placement

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
with open(os.path.join(ROOT, "recipes", "scripts", "select-rdma-nics.sh")) as _f:
    WRAPPER = _f.read()


def main():
    with OperatorEnv("h200-4x", local=True) as env:
        rc, out = plan(env, recipe_file(RECIPE))
        assert rc == 0, "plan exit %d" % rc
        lines = plan_lines(out)
        pre, dec = lines["PrefillWorker[0]"], lines["DecodeWorker[0]"]
        assert pre.startswith("-> h200-") and dec.startswith("-> h200-"), lines
        assert pre.split()[1] != dec.split()[1], "plan puts prefill and decode on one node: %s" % lines
        assert "4 nvidia.com/gpu, 4 rdma/ib" in pre and "4 nvidia.com/gpu, 4 rdma/ib" in dec, lines

        name = env.apply_recipe(RECIPE)
        env.wait_ready(name)
        pods = pods_by_type(env, name)
        assert len(pods["prefill"]) == 1 and len(pods["decode"]) == 1, pods.keys()
        prefill, decode = pods["prefill"][0], pods["decode"][0]
        assert prefill["spec"]["nodeName"] != decode["spec"]["nodeName"], "prefill and decode share a node"
        for p in (prefill, decode):
            main_c = [c for c in p["spec"]["containers"] if c["name"] == "main"][0]
            res = main_c["resources"]
            assert res["requests"]["rdma/ib"] == "4" and res["limits"]["rdma/ib"] == "4", res
            # The start-up wrapper the fake-sysfs test runs (tests/e2e/render/test_select_rdma_nics.sh).
            cmd = main_c["command"]
            assert cmd[:2] == ["/bin/bash", "-lc"] and cmd[3:] == ["--", "python3"], cmd[:2] + cmd[3:]
            assert cmd[2] == WRAPPER, "the worker does not run select-rdma-nics.sh"
            node = env.get("node", p["spec"]["nodeName"], "default")
            assert node["metadata"]["labels"]["nvidia.com/gpu.product"] == "NVIDIA-H200", node["metadata"]["labels"]
        c = wait_placement(env, name, "True")
        assert c["reason"] == "AllPodsBound", c
    print("ok")


if __name__ == "__main__":
    main()
