"""Objects and strategic merge patches for test_smp_differential.py: hand-written cases for
every directive and error the library knows, and a generator of random patches over the
lists, maps and scalars of Deployments, Pods, Services and Jobs.

The generator knows where the lists are and which field names their items (so that most
generated items are well-formed); what a patch should do is left to the referee."""

def container(name, image, **extra):
    c = {"name": name, "image": image}
    c.update(extra)
    return c


def pod_spec():
    return {
        "containers": [
            container("main", "registry/main:1", args=["--port", "8000"],
                      env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                      ports=[{"containerPort": 8000, "name": "http"}, {"containerPort": 9090, "name": "metrics"}],
                      volumeMounts=[{"name": "cache", "mountPath": "/cache"}],
                      resources={"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "1"}}),
            container("sidecar", "registry/side:1", command=["/bin/side"]),
        ],
        "initContainers": [container("init", "registry/init:1")],
        "volumes": [{"name": "cache", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "cfg"}}],
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "imagePullSecrets": [{"name": "pull"}],
        "nodeSelector": {"pool": "gpu"},
        "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a"]}],
    }


def objects():
    """The starting objects, by name."""
    meta = lambda name: {"name": name, "namespace": "default", "labels": {"app": name, "tier": "x"},
                         "finalizers": ["example.com/a", "example.com/b"]}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("web"),
                  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                           "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                           "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec()}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta("pod"), "spec": pod_spec()}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": meta("svc"),
               "spec": {"selector": {"app": "web"}, "type": "ClusterIP",
                        "ports": [{"port": 80, "targetPort": 8000, "name": "http", "protocol": "TCP"},
                                  {"port": 9090, "name": "metrics", "protocol": "TCP"}]}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("job"),
           "spec": {"backoffLimit": 3, "template": {"metadata": {"labels": {"job": "j"}},
                                                    "spec": dict(pod_spec(), restartPolicy="Never")}}}
    return {"deployment": deployment, "pod": pod, "service": service, "job": job}


def pod_path(kind):
    return {"Deployment": ["spec", "template", "spec"], "Job": ["spec", "template", "spec"],
            "Pod": ["spec"]}.get(kind)


def nest(path, value):
    for key in reversed(path):
        value = {key: value}
    return value


