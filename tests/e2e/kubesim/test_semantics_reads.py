"""Read semantics over raw HTTP: resourceVersion on LIST (unset / "0" = current,
Exact = the state at that version, NotOlderThan, limit+version = Exact, too new = 504,
malformed = 400) and the ListOptions rules the apiserver enforces (422); the history
window (410 Expired on an exact list, a continue token and, as an ERROR event, on a
watch); bookmarks (only when allowed, only the version, advancing past changes a
selector filters out, resumable); sendInitialEvents on a watch."""
import urllib.parse

from kubesim import KubeSim
from referee_lib import CM, RawWatch, create, expect_status, names

MERGE = {"Content-Type": "application/merge-patch+json"}


def lst(sim, query=""):
    status, out = sim.request(CM + ("?" + query if query else ""))
    assert status == 200, (query, status, out)
    return out


def resource_versions(sim):
    create(sim, CM, {"metadata": {"name": "a"}, "data": {"v": "1"}})
    create(sim, CM, {"metadata": {"name": "b"}, "data": {"v": "1"}})
    rv1 = lst(sim)["metadata"]["resourceVersion"]
    assert sim.request(CM + "/a", "PATCH", {"data": {"v": "2"}}, headers=MERGE)[0] == 200
    create(sim, CM, {"metadata": {"name": "c"}, "data": {"v": "1"}})
    assert sim.request(CM + "/b", "DELETE")[0] == 200
    now = sim.admin("state")["resourceVersion"]

    cur = lst(sim)
    assert names(cur) == ["a", "c"] and cur["metadata"]["resourceVersion"] == now, cur["metadata"]
    assert names(lst(sim, "resourceVersion=0")) == ["a", "c"]
    assert names(lst(sim, "resourceVersion=%s&resourceVersionMatch=NotOlderThan" % rv1)) == ["a", "c"]

    # Exact: the list as it was at rv1 (b still there, a at v=1, c not yet).
    old = lst(sim, "resourceVersion=%s&resourceVersionMatch=Exact" % rv1)
    assert old["metadata"]["resourceVersion"] == rv1, old["metadata"]
    assert {i["metadata"]["name"]: i["data"]["v"] for i in old["items"]} == {"a": "1", "b": "1"}, old["items"]
    # limit with a version is Exact too, and the continuation stays at that version.
    p1 = lst(sim, "limit=1&resourceVersion=%s" % rv1)
    assert names(p1) == ["a"] and p1["items"][0]["data"]["v"] == "1" and p1["metadata"]["continue"], p1
    p2 = lst(sim, "limit=1&continue=" + urllib.parse.quote(p1["metadata"]["continue"]))
    assert names(p2) == ["b"] and p2["metadata"]["resourceVersion"] == rv1 and not p2["metadata"].get("continue"), p2

    # A GET with a version is "not older than": the current object.
    status, a = sim.request(CM + "/a?resourceVersion=" + rv1)
    assert status == 200 and a["data"]["v"] == "2", a

    # Errors the apiserver gives.
    status, body = sim.request(CM + "?resourceVersion=abc")
    expect_status(status, body, 400, "BadRequest")
    status, body = sim.request(CM + "?limit=1&resourceVersion=%s&continue=%s" % (
        rv1, urllib.parse.quote(p1["metadata"]["continue"])))
    expect_status(status, body, 400, "BadRequest", contains="specifying resource version is not allowed when using "
                                                            "continue")
    for query, why in [("resourceVersionMatch=Exact", "resourceVersionMatch is forbidden unless resourceVersion is "
                                                      "provided"),
                       ("resourceVersion=0&resourceVersionMatch=Exact", 'resourceVersionMatch "exact" is forbidden '
                                                                        'for resourceVersion "0"'),
                       ("resourceVersion=%s&resourceVersionMatch=Newest" % rv1, 'Unsupported value: "Newest"'),
                       ("sendInitialEvents=true", "sendInitialEvents is forbidden for list")]:
        status, body = sim.request(CM + "?" + query)
        body = expect_status(status, body, 422, "Invalid", contains=why)
        assert body["details"]["kind"] == "ListOptions" and body["details"]["group"] == "meta.k8s.io", body
    # A version the server has not reached: it waits briefly, then 504 with Retry-After.
    status, body = sim.request(CM + "?resourceVersion=%d&resourceVersionMatch=NotOlderThan" % (int(now) + 1000))
    body = expect_status(status, body, 504, "Timeout", contains="Too large resource version")
    assert body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge", body
    assert body["details"]["retryAfterSeconds"] >= 1, body


