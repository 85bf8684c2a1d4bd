#!/usr/bin/env python3
"""Would more processes fix the spread? Reads the output of
bench/kernelbench_noise.sh, pools the per-process medians of each problem
(reference and candidate run the same init.cu, so all are draws of one
quantity), and estimates how often the ratio of two medians-of-k-processes
falls within 1.00 +- 0.03, for k = 1, 3, 5, 7 (bootstrap)."""
import ast, random, statistics, sys
from collections import defaultdict

medians = defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith("level") or "[" not in line:
        continue
    for t in ast.literal_eval(line[line.index("["):]):
        medians[line.split()[0]] += [t["reference_median_us"], t["median_us"]]
random.seed(1)
for k in (1, 3, 5, 7):
    row = []
    for problem, pool in medians.items():
        hits = sum(abs(statistics.median(random.choices(pool, k=k)) /
                       statistics.median(random.choices(pool, k=k)) - 1) <= 0.03 for _ in range(20000))
        row.append(f"{problem.split('/')[1][:12]} {hits / 20000:.2f}")
    print(f"k={k}: " + ", ".join(row))
