"""The e2e tests' cluster: a private local cluster of real parts (localcluster/lib), with
what tests read from it.

    from cluster import Cluster
    with Cluster(profile="h200-4x") as c:
        c.kubectl("apply", "-f", path)
        c.requests(since=0)      # one dict per API request, from the API server's audit log
        c.last_seq()             # the position to read the next requests from

A request is {"seq", "verb", "resource", "subresource", "namespace", "name", "user",
"userAgent", "code"}: verb is the API verb (get, list, watch, create, update, patch,
delete), user the authenticated user name; a watch is one request (its start).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "localcluster", "lib"))
import audit_log  # noqa: E402
from localcluster import KubectlError, LocalCluster  # noqa: E402,F401

# Fast kubelets and download Jobs: what the operator tests start with unless they say otherwise.
FAST = {"start_delay": 0.2, "ready_delay": 0.5, "job_duration": 0.5, "termination_delay": 0.2}


def as_request(e):
    ref = e.get("objectRef") or {}
    return {"seq": e["_line"], "verb": e.get("verb"), "resource": ref.get("resource", ""),
            "subresource": ref.get("subresource", ""), "namespace": ref.get("namespace", ""),
            "name": ref.get("name", ""), "apiGroup": ref.get("apiGroup", ""),
            "user": (e.get("user") or {}).get("username", ""), "userAgent": e.get("userAgent", ""),
            "code": (e.get("responseStatus") or {}).get("code", 0), "uri": e.get("requestURI", "")}


class Cluster(LocalCluster):
    def __init__(self, profile="h200-4x", **kw):
        for k, v in FAST.items():
            kw.setdefault(k, v)
        super().__init__(profile=profile, **kw)

    @property
    def dir(self):
        return self.workdir

    def requests(self, since=0):
        """API requests logged after position `since` (a seq or last_seq()), oldest first."""
        seen = set()
        out = []
        for e in audit_log.read(self.audit_path, since):
            if e.get("auditID") in seen:
                continue  # a long-running request's ResponseComplete after its ResponseStarted
            seen.add(e.get("auditID"))
            out.append(as_request(e))
        return out

    def last_seq(self):
        return audit_log.lines(self.audit_path)
