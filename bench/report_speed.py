#!/usr/bin/env python3
"""Issue 29's speed target: `kernelblaster report` under 1 s for a
1,000-evaluation tuning log and a 184-problem directory run. Both inputs are
made from the real fixtures (tests/report/fixtures), repeated: the log's
evaluations cycled to 1,000, the directory's three problems copied to 184.

    python3 bench/report_speed.py build/tool/src/cli/kernelblaster [--repeat 5]

Prints the best and the median wall time of each over the repeats.
"""
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "report", "fixtures")


def timed(tool, path, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([tool, "report", path, "--json"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main():
    tool = sys.argv[1]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
    with tempfile.TemporaryDirectory() as tmp:
        log = json.load(open(os.path.join(FIXTURES, "tune", "rmsnorm-h200.log.json")))
        evals = log["evaluations"]
        big = []
        for i in range(1000):
            e = copy.deepcopy(evals[i % len(evals)])
            e["n"] = i + 1
            e["at_s"] = 3.2 * (i + 1)
            big.append(e)
        log["evaluations"] = big
        path = os.path.join(tmp, "big.log.json")
        json.dump(log, open(path, "w"))
        best, med = timed(tool, path, repeat)
        print(f"tuning log, 1000 evaluations: best {best:.3f} s, median {med:.3f} s (target < 1 s)")
        d = os.path.join(tmp, "dir")
        runs = sorted(os.listdir(os.path.join(FIXTURES, "optimize-dir")))
        for i in range(184):
            shutil.copytree(os.path.join(FIXTURES, "optimize-dir", runs[i % len(runs)]), os.path.join(d, f"{i:03d}_{runs[i % len(runs)]}"))
        best, med = timed(tool, d, repeat)
        print(f"directory run, 184 problems: best {best:.3f} s, median {med:.3f} s (target < 1 s)")


if __name__ == "__main__":
    main()
