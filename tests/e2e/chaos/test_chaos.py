"""Chaos: one dgd-operator, SIGKILLed and restarted many times, under every fault
kube-sim injects, converges once the faults stop: every live DGD Ready with exactly the
children `dgdctl render` gives, nothing left of deleted DGDs or removed components, no
DGD stuck deleting, every last edit observed. The scenario is in chaoslib.py; its figures
are printed (and quoted in docs/reliability.md)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chaoslib import run  # noqa: E402

if __name__ == "__main__":
    run(replicas=("a",), leader_elect=False, title="chaos")
    print("ok")
