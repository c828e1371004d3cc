"""Bad input beyond test_bad_input.py: a malformed YAML create, a body whose kind or API
group does not belong to the endpoint, a non-object body, a patch that renames the
object, kubectl applying a kind nobody serves. Each gets the real server's status code
and Status body, nothing is stored, and the server keeps serving."""
from kubesim import KubeSim
from referee_lib import CM, expect_status, kubectl_fails, names

YAML = {"Content-Type": "application/yaml"}


def main():
    with KubeSim() as sim:
        status, body = sim.request(CM, "POST", b"metadata: {name: [x", headers=YAML)
        expect_status(status, body, 400, "BadRequest")
        status, body = sim.request(CM, "POST", b"metadata: {name: fine}\ndata: {a: b}\n", headers=YAML)
        assert status == 201 and body["data"] == {"a": "b"}, body          # YAML bodies are accepted

        status, body = sim.request(CM, "POST", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "k"}})
        expect_status(status, body, 400, "BadRequest")
        status, body = sim.request(CM, "POST", {"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "g"}})
        expect_status(status, body, 400, "BadRequest",
                      contains="the API version in the data (apps/v1) does not match the expected API version (v1)")
        status, body = sim.request(CM, "POST", b"[1, 2]")
        expect_status(status, body, 400, "BadRequest")
        status, body = sim.request(CM + "/fine", "PATCH", {"metadata": {"name": "renamed"}},
                                   headers={"Content-Type": "application/merge-patch+json"})
        expect_status(status, body, 400, "BadRequest",
                      contains="the name of the object (renamed) does not match the name on the URL (fine)")

        kubectl_fails(sim, "apply", "-f", "-", input="apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
                      contains='no matches for kind "Widget" in version "example.com/v1"')

        status, lst = sim.request(CM)
        assert status == 200 and names(lst) == ["fine"], lst
        assert sim.proc.poll() is None
    print("bad input (more): ok")


if __name__ == "__main__":
    main()
