#!/usr/bin/env python3
"""`kubectl port-forward svc/NAME` and `pod/NAME` against kube-sim (pods/portforward).

kube-sim runs no containers: a pod's port leads to the backend registered for a Service
that selects the pod and targets that port (POST /sim/v1/services/proxy), the backend a
services/proxy request for that Service port reaches. Here the backend is a small HTTP
server in this process. The real kubectl 1.32 tries a WebSocket tunnel first, is refused,
and falls back to SPDY/3.1; requests then go through the forwarded local port:
repeated requests, two connections open at once, bodies larger than SPDY's 64 KiB
window both ways, a port nothing listens on (kubectl reports kubelet's error), a user
without `create pods/portforward` (kubectl reports Forbidden), and the server stopping
under an open session (kubectl sees the connection end).
"""
import hashlib
import http.server
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kubesim import KubeSim  # noqa: E402
from polling import wait_until  # noqa: E402

NS = "pf"
OBJECTS = """
apiVersion: v1
kind: Namespace
metadata: {name: pf}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: pf, labels: {app: web}}
spec:
  containers:
  - name: web
    image: example.com/web:1
    ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: pf}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: viewer, namespace: pf}
rules:
- {apiGroups: [""], resources: [pods, services], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewer, namespace: pf}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: viewer}
subjects: [{kind: User, name: viewer, apiGroup: rbac.authorization.k8s.io}]
"""



class Backend(http.server.BaseHTTPRequestHandler):
    """GET /hello/<x> -> "hello <x>"; GET /bytes/<n> -> n bytes; POST /echo -> the body."""
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path.startswith("/bytes/"):
            n = int(self.path[len("/bytes/"):])
            body = (b"0123456789abcdef" * (n // 16 + 1))[:n]
        else:
            body = ("hello %s" % self.path.rsplit("/", 1)[-1]).encode()
        self._send(body)

    def do_POST(self):
        self._send(self.rfile.read(int(self.headers["Content-Length"])))

    def _send(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class PortForward:
    """`kubectl port-forward TARGET :REMOTE -n pf`, waited for until it says where it forwards from or exits.

    kubectl binds the local port itself (`:REMOTE` asks it for a free one) and names it in
    its "Forwarding from" line; that line, never a probe connection, says it listens: every
    connection to the local port becomes a forwarded connection, and where the remote port
    fails a probe's error would end the session while the test's own request is still
    opening its streams."""

    def __init__(self, sim, target, remote, extra=()):
        self.local = None
        self.proc = subprocess.Popen(["kubectl", "port-forward", target, ":%s" % remote, "-n", NS] + list(extra),
                                     env=sim.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stdout.readline, "")),
                                       daemon=True)
        self.reader.start()

    def listening(self):
        def state():
            exited = self.proc.poll() is not None
            if exited:
                self.reader.join(timeout=30)
            for line in list(self.lines):
                m = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> ", line)
                if m:
                    self.local = int(m.group(1))
                    return "listening"
            return "exited" if exited else None
        return wait_until("kubectl port-forward to listen or exit", state, timeout=60) == "listening"

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.local, path)

    def output(self):
        self.proc.wait(timeout=30)
        self.reader.join(timeout=30)
        return "".join(self.lines)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
        self.reader.join(timeout=30)


def get(url, data=None):
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as r:
        return r.status, r.read()


def http_request(method, path, body=b""):
    return (b"%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" %
            (method.encode(), path.encode(), len(body))) + body


