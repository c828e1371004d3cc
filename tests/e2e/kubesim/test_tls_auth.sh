#!/usr/bin/env bash
# --tls: kubectl with the generated admin client certificate; bearer tokens,
# including one added and revoked at run time (a client must see 401 after
# revocation and succeed with the new token); anonymous requests get 401.
set -euo pipefail
source "$(dirname "$0")/../lib/kubesim.sh"
kubesim_start --tls --token static-token=alice:dev,ops

case "$KUBESIM_URL" in https://127.0.0.1:*) ;; *) echo "unexpected URL $KUBESIM_URL"; exit 1 ;; esac
[ "$(kubectl get ns default -o jsonpath='{.status.phase}')" = Active ]
whoami=$(kubectl auth whoami -o jsonpath='{.status.userInfo.username} {.status.userInfo.groups}')
case "$whoami" in "kube-sim-admin "*system:masters*) ;; *) echo "whoami: $whoami"; exit 1 ;; esac

code() { kubesim_curl -s -o /dev/null -w '%{http_code}' "$@"; }
ns="$KUBESIM_URL/api/v1/namespaces/default"
[ "$(code "$ns")" = 401 ]                                            # anonymous
[ "$(code -H 'Authorization: Bearer static-token' "$ns")" = 200 ]
[ "$(code -H 'Authorization: Bearer nope' "$ns")" = 401 ]
body=$(kubesim_curl -s "$ns")
echo "$body" | grep -q '"reason":"Unauthorized"'

# Rotation: a new token works at once; the revoked one is refused.
kubesim_admin tokens POST '{"token":"rotated-1","user":"bob","groups":["team"]}' >/dev/null
[ "$(code -H 'Authorization: Bearer rotated-1' "$ns")" = 200 ]
kubesim_admin tokens/rotated-1 DELETE >/dev/null
[ "$(code -H 'Authorization: Bearer rotated-1' "$ns")" = 401 ]

# The request log names the users.
users=$(kubesim_admin requests | /usr/bin/python3 -c 'import json,sys; print(" ".join(sorted({i["user"] for i in json.load(sys.stdin)["items"]})))')
case "$users" in *alice*bob*kube-sim-admin*) ;; *) echo "users: $users"; exit 1 ;; esac

# A certificate from another CA is refused at the handshake.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=mallory \
  -keyout "$KUBESIM_DIR/m.key" -out "$KUBESIM_DIR/m.crt" 2>/dev/null
if kubesim_curl -s -o /dev/null --cert "$KUBESIM_DIR/m.crt" --key "$KUBESIM_DIR/m.key" "$ns"; then
  echo "foreign client certificate accepted"; exit 1
fi
echo "tls auth: ok"
