"""kube-sim's random faults over real HTTP (docs/kube-sim.md, "Faults"): what a client sees
for each kind, that selectors spare other clients, that --faults sets a profile per run,
and that an outage and a restart keep the data on the same port."""
import http.client
import json
import os
import socket
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kubesim import KubeSim  # noqa: E402
from polling import wait_until  # noqa: E402

CM = "/api/v1/namespaces/default/configmaps"


def call(sim, path, method="GET", body=None, ua="victim/1.0", timeout=30):
    """(status, headers, parsed body) as client `ua`."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(sim.url + path, data=data, method=method,
                                 headers={"User-Agent": ua, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read() or b"null")


def watch_lines(sim, path, ua="victim/1.0", timeout=30):
    """Reads a watch until the server ends it; returns (lines, ended_cleanly)."""
    req = urllib.request.Request(sim.url + path, headers={"User-Agent": ua})
    clean = True
    with urllib.request.urlopen(req, timeout=timeout) as r:
        try:
            raw = r.read()
        except http.client.IncompleteRead as e:  # no final chunk: the connection was cut
            raw, clean = e.partial, False
        except ConnectionError:
            raw, clean = b"", False
    return [json.loads(ln) for ln in raw.splitlines() if ln.strip()], clean


def refused(sim):
    host, port = sim.url.split("//")[1].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
        return False
    except ConnectionRefusedError:
        return True



def cm(name):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def main():
    profile = {"seed": 3, "throttle": 1.0, "retryAfterSeconds": 2, "userAgents": ["victim"], "verbs": ["list"]}
    with KubeSim(extra_args=["--faults", json.dumps(profile)]) as sim:
        # --faults: on from the start, only for the selected client and verb.
        st, hdr, body = call(sim, CM)
        assert st == 429 and body["reason"] == "TooManyRequests", (st, body)
        assert hdr.get("Retry-After") == "2" and body["details"]["retryAfterSeconds"] == 2, (hdr, body)
        assert call(sim, CM, ua="kubectl/v1.32.4")[0] == 200
        assert call(sim, CM, "POST", cm("a"))[0] == 201  # create is not a selected verb
        assert sim.kubectl("get", "cm", "a").returncode == 0  # the harness is never faulted

        # Conflict on writes only, with the real Status.
        sim.set_chaos(conflict=1.0, userAgents=["victim"])
        st, _, body = call(sim, CM + "/a", "PUT", dict(cm("a"), data={"k": "w"}))
        assert st == 409 and body["reason"] == "Conflict", (st, body)
        assert "the object has been modified" in body["message"], body
        assert call(sim, CM + "/a")[0] == 200
        assert sim.kubectl_json("get", "cm", "a")["data"] == {"k": "v"}  # nothing was written

        # 500 / 503.
        sim.set_chaos(seed=9, serverError=1.0, userAgents=["victim"])
        codes = {call(sim, CM + "/a")[0] for _ in range(30)}
        assert codes == {500, 503}, codes

        # Watches: 410 on resume, cut after N events (clean end), abrupt random cut.
        rv = sim.request(CM)[1]["metadata"]["resourceVersion"]
        sim.set_chaos(expireResume=1.0, userAgents=["victim"])
        lines, _ = watch_lines(sim, CM + "?watch=1&resourceVersion=" + rv)
        assert len(lines) == 1 and lines[0]["type"] == "ERROR" and lines[0]["object"]["code"] == 410, lines
        lines, _ = watch_lines(sim, CM + "?watch=1&timeoutSeconds=1")  # no resourceVersion: not a resume
        assert [ln["type"] for ln in lines] == ["ADDED"], lines

        for i in range(5):
            call(sim, CM, "POST", cm("w%d" % i), ua="kubectl")
        sim.set_chaos(watchCutEvery=2, userAgents=["victim"])
        lines, clean = watch_lines(sim, CM + "?watch=1&resourceVersion=" + rv)
        assert clean and [ln["type"] for ln in lines] == ["ADDED", "ADDED"], (clean, lines)

        sim.set_chaos(watchCut=1.0, userAgents=["victim"])
        lines, clean = watch_lines(sim, CM + "?watch=1&resourceVersion=" + rv)
        assert not clean and len(lines) <= 1, (clean, lines)

        sim.set_chaos(watchMaxSeconds=0.5, userAgents=["victim"])
        lines, clean = watch_lines(sim, CM + "?watch=1&timeoutSeconds=20")
        assert not clean, "an idle watch must be cut (abruptly) before its own timeout"

        injected = sim.clear_chaos()["injected"]
        for kind in ("throttle", "conflict", "watchExpired", "watchCutEvery", "watchCut"):
            assert injected.get(kind, 0) >= 1, (kind, injected)
        assert injected.get("serverError500", 0) + injected.get("serverError503", 0) == 30, injected

        # Outage: refused, then the same data on the same port.
        url = sim.url
        sim.outage(1.0)
        wait_until("connections refused", lambda: refused(sim))
        wait_until("server back", lambda: not refused(sim))
        assert sim.url == url and call(sim, CM + "/a")[0] == 200

        # Restart: same data, resourceVersions continue, but a resume from before gets 410.
        rv_before = sim.request(CM)[1]["metadata"]["resourceVersion"]
        sim.restart_server(0.3)
        wait_until("connections refused", lambda: refused(sim))
        wait_until("server back", lambda: not refused(sim))
        st, _, body = call(sim, CM)
        assert st == 200 and len(body["items"]) == 6, body
        assert int(body["metadata"]["resourceVersion"]) >= int(rv_before)
        lines, _ = watch_lines(sim, CM + "?watch=1&resourceVersion=" + rv)
        assert lines and lines[0]["type"] == "ERROR" and lines[0]["object"]["code"] == 410, lines
        assert sim.faults_injected()["restart"] == 1 and sim.faults_injected()["outage"] == 1

        # Bad profiles are 400 with the field; the server keeps running.
        st, body = sim.request("/sim/v1/chaos", "PUT", {"throtle": 0.1})
        assert st == 400 and "throtle" in body["message"], (st, body)
    print("ok")


if __name__ == "__main__":
    main()
