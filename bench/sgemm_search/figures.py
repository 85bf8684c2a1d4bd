#!/usr/bin/env python3
"""The program's own figures before and after the one line, per kernel and
size, from the folders `run.sh before/after` filled (sgemm_cuda.before.__sgemm_K.txt
and sgemm_cuda.after.__sgemm_K.txt), and each kernel's ratio at 4096
against its exhaustive best where a summary.md of bench/sgemm_exhaustive
names one.

    bench/sgemm_search/figures.py RESULT_DIR... [--exhaustive SUMMARY.md ...]

Prints a Markdown table: kernel, folder, GFLOPS before -> after at 4096 and
the ratio, the ratios at the smaller sizes, the exhaustive best and how far
the one line is from it. A figure line the program did not print (a crash,
a failed cuBLAS check) leaves its size out; a "Failed" line in either file is
reported.
"""
import argparse
import glob
import os
import re
import sys

FIGURE = re.compile(r"\(\s*([0-9.]+)\) GFLOPS\. size: \((\d+)\)")
BEST = re.compile(r"^\| (\d+) \(\w+\) \|.*\| (\d+(?:\.\d+)?)x \| \d+ \(")


def figures(path):
    text = open(path).read()
    return {int(m.group(2)): float(m.group(1)) for m in FIGURE.finditer(text)}, "fail" in text.lower()


def exhaustive_bests(paths):
    best = {}
    for p in paths:
        for line in open(p):
            m = BEST.match(line)
            if m:
                best[int(m.group(1))] = float(m.group(2))
    return best


def rows(dirs, best):
    out = []
    for d in dirs:
        for before_path in sorted(glob.glob(os.path.join(d, "sgemm_cuda.before.__sgemm_*.txt"))):
            kernel = int(re.search(r"__sgemm_(\d+)\.txt$", before_path).group(1))
            after_path = before_path.replace(".before.", ".after.")
            if not os.path.exists(after_path):
                continue
            before, failed_before = figures(before_path)
            after, failed_after = figures(after_path)
            sizes = sorted(set(before) & set(after))
            if not sizes:
                continue
            top = sizes[-1]
            ratio = after[top] / before[top]
            others = " / ".join(f"{after[s] / before[s]:.3f}" for s in sizes[:-1])
            target = best.get(kernel)
            gap = f"{target:.3f}x, {100 * (1 - ratio / target):+.1f}%" if target else "-"
            note = " (a failure printed)" if failed_before or failed_after else ""
            out.append(f"| {kernel} | {os.path.basename(os.path.normpath(d))} | {before[top]:,.0f} -> {after[top]:,.0f} "
                       f"at {top} | {ratio:.3f}{note} | {others} | {gap} |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--exhaustive", nargs="*", default=[])
    a = ap.parse_args()
    table = rows(a.dirs, exhaustive_bests(a.exhaustive))
    if not table:
        print("no before/after figures in " + ", ".join(a.dirs), file=sys.stderr)
        return 1
    print("| kernel | run | GFLOPS before -> after | ratio | ratios at the smaller sizes | exhaustive best, short of it |")
    print("|---|---|---|---|---|---|")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
