"""A graph component's Deployment, found by its labels rather than by name: a worker's
Deployment is named after its generation (<dgd>-<component>-<8 hex>, docs/operations.md
"Rollouts"), so tests never build that name.

    component_deployments(items, dgd, "DecodeWorker")   # every generation, newest first
    component_deployment(items, dgd, "DecodeWorker")    # the newest, or None
    deployment_name_ok(dgd, "DecodeWorker", name)        # the name as the operator forms it
"""
import re

LBL_DGD = "nvidia.com/dynamo-graph-deployment-name"
LBL_COMPONENT = "nvidia.com/dynamo-component"
LBL_TYPE = "nvidia.com/dynamo-component-type"
LBL_WORKER_HASH = "nvidia.com/dynamo-worker-hash"
WORKER_TYPES = ("worker", "prefill", "decode")


def selector(dgd, component=None):
    """The label selector of a graph's (or one component's) objects."""
    return "%s=%s" % (LBL_DGD, dgd) + ("" if component is None else ",%s=%s" % (LBL_COMPONENT, component))


def component_deployments(items, dgd, component):
    """Deployments among `items` of component `component` of DGD `dgd`, newest first."""
    found = [o for o in items if o.get("kind", "Deployment") == "Deployment"
             and (o["metadata"].get("labels") or {}).get(LBL_DGD) == dgd
             and (o["metadata"].get("labels") or {}).get(LBL_COMPONENT) == component]
    return sorted(found, key=lambda o: (o["metadata"].get("creationTimestamp", ""), o["metadata"]["name"]),
                  reverse=True)


def component_deployment(items, dgd, component):
    found = component_deployments(items, dgd, component)
    return found[0] if found else None


def base_name(dgd, component):
    return ("%s-%s" % (dgd, component.lower())).replace(".", "-")


def deployment_name_ok(dgd, component, name, worker=None):
    """`name` is the Deployment name of `component`: <dgd>-<component>, and for a worker
    (worker=True, or when unknown either form) <dgd>-<component>-<8 lowercase hex>."""
    base = base_name(dgd, component)
    hashed = re.fullmatch(re.escape(base) + r"-[0-9a-f]{8}", name) is not None
    if worker is None:
        return name == base or hashed
    return hashed if worker else name == base