def handwritten():
    """(description, object name, patch) of the directives and errors, one at a time."""
    P = lambda *items: nest(["spec", "template", "spec"], dict(items))
    c = lambda **fields: P(("containers", [dict({"name": "main"}, **fields)]))
    cases = [
        ("container image change", "deployment", c(image="registry/main:2")),
        ("new container goes first", "deployment", P(("containers", [container("log", "l:1")]))),
        ("delete a container", "deployment", P(("containers", [{"name": "sidecar", "$patch": "delete"}]))),
        ("delete a container that does not exist", "deployment",
         P(("containers", [{"name": "nope", "$patch": "delete"}]))),
        ("replace the container list", "deployment",
         P(("containers", [{"$patch": "replace"}, container("only", "o:1")]))),
        ("replace marker alone empties the list", "deployment", P(("tolerations", [{"$patch": "replace"}]))),
        ("container without its merge key", "deployment", P(("containers", [{"image": "x"}]))),
        ("$patch merge in a list", "deployment", P(("containers", [{"name": "main", "$patch": "merge"}]))),
        ("unknown $patch in a list item", "deployment", P(("containers", [{"name": "main", "$patch": "bogus"}]))),
        ("unknown $patch in a map", "deployment", nest(["spec", "strategy"], {"$patch": "bogus"})),
        ("$patch replace on a map", "deployment",
         nest(["spec", "strategy"], {"$patch": "replace", "type": "Recreate", "rollingUpdate": None})),
        ("$patch delete on a map", "deployment", nest(["spec", "template", "metadata"], {"$patch": "delete"})),
        ("env merges by name, null removes a field", "deployment",
         c(env=[{"name": "B", "value": None, "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "C", "value": "3"}])),
        ("ports merge by containerPort", "deployment",
         c(ports=[{"containerPort": 8000, "protocol": "TCP", "name": "web"}, {"containerPort": 7000}])),
        ("args are replaced", "deployment", c(args=["--other"])),
        ("$deleteFromPrimitiveList on args", "deployment", c(**{"$deleteFromPrimitiveList/args": ["--port"]})),
        ("$deleteFromPrimitiveList on finalizers", "deployment",
         {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a", "nope"]}}),
        ("$deleteFromPrimitiveList on an absent list", "service",
         nest(["spec"], {"$deleteFromPrimitiveList/externalIPs": ["1.2.3.4"]})),
        ("$deleteFromPrimitiveList null removes the list", "deployment",
         {"metadata": {"$deleteFromPrimitiveList/finalizers": None}}),
        ("malformed $deleteFromPrimitiveList", "deployment", {"metadata": {"$deleteFromPrimitiveListfinalizers": ["x"]}}),
        ("finalizers union in patch order", "deployment", {"metadata": {"finalizers": ["example.com/c", "example.com/a"]}}),
        ("$setElementOrder on finalizers", "deployment",
         {"metadata": {"$setElementOrder/finalizers": ["example.com/b", "example.com/c", "example.com/a"],
                       "finalizers": ["example.com/c"]}}),
        ("$setElementOrder alone reorders containers", "deployment",
         P(("$setElementOrder/containers", [{"name": "sidecar"}, {"name": "main"}]))),
        ("$setElementOrder with a new container", "deployment",
         P(("$setElementOrder/containers", [{"name": "sidecar"}, {"name": "new"}, {"name": "main"}]),
           ("containers", [container("new", "n:1")]))),
        ("$setElementOrder that the patch list contradicts", "deployment",
         P(("$setElementOrder/containers", [{"name": "main"}, {"name": "sidecar"}]),
           ("containers", [{"name": "sidecar", "image": "s:2"}, {"name": "main", "image": "m:2"}]))),
        ("$setElementOrder not a list", "deployment", P(("$setElementOrder/containers", "main"))),
        ("$setElementOrder on a scalar field", "pod", nest(["spec"], {"$setElementOrder/nodeName": ["x"]})),
        ("$setElementOrder on an unknown field", "pod", nest(["spec"], {"$setElementOrder/bogus": ["x"]})),
        ("$setElementOrder on an empty list", "pod",
         nest(["spec"], {"containers": [{"name": "main", "ports": []}],
                         "$setElementOrder/containers": [{"name": "main"}, {"name": "sidecar"}]})),
        ("$setElementOrder item without merge key", "deployment",
         P(("$setElementOrder/containers", [{"image": "x"}]), ("containers", [{"name": "main", "image": "y"}]))),
        ("malformed $setElementOrder", "deployment", P(("$setElementOrdercontainers", []))),
        ("volume source switch with $retainKeys", "deployment",
         P(("volumes", [{"name": "cache", "$retainKeys": ["name", "persistentVolumeClaim"],
                         "persistentVolumeClaim": {"claimName": "pvc"}}]))),
        ("strategy switch with $retainKeys", "deployment",
         nest(["spec", "strategy"], {"$retainKeys": ["type"], "type": "Recreate"})),
        ("$retainKeys that misses a patched field", "deployment",
         nest(["spec", "strategy"], {"$retainKeys": ["type"], "rollingUpdate": {"maxSurge": 2}})),
        ("$retainKeys not a list", "deployment", nest(["spec", "strategy"], {"$retainKeys": "type"})),
        ("tolerations are replaced", "deployment", P(("tolerations", [{"key": "other", "operator": "Exists"}]))),
        ("service ports merge by port", "service", nest(["spec"], {"ports": [{"port": 80, "targetPort": "http"}]})),
        ("new map with nulls and directives inside", "pod",
         nest(["spec"], {"securityContext": {"runAsUser": None, "seLinuxOptions": {"user": None, "role": "r"}},
                         "affinity": {"nodeAffinity": {"$patch": "delete"}, "podAffinity": {}}})),
        ("new list item keeps its nulls and directives", "pod",
         nest(["spec"], {"containers": [{"name": "new", "image": "n", "env": [{"name": "X", "value": None},
                                                                            {"name": "Y", "$patch": "delete"}]}]})),
        ("type change replaces the value", "deployment", nest(["spec", "template", "metadata"], {"labels": ["x"]})),
        ("list of mixed element types", "deployment", {"metadata": {"finalizers": [1]}}),
        ("list of lists", "deployment", {"metadata": {"finalizers": [["a"]]}}),
        ("labels: add, change, delete", "service", {"metadata": {"labels": {"new": "1", "app": "other", "tier": None}}}),
        ("labels $patch delete on a map that is absent", "pod", nest(["spec"], {"overhead": {"$patch": "delete"}})),
        ("unknown top-level field is kept", "service", nest(["spec"], {"bogus": {"a": 1, "b": None}})),
        ("host aliases merge by ip", "pod", nest(["spec"], {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["b"]},
                                                                           {"ip": "10.0.0.2", "hostnames": ["c"]}]})),
        ("job pod template containers", "job", nest(["spec", "template", "spec"],
                                                    {"containers": [{"name": "main", "image": "j:2"}]})),
    ]
    return cases


# --- generated patches -------------------------------------------------------------------

KEYED = {"containers": "name", "initContainers": "name", "env": "name", "ports": "containerPort",
         "volumeMounts": "mountPath", "volumes": "name", "imagePullSecrets": "name", "hostAliases": "ip"}
NAMES = ["main", "sidecar", "init", "log", "A", "B", "C", "cache", "cfg", "pull", "x", "y"]


def value_for(rng, key):
    if key == "containerPort" or key == "port":
        return rng.choice([8000, 9090, 7000, 80, 443])
    if key == "mountPath":
        return rng.choice(["/cache", "/data", "/tmp"])
    if key == "ip":
        return rng.choice(["10.0.0.1", "10.0.0.2", "10.0.0.3"])
    return rng.choice(NAMES)


def keyed_item(rng, key, key_value, list_name):
    item = {key: key_value}
    if list_name in ("containers", "initContainers"):
        if rng.random() < 0.6:
            item["image"] = "img:%d" % rng.randint(1, 9)
        if rng.random() < 0.4:
            item["env"] = [keyed_item(rng, "name", rng.choice(["A", "B", "C"]), "env") for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.2:
            item["args"] = [rng.choice(["a", "b", "c"]) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.2:
            item["resources"] = {"limits": {"cpu": rng.choice(["1", "2", None])}}
    elif list_name == "env":
        item["value"] = rng.choice(["1", "2", "3", None])
    elif list_name == "ports":
        item["name"] = rng.choice(["http", "web", "metrics"])
    elif list_name == "volumeMounts":
        item["name"] = rng.choice(["cache", "cfg"])
    elif list_name == "volumes":
        src = rng.choice(["emptyDir", "configMap", "persistentVolumeClaim"])
        item[src] = {"emptyDir": {}, "configMap": {"name": "c"}, "persistentVolumeClaim": {"claimName": "p"}}[src]
        if rng.random() < 0.4:
            item["$retainKeys"] = ["name", src] if rng.random() < 0.8 else ["name"]
    elif list_name == "hostAliases":
        item["hostnames"] = [rng.choice(["a", "b"])]
    return item


def keyed_list_patch(rng, list_name, current):
    """Patch items for a merging list, with directives now and then."""
    key = KEYED[list_name]
    existing = [i.get(key) for i in (current or []) if isinstance(i, dict)]
    items = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        kv = rng.choice(existing) if existing and r < 0.5 else value_for(rng, key)
        if r < 0.12:
            items.append({key: kv, "$patch": "delete"})
        elif r < 0.15:
            items.append({"$patch": "replace"})
        elif r < 0.17:
            broken = keyed_item(rng, key, kv, list_name)
            broken.pop(key)
            items.append(broken or {"image": "x"})
        else:
            items.append(keyed_item(rng, key, kv, list_name))
    # Merge keys are unique in a well-formed patch.
    seen, unique = set(), []
    for i in items:
        k = (i.get(key), i.get("$patch"))
        if k not in seen:
            seen.add(k)
            unique.append(i)
    return unique


def element_order(rng, key, current, patch_items):
    names = [i[key] for i in (current or []) if isinstance(i, dict) and key in i]
    for i in patch_items:
        if key in i and i.get("$patch") != "delete" and i[key] not in names:
            names.append(i[key])
    if rng.random() < 0.8:
        # Consistent with the patch list: patch items keep their relative order.
        order = [i[key] for i in patch_items if key in i and "$patch" not in i]
        for n in names:
            if n not in order:
                order.insert(rng.randint(0, len(order)), n)
    else:
        order = names[:]
        rng.shuffle(order)
    return [{key: n} for n in order]


def get(obj, path):
    for p in path:
        if not isinstance(obj, dict) or p not in obj:
            return None
        obj = obj[p]
    return obj


def put(patch, path, key, value):
    node = patch
    for p in path:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            return
    node[key] = value


def generated_patch(rng, obj):
    """One random patch for `obj` with one to three edits."""
    patch = {}
    kind = obj["kind"]
    ppath = pod_path(kind)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if ppath and r < 0.45:
            pod = get(obj, ppath) or {}
            list_name = rng.choice(["containers", "initContainers", "volumes", "imagePullSecrets", "hostAliases",
                                    "containers", "containers"])
            path = ppath
            current = pod.get(list_name)
            if list_name == "containers" and current and rng.random() < 0.5:
                # One level deeper: a list inside an existing container.
                target = rng.choice([c for c in current if isinstance(c, dict) and "name" in c] or [{"name": "main"}])
                inner = rng.choice(["env", "ports", "volumeMounts"])
                items = keyed_list_patch(rng, inner, target.get(inner))
                cpatch = {"name": target["name"], inner: items}
                if rng.random() < 0.25:
                    cpatch["$setElementOrder/" + inner] = element_order(rng, KEYED[inner], target.get(inner), items)
                if rng.random() < 0.15:
                    cpatch["$deleteFromPrimitiveList/args"] = [rng.choice(["a", "--port", "8000"])]
                put(patch, path, "containers", [cpatch])
                continue
            items = keyed_list_patch(rng, list_name, current)
            put(patch, path, list_name, items)
            if rng.random() < 0.3:
                put(patch, path, "$setElementOrder/" + list_name, element_order(rng, KEYED[list_name], current, items))
        elif r < 0.6:
            fins = obj["metadata"].get("finalizers") or []
            choice = rng.random()
            new = ["example.com/%s" % rng.choice("abcd") for _ in range(rng.randint(0, 2))]
            if choice < 0.4:
                put(patch, ["metadata"], "finalizers", new)
            elif choice < 0.7:
                put(patch, ["metadata"], "$deleteFromPrimitiveList/finalizers", new or ["example.com/a"])
            else:
                order = list(dict.fromkeys(fins + new))
                rng.shuffle(order)
                put(patch, ["metadata"], "finalizers", new)
                put(patch, ["metadata"], "$setElementOrder/finalizers", order)
        elif r < 0.72:
            labels = {}
            for _ in range(rng.randint(1, 3)):
                labels[rng.choice(["app", "tier", "new", "x"])] = rng.choice(["v1", "v2", None])
            if rng.random() < 0.1:
                labels = {"$patch": rng.choice(["replace", "delete"]), "only": "1"}
            put(patch, ["metadata"], "labels", labels)
        elif kind == "Service" and r < 0.85:
            ports = [{"port": rng.choice([80, 9090, 443]), "name": rng.choice(["http", "https", "m"]),
                      "protocol": "TCP"} for _ in range(rng.randint(1, 2))]
            if rng.random() < 0.2:
                ports.append({"port": 80, "$patch": "delete"})
            put(patch, ["spec"], "ports", ports)
        elif kind == "Deployment" and r < 0.85:
            s = rng.random()
            if s < 0.4:
                put(patch, ["spec"], "strategy", {"$retainKeys": ["type"], "type": "Recreate"})
            elif s < 0.7:
                put(patch, ["spec"], "strategy", {"type": "RollingUpdate",
                                                  "rollingUpdate": {"maxSurge": rng.choice([1, 2, None])}})
            else:
                put(patch, ["spec"], "replicas", rng.choice([0, 1, 3, None]))
        elif ppath and r < 0.93:
            put(patch, ppath, "tolerations", [{"key": rng.choice(["a", "b"]), "operator": "Exists"}]
                if rng.random() < 0.8 else [{"$patch": "replace"}])
        elif ppath:
            put(patch, ppath, "nodeSelector", {rng.choice(["pool", "zone"]): rng.choice(["gpu", None]),
                                               "$patch": "replace"} if rng.random() < 0.3 else
                {rng.choice(["pool", "zone"]): rng.choice(["gpu", "cpu", None])})
        else:
            put(patch, ["metadata"], "annotations", {"a": rng.choice(["1", None])})
    return patch
