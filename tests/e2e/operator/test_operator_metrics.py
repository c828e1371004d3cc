"""What a Prometheus user and an operator of dgd-operator read, against a private kube-sim:

- /metrics before any DGD: every counter and gauge whose labels are known at start is
  there at 0 (reconcile results and errors, informer relists, dgd_graphs), the process_*
  series, dgd_operator_build_info with the version --version prints, and the API
  requests labelled by HTTP method as client-go labels them;
- a brand-new invalid recipe DGD: SpecValid names the same path and message as
  `dgdctl validate` of the same file (the index in the user's file), Ready does not
  speak of a previous generation, and dgd_graphs counts it;
- log levels are named as the --log-level flag names them (warn, not warning);
- a metrics address already in use and bad lease timings: exit 2 with one message that
  names the flag, or says "leader election:" once.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oplib import OperatorEnv, condition, find_operator, wait_until  # noqa: E402
from operator_listen import wait_bound_addresses  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from binaries import find_binary  # noqa: E402

DGDCTL = find_binary("DGDCTL", "dgdctl")
HTTP_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

INVALID_DGD = """apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: tp-mismatch, namespace: dynamo}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    engine:
      tensorParallelSize: 2
"""


def parse(text):
    samples = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "unparseable sample line: %r" % line
        samples.append((m.group(1), dict(LABEL.findall(m.group(2) or "")), float(m.group(3))))
    return samples


def series(samples, name, **labels):
    return [(l, v) for n, l, v in samples if n == name and all(l.get(k) == w for k, w in labels.items())]


failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


version_line = subprocess.run([find_operator(), "--version"], capture_output=True, text=True, check=True).stdout.strip()
version = version_line.split()[1]

with OperatorEnv(profile="h200-4x", operator_args=["--log-format", "json"]) as env:
    scrape = lambda: parse(env.metrics_text())  # noqa: E731
    # The informers have listed (readyz is off here): wait until the first requests show.
    wait_until("first lists", lambda: series(scrape(), "rest_client_requests_total"), timeout=60)
    samples = scrape()
    address = wait_bound_addresses(env.op_log_path, env.op, want=("metrics",))["metrics"]

    # -- present from start, at 0 ------------------------------------------------
    errs = series(samples, "controller_runtime_reconcile_errors_total", controller="dynamographdeployment")
    check(errs == [({"controller": "dynamographdeployment"}, 0.0)],
          "controller_runtime_reconcile_errors_total is 0 before any reconcile: %r" % errs)
    results = {l["result"]: v for l, v in series(samples, "controller_runtime_reconcile_total")}
    check(results == {"success": 0.0, "error": 0.0, "requeue_after": 0.0},
          "controller_runtime_reconcile_total by result at 0: %r" % results)
    relists = series(samples, "dgd_informer_relists_total")
    check(len(relists) >= 10 and all(v == 0 for _, v in relists) and
          any("dynamographdeployments" in l["resource"] for l, _ in relists),
          "dgd_informer_relists_total at 0 for every informer: %r" % relists[:3])
    graphs = {(l["ready"], l["serving"]): v for l, v in series(samples, "dgd_graphs")}
    statuses = ("True", "False", "Unknown")
    check(graphs == {(r, s): 0.0 for r in statuses for s in statuses}, "dgd_graphs: 9 combinations at 0: %r" % graphs)

    # -- process collector and build info ------------------------------------------
    one = lambda name: [v for _, v in series(samples, name)]  # noqa: E731
    start = one("process_start_time_seconds")
    check(len(start) == 1 and abs(start[0] - time.time()) < 3600, "process_start_time_seconds is now-ish: %r" % start)
    check(len(one("process_cpu_seconds_total")) == 1, "process_cpu_seconds_total: %r" % one("process_cpu_seconds_total"))
    for name in ("process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds", "process_max_fds"):
        check(len(one(name)) == 1 and one(name)[0] > 0, "%s > 0: %r" % (name, one(name)))
    check(one("process_open_fds")[0] < one("process_max_fds")[0], "open fds below the limit")
    info = series(samples, "dgd_operator_build_info")
    check(len(info) == 1 and info[0][1] == 1 and info[0][0].get("version") == version,
          "dgd_operator_build_info{version=%s} 1: %r" % (version, info))

    # -- client-go's labels ----------------------------------------------------------
    methods = {l["method"] for l, _ in series(samples, "rest_client_requests_total")}
    check("GET" in methods and methods <= HTTP_METHODS, "rest_client_requests_total methods are HTTP methods: %r" % methods)
    verbs = {l["verb"] for l, _ in series(samples, "rest_client_request_duration_seconds_bucket")}
    check(verbs and verbs <= HTTP_METHODS, "rest_client_request_duration_seconds verbs are HTTP methods: %r" % verbs)

    # -- a brand-new invalid DGD ---------------------------------------------------------
    env.prepare_namespace("dynamo")
    env.kubectl("apply", "-f", "-", input=INVALID_DGD)

    def spec_valid_false():
        d = env.dgd("tp-mismatch")
        c = condition(d, "SpecValid") if d else None
        return d if c and c["status"] == "False" else None
    d = wait_until("SpecValid=False", spec_valid_false, timeout=90)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(INVALID_DGD)
    p = subprocess.run([DGDCTL, "validate", "-f", f.name], capture_output=True, text=True)
    os.unlink(f.name)
    lines = [l.split(": error: ", 1)[1] for l in p.stderr.splitlines() if ": error: " in l]
    spec_valid = condition(d, "SpecValid")["message"]
    check(p.returncode == 1 and lines and spec_valid == "; ".join(lines),
          "SpecValid equals dgdctl validate: %r vs %r" % (spec_valid, lines))
    check(spec_valid.startswith("spec.components[0].engine.tensorParallelSize:"),
          "the path is the index in the user's file: %r" % spec_valid)
    ready = condition(d, "Ready")
    check(ready["status"] == "False" and "previous generation" not in ready["message"] and
          "nothing was created" in ready["message"], "a new invalid DGD is not told of a previous generation: %r" % ready)
    wait_until("dgd_graphs counts the DGD",
               lambda: series(scrape(), "dgd_graphs", ready="False", serving="Unknown")[0][1] == 1, timeout=60)
    check(True, "dgd_graphs{ready=\"False\",serving=\"Unknown\"} 1")

    cpu = [v for _, v in series(scrape(), "process_cpu_seconds_total")]
    check(cpu and cpu[0] > 0, "process_cpu_seconds_total grows with the work done: %r" % cpu)

    # -- log levels as the flag names them -------------------------------------------------
    wait_until("a warn line", lambda: '"level":"warn"' in env.operator_log(), timeout=30)
    levels = {json.loads(l)["level"] for l in env.operator_log().splitlines() if l.startswith("{")}
    check(levels <= {"trace", "debug", "info", "warn", "error", "critical"} and "warn" in levels,
          "log levels are the flag's names: %r" % levels)

    # -- the metrics address in use, bad lease timings: exit 2, one clear line -----------------
    p = subprocess.run([find_operator(), "run", "--kubeconfig", env.sim.kubeconfig, "--metrics-addr",
                        address, "--health-addr", "0", "--leader-elect", "false"],
                       capture_output=True, text=True, timeout=60)
    errors = [l for l in p.stderr.splitlines() if " error " in l]
    check(p.returncode == 2 and len(errors) == 1 and "--metrics-addr" in errors[0] and address in errors[0]
          and "health" not in errors[0], "metrics address in use: exit %d, %r" % (p.returncode, errors))
    p = subprocess.run([find_operator(), "run", "--kubeconfig", env.sim.kubeconfig, "--metrics-addr", "0",
                        "--health-addr", "0", "--leader-election-renew-deadline", "20"],
                       capture_output=True, text=True, timeout=60)
    errors = [l for l in p.stderr.splitlines() if " error " in l]
    check(p.returncode == 2 and len(errors) == 1 and errors[0].count("leader election") == 1,
          "bad lease timings: exit %d, %r" % (p.returncode, errors))

print("%d failure(s)" % len(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
