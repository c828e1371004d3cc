#!/usr/bin/env python3
"""`dgdctl validate` CPU against the size of the DGD: a recipe DGD whose DecodeWorker
lists N env entries of 150 characters, for several N. Linear checking keeps CPU per
entry flat as N grows; a quadratic step shows as CPU per entry growing with N. Inputs
over the API server's 3 MiB body limit are refused before parsing, so the largest N
checked is the one that fits.

  /usr/bin/python3 bench/validate_size.py [--build build] [--sizes 1000,2000,4000,8000,16000]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def dgd(entries):
    out = ["apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: big}\nspec:\n"
           "  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic\n  components:\n  - name: DecodeWorker\n    env:\n"]
    out += ['    - name: VAR_%06d\n      value: "%s"\n' % (i, "x" * 150) for i in range(entries)]
    return "".join(out)


def cpu_seconds(argv):
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    a = ap.parse_args()
    dgdctl = os.path.join(a.build, "dgdctl")
    print("%8s %10s %6s %10s %14s" % ("entries", "bytes", "exit", "cpu s", "cpu us/entry"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in a.sizes.split(",")):
            path = os.path.join(tmp, "dgd.yaml")
            text = dgd(n)
            with open(path, "w") as f:
                f.write(text)
            rc, cpu = cpu_seconds([dgdctl, "validate", "-f", path])
            print("%8d %10d %6d %10.2f %14.1f" % (n, len(text), rc, cpu, cpu / n * 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
