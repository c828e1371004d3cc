"""Checks that collect their failures instead of stopping at the first.

A test module defines test_* functions that call check(condition, message); its main is
`sys.exit(run_tests(globals()))`, which runs each function in name order (a crash of one
counts as its failure, not the end), prints one line per function, then every failure."""

FAILURES = []


def check(cond, msg):
    """Records `msg` as a failure when `cond` is false."""
    if not cond:
        FAILURES.append(msg)


def run_tests(namespace):
    """Runs the test_* functions of `namespace`; returns the exit status."""
    for name, fn in sorted(namespace.items()):
        if name.startswith("test_") and callable(fn):
            before = len(FAILURES)
            try:
                fn()
            except Exception as e:  # a crash of one check is a failure, not the end
                FAILURES.append("%s: %s: %s" % (name, type(e).__name__, e))
            print("%s: %s" % (name, "ok" if len(FAILURES) == before else "FAILED"))
    if FAILURES:
        print("\n".join("FAIL: " + f for f in FAILURES))
        return 1
    print("ok")
    return 0
