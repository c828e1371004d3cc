"""A DGD that does not fit (16 H200 GPUs per worker on the one-node h200-1x profile):
`dgdctl plan` says so before applying (exit 1, the shortfall), a DGD that fits plans
with exit 0, and once applied the DGD reports Placement=False with the same shortfall."""
import os
import tempfile

from placement_lib import OperatorEnv, plan, plan_lines, recipe_file, wait_placement

BIG = """apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: dsv41-h200-16gpu
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-h200-agentic
  components:
  - name: Worker
    replicas: 1
    engine:
      tensorParallelSize: 16
    podTemplate:
      spec:
        containers:
        - name: main
          resources:
            requests: {nvidia.com/gpu: "16"}
            limits: {nvidia.com/gpu: "16"}
"""
# The agg recipe with two 4-GPU workers: both fit on the one 8-GPU node.
FITS = """apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: dsv41-h200-agg-2
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-h200-agentic
  components:
  - name: Worker
    replicas: 2
"""
SHORTFALL = "no node with 16 free nvidia.com/gpu: each pod asks for 16 nvidia.com/gpu"


def main():
    with OperatorEnv("h200-1x", local=True) as env, tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.yaml")
        with open(big, "w") as f:
            f.write(BIG)
        rc, out = plan(env, big)
        assert rc == 1, "plan exit %d for a DGD that does not fit" % rc
        predicted = plan_lines(out)["Worker[0]"]
        assert predicted.startswith("NO FIT [InsufficientResources]: " + SHORTFALL), predicted
        assert "has 8 allocatable" in predicted, predicted
        assert plan_lines(out)["Frontend[0]"].startswith("-> cpu-"), out

        fits = os.path.join(tmp, "fits.yaml")
        with open(fits, "w") as f:
            f.write(FITS)
        rc, out = plan(env, fits)
        assert rc == 0, "plan exit %d for a DGD that fits" % rc
        assert plan_lines(out)["Worker[1]"].startswith("-> h200-0"), out

        env.prepare_namespace("dynamo")
        env.kubectl("apply", "-n", "dynamo", "-f", big)
        c = wait_placement(env, "dsv41-h200-16gpu", "False")
        assert c["reason"] == "InsufficientResources", c
        problem = predicted.split("]: ", 1)[1]
        assert c["message"] == "Worker: 1 pod pending: " + problem, (c["message"], problem)
    print("ok")


if __name__ == "__main__":
    main()
