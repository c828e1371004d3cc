"""The Python `kubernetes` client's list+watch loop against kube-sim: watch from the list's
resourceVersion sees exactly the later changes in order; the client's own resume after a
dropped connection (server cuts: --watch-cut-after and /sim/v1/cut-watches) loses and
repeats nothing; after the history is compacted the client gets 410, relists and watches on."""
import threading

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from kubesim import KubeSim
from referee_lib import poll

NS = "default"


def cm(name, **data):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"suite": "watch"}),
                              data={k: str(v) for k, v in data.items()} or None)


def events_of(w, api, want, **kwargs):
    """Streams until `want` events arrived; returns [(type, name, data)]."""
    out = []
    for ev in w.stream(api.list_namespaced_config_map, NS, **kwargs):
        out.append((ev["type"], ev["object"].metadata.name, ev["object"].data))
        if len(out) >= want:
            w.stop()
    return out


def list_then_watch(sim, api):
    for n in "abc":
        api.create_namespaced_config_map(NS, cm(n, v=1))
    lst = api.list_namespaced_config_map(NS, label_selector="suite=watch")
    assert sorted(i.metadata.name for i in lst.items) == ["a", "b", "c"]
    rv = lst.metadata.resource_version
    # Changes after the list: exactly these must arrive, in this order.
    api.create_namespaced_config_map(NS, cm("d", v=1))
    api.patch_namespaced_config_map("a", NS, {"data": {"v": "2"}})
    api.delete_namespaced_config_map("b", NS)
    api.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="other")))  # unlabelled
    got = events_of(watch.Watch(), api, 3, resource_version=rv, label_selector="suite=watch")
    assert got == [("ADDED", "d", {"v": "1"}), ("MODIFIED", "a", {"v": "2"}), ("DELETED", "b", {"v": "1"})], got

    # A watch without a version starts with the current state as ADDED events.
    got = events_of(watch.Watch(), api, 3, label_selector="suite=watch")
    assert sorted((t, n) for t, n, _ in got) == [("ADDED", "a"), ("ADDED", "c"), ("ADDED", "d")], got

    # Deleted objects come with their last state and a newer resourceVersion.
    w = watch.Watch()
    rv = api.list_namespaced_config_map(NS).metadata.resource_version
    api.delete_namespaced_config_map("c", NS)
    for ev in w.stream(api.list_namespaced_config_map, NS, resource_version=rv):
        assert ev["type"] == "DELETED" and ev["object"].metadata.name == "c", ev["type"]
        assert int(ev["object"].metadata.resource_version) > int(rv)
        w.stop()


def resume_after_cut(sim, api):
    """Stream cut by the server at random points: the client re-watches from the last
    version it saw (no timeout_seconds given, so the client retries) and sees each change once."""
    rv = api.list_namespaced_config_map(NS).metadata.resource_version
    seq = sim.requests()[-1]["seq"]
    names = ["r%02d" % i for i in range(12)]
    got = []
    w = watch.Watch()
    done = threading.Event()

    def run():
        for ev in w.stream(api.list_namespaced_config_map, NS, resource_version=rv, label_selector="suite=resume"):
            got.append((ev["type"], ev["object"].metadata.name))
            if len(got) >= len(names):
                w.stop()
        done.set()

    def watches():
        return [r for r in sim.requests(since=seq) if r["verb"] == "watch" and r["resource"] == "configmaps"]

    t = threading.Thread(target=run, daemon=True)
    t.start()
    for i, n in enumerate(names):
        api.create_namespaced_config_map(NS, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=n, labels={"suite": "resume"})))
        if i in (3, 7):
            # Cut the open watch from the admin endpoint mid-way. kube-sim logs a watch once
            # it is registered, so waiting for the k-th logged watch means the cut reaches
            # the stream the client has now (the open-watch count can still include the
            # stream cut a moment ago).
            k = 1 if i == 3 else 2
            poll("watch %d to be open" % k, lambda: len(watches()) >= k)
            sim.admin("cut-watches", "POST")
    assert done.wait(30), ("watch did not finish", got)
    assert got == [("ADDED", n) for n in names], got
    assert len(watches()) >= 3, "the stream was never cut and resumed: %s" % watches()


def gone_then_relist(sim, api):
    lst = api.list_namespaced_config_map(NS)
    old_rv = lst.metadata.resource_version
    api.create_namespaced_config_map(NS, cm("after-list", v=1))
    sim.admin("compact", "POST")
    seq = sim.requests()[-1]["seq"]
    try:
        events_of(watch.Watch(), api, 1, resource_version=old_rv)
        raise AssertionError("watch from a compacted version did not raise 410")
    except ApiException as e:
        assert e.status == 410, e
        assert "Expired" in str(e.reason), e.reason
    # The client retried once from the same version before giving up: two watches, both 200
    # carrying an ERROR event (the server's form of 410 on a watch).
    watches = [r for r in sim.requests(since=seq) if r["verb"] == "watch"]
    assert [r["code"] for r in watches] == [200, 200], watches

    # The recovery the client's docs prescribe: relist, then watch from the new version.
    lst = api.list_namespaced_config_map(NS)
    assert "after-list" in [i.metadata.name for i in lst.items]
    api.patch_namespaced_config_map("after-list", NS, {"data": {"v": "2"}})
    got = events_of(watch.Watch(), api, 1, resource_version=lst.metadata.resource_version)
    assert got == [("MODIFIED", "after-list", {"v": "2"})], got

    # A list or get at an exact version that is gone is 410 too.
    try:
        api.list_namespaced_config_map(NS, resource_version=old_rv, resource_version_match="Exact")
        raise AssertionError("exact list at a compacted version succeeded")
    except ApiException as e:
        assert e.status == 410, e


def cut_after_n():
    """--watch-cut-after 2: every stream ends after 2 events; the client's resume loop
    still delivers all 9 changes, once each, in order."""
    with KubeSim(extra_args=["--watch-cut-after", "2"]) as sim:
        api = client.CoreV1Api(sim.python_client())
        rv = api.list_namespaced_config_map(NS).metadata.resource_version
        for i in range(9):
            api.create_namespaced_config_map(NS, cm("x%d" % i, i=i))
        got = events_of(watch.Watch(), api, 9, resource_version=rv)
        assert got == [("ADDED", "x%d" % i, {"i": str(i)}) for i in range(9)], got
        watches = [r for r in sim.requests() if r["verb"] == "watch"]
        assert len(watches) == 5, watches          # 2+2+2+2+1 events


def main():
    with KubeSim() as sim:
        api = client.CoreV1Api(sim.python_client())
        list_then_watch(sim, api)
        resume_after_cut(sim, api)
        gone_then_relist(sim, api)
    cut_after_n()
    print("python watch: ok")


if __name__ == "__main__":
    main()
