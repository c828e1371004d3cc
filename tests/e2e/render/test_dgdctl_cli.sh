#!/bin/bash
# dgdctl as users run it: files and stdin, -o yaml|json, exit codes, and the kubectl
# plugin form `kubectl dgd ...` (kubectl-dgd, made by the build next to dgdctl).
set -euo pipefail
SRC="${DGD_SOURCE_DIR:?}"
DGDCTL="${DGDCTL:?}"
BUILD="$(dirname "$DGDCTL")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
R="$SRC/recipes/deepseek-v4.1-flash/vllm/disagg-h200-agentic/deploy.yaml"

# kubectl plugin: same bytes as dgdctl.
"$DGDCTL" render -f "$R" >"$TMP/direct.yaml"
if PATH="$BUILD:$PATH" kubectl dgd render -f "$R" >"$TMP/plugin.yaml" 2>"$TMP/err"; then
  cmp -s "$TMP/direct.yaml" "$TMP/plugin.yaml" && ok "kubectl dgd render" || fail "kubectl dgd render differs from dgdctl"
else
  fail "kubectl dgd render: $(cat "$TMP/err")"
fi
PATH="$BUILD:$PATH" kubectl plugin list 2>/dev/null | grep -q "kubectl-dgd" && ok "kubectl plugin list finds kubectl-dgd" \
  || fail "kubectl plugin list does not show kubectl-dgd"

# stdin equals file; output is deterministic.
"$DGDCTL" render -f - <"$R" >"$TMP/stdin.yaml"
cmp -s "$TMP/direct.yaml" "$TMP/stdin.yaml" && ok "render from stdin" || fail "render from stdin differs"
"$DGDCTL" render -f "$R" | cmp -s - "$TMP/direct.yaml" && ok "render is deterministic" || fail "two renders differ"

# -o json: a v1 List of the same objects the YAML holds, readable by kubectl.
"$DGDCTL" render -f "$R" -o json >"$TMP/list.json"
kind="$(jq -r .kind "$TMP/list.json")"; n="$(jq '.items | length' "$TMP/list.json")"
ny="$(grep -c '^---$' "$TMP/direct.yaml")"
[[ "$kind" == List && "$n" == "$ny" ]] && ok "render -o json is a List of $n objects" || fail "render -o json: kind=$kind items=$n yaml docs=$ny"
/usr/bin/python3 - "$TMP/direct.yaml" "$TMP/list.json" <<'PY' && ok "YAML and JSON outputs hold the same objects (YAML 1.1 reader)" || fail "YAML and JSON outputs differ"
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
items = json.load(open(sys.argv[2]))["items"]
sys.exit(0 if docs == items else 1)
PY

# validate: 0 and a message for a valid DGD; 1 with field paths for an invalid one.
"$DGDCTL" validate -f "$R" >"$TMP/out" && grep -q "is valid" "$TMP/out" && ok "validate accepts a recipe" || fail "validate rejected a recipe"
cat >"$TMP/bad.yaml" <<'YAML'
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: bad}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    replicas: -1
    engine:
      speculative: {numSpeculativeTokens: 99}
YAML
rc=0; "$DGDCTL" validate -f "$TMP/bad.yaml" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 1 ]] && grep -q "spec.components\[0\].replicas" "$TMP/err" && grep -q "numSpeculativeTokens" "$TMP/err" \
  && ok "validate reports every problem with its path (exit 1)" || { fail "validate of an invalid DGD: rc=$rc"; cat "$TMP/err"; }
rc=0; "$DGDCTL" render -f "$TMP/bad.yaml" >"$TMP/out" 2>/dev/null || rc=$?
[[ $rc == 1 && ! -s "$TMP/out" ]] && ok "render refuses an invalid DGD" || fail "render of an invalid DGD: rc=$rc"

# SGLang on H200: the catalog says there is none and what to use.
cat >"$TMP/sglang-h200.yaml" <<'YAML'
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: s}
spec: {recipe: deepseek-v4.1-flash/sglang/agg-h200}
YAML
rc=0; "$DGDCTL" validate -f "$TMP/sglang-h200.yaml" 2>"$TMP/err" >/dev/null || rc=$?
[[ $rc == 1 ]] && grep -q "spec.recipe: there is no SGLang recipe for H200" "$TMP/err" && ok "no SGLang recipe for H200" \
  || { fail "SGLang H200 message"; cat "$TMP/err"; }
rc=0; "$DGDCTL" recipes show deepseek-v4.1-flash/sglang/disagg-b200 >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc == 1 ]] && grep -q "no SGLang recipe for B200" "$TMP/err" && ok "recipes show explains a missing SGLang B200 recipe" || fail "recipes show sglang b200"

# recipes list / show.
"$DGDCTL" recipes list | grep -q "deepseek-v4-flash/vllm/disagg-h200-agentic *28 " && ok "recipes list" || fail "recipes list"
[[ "$("$DGDCTL" recipes list -o json | jq length)" == 12 ]] && ok "recipes list -o json" || fail "recipes list -o json"
"$DGDCTL" recipes show deepseek-v4.1-flash/vllm/agg-b200-agentic | cmp -s - "$SRC/recipes/deepseek-v4.1-flash/vllm/agg-b200-agentic/deploy.yaml" \
  && ok "recipes show prints the recipe file" || fail "recipes show"

# expand: the upstream form has explicit args and no typed blocks, and renders the same pods.
cat >"$TMP/user.yaml" <<'YAML'
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: mine, namespace: team}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    replicas: 2
YAML
"$DGDCTL" expand -f "$TMP/user.yaml" -o json >"$TMP/up.json"
dgd="$(jq '.items[] | select(.kind=="DynamoGraphDeployment")' "$TMP/up.json")"
[[ "$(jq -r '.spec | has("recipe") or has("model") or has("placement")' <<<"$dgd")" == false ]] \
  && [[ "$(jq -r '[.spec.components[] | has("engine") or has("router")] | any' <<<"$dgd")" == false ]] \
  && [[ "$(jq -r '.spec.components[] | select(.name=="DecodeWorker") | .podTemplate.spec.containers[0].args[1]' <<<"$dgd")" == dynamo.vllm ]] \
  && [[ "$(jq -r '.spec.components[] | select(.name=="DecodeWorker") | .replicas' <<<"$dgd")" == 2 ]] \
  && ok "expand prints an upstream DGD with explicit args" || fail "expand output: $dgd"
jq '.items[] | select(.kind=="DynamoGraphDeployment")' "$TMP/up.json" >"$TMP/up-dgd.json"
"$DGDCTL" render -f "$TMP/up-dgd.json" | awk '/^kind: Deployment/,0' >"$TMP/a"
"$DGDCTL" render -f "$TMP/user.yaml" | awk '/^kind: Deployment/,0' >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" && ok "the expanded DGD renders the same Deployments" || fail "expanded DGD renders differently"

# Unreadable input and bad YAML: clear message, exit 1, no crash.
rc=0; "$DGDCTL" render -f "$TMP/missing.yaml" 2>"$TMP/err" || rc=$?
[[ $rc == 1 ]] && grep -q "the path \"$TMP/missing.yaml\" does not exist" "$TMP/err" && ok "missing file" || fail "missing file: rc=$rc"
printf 'kind: [unclosed\n' >"$TMP/broken.yaml"
rc=0; "$DGDCTL" validate -f "$TMP/broken.yaml" 2>"$TMP/err" || rc=$?
[[ $rc == 1 && -s "$TMP/err" ]] && ok "broken YAML" || fail "broken YAML: rc=$rc"

(( fails == 0 )) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
