#!/usr/bin/python3
"""Self-test of the reference checker (tests/e2e/recipes/check_reference_lib.py).

Runs the checker on hand-made rendered outputs (tests/golden/reference/fixtures/, written
from recipes.md) against the real target expectations: the correct outputs must pass and
each deliberate error (wrong value, missing flag, forbidden flag, wrong env, wrong resource,
wrong JSON field, static UCX_NET_DEVICES, SGLang config key, ComputeDomain, ...) must be
reported as a FAIL naming the component and the item. Needs no dgdctl.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_reference_lib as lib  # noqa: E402

if __name__ == "__main__":
    problems = lib.self_test(lib.source_dir())
    if problems:
        print(f"reference checker self-test: {len(problems)} case(s) not caught: {problems}")
        sys.exit(1)
    print("reference checker self-test: every case caught")
