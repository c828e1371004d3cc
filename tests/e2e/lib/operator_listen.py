"""The addresses dgd-operator's listeners bound, read from its log.

With --metrics-addr / --health-addr at port 0 the kernel picks each port; the operator
logs `serving /metrics on HOST:PORT` and `serving /healthz /readyz on HOST:PORT` (one
line `serving /metrics /healthz /readyz on ...` when both share a listener), text or
JSON format alike. Tests read the port there instead of picking one and releasing it.
"""
import re
import time

_LINE = re.compile(r"serving((?: /metrics)?)((?: /healthz /readyz)?) on (\S+?)[\"\s]")


def bound_addresses(log_text):
    """{"metrics": "host:port", "probes": "host:port"} for the listeners the log names."""
    out = {}
    for m in _LINE.finditer(log_text + "\n"):
        if m.group(1):
            out["metrics"] = m.group(3)
        if m.group(2):
            out["probes"] = m.group(3)
    return out


def wait_bound_addresses(log_path, proc, want=("metrics", "probes"), timeout=60):
    """Polls the operator's log until every listener in `want` is reported; fails if the
    process exits first."""
    deadline = time.time() + timeout
    while True:
        with open(log_path) as f:
            found = bound_addresses(f.read())
        if all(w in found for w in want):
            return found
        if proc.poll() is not None:
            raise AssertionError("operator exited %d before it reported %s" % (proc.returncode, ", ".join(want)))
        if time.time() > deadline:
            raise AssertionError("operator did not report its %s listener in %d s" % (", ".join(want), timeout))
        time.sleep(0.05)
