#!/usr/bin/python3
"""The chart's `helm test` Pod (templates/tests/): a Helm test hook that checks /readyz and
/metrics of the operator through the metrics Service.

- It is a `helm.sh/hook: test` Pod (deleted before re-creation and on success), left out
  of install.yaml, with a restricted security context; kube-sim accepts it (server dry run).
- The host and ports it reaches are the metrics Service's DNS name and ports, and those
  ports target the container ports the operator's --health-addr / --metrics-addr open.
- Its script, run here with sh and curl against a real dgd-operator (kube-sim runs no
  containers), exits 0 once the operator is ready, and fails while nothing answers.
"""
import os
import signal
import socket
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import chart_lib  # noqa: E402
from chart_lib import ROOT, find  # noqa: E402
from kubesim import KubeSim  # noqa: E402
from operator_listen import wait_bound_addresses  # noqa: E402


def refusing_socket():
    """A loopback socket bound and never listening: connects to its port are refused, and
    the port stays this test's while the socket is open."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


def run_script(container, host, health_port, metrics_port):
    env = dict(os.environ)
    env.update({e["name"]: e["value"] for e in container["env"]})
    env.update(OPERATOR_HOST=host, HEALTH_PORT=str(health_port), METRICS_PORT=str(metrics_port))
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "helm-test-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    # The image mounts an emptyDir at /tmp; here the script's /tmp is a private directory.
    script = container["args"][0].replace("/tmp/", tmp + "/")
    return subprocess.run(container["command"] + [script], env=env, capture_output=True, text=True, timeout=60)


def main():
    objs = chart_lib.objects()
    pods = find(objs, "Pod")
    assert len(pods) == 1, [o["kind"] for o in objs]
    pod = pods[0]
    ann = pod["metadata"]["annotations"]
    assert ann["helm.sh/hook"] == "test", ann
    assert set(ann["helm.sh/hook-delete-policy"].split(",")) == {"before-hook-creation", "hook-succeeded"}, ann
    assert pod["spec"]["restartPolicy"] == "Never" and pod["spec"]["securityContext"]["runAsNonRoot"] is True
    c = pod["spec"]["containers"][0]
    assert c["securityContext"]["readOnlyRootFilesystem"] is True and \
        c["securityContext"]["capabilities"]["drop"] == ["ALL"], c["securityContext"]
    env = {e["name"]: e["value"] for e in c["env"]}

    svc = find(objs, "Service", "dgd-operator-metrics")[0]
    assert env["OPERATOR_HOST"] == "dgd-operator-metrics.dgd-system.svc", env
    ports = {p["name"]: p for p in svc["spec"]["ports"]}
    dep = find(objs, "Deployment")[0]
    op = dep["spec"]["template"]["spec"]["containers"][0]
    container_ports = {p["name"]: p["containerPort"] for p in op["ports"]}
    flags = dict(a.split("=", 1) for a in op["args"][1:] if "=" in a)
    for name, var, flag in (("health", "HEALTH_PORT", "--health-addr"), ("metrics", "METRICS_PORT", "--metrics-addr")):
        assert str(ports[name]["port"]) == env[var], (name, ports, env)
        target = ports[name]["targetPort"]
        assert target == name and flags[flag] == ":%d" % container_ports[target], (name, ports[name], flags)
    labels = pod["metadata"]["labels"]
    assert not svc["spec"]["selector"].items() <= labels.items(), "the Service would route to the test Pod"
    with open(os.path.join(ROOT, "deploy", "manifests", "install.yaml")) as f:
        assert not [d for d in yaml.safe_load_all(f) if d and d["kind"] == "Pod"], "install.yaml has the test Pod"

    with refusing_socket() as health_sock, refusing_socket() as metrics_sock:
        refused = run_script(c, "127.0.0.1", health_sock.getsockname()[1], metrics_sock.getsockname()[1])
    assert refused.returncode != 0, "the check passed with no operator:\n%s%s" % (refused.stdout, refused.stderr)

    with KubeSim() as sim:
        sim.kubectl("create", "namespace", "dgd-system")
        dry = sim.kubectl("apply", "--dry-run=server", "-f", "-", input=yaml.safe_dump(pod)).stdout
        assert "pod/dgd-operator-test created (server dry run)" in dry, dry
        sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
        sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=30s")
        log_path = os.path.join(sim.dir, "operator.log")
        with open(log_path, "w") as log:
            operator = subprocess.Popen(
                [os.environ["DGD_OPERATOR"], "run", "--kubeconfig", sim.kubeconfig,
                 "--health-addr", ":0", "--metrics-addr", "127.0.0.1:0",
                 "--leader-election-namespace", "default"], stdout=log, stderr=subprocess.STDOUT)
        try:
            # Two listeners on ports the operator bound itself, read from its log.
            bound = wait_bound_addresses(log_path, operator)
            health, metrics = (int(bound[k].rsplit(":", 1)[1]) for k in ("probes", "metrics"))
            # The hook runs once the release is ready (helm test after install --wait):
            # poll the script itself until the operator's caches are synced.
            deadline = time.time() + 60
            while True:
                assert operator.poll() is None, "operator exited %s" % operator.returncode
                done = run_script(c, "127.0.0.1", health, metrics)
                if done.returncode == 0 or time.time() > deadline:
                    break
                time.sleep(0.2)
            assert done.returncode == 0, "the helm test script failed against a ready operator:\n%s%s" % (
                done.stdout, done.stderr)
            assert "readyz and metrics answered" in done.stdout, done.stdout
        finally:
            operator.send_signal(signal.SIGTERM)
            try:
                operator.wait(timeout=30)
            except subprocess.TimeoutExpired:
                operator.kill()
                operator.wait()
    print("ok")


if __name__ == "__main__":
    main()
