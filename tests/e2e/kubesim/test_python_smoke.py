"""The Python kubernetes client against kube-sim: create, read, list, watch, replace, delete."""
import threading

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from kubesim import KubeSim


def main():
    with KubeSim() as sim:
        api = client.CoreV1Api(sim.python_client())
        body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py", labels={"app": "py"}), data={"k": "v"})
        created = api.create_namespaced_config_map("default", body)
        assert created.metadata.uid and created.metadata.resource_version
        got = api.read_namespaced_config_map("py", "default")
        assert got.data == {"k": "v"}

        lst = api.list_namespaced_config_map("default", label_selector="app=py")
        assert [i.metadata.name for i in lst.items] == ["py"]

        # Watch from the list's version sees the later change, and only it.
        events = []
        w = watch.Watch()

        def run():
            for ev in w.stream(api.list_namespaced_config_map, "default",
                               resource_version=lst.metadata.resource_version, timeout_seconds=20):
                events.append((ev["type"], ev["object"].metadata.name, ev["object"].data))
                w.stop()

        t = threading.Thread(target=run)
        t.start()
        got.data = {"k": "v2"}
        replaced = api.replace_namespaced_config_map("py", "default", got)
        t.join(30)
        assert events == [("MODIFIED", "py", {"k": "v2"})], events

        # A replace with the stale version is a 409 Conflict.
        got.data = {"k": "stale"}
        try:
            api.replace_namespaced_config_map("py", "default", got)
            raise AssertionError("stale replace succeeded")
        except ApiException as e:
            assert e.status == 409, e
            assert "the object has been modified" in e.body
        assert replaced.metadata.resource_version != got.metadata.resource_version

        api.delete_namespaced_config_map("py", "default")
        try:
            api.read_namespaced_config_map("py", "default")
            raise AssertionError("still there")
        except ApiException as e:
            assert e.status == 404
    print("python smoke: ok")


if __name__ == "__main__":
    main()
