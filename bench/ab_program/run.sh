#!/usr/bin/env bash
# A program's own figures, original against tuned build, alternating runs so
# drift and noise fall on both alike (issue 38: "measured by the program's own
# timing"). Compiles both sources with the same nvcc line, runs each N times in
# turn (ABAB...), and prints every "name ... Time = X ms" line's median per
# build and the ratio. Run on the GPU machine.
#   bench/ab_program/run.sh ORIGINAL.cu TUNED.cu "NVCC FLAGS" N [ARGS...]
# Example (cuda-samples transpose after the one line's second build):
#   bench/ab_program/run.sh $S/transpose.cu $S/build/kernelblaster_generated/transpose/transpose.cu \
#     "-O3 -arch=sm_90 -I$CS/Common" 15
set -euo pipefail
orig=$1; tuned=$2; flags=$3; n=$4; shift 4
w=$(mktemp -d)
nvcc $flags "$orig" -o "$w/original"
nvcc $flags "$tuned" -o "$w/tuned"
for i in $(seq "$n"); do
  for b in original tuned; do "$w/$b" "$@" | sed "s/^/$b\t/" >> "$w/lines.txt"; done
done
python3 - "$w/lines.txt" <<'P'
import re, statistics, sys
times = {}
for line in open(sys.argv[1]):
    build, text = line.rstrip("\n").split("\t", 1)
    m = re.match(r"\s*(.*?)\s*,.*Time = ([0-9.eE+-]+) ?ms", text)
    if m:
        times.setdefault(m.group(1), {}).setdefault(build, []).append(float(m.group(2)))
print("%-34s %12s %12s %8s" % ("kernel (median of runs)", "original ms", "tuned ms", "ratio"))
total = {"original": 0.0, "tuned": 0.0}
for name, by in times.items():
    o, t = statistics.median(by["original"]), statistics.median(by["tuned"])
    total["original"] += o; total["tuned"] += t
    print("%-34s %12.5f %12.5f %8.3f" % (name[:34], o, t, o / t))
print("%-34s %12.5f %12.5f %8.3f" % ("sum", total["original"], total["tuned"], total["original"] / total["tuned"]))
print("runs per build: %d" % len(next(iter(times.values()))["original"]))
P
rm -rf "$w"
