#!/usr/bin/env bash
# Issue 40 item 3's data: the state each level-1 problem of the published
# KernelBench-CUDA dataset is classified in, from the counters the profiler
# collects. For every STATES_EVERY-th problem of level1 (default 4: 24
# problems), `eval --kernelbench --profile=full` on the original against
# itself, then `kb classify` on the dominant kernel's metrics. One JSON line
# per problem (problem, status, seconds, dominant kernel, metrics, state) in
# $OUT/states.jsonl, so the rules can be worked on and re-run without a GPU
# (bench/states/classify.py); one summary line per problem on stdout.
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
TOOL=${TOOL:-/tmp/kb/bin/kernelblaster}
data=${KERNELBLASTER_KERNELBENCH_DATA:?dataset}
every=${STATES_EVERY:-4}
: >"$OUT/states.jsonl"
ls "$data/level1" | awk -v n="$every" 'NR % n == 1' | while read -r p; do
  w=/tmp/states/$p
  rm -rf "$w" && mkdir -p "$w"
  s=$(date +%s)
  timeout 300 "$TOOL" eval --json --kernelbench "$data/level1/$p" --profile=full --work-dir "$w/work" >"$w/eval.json" 2>"$w/eval.err"
  seconds=$(( $(date +%s) - s ))
  python3 - "$w/eval.json" "$p" "$seconds" "$w/metrics.json" <<'PY' >>"$OUT/states.jsonl"
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
  echo "$p: $(python3 -c "import json,sys; l=open(sys.argv[1]).read().splitlines()[-1]; d=json.loads(l); print(d['status'], d['kernels'], 'kernels', len(d['metrics']), 'metrics')" "$OUT/states.jsonl") state ${state:-?} (${seconds} s)"
done
