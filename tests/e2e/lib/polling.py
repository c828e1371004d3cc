"""Waiting for a condition: the only way tests wait (never for a fixed time)."""
import time

from kubesim import deadline_seconds


def wait_until(what, fn, timeout=90, interval=0.2):
    """Calls fn() until it returns a truthy value and returns that value; raises
    AssertionError naming `what` (and fn's last answer) after `timeout` seconds, a failure
    deadline scaled by DGD_TEST_TIME_FACTOR (kubesim.deadline_seconds)."""
    deadline = time.monotonic() + deadline_seconds(timeout)
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))
