#!/usr/bin/env bash
# Builds the local cluster's programs from their Go modules into a cache keyed by what
# they are built from, and prints the cache's bin directory as its last line.
#
#   kubernetes/  kube-apiserver kube-controller-manager kube-scheduler kubectl
#   etcd/        etcd
#   kwok/        kwok
#
# Each folder is a Go module of its own (go.mod and go.sum committed, nothing vendored)
# whose `tool` lines name the commands. A module's key is the hash of its go.mod, go.sum,
# this script and the Go version; a key already in the cache is not rebuilt, so the cache
# (DGD_TOOLCHAIN_CACHE, default ~/.cache/dgd-operator/toolchain) survives `make clean` and
# a second checkout shares it. Everything comes from the Go module proxy.
# Usage: build.sh [module...]   (default: every module)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${DGD_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dgd-operator/toolchain}"
MODULES=("$@")
[ ${#MODULES[@]} -gt 0 ] || MODULES=(kubernetes etcd kwok)
command -v go >/dev/null || { echo "toolchain: go is not installed (Go 1.26 is needed)" >&2; exit 1; }
GO_VERSION="$(go env GOVERSION)"
KEYS=()
mkdir -p "$CACHE"
# One build at a time per cache: tests started together wait for the first one's build.
exec 9>"$CACHE/.lock"
flock 9

# The version a module pins for $1 (from its go.mod), for the ldflags.
pinned() { awk -v m="$1" '$1==m && $2 ~ /^v/ {print $2; exit} $1=="require" && $2==m {print $3; exit}' go.mod; }

ldflags_for() {
  case "$1" in
    kubernetes)
      local v; v="$(pinned k8s.io/kubernetes)"
      local minor="${v#v1.}"; minor="${minor%%.*}"
      local f="-s -w"
      # Without these every binary reports v0.0.0-master, and tools that read --version
      # choose their flags from it.
      for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        f+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
      done
      echo "$f" ;;
    etcd)
      echo "-s -w" ;;
    kwok)
      echo "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$(pinned sigs.k8s.io/kwok)" ;;
  esac
}

for m in "${MODULES[@]}"; do
  dir="$HERE/$m"
  [ -f "$dir/go.mod" ] || { echo "toolchain: no module $m" >&2; exit 1; }
  key="$(cat "$dir/go.mod" "$dir/go.sum" "$HERE/build.sh" <(echo "$GO_VERSION") | sha256sum | cut -c1-16)"
  out="$CACHE/$m-$key"
  if [ ! -f "$out/.done" ]; then
    echo "toolchain: building $m (key $key) into $out" >&2
    start=$SECONDS
    rm -rf "$out.tmp" && mkdir -p "$out.tmp"
    (cd "$dir" && tools="$(go mod edit -json | python3 -c 'import json,sys; print(" ".join(t["Path"] for t in json.load(sys.stdin).get("Tool") or []))')"
     # shellcheck disable=SC2086
     CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -ldflags "$(ldflags_for "$m")" -o "$out.tmp/" $tools)
    # etcd's main package is its module root, go.etcd.io/etcd/server/v3: go names it "server".
    if [ "$m" = etcd ] && [ -f "$out.tmp/server" ]; then mv "$out.tmp/server" "$out.tmp/etcd"; fi
    touch "$out.tmp/.done"
    rm -rf "$out" && mv "$out.tmp" "$out"
    echo "toolchain: $m built in $((SECONDS - start)) s" >&2
  fi
  KEYS+=("$m-$key")
done
# One directory of links per set of keys, so checkouts that pin other versions share the
# cache without changing each other's programs.
BIN="$CACHE/bin-$(echo "${KEYS[*]}" | sha256sum | cut -c1-16)"
if [ ! -d "$BIN" ]; then
  mkdir -p "$BIN.tmp"
  for k in "${KEYS[@]}"; do for b in "$CACHE/$k"/*; do ln -sfn "$b" "$BIN.tmp/$(basename "$b")"; done; done
  rm -rf "$BIN" && mv "$BIN.tmp" "$BIN"
fi
echo "$BIN"
