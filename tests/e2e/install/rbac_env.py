"""The operator as installed, with exactly the permissions deploy/manifests/install.yaml
grants: kube-sim with a GPU cluster profile, install.yaml applied by the admin, a token
for the operator's ServiceAccount from `kubectl create token` (the TokenRequest API),
and dgd-operator run with a kubeconfig holding only that token and the Deployment's own
arguments. kube-sim authorises every request of a ServiceAccount against the stored
Roles/ClusterRoles and bindings (docs/kube-sim.md, "RBAC").

    with InstalledOperatorEnv("h200-4x", edit_rbac=drop_rule(...)) as env:
        dgd = env.apply_recipe(recipe)          # as the admin, like the user
        env.sa_requests()                       # the request log of the operator's user
"""
import copy
import functools
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "operator"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from oplib import ROOT, OperatorEnv, find_operator, wait_until  # noqa: E402,F401

INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")
SA_NAMESPACE = "dgd-system"
SA_NAME = "dgd-operator"
SA_USER = "system:serviceaccount:%s:%s" % (SA_NAMESPACE, SA_NAME)
# Cluster-scoped names carry the release namespace (two releases never share one).
CLUSTER_ROLE = "%s-%s" % (SA_NAME, SA_NAMESPACE)


def install_objects():
    with open(INSTALL) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def find(objs, kind, name=None):
    for o in objs:
        if o["kind"] == kind and (name is None or o["metadata"]["name"] == name):
            return o
    raise AssertionError("install.yaml has no %s %s" % (kind, name or ""))


def operator_args(objs):
    """The container args of the operator Deployment, with the listen addresses disabled
    (tests run in parallel). The Lease namespace is the kubeconfig context's (in a pod:
    the pod's), as installed."""
    dep = find(objs, "Deployment", SA_NAME)
    args = list(dep["spec"]["template"]["spec"]["containers"][0]["args"])
    assert args and args[0] == "run", args
    out = []
    for a in args:
        if a.startswith("--metrics-addr") or a.startswith("--health-addr"):
            continue
        out.append(a)
    return out + ["--metrics-addr", "0", "--health-addr", "0"]


class InstalledOperatorEnv(OperatorEnv):
    """OperatorEnv whose operator runs as the ServiceAccount of install.yaml.
    `edit_rbac(objs)` may change the parsed install.yaml before it is applied."""

    def __init__(self, profile="h200-4x", edit_rbac=None):
        super().__init__(profile=profile)
        self.edit_rbac = edit_rbac
        self.objs = None
        self.sa_kubeconfig = None

    def __enter__(self):
        # HTTPS: kubectl (client-go) sends a bearer token only over TLS, and the admin
        # is then the client certificate of group system:masters (never RBAC-checked).
        import oplib
        plain = oplib.KubeSim
        oplib.KubeSim = functools.partial(plain, tls=True)
        try:
            return super().__enter__()
        finally:
            oplib.KubeSim = plain

    def install_crds(self):  # called by OperatorEnv.__enter__ before start_operator
        objs = install_objects()
        if self.edit_rbac:
            objs = copy.deepcopy(objs)
            self.edit_rbac(objs)
        self.objs = objs
        self.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(objs))
        self.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com",
                     "--timeout=30s")
        # What a user outside the cluster runs to act as the ServiceAccount.
        token = self.kubectl("create", "token", SA_NAME, "-n", SA_NAMESPACE, "--duration", "1h").stdout.strip()
        assert token.count(".") == 2, "not a JWT: %r" % token
        with open(self.sim.kubeconfig) as f:
            admin = yaml.safe_load(f)
        cluster = admin["clusters"][0]["cluster"]
        kubeconfig = {
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "sim", "cluster": cluster}],
            "users": [{"name": SA_NAME, "user": {"token": token}}],
            "contexts": [{"name": SA_NAME, "context": {"cluster": "sim", "user": SA_NAME,
                                                       "namespace": SA_NAMESPACE}}],
            "current-context": SA_NAME,
        }
        self.sa_kubeconfig = os.path.join(self.sim.dir, "operator-sa.kubeconfig")
        with open(self.sa_kubeconfig, "w") as f:
            yaml.safe_dump(kubeconfig, f)
        os.chmod(self.sa_kubeconfig, 0o600)

    def start_operator(self, extra=None):
        assert self.op is None
        import subprocess
        self.op_log_path = os.path.join(self.sim.dir, "operator-%d.log" % len(self._op_logs))
        self._op_logs.append(self.op_log_path)
        log = open(self.op_log_path, "w")
        args = [find_operator()] + operator_args(self.objs)
        args[2:2] = ["--kubeconfig", self.sa_kubeconfig]
        self.op = subprocess.Popen(args + list(extra or []), stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def sa_requests(self, since=0):
        return [r for r in self.sim.requests(since=since) if r.get("user") == SA_USER]

    def sa_kubectl(self, *args, check=False):
        """kubectl as the operator's ServiceAccount."""
        env_kc = self.sim.kubeconfig
        try:
            self.sim.kubeconfig = self.sa_kubeconfig
            return self.sim.kubectl(*args, check=check)
        finally:
            self.sim.kubeconfig = env_kc


def cluster_role(objs):
    return find(objs, "ClusterRole", CLUSTER_ROLE)


def without_rule(resource):
    """An edit_rbac function removing the one ClusterRole rule that names `resource`."""
    def edit(objs):
        role = cluster_role(objs)
        before = len(role["rules"])
        role["rules"] = [r for r in role["rules"] if resource not in r.get("resources", [])]
        assert len(role["rules"]) == before - 1, "install.yaml's ClusterRole has no %s rule to remove" % resource
    return edit
