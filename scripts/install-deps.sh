#!/usr/bin/env bash
# Installs every package the project needs to build, test, benchmark and run the
# demo, from Debian's repositories only. Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  cmake make g++ ninja-build ccache pkg-config
  libcpprest-dev libboost-dev libssl-dev openssl
  nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev zlib1g-dev  # kube-sim: Kubernetes protobuf bodies (tests/kubesim/protobuf/), SPDY headers (portforward/)
  python3 python3-kubernetes python3-yaml
  python3-prometheus-client python3-cryptography  # tests: the operator's /metrics parsed; test certificates
  lua5.1    # tests: the Argo CD health script of docs/gitops.md (Argo CD runs Lua 5.1)
  libre2-dev  # kube-sim: CRD `pattern`s with Go's regexp (RE2) semantics
  curl procps
  jq util-linux  # tests: the benchmark Job's script (jq); the seed-page replay's private network namespace (unshare)
  # tests: the server-side apply referee (tests/referees/ssa) builds with Debian's Go and the
  # libraries kube-apiserver applies with; the imports it makes directly are listed
  golang-1.19-go golang-k8s-sigs-structured-merge-diff-dev golang-k8s-kube-openapi-dev
  golang-github-googleapis-gnostic-dev golang-gopkg-yaml.v2-dev golang-k8s-sigs-yaml-dev
  golang-github-evanphx-json-patch-dev
  # tests: the chart renderer (deploy/tools/chart-render) on Helm's template libraries
  golang-github-masterminds-sprig-dev golang-github-gobwas-glob-dev golang-github-xeipuuv-gojsonschema-dev
  golang-github-masterminds-semver-dev golang-github-asaskevich-govalidator-dev
)
# kube-sim's CEL evaluator (tests/kubesim/crd/cel) runs under Node.js; the machine image
# has Node.js 20 with npm, Debian's packages are the fallback.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
if [ "${DGD_WITH_CLANG:-0}" = 1 ]; then
  packages+=(clang libclang-rt-14-dev)
fi
# make names: clang-tidy's naming check (run-clang-tidy) over a clang compile database.
if [ "${DGD_WITH_CLANG_TIDY:-0}" = 1 ]; then
  packages+=(clang clang-tidy)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The CEL evaluator's npm packages, pinned by its package-lock.json.
cel_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/kubesim/crd/cel"
if [ ! -f "$cel_dir/node_modules/@marcbachmann/cel-js/package.json" ]; then
  echo "install-deps: npm ci in $cel_dir"
  (cd "$cel_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

# tests: Prometheus' PromQL grammar, which checks the dashboards' queries, pinned by its package-lock.json.
promql_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/e2e/operator/promql"
if [ ! -f "$promql_dir/node_modules/@prometheus-io/lezer-promql/package.json" ]; then
  echo "install-deps: npm ci in $promql_dir"
  (cd "$promql_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

# kubectl v1.32 (with kustomize) is part of the machine, not a Debian package:
# the e2e tests need it, and kube-sim's build takes Kubernetes' protobuf descriptors
# from it (without it kube-sim answers protobuf bodies 415), so say so plainly when it is absent.
if ! command -v kubectl >/dev/null 2>&1; then
  echo "install-deps: WARNING: kubectl not found on PATH; the kubectl-driven e2e tests will fail" >&2
fi
