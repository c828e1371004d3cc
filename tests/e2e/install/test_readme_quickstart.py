#!/usr/bin/python3
"""The README's Quickstart, followed literally against kube-sim.

The fenced blocks marked ```sh quickstart in README.md are run as written, in order, by
bash (set -euo pipefail) from the repository root, with kubectl pointed at a private
kube-sim that simulates an H200 cluster (profile h200-4x). kube-sim runs no containers:
after the first block (the install) the test starts the dgd-operator binary in place of the
operator pods, with the args of the Deployment that block created (only the listen
addresses moved to port 0 on the loopback; the operator logs the ports it bound),
authenticated as the install's ServiceAccount (a bearer token for
system:serviceaccount:dgd-system:dgd-operator), with the Lease in the install's namespace.
For the smoke block, an OpenAI stand-in answers for the recipe's frontend Service
(kube-sim's service proxy forwards to it).

Checks: every block exits 0; the DGD is Ready for its generation; the operator held the
Lease named by its flags; no request of the operator was refused (403); the smoke test
printed the model's READY. A Quickstart without the smoke block, or a dgdctl without
`smoke`, fails.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kubesim import KubeSim  # noqa: E402
from operator_listen import wait_bound_addresses  # noqa: E402

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SA_USER = "system:serviceaccount:dgd-system:dgd-operator"


def quickstart_blocks():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    blocks = re.findall(r"^```sh quickstart\n(.*?)^```$", text, re.S | re.M)
    assert len(blocks) >= 3, "README.md: expected the Quickstart's ```sh quickstart blocks, found %d" % len(blocks)
    assert "deploy/manifests/install.yaml" in blocks[0], "the first quickstart block must install the operator"
    return blocks


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def wait_until(what, fn, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


def run_block(script, env, timeout):
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
    sys.stdout.write("$ %s\n%s%s" % (script.strip().replace("\n", "\n$ "), p.stdout, p.stderr))
    assert p.returncode == 0, "quickstart block failed (%d):\n%s\n%s%s" % (p.returncode, script, p.stdout, p.stderr)
    return p.stdout


def sa_kubeconfig(sim, path, token):
    cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "sa",
           "clusters": [{"name": "sim", "cluster": {"server": sim.url}}],
           "users": [{"name": "sa", "user": {"token": token}}],
           "contexts": [{"name": "sa", "context": {"cluster": "sim", "user": "sa", "namespace": "dgd-system"}}]}
    with open(path, "w") as f:
        json.dump(cfg, f)


def main():
    blocks = quickstart_blocks()
    smoke_blocks = [b for b in blocks if "dgdctl smoke" in b]
    # The smoke step is part of the Quickstart: its block, the command and the stand-in
    # that plays the frontend must all be there.
    assert smoke_blocks, "README.md: the Quickstart has no ```sh quickstart block running `dgdctl smoke`"
    standin_py = os.path.join(ROOT, "tests", "standin", "openai_standin.py")
    assert os.path.exists(standin_py), "the OpenAI stand-in is missing: " + standin_py
    smoke_help = subprocess.run([os.environ["DGDCTL"], "smoke", "--help"], capture_output=True, text=True)
    assert smoke_help.returncode == 0, "dgdctl smoke --help failed (%d):\n%s%s" % (
        smoke_help.returncode, smoke_help.stdout, smoke_help.stderr)
    ns = re.search(r"export NAMESPACE=(\S+)", "".join(blocks)).group(1)
    dgd = re.search(r"dgd/([a-z0-9-]+)", "".join(blocks)).group(1)
    dgdctl = os.environ["DGDCTL"]
    operator = os.environ["DGD_OPERATOR"]

    sim_args = ["--profile", os.path.join(ROOT, "tests", "kubesim", "profiles", "h200-4x.yaml"),
                "--kubelet-start-delay", "0.2", "--kubelet-ready-delay", "0.3", "--job-duration", "0.5",
                "--pod-termination-delay", "0.2"]
    op = standin = None
    with KubeSim(extra_args=sim_args) as sim:
        work = tempfile.mkdtemp(prefix="quickstart-", dir=sim.dir)
        env = dict(os.environ, KUBECONFIG=sim.kubeconfig, KUBECACHEDIR=sim.cachedir, HF_TOKEN="hf_quickstart_test",
                   PATH=os.path.dirname(os.path.abspath(dgdctl)) + os.pathsep + os.environ.get("PATH", ""))
        op_log = os.path.join(work, "operator.log")
        try:
            run_block(blocks[0], env, timeout=180)

            # The operator pods, played by the binary: the Deployment's own args.
            dep = json.loads(sim.kubectl("get", "deployment", "dgd-operator", "-n", "dgd-system", "-o",
                                         "json").stdout)
            pod = dep["spec"]["template"]["spec"]
            assert pod["serviceAccountName"] == "dgd-operator", pod["serviceAccountName"]
            container = pod["containers"][0]
            # Port 0: each listener takes the port the kernel gives it and logs it.
            args = []
            for a in container["args"]:
                if a.startswith("--health-addr="):
                    a = "--health-addr=127.0.0.1:0"
                elif a.startswith("--metrics-addr="):
                    a = "--metrics-addr=127.0.0.1:0"
                args.append(a)
            lease = next(a.split("=", 1)[1] for a in args if a.startswith("--leader-election-id="))
            token = "quickstart-operator-token"
            sim.admin("/sim/v1/tokens", "POST", {"token": token, "user": SA_USER,
                                                 "groups": ["system:serviceaccounts",
                                                            "system:serviceaccounts:dgd-system",
                                                            "system:authenticated"]})
            kc = os.path.join(work, "operator.kubeconfig")
            sa_kubeconfig(sim, kc, token)
            with open(op_log, "w") as log:
                op = subprocess.Popen([operator] + args + ["--kubeconfig", kc], stdout=log, stderr=subprocess.STDOUT)
            # What the readiness probe waits for.
            probe = container["readinessProbe"]["httpGet"]
            health = wait_bound_addresses(op_log, op)["probes"]

            def operator_ready():
                if op.poll() is not None:
                    raise AssertionError("operator exited %d" % op.returncode)
                return http_status("http://%s%s" % (health, probe["path"])) == 200
            wait_until("operator " + probe["path"], operator_ready)

            # The frontend, played by the OpenAI stand-in behind the Service's proxy.
            port_file = os.path.join(work, "standin.port")
            standin = subprocess.Popen(["/usr/bin/python3", standin_py, "--port", "0", "--port-file", port_file,
                                        "--mode", "ready"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until("stand-in port", lambda: os.path.exists(port_file))
            with open(port_file) as f:
                sport = int(f.read().strip())
            sim.admin("/sim/v1/services/proxy", "POST", {"namespace": ns, "name": dgd + "-frontend",
                                                         "url": "http://127.0.0.1:%d" % sport})

            out = run_block("\n".join(blocks[1:]), env, timeout=300)

            d = json.loads(sim.kubectl("get", "dgd", dgd, "-n", ns, "-o", "json").stdout)
            ready = [c for c in d["status"]["conditions"] if c["type"] == "Ready"]
            assert ready and ready[0]["status"] == "True", d["status"]
            assert d["status"]["observedGeneration"] == d["metadata"]["generation"], d["status"]
            le = json.loads(sim.kubectl("get", "lease", lease, "-n", "dgd-system", "-o", "json").stdout)
            assert le["spec"].get("holderIdentity"), le
            refused = [r for r in sim.requests(since=0) if r.get("user") == SA_USER and r.get("code") == 403]
            assert not refused, "the operator was refused: %s" % refused[:5]
            ours = [r for r in sim.requests(since=0) if r.get("user") == SA_USER]
            assert ours, "no request came from the operator's ServiceAccount"
            assert "READY" in out, "the smoke test did not print the answer:\n" + out
            assert op.poll() is None, "operator exited %s" % op.returncode
            op.send_signal(signal.SIGTERM)
            rc = op.wait(timeout=60)
            assert rc == 0, "operator exited %d after SIGTERM" % rc
            op = None
        except BaseException:
            if os.path.exists(op_log):
                with open(op_log) as f:
                    sys.stderr.write("---- operator log (tail) ----\n%s\n" % "".join(f.readlines()[-60:]))
            raise
        finally:
            for p in (op, standin):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.wait()
    print("ok")


if __name__ == "__main__":
    main()
