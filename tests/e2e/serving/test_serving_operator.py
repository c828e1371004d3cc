"""The operator's Serving condition against the OpenAI stand-in, reached through kube-sim's
service proxy (--serving-check-via=apiserver-proxy): a disaggregated recipe that is Ready
but not Serving (EmptyContent: KV transfer suspected), then each other outcome as the
frontend changes (ReasoningBudgetExhausted, HTTPError, Timeout, True, Unreachable), the
check run again after a rollout, and no status rewrite while failed checks are retried.
Serving never changes Ready.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from oplib import OperatorEnv, condition, wait_until
from servinglib import MODEL, Standin

NS = "dynamo"
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
FAST_RETRY = ["--serving-check-via=apiserver-proxy", "--serving-check-retry-initial", "0.2",
              "--serving-check-retry-max", "0.5"]


def serving(env, name):
    d = env.dgd(name, NS)
    return condition(d, "Serving") if d else None


def wait_serving(env, name, status, reason, timeout=60):
    def check():
        c = serving(env, name)
        return c if c and c["status"] == status and c["reason"] == reason else None
    try:
        return wait_until("Serving=%s/%s" % (status, reason), check, timeout=timeout)
    except AssertionError:
        raise AssertionError("Serving is %r" % serving(env, name))


def status_writes(env, since):
    return [w for w in env.operator_writes(since=since)
            if w["resource"] == "dynamographdeployments" and w.get("subresource") == "status"]


def events(env, reason):
    return [e for e in env.items("events", NS) if e["reason"] == reason]


def main():
    with Standin(mode="empty") as s, OperatorEnv(profile="h200-4x", operator_args=FAST_RETRY) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.sim.admin("/sim/v1/services/proxy", "POST", {"namespace": NS, "name": name + "-frontend", "url": s.url})
        env.wait_ready(name, NS)

        # --- Ready but not Serving: HTTP 200, content null, zero tokens on a disaggregated graph.
        c = wait_serving(env, name, "False", "EmptyContent")
        assert "KV transfer" in c["message"] and "NVLink clique" in c["message"], c["message"]
        assert env.ready_status(name, NS)["status"] == "True", "Serving must not change Ready"
        assert s.requests()["last"]["model"] == MODEL
        assert s.requests()["last"]["messages"] == [{"role": "user", "content": "Reply with exactly: READY"}]
        warn = wait_until("ServingCheckFailed event", lambda: events(env, "ServingCheckFailed"))
        assert warn[0]["type"] == "Warning" and "EmptyContent" in warn[0]["message"], warn[0]

        # --- retried with back-off, but an unchanged outcome rewrites nothing: two more checks
        # reach the stand-in and the operator handles their outcome (its debug line "serving
        # check again" follows the comparison); no status write since.
        seq = env.last_seq()
        before = s.requests()["total"]
        again = env.operator_log().count("serving check again")
        # The two counts are read one after the other, so a check may fall between them:
        # both must grow by two (retried, and handled).
        wait_until("two more serving checks reach the stand-in and are handled",
                   lambda: s.requests()["total"] >= before + 2
                   and env.operator_log().count("serving check again") >= again + 2)
        assert not status_writes(env, seq), status_writes(env, seq)
        assert serving(env, name)["message"] == c["message"]

        # --- each other diagnosis, as the frontend changes (picked up by the retries).
        s.set_mode("reasoning")
        c = wait_serving(env, name, "False", "ReasoningBudgetExhausted")
        assert "max_tokens 512" in c["message"] and "raise max_tokens" in c["message"], c["message"]
        s.set_mode("error500")
        c = wait_serving(env, name, "False", "HTTPError")
        assert "HTTP 500" in c["message"] and "engine crashed" in c["message"], c["message"]

        # spec.smokeTest is read: a 1 s deadline (a new generation; no rollout needed).
        s.set_mode("hang")
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p",
                    json.dumps({"spec": {"smokeTest": {"timeoutSeconds": 1}}}))
        c = wait_serving(env, name, "False", "Timeout")
        assert "within 1 s" in c["message"], c["message"]

        s.set_mode("ready")
        c = wait_serving(env, name, "True", "SmokeTestPassed")
        assert MODEL in c["message"], c["message"]
        ok = wait_until("ServingCheckPassed event", lambda: events(env, "ServingCheckPassed"))
        assert ok[0]["type"] == "Normal" and "READY" in ok[0]["message"], ok[0]
        # True is not re-checked at rest: a reconcile with nothing to do (a marker annotation)
        # runs to its end and sends no smoke request.
        env.reconcile_now(name, NS)
        seq = env.last_seq()
        before = s.requests()["total"]
        env.reconcile_now(name, NS)
        assert s.requests()["total"] == before, "a passed check is not repeated at rest"
        assert not status_writes(env, seq), status_writes(env, seq)

        # --- a rollout runs the check again (the new pods might be the broken ones).
        s.set_mode("empty")
        gen = env.dgd(name, NS)["metadata"]["generation"]
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p",
                    json.dumps({"spec": {"env": [{"name": "SERVING_TEST_ROLLOUT", "value": "1"}]}}))
        wait_until("rollout of the new generation", lambda: (lambda d: d if d["status"].get("observedGeneration", 0) > gen
                                                              and (condition(d, "Ready") or {}).get("status") == "True"
                                                              else None)(env.dgd(name, NS)), timeout=90)
        wait_serving(env, name, "False", "EmptyContent")
        assert env.ready_status(name, NS)["status"] == "True"

        # --- the Service loses its endpoints: the API server's 503.
        env.sim.admin("/sim/v1/services/proxy", "DELETE", {"namespace": NS, "name": name + "-frontend"})
        c = wait_serving(env, name, "False", "Unreachable")
        assert "no endpoints available" in c["message"], c["message"]
    print("ok")


if __name__ == "__main__":
    main()
