"""dgdctl smoke against the OpenAI stand-in: every diagnosis and its exit code, first
straight to a URL (as after `kubectl port-forward`), then through kube-sim's service
proxy (as from a laptop with only a kubeconfig).

Exit codes: 0 answer, 1 setup, 3 ReasoningBudgetExhausted, 4 EmptyContent,
6 HTTPError, 7 Timeout, 8 Unreachable.
"""
import json
import os
import socket

from kubesim import KubeSim
from servinglib import MODEL, ROOT, Standin, expect, smoke

NS = "dynamo"
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
DGD = "dsv41-flash-vllm-h200-disagg-agentic"


def refusing_socket():
    """A loopback socket bound and never listening: connects to its port are refused, and
    the port stays this test's while the socket is open."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


def url_only(s):
    """--url and --model: no cluster at all."""
    out = expect(smoke("--url", s.url, "--model", MODEL), 0, "answer:     READY", "result:     Serving")
    assert "tokens:     prompt 12, completion 2" in out, out
    assert "reasoning:  24 characters" in out, out
    # The request is the recipe page's, byte for byte in meaning.
    assert s.requests()["last"] == {"model": MODEL, "messages": [{"role": "user", "content": "Reply with exactly: READY"}],
                                    "temperature": 0, "max_tokens": 512}, s.requests()["last"]
    j = json.loads(expect(smoke("--url", s.url + "/v1", "--model", MODEL, "-o", "json"), 0))
    assert j["diagnosis"] == "Serving" and j["answer"] == "READY" and j["completionTokens"] == 2, j

    s.set_mode("reasoning")
    out = expect(smoke("--url", s.url, "--model", MODEL), 3, "ReasoningBudgetExhausted", "raise max_tokens",
                 "answer:     (empty)", "finish:     length")
    expect(smoke("--url", s.url, "--model", MODEL, "--max-tokens", "4096"), 3, "max_tokens 4096")
    assert s.requests()["last"]["max_tokens"] == 4096

    s.set_mode("empty")
    out = expect(smoke("--url", s.url, "--model", MODEL), 4, "EmptyContent", "zero completion tokens")
    assert "KV transfer" not in out, "no DGD: the topology is unknown, so no KV-transfer blame:\n" + out

    s.set_mode("error500")
    expect(smoke("--url", s.url, "--model", MODEL), 6, "HTTPError", "HTTP 500", "engine crashed")
    s.set_mode("error503")
    expect(smoke("--url", s.url, "--model", MODEL), 6, "HTTP 503", "no instances of model")
    s.set_mode("notfound")
    expect(smoke("--url", s.url, "--model", "wrong/name"), 6, "HTTP 404", "wrong/name")

    s.set_mode("slow", delay=5)
    expect(smoke("--url", s.url, "--model", MODEL, "--timeout", "1"), 7, "Timeout", "within 1 s")
    s.set_mode("hang")
    expect(smoke("--url", s.url, "--model", MODEL, "--timeout", "1"), 7, "Timeout")
    s.set_mode("slow", delay=0.3)
    expect(smoke("--url", s.url, "--model", MODEL, "--timeout", "10"), 0, "READY")

    with refusing_socket() as refusing:
        expect(smoke("--url", "http://127.0.0.1:%d" % refusing.getsockname()[1], "--model", MODEL, "--timeout", "5"), 8,
               "Unreachable", "cannot reach the frontend")
    expect(smoke("--url", "localhost:8000", "--model", MODEL), 1, "--url must start with http")


def with_dgd(s, sim):
    """The DGD in the cluster gives the model name and the topology (disaggregated)."""
    env = sim.env()
    kc = ["--kubeconfig", sim.kubeconfig]
    sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
    sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=30s")
    sim.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}))
    sim.kubectl("apply", "-k", os.path.join(ROOT, "recipes", RECIPE), "-n", NS)
    expect(smoke("no-such-dgd", "-n", NS, *kc, env=env), 1, "cannot read DynamoGraphDeployment dynamo/no-such-dgd")

    s.set_mode("ready")
    expect(smoke(DGD, "-n", NS, "--url", s.url, *kc, env=env), 0, "READY", "model:      " + MODEL)
    assert s.requests()["last"]["model"] == MODEL
    s.set_mode("empty")
    expect(smoke(DGD, "-n", NS, "--url", s.url, *kc, env=env), 4, "disaggregated graph", "KV transfer",
           "NVLink clique", "UCX_NET_DEVICES")

    # --- through the API server's service proxy (no --url).
    # No Service yet: the API server's 404.
    expect(smoke(DGD, "-n", NS, *kc, env=env), 8, "Unreachable", "not found")
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": DGD + "-frontend", "namespace": NS},
           "spec": {"ports": [{"name": "http", "port": 8000}], "selector": {"app": "x"}}}
    sim.kubectl("apply", "-f", "-", input=json.dumps(svc))
    # A Service without endpoints: 503 no endpoints.
    expect(smoke(DGD, "-n", NS, *kc, env=env), 8, "Unreachable", "no endpoints available")
    sim.admin("/sim/v1/services/proxy", "POST", {"namespace": NS, "name": DGD + "-frontend", "url": s.url})
    s.set_mode("ready")
    out = expect(smoke(DGD, "-n", NS, *kc, env=env), 0, "READY")
    assert "/api/v1/namespaces/dynamo/services/%s-frontend:8000/proxy/v1/chat/completions" % DGD in out, out
    s.set_mode("reasoning")
    expect(smoke(DGD, "-n", NS, *kc, env=env), 3, "ReasoningBudgetExhausted")
    s.set_mode("empty")
    expect(smoke(DGD, "-n", NS, *kc, env=env), 4, "KV transfer")
    s.set_mode("error500")
    expect(smoke(DGD, "-n", NS, *kc, env=env), 6, "HTTP 500")
    s.set_mode("error503")
    expect(smoke(DGD, "-n", NS, *kc, env=env), 6, "HTTP 503", "no instances")
    s.set_mode("hang")
    expect(smoke(DGD, "-n", NS, *kc, "--timeout", "1", env=env), 7, "Timeout")
    # The proxied request is in kube-sim's request log as services/proxy.
    proxied = [r for r in sim.requests() if r.get("resource") == "services" and r.get("subresource") == "proxy"]
    assert proxied and all(r["verb"] == "create" for r in proxied), proxied[:3]


def main():
    with Standin() as s:
        url_only(s)
        with KubeSim() as sim:
            with_dgd(s, sim)
    print("ok")


if __name__ == "__main__":
    main()
