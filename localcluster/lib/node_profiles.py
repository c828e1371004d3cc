"""Node profiles: the simulated GPU pools of a local cluster, as data (localcluster/profiles).

A profile names node pools and single nodes; objects(profile) turns it into the Node,
StorageClass and PersistentVolume objects the cluster starts with. KWOK manages every
node (it writes their status and leases); the real scheduler places pods by the
allocatable resources, labels and taints given here.

    name: h200-4x
    storageClasses: {default: standard, names: [standard, shared-rwx]}
    persistentVolumes: {perClass: 24, capacity: 64Ti}    # optional; these are the defaults
    nodePools:
      - name: h200
        count: 4
        namePrefix: h200-                                  # default "<name>-"
        arch: amd64
        labels: {nvidia.com/gpu.product: NVIDIA-H200}
        taints: ["nvidia.com/gpu:NoSchedule"]              # "key=value:Effect" or {key, value, effect}
        allocatable: {cpu: "224", memory: 2000Gi, nvidia.com/gpu: "8", rdma/ib: "8"}
    nodes:                                                 # single nodes: the same fields plus name
      - {name: login-0, allocatable: {cpu: "8", memory: 32Gi}}

Storage is static: each class gets `perClass` PersistentVolumes that the real
PersistentVolume controller binds to claims (every access mode, reclaim policy Retain, so a
released volume is never handed to another claim). A claim of a class the profile does not
name stays Pending, as on a cluster without that provisioner.
"""
import os

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES_DIR = os.path.join(os.path.dirname(HERE), "profiles")
POOL_LABEL = "localcluster.dgd.dev/pool"
DEFAULT_ALLOCATABLE = {"cpu": "32", "memory": "256Gi", "ephemeral-storage": "1Ti", "pods": "110"}


class ProfileError(ValueError):
    pass


def profile_path(name_or_path):
    """A profile file: an existing path, or a name in localcluster/profiles."""
    if os.path.exists(name_or_path):
        return name_or_path
    path = os.path.join(PROFILES_DIR, name_or_path + ".yaml")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(PROFILES_DIR) if f.endswith(".yaml"))
        raise ProfileError("no profile %r (profiles: %s)" % (name_or_path, ", ".join(names)))
    return path


def load(name_or_path):
    path = profile_path(name_or_path)
    with open(path) as f:
        profile = yaml.safe_load(f)
    if not isinstance(profile, dict) or not profile.get("name"):
        raise ProfileError("profile %s: name: required" % path)
    profile["_path"] = path
    return profile


def _taint(spec, where):
    if isinstance(spec, dict):
        if "key" not in spec or "effect" not in spec:
            raise ProfileError("%s: a taint needs key and effect" % where)
        return {k: spec[k] for k in ("key", "value", "effect") if k in spec}
    head, sep, effect = str(spec).rpartition(":")
    if not sep or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise ProfileError("%s: %r is not key[=value]:Effect" % (where, spec))
    key, _, value = head.partition("=")
    taint = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    return taint


def _node(name, spec, pool, where):
    arch = spec.get("arch", "amd64")
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": arch,
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": arch,
        "type": "kwok",
        POOL_LABEL: pool,
    }
    labels.update({k: str(v) for k, v in (spec.get("labels") or {}).items()})
    allocatable = dict(DEFAULT_ALLOCATABLE)
    allocatable.update({k: str(v) for k, v in (spec.get("allocatable") or {}).items()})
    node = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels,
                     "annotations": {"kwok.x-k8s.io/node": "fake",
                                     "node.alpha.kubernetes.io/ttl": "0"}},
        "spec": {},
        # Kept by KWOK's node-initialize stage: the capacity the scheduler fits pods into.
        "status": {"allocatable": allocatable, "capacity": dict(allocatable),
                   "nodeInfo": {"architecture": arch, "operatingSystem": "linux",
                                "kubeletVersion": "kwok"}},
    }
    taints = [_taint(t, "%s.taints[%d]" % (where, i)) for i, t in enumerate(spec.get("taints") or [])]
    if taints:
        node["spec"]["taints"] = taints
    return node


