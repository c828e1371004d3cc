"""Chaos with two dgd-operator replicas under leader election: the same faults and
operations as test_chaos.py; the leader is SIGKILLed at random points and comes back. kube-sim's
request log (each replica has its own user) shows no write from a replica outside its own
leadership, and after a final kill of the leader the other replica takes over and finishes
the work (the same convergence checks as test_chaos.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chaoslib import run  # noqa: E402

if __name__ == "__main__":
    run(replicas=("a", "b"), leader_elect=True, title="chaos-two-replicas")
    print("ok")
