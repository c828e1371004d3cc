#!/usr/bin/env bash
# Builds chart-render (this directory) into OUT with Debian's Go and Go library packages
# in GOPATH mode: no module download. scripts/install-deps.sh installs them.
#   deploy/tools/chart-render/build.sh OUT
set -euo pipefail
out="${1:?usage: build.sh OUT}"
src="$(cd "$(dirname "$0")" && pwd)"
go=/usr/lib/go-1.19/bin/go
[ -x "$go" ] || { echo "build.sh: $go missing: run scripts/install-deps.sh" >&2; exit 1; }
gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src"
ln -s "$src" "$gopath/src/chart-render"
export GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS="" CGO_ENABLED=0
export GOCACHE="${GOCACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/go-build}"
mkdir -p "$(dirname "$out")"
cd "$gopath/src/chart-render"
"$go" build -o "$out.tmp.$$" chart-render
mv -f "$out.tmp.$$" "$out"
