# Shell harness for kube-sim. Source it, then:
#   kubesim_start [extra kube-sim args...]
# starts a private kube-sim on a free port and exports KUBECONFIG, KUBECACHEDIR,
# KUBESIM_URL, KUBESIM_DIR and KUBESIM_PID; an EXIT trap stops it (SIGTERM) and
# removes the temp dir. kubesim_admin PATH [METHOD] [BODY] calls an admin endpoint;
# kubesim_curl ARGS... is curl that trusts the server's CA (KUBESIM_CA) under --tls.
# The binary is $KUBE_SIM (set by ctest).

kubesim_stop() {
  if [ -n "${KUBESIM_PID:-}" ] && kill -0 "$KUBESIM_PID" 2>/dev/null; then
    kill -TERM "$KUBESIM_PID" 2>/dev/null || true
    wait "$KUBESIM_PID" 2>/dev/null || true
  fi
  KUBESIM_PID=
  if [ -n "${KUBESIM_DIR:-}" ] && [ -z "${KUBESIM_KEEP:-}" ]; then rm -rf "$KUBESIM_DIR"; fi
}

kubesim_start() {
  local bin="${KUBE_SIM:-}"
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    local root="${DGD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
    for b in build build-kubesim; do
      [ -x "$root/$b/tests/kubesim/kube-sim" ] && bin="$root/$b/tests/kubesim/kube-sim" && break
    done
  fi
  [ -x "$bin" ] || { echo "kubesim_start: kube-sim binary not found (set KUBE_SIM)" >&2; return 1; }
  KUBESIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kubesim-XXXXXX")
  export KUBECONFIG="$KUBESIM_DIR/kubeconfig"
  export KUBECACHEDIR="$KUBESIM_DIR/kube-cache"
  "$bin" --listen 127.0.0.1:0 --kubeconfig-out "$KUBECONFIG" "$@" >"$KUBESIM_DIR/kube-sim.log" 2>&1 &
  KUBESIM_PID=$!
  trap kubesim_stop EXIT
  local i
  for i in $(seq 1 1000); do
    [ -f "$KUBECONFIG" ] && break
    if ! kill -0 "$KUBESIM_PID" 2>/dev/null; then
      echo "kubesim_start: kube-sim exited:" >&2; cat "$KUBESIM_DIR/kube-sim.log" >&2; return 1
    fi
    sleep 0.02
  done
  [ -f "$KUBECONFIG" ] || { echo "kubesim_start: no kubeconfig after 20 s" >&2; return 1; }
  KUBESIM_URL=$(sed -n 's/^ *server: //p' "$KUBECONFIG" | head -1)
  KUBESIM_CA=
  if grep -q 'certificate-authority-data:' "$KUBECONFIG"; then
    KUBESIM_CA="$KUBESIM_DIR/ca.crt"
    sed -n 's/^ *certificate-authority-data: //p' "$KUBECONFIG" | base64 -d >"$KUBESIM_CA"
  fi
  export KUBESIM_URL KUBESIM_DIR KUBESIM_PID KUBESIM_CA
}

# curl against kube-sim (trusting its CA under --tls); extra curl args pass through.
kubesim_curl() {
  if [ -n "${KUBESIM_CA:-}" ]; then curl --cacert "$KUBESIM_CA" "$@"; else curl "$@"; fi
}

kubesim_admin() {
  local path="$1" method="${2:-GET}" body="${3:-}"
  case "$path" in /*) ;; *) path="/sim/v1/$path" ;; esac
  if [ -n "$body" ]; then
    kubesim_curl -fsS -X "$method" -H 'Content-Type: application/json' --data "$body" "$KUBESIM_URL$path"
  else
    kubesim_curl -fsS -X "$method" "$KUBESIM_URL$path"
  fi
}
