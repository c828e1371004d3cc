#!/usr/bin/env bash
# Runs chart-render (deploy/tools/chart-render) with ARGS, building it first (Go's build
# cache makes a rebuild quick). E.g. regenerate deploy/manifests/install.yaml:
#   deploy/tools/chart-render.sh write-install .
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
"$here/chart-render/build.sh" "$bin/chart-render"
"$bin/chart-render" "$@"
