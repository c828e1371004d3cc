"""Hundreds of watch streams held open at once while writes continue: every
stream receives every event (a count, not a timing)."""
import http.client
import json
import threading
import time
import urllib.parse

from kubesim import KubeSim

STREAMS = 300
WRITES = 40


def main():
    with KubeSim() as sim:
        u = urllib.parse.urlparse(sim.url)
        counts = [0] * STREAMS
        errors = []
        conns = []

        def reader(i, resp):
            try:
                while counts[i] < WRITES:
                    line = resp.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    if ev["type"] == "ADDED" and ev["object"]["metadata"]["name"].startswith("burst-"):
                        counts[i] += 1
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))

        rv = sim.request("/api/v1/namespaces/default/configmaps")[1]["metadata"]["resourceVersion"]
        threads = []
        for i in range(STREAMS):
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
            c.request("GET", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=120"
                      "&resourceVersion=%s" % rv)
            resp = c.getresponse()
            assert resp.status == 200, resp.status
            conns.append(c)
            t = threading.Thread(target=reader, args=(i, resp), daemon=True)
            t.start()
            threads.append(t)

        deadline = time.time() + 30
        while sim.admin("state")["openWatches"] < STREAMS:
            assert time.time() < deadline, sim.admin("state")
            time.sleep(0.05)

        for n in range(WRITES):
            status, _ = sim.request("/api/v1/namespaces/default/configmaps", "POST",
                                    {"metadata": {"name": "burst-%d" % n}, "data": {"n": str(n)}})
            assert status == 201, status

        for t in threads:
            t.join(60)
        assert not errors, errors[:5]
        short = [(i, c) for i, c in enumerate(counts) if c != WRITES]
        assert not short, "streams missing events: %s" % short[:10]
        # The server keeps serving ordinary requests while the streams are open.
        assert sim.request("/version")[0] == 200
        # SIGTERM with every stream still open: a clean exit.
        code = sim.stop()
        assert code == 0, "kube-sim exit code %s" % code
        for c in conns:
            c.close()
    print("many watches: %d streams x %d events: ok" % (STREAMS, WRITES))


if __name__ == "__main__":
    main()
