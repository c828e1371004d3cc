#!/usr/bin/python3
"""The benchmark Jobs (recipes/deepseek-v4/perf/perf.yaml, recipes/deepseek-v4.1-flash/perf/
perf.yaml) run AIPerf as upstream's perf.yaml does, so their results compare with the
recipe pages' tables:

1. the `aiperf profile` command carries exactly upstream's flags (UPSTREAM_FLAGS, from
   ai-dynamo/dynamo recipes/deepseek-v4/perf/perf.yaml), with the literal values upstream
   uses; the pinned packages, `ulimit -n` and the wait for /v1/models are there;
2. every target's overlay `<recipe folder>/perf` points the Job at the DGD of that folder,
   its served model name, and the concurrency of the V4.1 page's table (read from the page)
   or of the V4 repository's operating point;
3. the script itself, run with stand-ins for apt-get / pip / aiperf and a local HTTP
   server as the frontend, refuses a trace whose checksum differs, waits until /v1/models
   lists the model, and hands aiperf the flags.
"""
import http.server
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile
import threading

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "seeds"))
from recipe_paths import ROOT, recipe_dir, recipe_file  # noqa: E402
from seed_pages import page_text  # noqa: E402

# upstream recipes/deepseek-v4/perf/perf.yaml (ai-dynamo/dynamo @6b7a939): the `aiperf
# profile` flags, with the value where upstream writes a literal (None: a variable).
UPSTREAM_FLAGS = {
    "-m": None, "--tokenizer": None, "--tokenizer-trust-remote-code": True, "--input-file": None,
    "--custom-dataset-type": "mooncake_trace", "--num-requests": None, "--endpoint-type": "chat",
    "--url": None, "--streaming": True, "--use-server-token-count": True, "--extra-inputs": "ignore_eos:true",
    "--concurrency": None, "--random-seed": "42", "--ui": "simple", "--artifact-dir": None,
    "--request-timeout-seconds": None, "--workers-max": None, "--export-http-trace": True,
}
UPSTREAM_PINS = ["protobuf==7.35.0", "transformers==4.57.3", "tiktoken==0.13.0"]
UPSTREAM_ULIMIT = "ulimit -n 600000"
PERF_FILES = {"deepseek-v4": "recipes/deepseek-v4/perf/perf.yaml",
              "deepseek-v4.1-flash": "recipes/deepseek-v4.1-flash/perf/perf.yaml"}
# The V4 page has no table; its repository's operating points (user tok/s p50 >= 50).
V4_CONCURRENCY = {"agg-b200-agentic": 38, "disagg-b200-agentic": 128, "agg-h200-agentic": 16,
                  "disagg-h200-agentic": 128}

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def load_job(text):
    docs = [d for d in yaml.safe_load_all(text) if d]
    jobs = [d for d in docs if d.get("kind") == "Job"]
    assert len(jobs) == 1, docs
    return jobs[0]


def container(job):
    return job["spec"]["template"]["spec"]["containers"][0]


def env_of(job):
    return {e["name"]: e.get("value") for e in container(job)["env"]}


def aiperf_args(script):
    joined = re.sub(r"\\\n\s*", " ", script)
    lines = [ln.strip() for ln in joined.splitlines() if ln.strip().startswith("aiperf profile")]
    assert len(lines) == 1, lines
    return shlex.split(lines[0])[2:]


def flags_of(args):
    out, i = {}, 0
    while i < len(args):
        a = args[i]
        assert a.startswith("-"), (a, args)
        if i + 1 < len(args) and not args[i + 1].startswith("-"):
            out[a] = args[i + 1]
            i += 2
        else:
            out[a] = True
            i += 1
    return out


def check_static(label, job):
    script = container(job)["command"][-1]
    flags = flags_of(aiperf_args(script))
    check(set(flags) == set(UPSTREAM_FLAGS),
          "%s: aiperf flags differ from upstream's: missing %s, extra %s" % (
              label, sorted(set(UPSTREAM_FLAGS) - set(flags)), sorted(set(flags) - set(UPSTREAM_FLAGS))))
    for f, want in UPSTREAM_FLAGS.items():
        if want is not None and f in flags:
            check(flags[f] == want, "%s: %s is %r, upstream %r" % (label, f, flags[f], want))
    check(flags.get("--workers-max") == flags.get("--concurrency"), label + ": --workers-max is not the concurrency")
    check("--request-count" not in script, label + ": --request-count (upstream: --num-requests)")
    for pin in UPSTREAM_PINS:
        check('"%s"' % pin in script, "%s: %s not pinned" % (label, pin))
    check('"aiperf==${AIPERF_VERSION}"' in script, label + ": aiperf not pinned")
    check(UPSTREAM_ULIMIT in script, label + ": no " + UPSTREAM_ULIMIT)
    check("/v1/models" in script, label + ": no wait for /v1/models")
    check("sha256sum" in script and "TRACE_SHA256" in env_of(job), label + ": no trace checksum check")
    check(env_of(job).get("ENDPOINT") == "$(DGD)-frontend:8000", label + ": ENDPOINT is not <DGD>-frontend:8000")


def v41_page_concurrency():
    """Target folder -> concurrency, from the V4.1 page's Measured Performance table."""
    out = {}
    for line in page_text("deepseek-v4.1-flash").splitlines():
        cols = line.split("\t")
        if len(cols) < 5 or not cols[0].startswith("Agentic"):
            continue
        topology = "agg" if cols[1].startswith("Aggregated") else "disagg"
        out["%s-%s-agentic" % (topology, cols[3].lower())] = int(cols[4])
    assert len(out) == 6, out
    return out


