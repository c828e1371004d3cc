"""Watch semantics through the Python client and raw HTTP: list then watch from
the list's version, resume after the server cuts the stream, 410 after the
history is compacted, bookmarks, timeoutSeconds, selector transitions, Table
watch frames and --watch-cut-after."""
import http.client
import json
import urllib.parse

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from kubesim import KubeSim

CM = "/api/v1/namespaces/default/configmaps"


def stream(sim, query, headers=None, limit=100):
    """Reads a watch until the server ends it (or `limit` events); returns the events."""
    u = urllib.parse.urlparse(sim.url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request("GET", CM + "?" + query, headers=headers or {})
    resp = c.getresponse()
    assert resp.status == 200, resp.status
    events = []
    while len(events) < limit:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
    c.close()
    return events


def create(sim, name, labels=None):
    status, obj = sim.request(CM, "POST", {"metadata": {"name": name, "labels": labels or {}}, "data": {"n": name}})
    assert status == 201, obj
    return obj


def main():
    with KubeSim(extra_args=["--bookmark-interval", "0.2"]) as sim:
        api = client.CoreV1Api(sim.python_client())
        create(sim, "a")
        lst = api.list_namespaced_config_map("default")
        rv0 = lst.metadata.resource_version
        create(sim, "b")
        create(sim, "c")

        # Resume from the list's version: exactly the missed events, in order.
        evs = stream(sim, "watch=true&timeoutSeconds=1&resourceVersion=" + rv0)
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [("ADDED", "b"), ("ADDED", "c")], evs

        # No version: the current state as ADDED first.
        evs = stream(sim, "watch=true&timeoutSeconds=1")
        assert sorted(e["object"]["metadata"]["name"] for e in evs) == ["a", "b", "c"], evs

        # Bookmarks carry only the resourceVersion, and it is current.
        evs = stream(sim, "watch=true&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=" +
                     str(sim.admin("state")["resourceVersion"]))
        marks = [e for e in evs if e["type"] == "BOOKMARK"]
        assert marks, evs
        assert set(marks[-1]["object"]["metadata"]) == {"resourceVersion"}, marks[-1]
        assert marks[-1]["object"]["kind"] == "ConfigMap"

        # Streaming list (sendInitialEvents): the state, then one bookmark marking its end.
        evs = stream(sim, "watch=true&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true"
                     "&resourceVersionMatch=NotOlderThan")
        assert [e["type"] for e in evs[:3]] == ["ADDED"] * 3 and evs[3]["type"] == "BOOKMARK", evs
        assert evs[3]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}, evs[3]
        status, out = sim.request(CM + "?watch=true&sendInitialEvents=true")
        assert status == 422 and out["reason"] == "Invalid", out  # needs resourceVersionMatch=NotOlderThan

        # Label selector transitions: into the selection = ADDED, out of it = DELETED.
        rv = sim.admin("state")["resourceVersion"]
        obj = create(sim, "sel", {"tier": "x"})
        obj["metadata"]["labels"]["tier"] = "y"
        status, obj = sim.request(CM + "/sel", "PUT", obj)
        assert status == 200, obj
        obj["metadata"]["labels"]["tier"] = "z"
        assert sim.request(CM + "/sel", "PUT", obj)[0] == 200
        evs = stream(sim, "watch=true&timeoutSeconds=1&labelSelector=tier%3Dy&resourceVersion=" + rv)
        assert [e["type"] for e in evs] == ["ADDED", "DELETED"], evs

        # Compacted history: the watch answers 200 with one ERROR event (410 Expired),
        # and the Python client raises it as ApiException 410.
        sim.admin("compact", "POST")
        evs = stream(sim, "watch=true&resourceVersion=" + rv0)
        assert len(evs) == 1 and evs[0]["type"] == "ERROR", evs
        assert evs[0]["object"]["code"] == 410 and evs[0]["object"]["reason"] == "Expired", evs
        try:
            for _ in watch.Watch().stream(api.list_namespaced_config_map, "default", resource_version=rv0,
                                          timeout_seconds=2):
                pass
            raise AssertionError("no 410")
        except ApiException as e:
            assert e.status == 410, e

        # kubectl get -w: Table frames, columns in the first one only.
        rv = sim.admin("state")["resourceVersion"]
        create(sim, "t1")
        create(sim, "t2")
        evs = stream(sim, "watch=true&timeoutSeconds=1&resourceVersion=" + rv,
                     headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
        assert [e["object"]["kind"] for e in evs] == ["Table", "Table"], evs
        assert evs[0]["object"]["columnDefinitions"] and not evs[1]["object"]["columnDefinitions"], evs
        assert evs[1]["object"]["rows"][0]["cells"][0] == "t2", evs

    # --watch-cut-after: every stream ends after N events; a resume continues exactly.
    with KubeSim(extra_args=["--watch-cut-after", "2"]) as sim:
        rv = sim.admin("state")["resourceVersion"]
        for n in "pqrst":
            create(sim, n)
        seen, last = [], rv
        for _ in range(5):
            evs = stream(sim, "watch=true&timeoutSeconds=1&resourceVersion=" + last)
            assert len(evs) <= 2, evs
            if not evs:
                break
            seen += [e["object"]["metadata"]["name"] for e in evs]
            last = evs[-1]["object"]["metadata"]["resourceVersion"]
        assert seen == list("pqrst"), seen

        # Cutting all watches from the admin endpoint ends open streams.
        u = urllib.parse.urlparse(sim.url)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        c.request("GET", CM + "?watch=true&resourceVersion=" + sim.admin("state")["resourceVersion"])
        resp = c.getresponse()
        import time
        deadline = time.time() + 10
        while sim.admin("state")["openWatches"] < 1:
            assert time.time() < deadline
            time.sleep(0.02)
        assert sim.admin("cut-watches", "POST")["closed"] >= 1
        assert resp.read() == b""  # the stream ended cleanly
        c.close()
    print("watch semantics: ok")


if __name__ == "__main__":
    main()
