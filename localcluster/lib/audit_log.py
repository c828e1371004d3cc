"""The API server's audit log (--audit-log-format=json, localcluster/config/audit-policy.yaml)
read as requests: who asked, what for, and what came back. This is how tests count the
operator's writes, by its own user, without a hook in the server.

    events = audit_log.read(path, since=0)       # dicts, one per request, after `since` lines
    audit_log.count(events, user=..., verbs=audit_log.WRITES)
    e["user"]["username"], e["verb"], e["objectRef"]["resource"], e["responseStatus"]["code"]
"""
import json

WRITES = ("create", "update", "patch", "delete", "deletecollection")


def read(path, since=0):
    """Events after the first `since` lines. A line the server is still writing is left for
    the next read; each event carries its line number as "_line" (the next `since`)."""
    out = []
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return out
    with f:
        for n, raw in enumerate(f, start=1):
            if n <= since:
                continue
            if not raw.endswith(b"\n"):
                break
            e = json.loads(raw)
            e["_line"] = n
            out.append(e)
    return out


def lines(path):
    """How many complete lines the log holds: `since` for reading only what comes next."""
    try:
        with open(path, "rb") as f:
            return sum(1 for raw in f if raw.endswith(b"\n"))
    except FileNotFoundError:
        return 0


def resource_of(e):
    ref = e.get("objectRef") or {}
    r = ref.get("resource", "")
    return r + ("/" + ref["subresource"] if ref.get("subresource") else "")


def matches(e, user=None, user_agent=None, verbs=None, resource=None, namespace=None):
    if user is not None and (e.get("user") or {}).get("username") != user:
        return False
    if user_agent is not None and not (e.get("userAgent") or "").startswith(user_agent):
        return False
    if verbs is not None and e.get("verb") not in verbs:
        return False
    if resource is not None and resource_of(e) != resource:
        return False
    if namespace is not None and (e.get("objectRef") or {}).get("namespace") != namespace:
        return False
    return True


def count(events, **criteria):
    return sum(1 for e in events if matches(e, **criteria))
