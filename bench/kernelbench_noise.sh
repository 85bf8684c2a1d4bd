#!/usr/bin/env bash
# Where the spread of short KernelBench launchers comes from: each problem is
# evaluated against itself R times in a row (driver object reused), first as
# it is, then with the whole evaluation pinned to one CPU of the GPU's NUMA
# node, or (NOISE_MODES="free noaslr") with address-space randomization off
# for the tool and its driver processes (setarch -R). Prints the
# reference's and the candidate's median per evaluation.
#   [NOISE_MODES="free pinned"] bench/kernelbench_noise.sh TOOL DATA "level2/080_... level2/029_..." [R]
set -uo pipefail
tool=${1:?tool}; data=${2:?dataset}; problems=${3:?problems}; reps=${4:-3}
OUT=${OUT:-bench/out}; mkdir -p "$OUT"
nvidia-smi topo -m 2>&1 | head -4
lscpu | grep -E 'NUMA|Model name|^CPU\(s\)'
cpus=$(nvidia-smi topo -m 2>/dev/null | awk '/^GPU0/{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/ && $i ~ /-/) {print $i; exit}}')
pin=${PIN_CPU:-${cpus%%-*}}; pin=${pin:-2}
echo "pinning to CPU $pin (GPU0 affinity: ${cpus:-unknown})"
for p in $problems; do
  w=/tmp/kbnoise/${p//\//_}
  for mode in ${NOISE_MODES:-free pinned}; do
    for r in $(seq 1 "$reps"); do
      f=$(mktemp)
      case "$mode" in
        pinned) taskset -c "$pin" "$tool" eval --json --kernelbench "$data/$p" --work-dir "$w" >"$f" ;;
        noaslr) setarch "$(uname -m)" -R "$tool" eval --json --kernelbench "$data/$p" --work-dir "$w" >"$f" ;;
        *) "$tool" eval --json --kernelbench "$data/$p" --work-dir "$w" >"$f" ;;
      esac
      python3 - "$f" "$p" "$mode" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("reference_median_us", "median_us", "q1_us", "q3_us", "min_us", "event_median_us", "runs", "kernels_per_run", "sm_clock_mhz")
print(sys.argv[2], sys.argv[3], sys.argv[4], d.get("status"), "speedup %.3f" % (d.get("speedup") or 0),
      [{k: round(t.get(k, 0), 2) for k in keys} for t in d.get("timing", [])], flush=True)
PY
      cat "$f" >>"$OUT/noise.jsonl"; echo >>"$OUT/noise.jsonl"; rm -f "$f"
    done
  done
done 2>&1 | tee "$OUT/noise.log"
