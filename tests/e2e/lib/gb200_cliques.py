"""The two NVLink cliques of kube-sim's two-rack GB200 profiles (`gb200-2rack`, and the
GB200 pool of `large`), and a Deployment of other work that takes trays of one clique,
to leave it nearly or entirely full."""
R0 = "61248eac-4785-4fbf-9cbd-231635e37e9d.20663"
R1 = "61248eac-4785-4fbf-9cbd-231635e37e9d.31442"


def clique_filler(clique, trays, name="filler", ns="default"):
    """`trays` pods of 4 GPUs each, pinned to `clique`."""
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": trays, "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "nodeSelector": {"nvidia.com/gpu.clique": clique},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                                    {"key": "kubernetes.io/arch", "operator": "Exists", "effect": "NoSchedule"}],
                    "containers": [{"name": "main", "image": "other:1",
                                    "resources": {"limits": {"nvidia.com/gpu": "4"}}}],
                }}}}