def check_overlays():
    v41 = v41_page_concurrency()
    wanted = {"deepseek-v4-flash/vllm/" + t: c for t, c in V4_CONCURRENCY.items()}
    wanted.update({"deepseek-v4.1-flash/vllm/" + t: c for t, c in v41.items()})
    for recipe, concurrency in sorted(wanted.items()):
        folder = os.path.join(recipe_dir(recipe), "perf")
        p = subprocess.run(["kubectl", "kustomize", folder], capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            failures.append("%s: kubectl kustomize: %s" % (folder, p.stderr))
            continue
        job = load_job(p.stdout)
        with open(recipe_file(recipe)) as f:
            dgd = yaml.safe_load(f)
        env = env_of(job)
        label = os.path.relpath(folder, ROOT)
        check(env["DGD"] == dgd["metadata"]["name"], "%s: DGD %s, the folder's is %s" % (label, env["DGD"],
                                                                                         dgd["metadata"]["name"]))
        check(env["TARGET_MODEL"] == dgd["spec"]["model"]["servedName"],
              "%s: TARGET_MODEL %s, served %s" % (label, env["TARGET_MODEL"], dgd["spec"]["model"]["servedName"]))
        check(env["CONCURRENCY"] == str(concurrency), "%s: CONCURRENCY %s, want %d" % (label, env["CONCURRENCY"],
                                                                                     concurrency))
        term = job["spec"]["template"]["spec"]["affinity"]["podAffinity"][
            "preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
        check(term["labelSelector"]["matchLabels"]["nvidia.com/dynamo-graph-deployment-name"] == env["DGD"],
              label + ": pod affinity names another DGD")
        check_static(label, job)
        print("ok: %s (%s, concurrency %s)" % (label, env["DGD"], env["CONCURRENCY"]))


class Models(http.server.BaseHTTPRequestHandler):
    """/v1/models lists the model from the third request on (a frontend whose workers come up)."""
    calls = 0
    model = ""

    def log_message(self, *a):
        pass

    def do_GET(self):
        Models.calls += 1
        data = [{"id": Models.model}] if Models.calls >= 3 else []
        body = json.dumps({"object": "list", "data": data}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def stub(bin_dir, name, body):
    path = os.path.join(bin_dir, name)
    with open(path, "w") as f:
        f.write("#!/bin/bash\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def run_script(job, tmp, trace_sha, port):
    """The Job's script under bash, with apt-get / pip / aiperf / sleep stand-ins on PATH."""
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    stub(bin_dir, "apt-get", "exit 0")
    stub(bin_dir, "pip", 'echo "$@" >> "%s/pip.log"' % tmp)
    stub(bin_dir, "aiperf", 'printf "%%s\\n" "$@" > "%s/aiperf.args"' % tmp)
    stub(bin_dir, "sleep", "exit 0")  # the script's 5 s between /v1/models polls
    env = {k: v for k, v in env_of(job).items() if v is not None}
    env.update({"PATH": bin_dir + ":" + os.environ["PATH"], "JOB_NAME": "bench", "ENDPOINT": "127.0.0.1:%d" % port,
                "TRACE_FILE": os.path.join(tmp, "trace.jsonl"), "ROOT_ARTIFACT_DIR": os.path.join(tmp, "perf"),
                "TRACE_SHA256": trace_sha, "NUM_REQUESTS": "0"})
    script = container(job)["command"][-1].replace("ulimit -n 600000", "ulimit -n $(ulimit -Hn)")
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)


def check_script(label, job):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.jsonl")
        with open(trace, "w") as f:
            for i in range(5):
                f.write(json.dumps({"timestamp": i, "input_length": 64000, "output_length": 400}) + "\n")
        digest = subprocess.run(["sha256sum", trace], capture_output=True, text=True).stdout.split()[0]
        Models.model = env_of(job)["TARGET_MODEL"]
        Models.calls = 0
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Models)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            port = server.server_address[1]
            p = run_script(job, tmp, "0" * 64, port)
            check(p.returncode != 0 and "want " + "0" * 64 in p.stderr and not os.path.exists(tmp + "/aiperf.args"),
                  "%s: a trace with another checksum was not refused: %s%s" % (label, p.stdout, p.stderr))
            p = run_script(job, tmp, digest[:8] + "*" + digest[-4:], port)
            check(p.returncode == 0, "%s: script failed: %s%s" % (label, p.stdout, p.stderr))
            check(Models.calls >= 3, "%s: aiperf ran before /v1/models listed the model" % label)
            with open(tmp + "/aiperf.args") as f:
                args = f.read().split("\n")[:-1]
            check(args[:1] == ["profile"], "%s: ran aiperf %s" % (label, args[:1]))
            flags = flags_of(args[1:])
            check(set(flags) == set(UPSTREAM_FLAGS), "%s: aiperf ran with %s" % (label, sorted(flags)))
            check(flags.get("--num-requests") == "5", "%s: NUM_REQUESTS=0 replays %s requests, the trace has 5" % (
                label, flags.get("--num-requests")))
            check(flags.get("-m") == Models.model, label + ": aiperf -m is not TARGET_MODEL")
            with open(tmp + "/pip.log") as f:
                pips = f.read()
            check(all(pin in pips for pin in UPSTREAM_PINS), label + ": pip installed " + pips)
            print("ok: %s runs aiperf after /v1/models, refuses a changed trace" % label)
        finally:
            server.shutdown()
            server.server_close()


def main():
    for family, path in PERF_FILES.items():
        with open(os.path.join(ROOT, path)) as f:
            job = load_job(f.read())
        check_static(path, job)
        check_script(path, job)
    check_overlays()
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
