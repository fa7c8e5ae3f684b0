#!/usr/bin/env bash
# Builds the gateway as it was at 671fde8 (the build whose pipeline cost 14 ms of CPU per task,
# bench/RESULTS.md) in a worktree of its own, with the pipeline harness of edecead adapted to it
# (671fde8-harness.diff: import paths, a local startRedisServer, no media copies), so that CPU per
# task can be measured against it in the same session, by the same harness, on the same machine.
#
#   bash bench/baseline/setup-671fde8.sh [dir]        # default dir: /tmp/mediagate-671fde8
#   cd <dir> && BENCH_NODE_ARGS=--max-semi-space-size=16 BENCH_PIPELINE_COPIES=0 \
#     node scripts/with-test-services.mjs node bench/dist/main.js --quick --only=pipeline
#
# The old processes get the V8 flag that every process runs with today (NODE_FLAGS) through
# BENCH_NODE_ARGS; run both sides with the same node binary.
set -euo pipefail
repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
dir="$(realpath -m "${1:-/tmp/mediagate-671fde8}")"
harness=edecead

# a worktree whose directory was deleted is still registered until pruned
git -C "$repo" worktree prune
if [ ! -e "$dir" ]; then
  git -C "$repo" worktree add --detach "$dir" 671fde8
fi
if [ "$(git -C "$dir" rev-parse --short=7 HEAD 2>/dev/null)" != 671fde8 ]; then
  echo "$dir is not a worktree at 671fde8: give another directory" >&2
  exit 1
fi
rm -rf "$dir/bench/src"
git -C "$repo" archive "$harness" bench/src | tar -x -C "$dir"
patch -d "$dir" -p1 --forward < "$repo/bench/baseline/671fde8-harness.diff"
cd "$dir"
pnpm install --frozen-lockfile
pnpm build
echo "built 671fde8 with the harness of $harness in $dir"
