#!/usr/bin/python3
"""Checks the model download Job each catalog recipe renders against recipes.md §4 / §5.5.

Same expectation files and rendering as test_reference_flags.py (the `download_job` key of
tests/golden/reference/<model>/<framework>/<target>.yaml): the Job that writes to the
model-cache PVC, its model id, revision pin (V4.1), token from a Secret reference only,
image, pip pin, env, resources, and HF_HOME resolving inside the PVC to where the workers
read. Kept apart from the engine-flag checker so a discrepancy here does not hide that one.

Usage: DGDCTL=... DGD_SOURCE_DIR=... /usr/bin/python3 test_reference_download_job.py [--no-info]
"""

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

if __name__ == "__main__":
    # The flag checker is named check_* until it passes against the renderer, test_* afterwards.
    name = "test_reference_flags" if os.path.exists(os.path.join(HERE, "test_reference_flags.py")) else "check_reference_flags"
    flags = importlib.import_module(name)
    flags.SCOPE = ("download",)
    sys.exit(flags.main())
