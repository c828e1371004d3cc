"""The API server's audit log (--audit-log-format=json, localcluster/config/audit-policy.yaml)
read as requests: who asked, what for, and what came back. This is how tests count the
operator's writes, by its own user, without a hook in the server.

    events = audit_log.read(path, since=0)       # dicts, one per request, after `since` lines
    e["user"]["username"], e["verb"], e["objectRef"]["resource"], e["responseStatus"]["code"]
"""
import json


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
