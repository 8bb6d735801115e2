#!/usr/bin/env bash
# The contract check over proto/ (run by `pnpm gen:check`): buf lint, then buf breaking against
# main, so a change that would break a caller of the wire contract fails before it lands.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
buf=packages/proto/node_modules/.bin/buf
"$buf" lint proto
# main is a local branch where it is checked out (CI on main, the main checkout and its
# worktrees); a fresh clone of another branch has it as origin/main.
if git show-ref --quiet --verify refs/heads/main; then
  against=branch=main
elif git show-ref --quiet --verify refs/remotes/origin/main; then
  against=ref=refs/remotes/origin/main
else
  echo "proto check: no main to compare with; fetch it (git fetch origin main:main)" >&2
  exit 1
fi
"$buf" breaking proto --against ".git#${against},subdir=proto"
