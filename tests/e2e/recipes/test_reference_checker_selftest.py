#!/usr/bin/python3
"""Self-test of the independent recipe checkers (no dgdctl needed).

1. The reference checker (check_reference_lib.py) on hand-made rendered outputs
   (tests/golden/reference/fixtures/, written from recipes.md) against the real target
   expectations: correct outputs pass; each deliberate error (wrong value, missing flag,
   forbidden flag, wrong env, wrong resource, wrong JSON field, static UCX_NET_DEVICES,
   SGLang config key, ComputeDomain, ...) is a FAIL naming the component and the item.
2. The upstream-explicit checker on a model render of tests/golden/upstream/*.yaml: a
   correct render passes; rewritten args, wrong names, labels, ports, env, a second
   /dev/shm and missing discovery RBAC are caught.
"""

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_reference_lib as lib  # noqa: E402


def upstream_checker():
    # Named check_* until it passes against the real renderer, test_* afterwards.
    for name in ("test_upstream_explicit", "check_upstream_explicit"):
        if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")):
            return importlib.import_module(name)
    raise SystemExit("neither test_upstream_explicit.py nor check_upstream_explicit.py exists")


if __name__ == "__main__":
    problems = lib.self_test(lib.source_dir())
    problems += upstream_checker().self_test(lib.source_dir())
    if problems:
        print(f"checker self-test: {len(problems)} case(s) not caught: {problems}")
        sys.exit(1)
    print("checker self-test: every case caught")
