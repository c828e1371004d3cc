"""dgd-operator and dgdctl refuse an API server whose certificate they cannot trust, and say
why; they work with the right one.

kube-sim serves TLS with a certificate made here (--tls-cert/--tls-key) and writes a
kubeconfig that trusts one CA (--tls-ca) and authenticates with a bearer token. Four
servers, one certificate each:
  - right:      signed by the trusted CA for 127.0.0.1: both binaries work (the operator's
                caches sync, `dgdctl plan` reads the nodes);
  - foreign CA: signed by another CA;
  - wrong host: signed by the trusted CA, for another host name only;
  - expired:    signed by the trusted CA, for 127.0.0.1, expired a day ago.
For the last three, `dgdctl plan` exits 2 and the operator keeps retrying; each names the
certificate's problem, and no request of theirs reaches the server (its request log,
read here without verification, has none from them).
"""
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from binaries import find_binary  # noqa: E402
from certs import CertificateAuthority  # noqa: E402
from kubesim import KubeSim  # noqa: E402
from oplib import ROOT, find_operator, recipe_file, wait_until  # noqa: E402,F401

TOKEN = "tls-test-admin"
RECIPE_DGD = recipe_file("deepseek-v4.1-flash/vllm/agg-h200-agentic")
REFUSED = "the server's certificate was refused: "


def requests_seen(sim):
    """kube-sim's request log, read as the harness: no verification (the server's
    certificate may be the one under test), the admin token."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request(sim.url + "/sim/v1/requests?since=0", headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
        return json.load(r)["items"]


def from_binaries(items):
    return [i for i in items if (i.get("userAgent") or "").startswith(("dgd-operator/", "dgdctl/"))]


def run_case(work, case, cert, key, ca, reason):
    print("=== %s" % case)
    args = ["--profile", os.path.join(ROOT, "tests", "kubesim", "profiles", "h200-4x.yaml"),
            "--tls-cert", cert, "--tls-key", key, "--tls-ca", ca, "--token", "%s=tls-admin:system:masters" % TOKEN]
    with KubeSim(tls=True, extra_args=args) as sim:
        assert sim.url.startswith("https://127.0.0.1:"), sim.url
        plan = subprocess.run([find_binary("DGDCTL", "dgdctl"), "plan", "-f", RECIPE_DGD, "--kubeconfig", sim.kubeconfig],
                              capture_output=True, text=True, timeout=120)
        log_path = os.path.join(work, "operator-%s.log" % case.replace(" ", "-"))
        with open(log_path, "w") as log:
            op = subprocess.Popen([find_operator(), "run", "--kubeconfig", sim.kubeconfig, "--metrics-addr", "0",
                                   "--health-addr", "0", "--leader-election-namespace", "default"],
                                  stdout=log, stderr=subprocess.STDOUT)

        def operator_log():
            with open(log_path) as f:
                return f.read()
        try:
            if reason is None:
                # The recipe fits the profile's nodes: exit 0.
                assert plan.returncode == 0, "dgdctl plan against the right certificate exited %d:\n%s%s" % (
                    plan.returncode, plan.stdout, plan.stderr)
                # The operator reaches the server: its caches sync once the CRDs are there
                # (kubectl, with the same kubeconfig, installs them).
                sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
                wait_until("the operator's caches to sync", lambda: "caches synced" in operator_log(), timeout=120)
                assert from_binaries(requests_seen(sim)), "no request of the operator or dgdctl reached the server"
                assert REFUSED not in operator_log()
            else:
                # dgdctl: exit 2 (an error, not "does not fit"), the reason on stderr.
                assert plan.returncode == 2, "dgdctl plan exited %d:\n%s%s" % (plan.returncode, plan.stdout, plan.stderr)
                assert REFUSED + reason in plan.stderr, "dgdctl does not say why:\n" + plan.stderr
                # The operator: the same reason in its log, and it is still running (retrying).
                wait_until("the operator to report the certificate", lambda: REFUSED + reason in operator_log()
                           or op.poll() is not None, timeout=120)
                assert REFUSED + reason in operator_log(), operator_log()[-3000:]
                assert op.poll() is None, "the operator exited %s:\n%s" % (op.returncode, operator_log()[-3000:])
                assert not from_binaries(requests_seen(sim)), "a request got through: %s" % from_binaries(
                    requests_seen(sim))[:3]
            print("dgdctl plan: exit %d; %s" % (plan.returncode, (plan.stderr.strip().splitlines() or [""])[-1]))
            print("operator: %s" % next((line for line in operator_log().splitlines() if REFUSED in line),
                                          "caches synced"))
        except BaseException:
            sys.stderr.write("---- operator log (tail) ----\n%s\n" % operator_log()[-3000:])
            raise
        finally:
            if op.poll() is None:
                op.terminate()
                op.wait(timeout=60)


def main():
    work = tempfile.mkdtemp(prefix="tls-refusal-")
    try:
        trusted, foreign = CertificateAuthority("trusted"), CertificateAuthority("foreign")
        ca = trusted.write(work)
        here = ["127.0.0.1", "localhost"]
        cases = [
            ("right", trusted.issue(work, "right", here), None),
            ("foreign CA", foreign.issue(work, "foreign", here), "unable to get local issuer certificate"),
            ("wrong host", trusted.issue(work, "wrong-host", ["wrong-host.example"]), "it is not issued for host 127.0.0.1"),
            ("expired", trusted.issue(work, "expired", here, expired=True), "certificate has expired"),
        ]
        for case, (cert, key), reason in cases:
            run_case(work, case, cert, key, ca, reason)
    finally:
        if not os.environ.get("KUBESIM_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
