"""Bad input gets the real server's status code and Status body, and the server
keeps serving: malformed JSON and YAML, unknown kinds, missing names, a patch of
the wrong content type, an oversized body, unsupported verbs, stale writes."""
from kubesim import KubeSim

CM = "/api/v1/namespaces/default/configmaps"


def expect(sim, path, method, body, code, reason, headers=None, contains=None):
    status, out = sim.request(path, method, body, headers=headers)
    assert status == code, (method, path, status, out)
    assert isinstance(out, dict) and out.get("kind") == "Status", out
    assert out["code"] == code and out["status"] == "Failure", out
    assert out.get("reason", "") == reason, out
    if contains:
        assert contains in out["message"], out
    return out


def main():
    with KubeSim() as sim:
        expect(sim, CM, "POST", b"{not json", 400, "BadRequest")
        expect(sim, CM + "/x?fieldManager=t", "PATCH", b"a: [unclosed", 400, "BadRequest",
               headers={"Content-Type": "application/apply-patch+yaml"})
        expect(sim, "/api/v1/namespaces/default/widgets", "GET", None, 404, "NotFound",
               contains="the server could not find the requested resource")
        expect(sim, "/apis/nope.example.com/v1/things", "GET", None, 404, "NotFound")
        out = expect(sim, CM, "POST", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}, 422, "Invalid",
                     contains="name or generateName is required")
        assert out["details"]["causes"][0]["field"] == "metadata.name", out
        expect(sim, CM + "/missing", "GET", None, 404, "NotFound", contains='configmaps "missing" not found')

        status, cm = sim.request(CM, "POST", {"metadata": {"name": "a"}, "data": {"k": "v"}})
        assert status == 201, cm
        expect(sim, CM, "POST", {"metadata": {"name": "a"}}, 409, "AlreadyExists")
        expect(sim, CM + "/a", "PATCH", {"data": {"k": "x"}}, 415, "UnsupportedMediaType",
               headers={"Content-Type": "application/json"})
        expect(sim, CM + "/a", "PATCH", {"data": {"k": "x"}}, 415, "UnsupportedMediaType",
               headers={"Content-Type": "text/plain"})
        expect(sim, CM + "/a", "POST", {"metadata": {"name": "a"}}, 405, "MethodNotAllowed")

        stale = dict(cm)
        stale["data"] = {"k": "v2"}
        assert sim.request(CM + "/a", "PUT", stale)[0] == 200
        stale["data"] = {"k": "v3"}
        expect(sim, CM + "/a", "PUT", stale, 409, "Conflict", contains="the object has been modified")

        big = {"metadata": {"name": "big"}, "data": {"k": "x" * (3 * 1024 * 1024 + 10)}}
        expect(sim, CM, "POST", big, 413, "RequestEntityTooLarge")

        expect(sim, CM + "?fieldValidation=Strict", "POST",
               {"metadata": {"name": "s"}, "data": {}, "bogus": 1}, 400, "BadRequest",
               contains='unknown field "bogus"')
        expect(sim, CM + "?labelSelector=a%20in%20(b", "GET", None, 400, "BadRequest")
        expect(sim, CM + "?fieldSelector=spec.nodeName%3Dx", "GET", None, 400, "BadRequest",
               contains="field label not supported")

        # Still serving, and nothing was stored by the failures.
        status, lst = sim.request(CM)
        assert status == 200 and [i["metadata"]["name"] for i in lst["items"]] == ["a"], lst
        assert sim.proc.poll() is None
    print("bad input: ok")


if __name__ == "__main__":
    main()
