#!/usr/bin/env bash
# What the recording shim costs a program that calls its launcher thousands
# of times with new shapes (issue 72): the same program built with scale.cu
# as it is and with its recording shim in its place, each run plainly
# (nothing records: the shim holds no file and the environment names none),
# and the shim's program run as kernelblaster_generated/record runs it
# (KERNELBLASTER_CAPTURE_DIR set: every new shape recorded). Alternating
# runs, `ROUNDS` of each.
#   bench/shim_cost/run.sh KERNELBLASTER [OUT_DIR]
set -euo pipefail
TOOL=$1
OUT=${2:-${OUT:-bench/out}}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
NVCC=${NVCC:-nvcc}
INCLUDE=$(dirname "$(dirname "$(readlink -f "$TOOL")")")/include
[ -f "$INCLUDE/kernelblaster/capture.h" ] || INCLUDE=$(cd "$HERE/../../tool/include" && pwd)
"$TOOL" capture shim "$HERE/scale.cu" --out "$W/shim" --name bench/scale > /dev/null  # named as the CMake module names it
"$NVCC" -O3 -arch=sm_90 -o "$W/plain" "$HERE/main.cu" "$HERE/scale.cu"
"$NVCC" -O3 -arch=sm_90 -I"$INCLUDE" -I"$HERE" -o "$W/shimmed" "$HERE/main.cu" "$W/shim/scale.capture.cu"
mkdir -p "$OUT" "$W/calls/bench"
: > "$OUT/shim_cost.txt"
for r in $(seq "$ROUNDS"); do
  for prog in plain shimmed; do
    env -u KERNELBLASTER_CAPTURE_FILE -u KERNELBLASTER_CAPTURE_DIR "$W/$prog" | sed "s/^/$prog round $r: /" | tee -a "$OUT/shim_cost.txt"
  done
done
rm -f "$W"/calls/bench/*
KERNELBLASTER_CAPTURE_DIR="$W/calls" "$W/shimmed" 1000 | sed "s/^/shimmed, recording: /" | tee -a "$OUT/shim_cost.txt"
echo "lines recorded: $(cat "$W"/calls/bench/scale.calls.jsonl | wc -l)" | tee -a "$OUT/shim_cost.txt"
python3 - "$OUT/shim_cost.txt" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(plain|shimmed) round \d+: calls \d+  mean ([0-9.]+) us", line)
    if m: rows.setdefault(m.group(1), []).append(float(m.group(2)))
p, s = statistics.median(rows["plain"]), statistics.median(rows["shimmed"])
print(f"median us per call: plain {p:.3f}, shim not recording {s:.3f}: {100 * (s / p - 1):+.2f}%")
PY
rm -rf "$W"
