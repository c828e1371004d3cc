#!/usr/bin/env python3
"""`dgdctl render` as a process: wall time (target under 20 ms) and CPU beyond start.

Runs `dgdctl --help` and `dgdctl render -f recipes/<recipe>/deploy.yaml` alternately, RUNS
times each, and reads each child's CPU time (user + system, from wait4's rusage, which
Linux fills from the scheduler's nanosecond runtime). `--help` pays the same loading,
relocation, static initialisation and exit as `render`, so the difference is what a render
costs beyond process start. Alternating the two makes them share whatever load the machine
has; the median of the pairwise differences is the CPU figure to report (with `uptime`).
The wall figure is the median of the render runs from fork to exit: what a person running
the command waits for.

  /usr/bin/python3 bench/render_process_cpu.py [--build build-bench] [--recipe NAME] [--runs 200]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
from recipe_paths import recipe_file  # noqa: E402


def run_ms(argv):
    """(CPU ms, wall ms) of one run of argv, output discarded. CPU is user + system."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - start) * 1000.0
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"render_process_cpu: {' '.join(argv)} exited {proc.returncode}")
    return (usage.ru_utime + usage.ru_stime) * 1000.0, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--dgdctl", help="dgdctl binary (default: BUILD/dgdctl)")
    ap.add_argument("--recipe", default="deepseek-v4.1-flash/vllm/disagg-h200-agentic")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    dgdctl = args.dgdctl or os.path.join(args.build, "dgdctl")
    recipe = recipe_file(args.recipe, ROOT)
    help_cmd = [dgdctl, "--help"]
    render_cmd = [dgdctl, "render", "-f", recipe]
    for cmd in (help_cmd, render_cmd):  # warm the page cache; fail before measuring
        run_ms(cmd)
    helps, renders, walls = [], [], []
    for _ in range(args.runs):
        helps.append(run_ms(help_cmd)[0])
        cpu, wall = run_ms(render_cmd)
        renders.append(cpu)
        walls.append(wall)
    diffs = [r - h for r, h in zip(renders, helps)]
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{dgdctl} render -f {os.path.relpath(recipe, ROOT)} vs --help, {args.runs} alternating runs each")
    print(f"  --help   CPU ms: median {statistics.median(helps):.3f}  min {min(helps):.3f}")
    print(f"  render   CPU ms: median {statistics.median(renders):.3f}  min {min(renders):.3f}")
    print(f"  beyond process start: median {statistics.median(diffs):.3f} ms, "
          f"min-to-min {min(renders) - min(helps):.3f} ms")
    print(f"  render   wall ms: median {statistics.median(walls):.3f}  min {min(walls):.3f}  max {max(walls):.3f}")


if __name__ == "__main__":
    main()
