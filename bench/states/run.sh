#!/usr/bin/env bash
# Issue 40 item 3's data: the state each level-1 problem of the published
# KernelBench-CUDA dataset is classified in, from the counters the profiler
# collects. For every STATES_EVERY-th problem of level1 (default 4: 24
# problems), `eval --kernelbench --profile=full` on the original against
# itself, then `kb classify` on the dominant kernel's metrics. STATES_SHARD=I/K
# takes every K-th of those from the I-th (0-based), so K runs at once cover
# them all in a K-th of the time. One JSON line per problem (problem, status,
# seconds, dominant kernel, metrics, state) in $OUT/states.jsonl (with a shard,
# $OUT/states-I-K.jsonl), so the rules can be worked on and re-run without a GPU
# (bench/states/classify.py); one summary line per problem on stdout.
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
TOOL=${TOOL:-/tmp/kb/bin/kernelblaster}
data=${KERNELBLASTER_KERNELBENCH_DATA:?dataset}
every=${STATES_EVERY:-4}
shard=${STATES_SHARD:-0/1}
i=${shard%/*} k=${shard#*/}
lines="$OUT/states.jsonl"
[ "$k" != 1 ] && lines="$OUT/states-$i-$k.jsonl"
: >"$lines"
ls "$data/level1" | awk -v n="$every" 'NR % n == 1' | awk -v i="$i" -v k="$k" '(NR - 1) % k == i' | while read -r p; do
  w=/tmp/states/$p
  rm -rf "$w" && mkdir -p "$w"
  s=$(date +%s)
  timeout 300 "$TOOL" eval --json --kernelbench "$data/level1/$p" --profile=full --work-dir "$w/work" >"$w/eval.json" 2>"$w/eval.err"
  seconds=$(( $(date +%s) - s ))
  python3 - "$w/eval.json" "$p" "$seconds" "$w/metrics.json" <<'PY' >>"$lines"
import json, sys
path, problem, seconds, metrics_out = sys.argv[1:5]
try:
    d = json.load(open(path))
except ValueError:
    d = {}
kernels = d.get("profile") or []
k = kernels[0] if kernels else {}  # the dominant kernel comes first
metrics = {m: v for m, v in (k.get("metrics") or {}).items() if isinstance(v, (int, float))}
json.dump({"metrics": metrics}, open(metrics_out, "w"))
print(json.dumps({"problem": problem, "status": d.get("status"), "seconds": int(seconds), "kernels": len(kernels),
                  "kernel": k.get("name"), "profile_note": d.get("profile_note"), "metrics": metrics}))
PY
  state=$("$TOOL" kb classify --metrics "$w/metrics.json" --json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin).get('state'))" 2>/dev/null)
  echo "$p: $(python3 -c "import json,sys; l=open(sys.argv[1]).read().splitlines()[-1]; d=json.loads(l); print(d['status'], d['kernels'], 'kernels', len(d['metrics']), 'metrics')" "$lines") state ${state:-?} (${seconds} s)"
done
