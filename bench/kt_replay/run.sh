#!/usr/bin/env bash
# Replays kernelblaster's default policy and Kernel Tuner 1.4's strategies on
# five brute-force recordings of real search spaces (4,092 to 17,956
# configurations, from the auto-tuning community's benchmark_hub), 10 seeds
# (LUA_SEEDS=2 for the shipped Lua policies) and 200 evaluations each, and
# writes results/summary.{md,json}.
#
#   bench/kt_replay/run.sh [caches|convert|kt|ours|summary|all]
#   POLICIES=default bench/kt_replay/run.sh ours   the built-in policy alone (after a change to it)
#
# Needs: BENCHMARK_HUB (a git dir or checkout of
# AutoTuningAssociation/benchmark_hub), KT_SRC (Kernel Tuner's sources, tag
# 1.4.0 or later), the Debian packages python3-numpy python3-scipy
# python3-sklearn python3-pandas python3-jsonschema python3-xmltodict, and a
# built kernelblaster (TOOL, default build/tool/src/cli/kernelblaster).
# No GPU: the times are the recordings'.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${WORK:-$ROOT/oss/kt_replay}
TOOL=${TOOL:-$ROOT/build/tool/src/cli/kernelblaster}
SEEDS=${SEEDS:-10}
LUA_SEEDS=${LUA_SEEDS:-2}   # the shipped Lua policies: do they run at this size, and how well
POLICIES=${POLICIES:-all}   # "default": the built-in policy only (seconds instead of 25 minutes)
EVALS=${EVALS:-200}
PY=${PY:-/usr/bin/python3}
STEP=${1:-all}
mkdir -p "$WORK" "$HERE/results"

spaces() { grep -v '^#' "$HERE/spaces.txt" | while read -r name path; do echo "$name|$path"; done; }

caches() {
  : "${BENCHMARK_HUB:?set BENCHMARK_HUB to a benchmark_hub git dir or checkout}"
  spaces | while IFS='|' read -r name path; do
    if [ -f "$BENCHMARK_HUB/$path" ]; then zcat "$BENCHMARK_HUB/$path" > "$WORK/$name.kt.json"
    else git --git-dir="$BENCHMARK_HUB" show "HEAD:$path" | zcat > "$WORK/$name.kt.json"; fi
    echo "$name: $(wc -c < "$WORK/$name.kt.json") bytes"
  done
}
convert() { spaces | while IFS='|' read -r name _; do "$PY" "$HERE/convert.py" "$WORK/$name.kt.json" "$WORK/$name.log.json" --name "$name"; done; }
kt() {
  : "${KT_SRC:?set KT_SRC to the Kernel Tuner source tree}"
  spaces | while IFS='|' read -r name _; do
    "$PY" "$HERE/kt_run.py" --kt "$KT_SRC" "$WORK/$name.kt.json" "$name" --seeds "$SEEDS" --evals "$EVALS" \
      --out "$WORK/$name.kt-runs.json" 2> "$WORK/$name.kt-runs.log"
    tail -1 "$WORK/$name.kt-runs.log"
  done
}
ours() {
  spaces | while IFS='|' read -r name _; do
    local policies=(default)
    [ "$POLICIES" = default ] || policies+=("$ROOT"/policies/*.lua)
    for policy in "${policies[@]}"; do
      p=$(basename "$policy" .lua)
      seeds=$SEEDS; [ "$policy" = default ] || seeds=$LUA_SEEDS
      /usr/bin/time -f "%e s %M KiB" -o "$WORK/$name.ours-$p.time" \
        "$TOOL" policy replay --results "$WORK/$name.log.json" --policy "$policy" --policy-seeds "$seeds" \
        --max-evals "$EVALS" --json > "$WORK/$name.ours-$p.json" 2> "$WORK/$name.ours-$p.err" || true
      echo "$name $p: $(cat "$WORK/$name.ours-$p.time")"
    done
  done
}
summary() { "$PY" "$HERE/summary.py" "$WORK" "$HERE/results" --evals "$EVALS"; }

case "$STEP" in
  caches|convert|kt|ours|summary) "$STEP" ;;
  all) caches; convert; kt; ours; summary ;;
  *) echo "usage: $0 [caches|convert|kt|ours|summary|all]" >&2; exit 2 ;;
esac