def nodes(profile):
    out = []
    for i, pool in enumerate(profile.get("nodePools") or []):
        where = "nodePools[%d]" % i
        if not pool.get("name"):
            raise ProfileError("%s.name: required" % where)
        prefix = pool.get("namePrefix", pool["name"] + "-")
        for n in range(int(pool.get("count", 1))):
            out.append(_node("%s%d" % (prefix, n), pool, pool["name"], where))
    for i, spec in enumerate(profile.get("nodes") or []):
        if not spec.get("name"):
            raise ProfileError("nodes[%d].name: required" % i)
        out.append(_node(spec["name"], spec, spec.get("pool", spec["name"]), "nodes[%d]" % i))
    names = [n["metadata"]["name"] for n in out]
    if len(set(names)) != len(names):
        raise ProfileError("profile %s: node names repeat" % profile["name"])
    return out


def storage(profile, volume_root):
    """StorageClasses and the static PersistentVolumes of each; host paths under volume_root."""
    classes = profile.get("storageClasses") or {}
    names = list(classes.get("names") or [])
    default = classes.get("default")
    pv = profile.get("persistentVolumes") or {}
    per_class = int(pv.get("perClass", 24))
    capacity = str(pv.get("capacity", "64Ti"))
    out = []
    for name in names:
        sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
              "metadata": {"name": name},
              "provisioner": "kubernetes.io/no-provisioner",
              "reclaimPolicy": "Retain",
              "volumeBindingMode": "Immediate"}
        if name == default:
            sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
        out.append(sc)
        for i in range(per_class):
            out.append({
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": "%s-%03d" % (name, i), "labels": {"localcluster.dgd.dev/class": name}},
                "spec": {"capacity": {"storage": capacity},
                         "accessModes": ["ReadWriteOnce", "ReadWriteMany", "ReadOnlyMany"],
                         "persistentVolumeReclaimPolicy": "Retain",
                         "storageClassName": name,
                         "hostPath": {"path": os.path.join(volume_root, name, str(i))}},
            })
    return out


COMPUTE_DOMAIN_DRIVER = "compute-domain.nvidia.com"
COMPUTE_DOMAIN_CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com"
CLIQUE_LABEL = "nvidia.com/gpu.clique"
CHANNELS_PER_NODE = 8


def compute_domain_devices(node_list):
    """What NVIDIA's DRA driver publishes for ComputeDomains: the DeviceClass of IMEX
    channels and, on every node of an NVLink clique, a ResourceSlice of channels. The real
    scheduler allocates them to the ResourceClaims of pods that ask for a domain's channel."""
    clique_nodes = [n for n in node_list if CLIQUE_LABEL in n["metadata"]["labels"]]
    if not clique_nodes:
        return []
    out = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": COMPUTE_DOMAIN_CHANNEL_CLASS},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == '%s'" % COMPUTE_DOMAIN_DRIVER}}]}}]
    for n in clique_nodes:
        name = n["metadata"]["name"]
        clique = n["metadata"]["labels"][CLIQUE_LABEL]
        out.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "%s-compute-domain" % name},
            "spec": {"driver": COMPUTE_DOMAIN_DRIVER, "nodeName": name,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "channel-%d" % i,
                                  "attributes": {"type": {"string": "channel"}, "id": {"int": i},
                                                 "clique": {"string": clique}}}
                                 for i in range(CHANNELS_PER_NODE)]},
        })
    return out


def gpu_runtime(node_list):
    """The RuntimeClass NVIDIA's GPU operator installs on GPU clusters; the recipes' workers
    name it (runtimeClassName: nvidia), and admission refuses a pod whose class is missing."""
    if not any("nvidia.com/gpu" in n["status"]["allocatable"] for n in node_list):
        return []
    return [{"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia"},
             "handler": "nvidia"}]


def objects(profile, volume_root):
    node_list = nodes(profile)
    return (node_list + gpu_runtime(node_list) + storage(profile, volume_root)
            + compute_domain_devices(node_list))
