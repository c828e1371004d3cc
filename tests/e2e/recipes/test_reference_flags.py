#!/usr/bin/python3
"""Checks every catalog recipe's rendered children against recipes.md, flag by flag.

For each expectation under tests/golden/reference/<model>/<framework>/<target>.yaml
(written by hand from shared/reference/recipes.md, see its README) this renders
recipes/[<family>/]<model>/<framework>/<target>/deploy.yaml with `$DGDCTL render -o json`, and again
through `kubectl kustomize recipes/<...> | $DGDCTL render -f - -o json`, then checks each
component's Deployment: engine flags (JSON flags compared parsed), flags that must be
absent, env (frontend DYN_ROUTER_*, worker UCX / NCCL / HF), resources, shared memory,
model cache, RDMA / ComputeDomain placement, probes, SGLang ConfigMap keys. A missing
recipe folder is a failure naming it; nothing is skipped. The model download Job is checked
separately by test_reference_download_job.py (same expectations, `download_job` key).

Usage: DGDCTL=... DGD_SOURCE_DIR=... /usr/bin/python3 test_reference_flags.py
         [--target SUBSTRING] [--no-info] [--self-test]
Exit 0 when no FAIL; INFO lines report what recipes.md leaves open.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_reference_lib as lib  # noqa: E402

SCOPE = ("recipe",)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", action="append", default=[], help="only targets containing this text")
    ap.add_argument("--no-info", action="store_true", help="print FAIL lines only")
    ap.add_argument("--self-test", action="store_true", help="prove the checker on hand-made fixtures")
    ap.add_argument("-v", "--verbose", action="store_true")
    opts = ap.parse_args()
    src = lib.source_dir()
    if opts.self_test:
        problems = lib.self_test(src, opts.verbose)
        print(f"self-test: {'all cases caught' if not problems else str(len(problems)) + ' case(s) missed'}")
        return 1 if problems else 0
    dgdctl = os.environ.get("DGDCTL")
    if not dgdctl or not os.access(dgdctl, os.X_OK):
        print(f"FAIL DGDCTL is not an executable: {dgdctl!r}")
        return 1
    targets = lib.expectation_files(src)
    if len(targets) != 12:
        print(f"FAIL expected 12 target expectations under {lib.reference_dir(src)}, found {len(targets)}")
        return 1
    total_fail = 0
    summary = []
    for label, path in targets:
        if opts.target and not any(t in label for t in opts.target):
            continue
        exp = lib.load_yaml(path)
        found = lib.check_recipe_folder(dgdctl, src, label, exp, SCOPE)
        fails = found.failures
        total_fail += len(fails)
        summary.append((label, len(fails)))
        print(f"=== {label}: {'OK' if not fails else str(len(fails)) + ' failure(s)'}")
        for line in found.lines(with_info=not opts.no_info):
            print("  " + line)
    print("\nsummary:")
    for label, n in summary:
        print(f"  {'ok  ' if n == 0 else 'FAIL'} {label}" + (f" ({n})" if n else ""))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
