#!/usr/bin/env python3
"""The default policy at small budgets on the converted brute-force
recordings: a source whose evaluation costs seconds (SGEMM_CUDA's kernel 10:
5 s, plus a 12-15 s compile) gets 20 to 50 evaluations from a BUDGET, not
200. Prints, per space and evaluation cap, the mean distance from the
optimum (best recorded / best found; 1.000 is the optimum) over the seeds,
and how many seeds ended within 5%.

    bench/kt_replay/low_budget.py TOOL LOGDIR [--seeds 10] [--caps 25,50,200] [--json OUT] [--spaces A,B]

LOGDIR holds the `<space>.log.json` files `convert.py` writes (by default
the five of spaces.txt; --spaces names others, such as held-out recordings
of other GPUs)."""
import argparse
import json
import os
import subprocess
import sys

SPACES = ["pnpoly_RTX3090", "convolution_RTX3090", "gemm_RTX3090", "dedispersion_A100", "convolution_A100"]


def replay(tool, log, seeds, cap):
    out = subprocess.run([tool, "policy", "replay", "--results", log, "--policy", "default", "--policy-seeds", str(seeds),
                          "--max-evals", str(cap), "--json"], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    dist = [r["recorded_best"] / s["best"] if s["best"] > 0 else float("inf") for s in r["seeds"]]
    return {"distance": sum(dist) / len(dist), "band": sum(d <= 1.05 for d in dist), "seeds": len(dist),
            "fell_back": r["fell_back_to_default"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("logdir")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--caps", default="25,50,200")
    ap.add_argument("--json")
    ap.add_argument("--spaces", default=",".join(SPACES))
    a = ap.parse_args()
    caps = [int(c) for c in a.caps.split(",")]
    table = {}
    print("| space | " + " | ".join(f"{c} evaluations" for c in caps) + " |")
    print("|---|" + "---|" * len(caps))
    for space in a.spaces.split(","):
        log = os.path.join(a.logdir, space + ".log.json")
        if not os.path.exists(log):
            print(f"{space}: no {log}", file=sys.stderr)
            continue
        table[space] = {c: replay(a.tool, log, a.seeds, c) for c in caps}
        cells = [f"{table[space][c]['distance']:.3f}, {table[space][c]['band']}/{table[space][c]['seeds']}" for c in caps]
        print(f"| {space} | " + " | ".join(cells) + " |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
