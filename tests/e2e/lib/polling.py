"""Waiting for a condition: the only way tests wait (never for a fixed time)."""
import time


def wait_until(what, fn, timeout=90, interval=0.2):
    """Calls fn() until it returns a truthy value and returns that value; raises
    AssertionError naming `what` (and fn's last answer) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))
