#!/usr/bin/env python3
"""The default policy replayed on recorded landscapes: per landscape and
number of evaluations, the mean distance from the landscape's best (its
recorded best over the mean of the seeds' bests; 1.000 is the best) and the
seeds within the band (BAND, default 0.02) of it; REPLAY_ARGS: more
`policy replay` options (a GPU run's conditions). No GPU.

  replay_table.py KERNELBLASTER SEEDS EVALS... -- LANDSCAPE.json...
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def replay(tool, land, seeds, evals):
    out = subprocess.run([tool, "policy", "replay", "--results", land, "--policy", "default", "--policy-seeds", seeds,
                          "--max-evals", str(evals), "--band", os.environ.get("BAND", "0.02"), "--json"]
                         + os.environ.get("REPLAY_ARGS", "").split(),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    tool, seeds = sys.argv[1], sys.argv[2]
    cut = sys.argv.index("--")
    evals = [int(x) for x in sys.argv[3:cut]]
    lands = sys.argv[cut + 1:]
    jobs = [(land, n) for land in lands for n in evals]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        reports = list(pool.map(lambda j: replay(tool, j[0], seeds, j[1]), jobs))
    cell = {job: r for job, r in zip(jobs, reports)}
    print("| landscape | " + " | ".join(str(n) for n in evals) + " |")
    print("|---|" + "---|" * len(evals))
    for land in lands:
        cells = [f"{cell[(land, n)]['recorded_best'] / cell[(land, n)]['mean_best']:.3f}, "
                 f"{cell[(land, n)]['seeds_reaching_band']}/{seeds}" for n in evals]
        print(f"| {os.path.basename(land).replace('.log.json', '').replace('.json', '')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
