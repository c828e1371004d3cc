#!/usr/bin/python3
"""A small OpenAI-compatible stand-in for a Dynamo frontend, for the serving tests.

It answers POST /v1/chat/completions (and GET /v1/models) the way a frontend does in each
failure mode the recipe pages describe, chosen per model (or a default) at start or by an
admin call:

  ready      content "READY", reasoning_content, finish_reason "stop"
  reasoning  reasoning only: content null, finish_reason "length", completion tokens = max_tokens
  empty      HTTP 200, content null, zero completion tokens (disaggregated KV-transfer failure)
  error500   HTTP 500 {"error": {...}}
  error503   HTTP 503 {"error": {...}} (no worker for the model)
  slow       "READY" after `delay` seconds
  hang       never answers (until the server stops)
  notfound   HTTP 404 for any model (as for a wrong model name)

Admin (JSON bodies):
  POST /admin/mode      {"mode": M, "model": "name" (optional: default mode), "delay": seconds}
  GET  /admin/requests  {"total": n, "byModel": {name: n}, "last": <last request body>}

Usage: openai_standin.py [--port 0] [--port-file F] [--mode ready] [--delay 2]
The chosen port is written to --port-file (atomically) once the server listens.
Runs under /usr/bin/python3 (standard library only).
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ("ready", "reasoning", "empty", "error500", "error503", "slow", "hang", "notfound")


class State:
    def __init__(self, mode, delay):
        self.lock = threading.Lock()
        self.default = {"mode": mode, "delay": delay}
        self.per_model = {}
        self.total = 0
        self.by_model = {}
        self.last = None
        self.stopping = threading.Event()

    def mode_for(self, model):
        with self.lock:
            return dict(self.per_model.get(model, self.default))

    def count(self, model, body):
        with self.lock:
            self.total += 1
            self.by_model[model] = self.by_model.get(model, 0) + 1
            self.last = body


def completion(model, content, reasoning, finish, completion_tokens, prompt_tokens=12):
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "openai-standin/1"

    def log_message(self, fmt, *args):  # quiet; tests read /admin/requests
        pass

    def reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return None

    def do_GET(self):
        st = self.server.state
        if self.path == "/admin/requests":
            with st.lock:
                return self.reply(200, {"total": st.total, "byModel": st.by_model, "last": st.last})
        if self.path == "/v1/models":
            return self.reply(200, {"object": "list", "data": []})
        if self.path in ("/health", "/healthz"):
            return self.reply(200, {"status": "healthy"})
        return self.reply(404, {"error": {"message": "not found: " + self.path}})

    def do_POST(self):
        st = self.server.state
        body = self.read_body()
        if self.path == "/admin/mode":
            if not isinstance(body, dict) or body.get("mode") not in MODES:
                return self.reply(400, {"error": "want {\"mode\": one of %s}" % (MODES,)})
            entry = {"mode": body["mode"], "delay": float(body.get("delay", st.default["delay"]))}
            with st.lock:
                if body.get("model"):
                    st.per_model[body["model"]] = entry
                else:
                    st.default = entry
            return self.reply(200, {"ok": True})
        if self.path != "/v1/chat/completions":
            return self.reply(404, {"error": {"message": "not found: " + self.path}})
        if not isinstance(body, dict) or "messages" not in body:
            return self.reply(400, {"error": {"message": "invalid request body", "type": "BadRequest"}})
        model = str(body.get("model", ""))
        st.count(model, body)
        m = st.mode_for(model)
        mode = m["mode"]
        max_tokens = int(body.get("max_tokens") or 16)
        if mode == "hang":
            st.stopping.wait()
            return
        if mode == "slow":
            if st.stopping.wait(m["delay"]):
                return
            mode = "ready"
        if mode == "ready":
            return self.reply(200, completion(model, "READY", "The user asks for READY.", "stop", 2))
        if mode == "reasoning":
            return self.reply(200, completion(model, None, "Let me think. " * 200, "length", max_tokens))
        if mode == "empty":
            return self.reply(200, completion(model, None, None, "stop", 0))
        if mode == "error500":
            return self.reply(500, {"error": {"message": "engine crashed: CUDA error", "type": "InternalServerError",
                                              "code": 500}})
        if mode == "error503":
            return self.reply(503, {"error": {"message": "no instances of model " + model, "type": "ServiceUnavailable",
                                              "code": 503}})
        if mode == "notfound":
            return self.reply(404, {"error": {"message": "model " + model + " not found", "type": "NotFoundError",
                                              "code": 404}})
        return self.reply(500, {"error": {"message": "unknown mode " + mode}})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", default="")
    ap.add_argument("--mode", default="ready", choices=MODES)
    ap.add_argument("--delay", type=float, default=2.0, help="seconds before a slow answer")
    args = ap.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.state = State(args.mode, args.delay)
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, args.port_file)
    print("openai-standin listening on %s:%d" % (args.host, port), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.state.stopping.set()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
