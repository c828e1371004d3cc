"""Plays the controller of NVIDIA's DRA driver for ComputeDomains (its module is not
served by the Go module proxy): for every ComputeDomain it creates the
ResourceClaimTemplate the domain names, owned by the domain, asking for one IMEX channel
of the class the local cluster's ResourceSlices offer (node_profiles.compute_domain_devices).
The real resourceclaim controller, scheduler and garbage collector do the rest: claims per
pod, channels allocated on nodes of a clique, the template deleted with its domain.

    compute_domains.py --kubeconfig FILE
"""
import argparse
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "resource.nvidia.com", "v1beta1", "computedomains"
CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com"


def claim_template(cd):
    meta = cd["metadata"]
    name = cd["spec"]["channel"]["resourceClaimTemplate"]["name"]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": meta["namespace"],
                         "labels": {"resource.nvidia.com/computeDomain": meta["name"]},
                         "ownerReferences": [{"apiVersion": GROUP + "/" + VERSION, "kind": "ComputeDomain",
                                              "name": meta["name"], "uid": meta["uid"], "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "channel", "exactly": {"deviceClassName": CHANNEL_CLASS}}]}}}}


def ensure_template(api, cd):
    tpl = claim_template(cd)
    try:
        api.call_api("/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaimtemplates", "POST",
                     path_params={"namespace": cd["metadata"]["namespace"]}, body=tpl,
                     header_params={"Content-Type": "application/json"}, auth_settings=["BearerToken"],
                     _preload_content=False)
    except ApiException as e:
        if e.status != 409:
            raise


def run(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    api = client.ApiClient()
    api.user_agent = "compute-domain-controller"
    custom = client.CustomObjectsApi(api)
    while True:
        try:
            listed = custom.list_cluster_custom_object(GROUP, VERSION, PLURAL)
            for cd in listed["items"]:
                ensure_template(api, cd)
            w = watch.Watch()
            for ev in w.stream(custom.list_cluster_custom_object, GROUP, VERSION, PLURAL,
                               resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=300):
                if ev["type"] in ("ADDED", "MODIFIED"):
                    ensure_template(api, ev["object"])
        except ApiException as e:
            if e.status == 404:     # the CRD is not installed yet
                time.sleep(1)
                continue
            print("compute-domain-controller: %s" % e, file=sys.stderr, flush=True)
            time.sleep(1)
        except Exception as e:  # connection lost (an API server restart): list again
            print("compute-domain-controller: %s" % e, file=sys.stderr, flush=True)
            time.sleep(1)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kubeconfig", required=True)
    run(ap.parse_args().kubeconfig)
