#!/usr/bin/python3
"""Leader-election takeover times: how long the Lease takes to change hands.

    /usr/bin/python3 bench/leader_takeover.py            # BENCH_ROUNDS=5

Two candidates (build/tests/leader-election-candidate, the processes of
tests/unit/runtime/leader_election_kubesim_test.cpp) campaign on one Lease in a private
kube-sim, with a 5 s lease, 3.5 s renew deadline and 300 ms retry period. Each round
measures, from the harness's clock:
  kill     SIGKILL of the leader until the other holds the Lease (no release: the lease
           must expire by the follower's observation, so about the lease duration);
  release  SIGTERM of the leader (it releases the Lease) until the other holds it (about
           one retry period).
Prints each round and the medians. Figures only: the tests assert no durations.
Environment: BENCH_BUILD (default build), BENCH_ROUNDS (5).
"""
import os
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BUILD = os.path.join(ROOT, os.environ.get("BENCH_BUILD", "build"))
os.environ.setdefault("KUBE_SIM", os.path.join(BUILD, "tests", "kubesim", "kube-sim"))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "lib"))
from kubesim import KubeSim  # noqa: E402

CANDIDATE = os.path.join(BUILD, "tests", "leader-election-candidate")
LEASE_MS = 5000


def holder(sim):
    status, lease = sim.request("/apis/coordination.k8s.io/v1/namespaces/default/leases/le-test")
    return (lease.get("spec") or {}).get("holderIdentity", "") if status == 200 else ""


def start(sim, ident):
    env = dict(os.environ, DGD_LE_KUBECONFIG=sim.kubeconfig, DGD_LE_ID=ident, DGD_LE_LEASE_MS=str(LEASE_MS))
    return subprocess.Popen([CANDIDATE], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(fn, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if fn():
            return time.monotonic()
        time.sleep(0.01)
    raise RuntimeError("timed out")


def handover(sim, procs, sig):
    """Signals the leader; returns seconds until the other candidate holds the Lease."""
    leader = wait_for(lambda: holder(sim) in procs) and holder(sim)
    other = next(i for i in procs if i != leader)
    # The follower has campaigned at least once (its lease requests are in the log).
    wait_for(lambda: any(r.get("user") == other and r.get("resource") == "leases" for r in sim.requests(since=0)))
    t0 = time.monotonic()
    procs[leader].send_signal(sig)
    took = wait_for(lambda: holder(sim) == other) - t0
    procs[leader].wait(timeout=30)
    procs[leader] = start(sim, leader)  # back as a follower for the next round
    return took


def main():
    rounds = int(os.environ.get("BENCH_ROUNDS", "5"))
    tokens = []
    for i in ("a", "b"):
        tokens += ["--token", "lease-%s=%s" % (i, i), "--token", "write-%s=%s-writer" % (i, i)]
    results = {"kill": [], "release": []}
    with KubeSim(extra_args=tokens) as sim:
        procs = {i: start(sim, i) for i in ("a", "b")}
        try:
            for n in range(rounds):
                for name, sig in (("kill", signal.SIGKILL), ("release", signal.SIGTERM)):
                    took = handover(sim, procs, sig)
                    results[name].append(took)
                    print("round %d %-7s %.2f s" % (n + 1, name, took), flush=True)
        finally:
            for p in procs.values():
                p.kill()
                p.wait()
    print("median: kill %.2f s (lease %.1f s), release %.2f s" % (
        statistics.median(results["kill"]), LEASE_MS / 1000, statistics.median(results["release"])))


if __name__ == "__main__":
    main()
