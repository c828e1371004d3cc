"""Random server-side apply sequences for the structured-merge-diff differential test.

A sequence is a few writes to one object by 2-4 field managers: applies (with or without force)
of configurations drawn from small pools, so that managers overlap, agree, conflict and drop
fields; PUTs of the object read back with one field changed; JSON merge patches of labels,
annotations and scalars. The objects are valid for the server (image on every container,
selector and template labels fixed per object, names of Service ports unique, a DGD
component's type fixed per name and applied with it) with one exception the test checks
itself: a list-map entry whose required field was taken by force and then dropped by its new
owner lives on without it while another manager owns the rest. Fields the server defaults are never generated (the referee cannot
default: see docs/kube-sim.md), except the list-map keys `protocol`, which are always sent and
leave only with their entry."""
import copy

NS = "default"
MANAGERS = ["alpha", "beta", "gamma", "delta"]


def maybe(rng, p=0.5):
    return rng.random() < p


def sub_map(rng, keys, values, p=0.5):
    return {k: rng.choice(values) for k in keys if maybe(rng, p)}


def meta(rng, name, api_version, kind):
    m = {"name": name, "namespace": NS}
    labels = sub_map(rng, ["l1", "l2", "l3"], ["a", "b"], 0.4)
    annotations = sub_map(rng, ["example.com/x", "example.com/y"], ["1", "2"], 0.3)
    if labels:
        m["labels"] = labels
    if annotations:
        m["annotations"] = annotations
    return {"apiVersion": api_version, "kind": kind, "metadata": m}


# ----------------------------------------------------------------------------- Deployment
def container(rng, name):
    c = {"name": name, "image": rng.choice(["nginx:1", "nginx:2"])}
    if maybe(rng, 0.4):
        c["args"] = rng.choice([["serve"], ["serve", "--fast"], ["run"]])       # atomic list
    if maybe(rng, 0.2):
        c["command"] = rng.choice([["/bin/a"], ["/bin/b", "-x"]])               # atomic list
    if maybe(rng, 0.3):
        c["workingDir"] = rng.choice(["/a", "/b"])
    env = [{"name": n, "value": rng.choice(["1", "2"])} for n in ("E1", "E2", "E3") if maybe(rng, 0.35)]
    if env:
        c["env"] = env                                                          # map by name
    ports = []
    for port, proto in ((80, "TCP"), (81, "TCP"), (80, "UDP")):                # map by port+protocol
        if maybe(rng, 0.35):
            p = {"containerPort": port, "protocol": proto}
            if maybe(rng):
                p["name"] = "%s%d" % (proto[0].lower(), port)
            ports.append(p)
    if ports:
        c["ports"] = ports
    return c


def deployment_apply(rng, name):
    obj = meta(rng, name, "apps/v1", "Deployment")
    containers = [container(rng, "main")]
    for extra in ("side", "logger"):
        if maybe(rng, 0.35):
            containers.append(container(rng, extra))
    rng.shuffle(containers)
    template_labels = {"app": name}
    template_labels.update(sub_map(rng, ["tier", "track"], ["x", "y"], 0.3))     # granular map
    pod = {"containers": containers}
    volumes = []
    if maybe(rng, 0.3):
        volumes.append({"name": "scratch", "emptyDir": {}})
    if maybe(rng, 0.3):
        volumes.append({"name": "conf", "configMap": {"name": rng.choice(["cm-a", "cm-b"])}})
    if volumes:
        pod["volumes"] = volumes                                                # map by name
    spec = {"selector": {"matchLabels": {"app": name}},                        # atomic struct, immutable
            "template": {"metadata": {"labels": template_labels}, "spec": pod}}
    if maybe(rng, 0.4):
        spec["minReadySeconds"] = rng.choice([5, 10])
    if maybe(rng, 0.2):
        spec["paused"] = rng.choice([True, False])
    obj["spec"] = spec
    return obj


def deployment_put(rng, obj):
    containers = obj["spec"]["template"]["spec"]["containers"]
    c = rng.choice(containers)
    choice = rng.randrange(4)
    if choice == 0:
        c["image"] = rng.choice(["nginx:1", "nginx:2", "nginx:3"])
    elif choice == 1:
        env = c.setdefault("env", [])
        env[:] = [e for e in env if e["name"] != "E1"] + [{"name": "E1", "value": rng.choice(["1", "3"])}]
    elif choice == 2:
        obj["spec"]["minReadySeconds"] = rng.choice([5, 7])
    else:
        obj["spec"]["template"]["metadata"]["labels"]["tier"] = rng.choice(["x", "z"])


def deployment_patch(rng, obj):
    return {"spec": {"minReadySeconds": rng.choice([5, 7, None])}}


# ----------------------------------------------------------------------------- Service
def service_apply(rng, name):
    obj = meta(rng, name, "v1", "Service")
    ports = [{"name": "http", "port": 80, "protocol": "TCP"}]
    for port, proto in ((81, "TCP"), (53, "UDP")):
        if maybe(rng, 0.4):
            ports.append({"name": "%s%d" % (proto[0].lower(), port), "port": port, "protocol": proto})
    for p in ports:
        if maybe(rng, 0.25):
            p["appProtocol"] = rng.choice(["http", "grpc"])
    rng.shuffle(ports)
    spec = {"ports": ports}                                                     # map by port+protocol
    if maybe(rng, 0.6):
        spec["selector"] = rng.choice([{"app": name}, {"app": name, "tier": "x"}])  # atomic map
    if maybe(rng, 0.3):
        spec["publishNotReadyAddresses"] = rng.choice([True, False])
    obj["spec"] = spec
    return obj


