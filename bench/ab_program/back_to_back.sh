#!/usr/bin/env bash
# Builds back_to_back.cu with 16 and 8 rows per block and runs the two in turn
# N times (default 5) at each matrix size given (default 1024 4096): one
# launch alone and a burst of 100, per build. Run on the GPU machine.
#   bench/ab_program/back_to_back.sh [N] [SIZES...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-5}; shift || true
sizes=${*:-1024 4096}
w=$(mktemp -d)
for rows in 16 8; do nvcc -O3 -arch=sm_90 -DROWS=$rows "$here/back_to_back.cu" -o "$w/rows$rows"; done
for size in $sizes; do
  for i in $(seq "$n"); do
    for rows in 16 8; do "$w/rows$rows" "$size" | sed "s/^/size=$size /"; done
  done
done | tee "$w/lines.txt"
python3 - "$w/lines.txt" <<'P'
import re, statistics, sys
by = {}
for line in open(sys.argv[1]):
    m = re.match(r"size=(\d+) (\w+) rows=(\d+) alone_us=([\d.]+) burst_us=([\d.]+)", line)
    if m:
        key = (int(m.group(1)), m.group(2))
        by.setdefault(key, {}).setdefault(int(m.group(3)), []).append((float(m.group(4)), float(m.group(5))))
print("%-6s %-10s %10s %10s %8s %10s %10s %8s" % ("size", "kernel", "alone16", "alone8", "ratio", "burst16", "burst8", "ratio"))
for (size, kernel), rows in sorted(by.items()):
    a16 = statistics.median(x[0] for x in rows[16]); a8 = statistics.median(x[0] for x in rows[8])
    b16 = statistics.median(x[1] for x in rows[16]); b8 = statistics.median(x[1] for x in rows[8])
    print("%-6d %-10s %10.3f %10.3f %8.3f %10.3f %10.3f %8.3f" % (size, kernel, a16, a8, a16 / a8, b16, b8, b16 / b8))
P