def history_window():
    with KubeSim(extra_args=["--history-window", "5"]) as sim:
        create(sim, CM, {"metadata": {"name": "w"}, "data": {"n": "0"}})
        create(sim, CM, {"metadata": {"name": "z"}})
        start = sim.admin("state")["resourceVersion"]
        p1 = lst(sim, "limit=1")
        for i in range(1, 8):
            assert sim.request(CM + "/w", "PATCH", {"data": {"n": str(i)}}, headers=MERGE)[0] == 200
        state = sim.admin("state")
        assert int(state["oldestResumableResourceVersion"]) > int(start), state

        # A watch from a version that fell out of the window: 200, then one ERROR event.
        w = RawWatch(sim, CM + "?watch=true&resourceVersion=" + start)
        evs = w.wait_end()
        w.close()
        assert w.status == 200 and len(evs) == 1 and evs[0]["type"] == "ERROR", evs
        st = evs[0]["object"]
        assert (st["kind"], st["apiVersion"], st["status"], st["reason"], st["code"]) == \
            ("Status", "v1", "Failure", "Expired", 410), st
        assert st["message"].startswith("too old resource version: %s (" % start), st
        # Exact list and continue token from before the window: 410 Expired.
        status, body = sim.request(CM + "?resourceVersion=%s&resourceVersionMatch=Exact" % start)
        expect_status(status, body, 410, "Expired")
        status, body = sim.request(CM + "?limit=1&continue=" + urllib.parse.quote(p1["metadata"]["continue"]))
        expect_status(status, body, 410, "Expired", contains="The provided continue parameter is too old")

        # Inside the window: exactly the events after the version, in order.
        recent = str(int(state["resourceVersion"]) - 2)
        w = RawWatch(sim, CM + "?watch=true&timeoutSeconds=1&resourceVersion=" + recent)
        evs = w.wait_end()
        w.close()
        assert [(e["type"], e["object"]["data"]["n"]) for e in evs] == [("MODIFIED", "6"), ("MODIFIED", "7")], evs
        assert sim.proc.poll() is None


def bookmarks():
    with KubeSim(extra_args=["--bookmark-interval", "0.2"]) as sim:
        rv = sim.admin("state")["resourceVersion"]
        # A watch whose selector matches nothing: bookmarks still move its version past
        # the changes it does not see, so a restart stays inside the history window.
        w = RawWatch(sim, CM + "?watch=true&allowWatchBookmarks=true&labelSelector=none%3Dmatches&resourceVersion="
                     + rv)
        try:
            for i in range(3):
                create(sim, CM, {"metadata": {"name": "u%d" % i}})
            after = sim.admin("state")["resourceVersion"]
            evs = w.wait_for("a bookmark at or after %s" % after,
                             lambda e: [x for x in e if x["type"] == "BOOKMARK" and
                                        int(x["object"]["metadata"]["resourceVersion"]) >= int(after)])
            assert all(e["type"] == "BOOKMARK" for e in evs), evs
            mark = evs[-1]["object"]
            assert mark["kind"] == "ConfigMap" and mark["apiVersion"] == "v1", mark
            assert set(mark) == {"kind", "apiVersion", "metadata"} and set(mark["metadata"]) == {"resourceVersion"}, mark
        finally:
            w.close()
        # Resuming from the bookmark's version: exactly the later changes.
        create(sim, CM, {"metadata": {"name": "later", "labels": {"none": "matches"}}})
        w = RawWatch(sim, CM + "?watch=true&timeoutSeconds=1&labelSelector=none%3Dmatches&resourceVersion="
                     + mark["metadata"]["resourceVersion"])
        evs = w.wait_end()
        w.close()
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [("ADDED", "later")], evs
        # Without allowWatchBookmarks: never a bookmark (the stream ends by timeoutSeconds).
        w = RawWatch(sim, CM + "?watch=true&timeoutSeconds=1&resourceVersion=" + sim.admin("state")["resourceVersion"])
        evs = w.wait_end()
        w.close()
        assert evs == [], evs

        # sendInitialEvents: the state as ADDED, then one bookmark marking its end, then changes.
        w = RawWatch(sim, CM + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                               "&allowWatchBookmarks=true&labelSelector=none%3Dmatches")
        try:
            evs = w.wait_for("the initial-events-end bookmark",
                             lambda e: e if any(x["type"] == "BOOKMARK" for x in e) else None)
            assert [(e["type"], e["object"]["metadata"].get("name")) for e in evs] == \
                [("ADDED", "later"), ("BOOKMARK", None)], evs
            assert evs[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}, evs[1]
            create(sim, CM, {"metadata": {"name": "live", "labels": {"none": "matches"}}})
            w.wait_for("the live ADDED", lambda e: [x for x in e if x["type"] == "ADDED" and
                                                    x["object"]["metadata"]["name"] == "live"])
            marked = [e for e in w.snapshot() if e["type"] == "BOOKMARK" and
                      e["object"]["metadata"].get("annotations")]
            assert len(marked) == 1, marked
        finally:
            w.close()


def main():
    with KubeSim() as sim:
        resource_versions(sim)
    history_window()
    bookmarks()
    print("read semantics: ok")


if __name__ == "__main__":
    main()