def service_put(rng, obj):
    if maybe(rng):
        obj["spec"]["selector"] = {"app": obj["metadata"]["name"], "tier": rng.choice(["y", "z"])}
    else:
        rng.choice(obj["spec"]["ports"])["appProtocol"] = rng.choice(["http", "h2c"])


def service_patch(rng, obj):
    return {"spec": {"publishNotReadyAddresses": rng.choice([True, False, None])}}


# ----------------------------------------------------------------------------- Job
def job_apply(rng, name):
    obj = meta(rng, name, "batch/v1", "Job")
    # The pod template of a Job is immutable: every manager applies the same one.
    obj["spec"] = {"template": {"spec": {"restartPolicy": "Never",
                                         "containers": [{"name": "run", "image": "busybox:1"}]}}}
    if maybe(rng, 0.4):
        obj["spec"]["activeDeadlineSeconds"] = rng.choice([100, 200])
    if maybe(rng, 0.4):
        obj["spec"]["ttlSecondsAfterFinished"] = rng.choice([10, 20])
    return obj


def job_put(rng, obj):
    obj["spec"]["activeDeadlineSeconds"] = rng.choice([100, 300])


def job_patch(rng, obj):
    return {"spec": {"ttlSecondsAfterFinished": rng.choice([10, 30, None])}}


# ----------------------------------------------------------------------------- ConfigMap
def configmap_apply(rng, name):
    obj = meta(rng, name, "v1", "ConfigMap")
    data = sub_map(rng, ["k1", "k2", "k3", "k4"], ["1", "2"], 0.45)            # granular map
    if data:
        obj["data"] = data
    return obj


def configmap_put(rng, obj):
    obj.setdefault("data", {})["k%d" % rng.randrange(1, 5)] = rng.choice(["1", "3"])


def configmap_patch(rng, obj):
    return {"data": {"k%d" % rng.randrange(1, 5): rng.choice(["1", "3", None])}}


# ----------------------------------------------------------------------------- DynamoGraphDeployment
COMPONENT_TYPES = {"frontend": "frontend", "decode": "worker"}


def dgd_apply(rng, name):
    obj = meta(rng, name, "nvidia.com/v1beta1", "DynamoGraphDeployment")
    spec = {}
    if maybe(rng, 0.5):
        spec["model"] = {"id": rng.choice(["org/m1", "org/m2"])}
    env = [{"name": n, "value": rng.choice(["1", "2"])} for n in ("E1", "E2") if maybe(rng, 0.4)]
    if env:
        spec["env"] = env                                                       # map by name
    labels = sub_map(rng, ["team", "cost"], ["a", "b"], 0.3)
    if labels:
        spec["labels"] = labels
    components = []
    for cname, ctype in COMPONENT_TYPES.items():
        if maybe(rng, 0.6):
            c = {"name": cname, "type": ctype}
            if maybe(rng):
                c["replicas"] = rng.choice([1, 2])
            components.append(c)
    if components:
        spec["components"] = components                                        # map by name
    if maybe(rng, 0.3):
        pick = rng.choice(["r1", "r2"])
        if components:                                                          # preserve-unknown-fields
            components[0]["podTemplate"] = {"metadata": {"annotations": {"example.com/id": pick}}}
    obj["spec"] = spec
    return obj


def dgd_put(rng, obj):
    obj.setdefault("spec", {}).setdefault("model", {})["id"] = rng.choice(["org/m1", "org/m3"])


def dgd_patch(rng, obj):
    return {"spec": {"labels": {rng.choice(["team", "cost"]): rng.choice(["a", "c", None])}}}


class Kind:
    def __init__(self, kind, api_version, collection, reset_fields, apply, put, patch):
        self.kind, self.api_version, self.collection = kind, api_version, collection
        self.reset_fields, self.apply, self.put, self.patch = reset_fields, apply, put, patch


KINDS = [
    Kind("Deployment", "apps/v1", "/apis/apps/v1/namespaces/default/deployments", ["status"],
         deployment_apply, deployment_put, deployment_patch),
    Kind("Service", "v1", "/api/v1/namespaces/default/services", ["status"],
         service_apply, service_put, service_patch),
    Kind("Job", "batch/v1", "/apis/batch/v1/namespaces/default/jobs", ["status"],
         job_apply, job_put, job_patch),
    Kind("ConfigMap", "v1", "/api/v1/namespaces/default/configmaps", [],
         configmap_apply, configmap_put, configmap_patch),
    Kind("DynamoGraphDeployment", "nvidia.com/v1beta1",
         "/apis/nvidia.com/v1beta1/namespaces/default/dynamographdeployments", ["status"],
         dgd_apply, dgd_put, dgd_patch),
]


def sequence(rng, name):
    """(kind, [operation]) with operations {"op": "apply"|"create"|"put"|"patch", ...}."""
    kind = rng.choice(KINDS)
    managers = rng.sample(MANAGERS, rng.randint(2, 4))
    ops = []
    first = "create" if maybe(rng, 0.25) else "apply"
    for i in range(rng.randint(2, 6)):
        manager = rng.choice(managers)
        op = first if i == 0 else rng.choices(["apply", "put", "patch"], [0.65, 0.15, 0.2])[0]
        step = {"op": op, "manager": manager}
        if op in ("apply", "create"):
            step["object"] = kind.apply(rng, name)
            step["force"] = op == "apply" and maybe(rng, 0.3)
        ops.append(step)
    return kind, ops


def put_body(rng, kind, current):
    """The object read back, with one change, as a client would PUT it."""
    body = copy.deepcopy(current)
    body["metadata"].pop("managedFields", None)
    kind.put(rng, body)
    return body