def read_response(sock):
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def through_service(sim):
    pf = PortForward(sim, "svc/web", 80)
    try:
        assert pf.listening(), "kubectl port-forward svc/web exited:\n" + pf.output()
        # One connection after another.
        for i in range(5):
            assert get(pf.url("/hello/%d" % i)) == (200, b"hello %d" % i)
        # Larger than the 64 KiB SPDY window, both ways.
        big = os.urandom(300 * 1024)
        status, echoed = get(pf.url("/echo"), data=big)
        assert status == 200 and hashlib.sha256(echoed).digest() == hashlib.sha256(big).digest(), len(echoed)
        status, body = get(pf.url("/bytes/1000000"))
        assert status == 200 and len(body) == 1000000 and body[:32] == b"0123456789abcdef" * 2, len(body)
        # Two connections open at once: the first stays half-sent while the second completes.
        first_body, second_body = os.urandom(100 * 1024), os.urandom(80 * 1024)
        first = socket.create_connection(("127.0.0.1", pf.local), timeout=30)
        second = socket.create_connection(("127.0.0.1", pf.local), timeout=30)
        with first, second:
            request = http_request("POST", "/echo", first_body)
            first.sendall(request[:len(request) // 2])
            second.sendall(http_request("POST", "/echo", second_body))
            assert read_response(second).endswith(b"\r\n\r\n" + second_body)
            first.sendall(request[len(request) // 2:])
            assert read_response(first).endswith(b"\r\n\r\n" + first_body)
        assert pf.proc.poll() is None, pf.output()
    finally:
        pf.stop()


def through_pod(sim):
    pf = PortForward(sim, "pod/web-0", 8080)
    try:
        assert pf.listening(), "kubectl port-forward pod/web-0 exited:\n" + pf.output()
        for i in range(3):
            assert get(pf.url("/hello/pod%d" % i)) == (200, b"hello pod%d" % i)
    finally:
        pf.stop()


def nothing_listening(sim, pod_uid):
    pf = PortForward(sim, "pod/web-0", 9999)
    try:
        assert pf.listening(), "kubectl port-forward pod/web-0 9999 exited:\n" + pf.output()
        try:
            get(pf.url("/hello/x"))
            raise AssertionError("a request to a port nothing listens on succeeded")
        except OSError:
            pass
        # kubectl 1.32 ends the forward on an error from the error stream.
        wait_until("kubectl to exit after the forwarding error", lambda: pf.proc.poll() is not None)
        out = pf.output()
        assert "an error occurred forwarding %d -> 9999: error forwarding port 9999 to pod %s, uid : " % (
            pf.local, pod_uid) in out, out
    finally:
        pf.stop()


def forbidden(sim):
    pf = PortForward(sim, "pod/web-0", 8080, extra=["--as", "viewer"])
    try:
        assert not pf.listening(), "kubectl port-forward listened for a user without pods/portforward"
        out = pf.output()
        assert pf.proc.returncode != 0
        assert ('pods "web-0" is forbidden: User "viewer" cannot create resource "pods/portforward" in API group "" '
                'in the namespace "pf"') in out, out
    finally:
        pf.stop()


def refused_without_upgrade(sim):
    # What a client that does not upgrade to SPDY gets (kubectl's WebSocket attempt too).
    status, body = sim.request("/api/v1/namespaces/pf/pods/web-0/portforward?ports=8080", "POST", b"")
    assert status == 400 and body.startswith("unable to upgrade: missing upgrade headers in request: http.Header{"), (
        status, body)
    status, body = sim.request("/api/v1/namespaces/pf/pods/nosuch/portforward?ports=8080", "POST", b"")
    assert status == 404 and body["message"] == 'pods "nosuch" not found', (status, body)


def server_stops(sim):
    pf = PortForward(sim, "svc/web", 80)
    assert pf.listening(), pf.output()
    assert get(pf.url("/hello/last")) == (200, b"hello last")
    code = sim.stop()
    assert code == 0, "kube-sim exited %s with a port-forward session open:\n%s" % (code, sim.log()[-3000:])
    wait_until("kubectl port-forward to exit once the server is gone", lambda: pf.proc.poll() is not None)
    out = pf.output()
    assert "lost connection to pod" in out, out


def main():
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    try:
        with KubeSim(tls=True, extra_args=["--authorization-mode", "RBAC"]) as sim:
            sim.kubectl("apply", "-f", "-", input=OBJECTS)
            sim.kubectl("patch", "pod", "web-0", "-n", NS, "--subresource=status", "--type=merge",
                        "-p", '{"status": {"phase": "Running"}}')
            sim.admin("/sim/v1/services/proxy", "POST", {"namespace": NS, "name": "web",
                                                         "url": "http://127.0.0.1:%d" % backend.server_port})
            pod_uid = sim.kubectl_json("get", "pod", "web-0", "-n", NS)["metadata"]["uid"]
            refused_without_upgrade(sim)
            through_service(sim)
            through_pod(sim)
            nothing_listening(sim, pod_uid)
            forbidden(sim)
            server_stops(sim)
    finally:
        backend.shutdown()
    print("ok")


if __name__ == "__main__":
    main()
