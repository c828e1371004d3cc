#!/bin/bash
# Every recipe folder (recipes/[<family>/]<model>/<framework>/<target>/, the paths the recipe
# pages use) builds with `kubectl kustomize`, `dgdctl validate` accepts the output without a
# warning, and `dgdctl render` of it equals the reviewed golden file
# tests/golden/render/<recipe name>.yaml. The support folders (model-cache, perf and the
# per-target benchmark overlays <target>/perf) and the example cluster Kustomization build too, and the cluster
# overlay validates and renders.
set -euo pipefail
SRC="${DGD_SOURCE_DIR:?}"
DGDCTL="${DGDCTL:?}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cd "$SRC/recipes"
targets=()
while IFS= read -r f; do targets+=("$(dirname "$f")"); done < <(
  find . -mindepth 4 -maxdepth 5 \( -name deploy.yaml -o -name deploy-generic.yaml \) | sed 's|^\./||' | sort)
(( ${#targets[@]} == 12 )) || fail "expected 12 recipe folders, found ${#targets[@]}: ${targets[*]}"

for t in "${targets[@]}"; do
  name="$(echo "$t" | awk -F/ '{print $(NF-2) "/" $(NF-1) "/" $NF}')"   # the catalog's name
  out="$TMP/${t//\//_}.yaml"
  if ! kubectl kustomize "$t" >"$out" 2>"$TMP/err"; then
    fail "$t: kubectl kustomize: $(cat "$TMP/err")"; continue
  fi
  if ! "$DGDCTL" validate -f "$out" >"$TMP/vout" 2>"$TMP/verr"; then
    fail "$t: dgdctl validate rejected the kustomize output:"; sed 's/^/    /' "$TMP/verr"; continue
  fi
  if [[ -s "$TMP/verr" ]] || grep -q warning "$TMP/vout"; then
    fail "$t: dgdctl validate printed warnings:"; cat "$TMP/verr" "$TMP/vout" | sed 's/^/    /'
  fi
  if ! "$DGDCTL" render -f "$out" >"$TMP/rendered" 2>"$TMP/rerr"; then
    fail "$t: dgdctl render failed: $(cat "$TMP/rerr")"; continue
  fi
  golden="$SRC/tests/golden/render/$name.yaml"
  if ! diff -u "$golden" "$TMP/rendered" >"$TMP/diff"; then
    fail "$t: dgdctl render differs from $golden:"; head -40 "$TMP/diff" | sed 's/^/    /'
  else
    echo "ok: $t"
  fi
done

for d in deepseek-v4.1-flash/model-cache deepseek-v4.1-flash/perf deepseek-v4.1-flash/vllm/*/perf \
         deepseek-v4/deepseek-v4-flash/model-cache deepseek-v4/perf deepseek-v4/deepseek-v4-flash/vllm/*/perf; do
  if kubectl kustomize "$d" >/dev/null 2>"$TMP/err"; then echo "ok: $d builds"; else fail "$d: $(cat "$TMP/err")"; fi
done

# The example cluster overlay: its placement reaches the rendered pods.
if kubectl kustomize examples/cluster >"$TMP/cluster.yaml" 2>"$TMP/err"; then
  "$DGDCTL" validate -f "$TMP/cluster.yaml" >/dev/null || fail "examples/cluster: dgdctl validate rejected it"
  "$DGDCTL" render -f "$TMP/cluster.yaml" >"$TMP/cluster-children.yaml" || fail "examples/cluster: render failed"
  for want in "cloud.example.com/node-pool: h200-rdma" "nvidia.com/rdma_ib: \"4\"" "value: PCIDEVICE_NVIDIA_COM_RDMA_IB" \
              "storageClassName: shared-nfs" "namespace: dynamo"; do
    grep -qF -- "$want" "$TMP/cluster-children.yaml" || fail "examples/cluster: rendered children lack '$want'"
  done
  echo "ok: examples/cluster"
else
  fail "examples/cluster: $(cat "$TMP/err")"
fi

(( fails == 0 )) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
