#!/usr/bin/env python3
"""Captures the protobuf request bodies kubectl sends, for protobuf_body_test.cpp.

Usage: KUBE_SIM=build/tests/kubesim/kube-sim python3 capture.py [OUTDIR]

kubectl talks to kube-sim through a recording proxy; the body of each command's write is
saved as CASE.pb. Where kubectl can print the object itself (--dry-run=client -o json, the
Go struct as the API server's JSON encoder writes it), that output is saved as CASE.json: the
decoder's expected result comes from Kubernetes' own code, not from this project.
"""
import http.client
import http.server
import json
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "e2e", "lib"))
from kubesim import KubeSim  # noqa: E402

# case -> (kubectl arguments, whether --dry-run=client -o json prints the object)
CASES = {
    "namespace": (["create", "namespace", "ns1"], True),
    "secret": (["create", "secret", "generic", "hf-token-secret", "--from-literal=HF_TOKEN=hf_abc", "-n", "ns1"], True),
    "configmap": (["create", "configmap", "cm1", "--from-literal=a=b", "--from-literal=empty=", "-n", "ns1"], True),
    "serviceaccount": (["create", "serviceaccount", "sa1", "-n", "ns1"], True),
    "deployment": (["create", "deployment", "d", "--image=nginx", "--replicas=0", "--port=8080", "-n", "ns1"], True),
    "job": (["create", "job", "j1", "--image=busybox", "-n", "ns1", "--", "echo", "hi"], True),
    "role": (["create", "role", "r1", "--verb=get,list", "--resource=pods,deployments.apps", "-n", "ns1"], True),
    "rolebinding": (["create", "rolebinding", "rb1", "--role=r1", "--serviceaccount=ns1:sa1", "--user=alice",
                     "-n", "ns1"], True),
    "clusterrole": (["create", "clusterrole", "cr1", "--verb=get", "--resource=deployments.apps",
                     "--resource-name=x"], True),
    "priorityclass": (["create", "priorityclass", "high", "--value=1000", "--description=top"], True),
    "quota": (["create", "quota", "q1", "--hard=cpu=1,memory=1Gi,pods=2", "-n", "ns1"], True),
    "service": (["create", "service", "clusterip", "svc1", "--tcp=80:8080", "-n", "ns1"], True),
    "pdb": (["create", "pdb", "pdb1", "--selector=app=d", "--min-available=50%", "-n", "ns1"], True),
    "cronjob": (["create", "cronjob", "cj1", "--image=busybox", "--schedule=*/5 * * * *", "-n", "ns1"], True),
    "selfsubjectaccessreview": (["auth", "can-i", "get", "pods", "-n", "ns1"], False),
    "tokenrequest": (["create", "token", "sa1", "-n", "ns1", "--duration=1h", "--audience=aud1"], False),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with KubeSim() as sim:
        upstream = sim.url.split("//", 1)[1]
        captured = []

        class Proxy(http.server.BaseHTTPRequestHandler):
            def forward(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if "protobuf" in (self.headers.get("Content-Type") or ""):
                    captured.append(body)
                conn = http.client.HTTPConnection(upstream, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        kubeconfig = os.path.join(sim.dir, "proxy.kubeconfig")
        with open(sim.kubeconfig) as f:
            text = f.read().replace(sim.url, "http://127.0.0.1:%d" % server.server_address[1])
        with open(kubeconfig, "w") as f:
            f.write(text)
        env = dict(sim.env(), KUBECONFIG=kubeconfig)
        for case, (args, dry_run) in CASES.items():
            del captured[:]
            subprocess.run(["kubectl"] + args, env=env, capture_output=True)
            if len(captured) != 1:
                sys.exit("%s: kubectl sent %d protobuf bodies" % (case, len(captured)))
            with open(os.path.join(out_dir, case + ".pb"), "wb") as f:
                f.write(captured[0])
            if dry_run:
                at = args.index("--") if "--" in args else len(args)
                printed = subprocess.run(["kubectl"] + args[:at] + ["--dry-run=client", "-o", "json"] + args[at:], env=env,
                                         capture_output=True, text=True, check=True).stdout
                with open(os.path.join(out_dir, case + ".json"), "w") as f:
                    json.dump(json.loads(printed), f, indent=1, sort_keys=True)
                    f.write("\n")
            print("%s: %d bytes" % (case, len(captured[0])))
        server.shutdown()


if __name__ == "__main__":
    main()
