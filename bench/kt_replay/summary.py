#!/usr/bin/env python3
"""Sums up bench/kt_replay runs: per recording and strategy, over seeds,
the mean distance from the optimum after --evals evaluations (best time
found / best time recorded, 1.000 = the optimum), how many seeds came within
5% of the optimum, and the mean evaluations they needed (a seed that never
did counts --evals + 1).

  summary.py WORK RESULTS_DIR [--evals 200]
"""
import argparse
import glob
import json
import os
import statistics


def kt_rows(work, name, evals):
    path = os.path.join(work, f"{name}.kt-runs.json")
    if not os.path.exists(path):
        return []
    cache = json.load(open(os.path.join(work, f"{name}.kt.json")))["cache"]
    opt = min(v["time"] for v in cache.values() if isinstance(v.get("time"), (int, float)))
    runs = json.load(open(path))["runs"]
    by = {}
    for r in runs:
        best, to_band = float("inf"), None
        for n, t in enumerate(r["times"][:evals], 1):
            if t is not None and t < best:
                best = t
            if to_band is None and best <= opt / 0.95:
                to_band = n
        by.setdefault(r["strategy"], []).append((best / opt, to_band, r["seconds"], r["error"]))
    return [("Kernel Tuner " + s, v) for s, v in by.items()]


def our_rows(work, name):
    rows = []
    for path in sorted(glob.glob(os.path.join(work, f"{name}.ours-*.json"))):
        policy = path.rsplit(".ours-", 1)[1][:-5]
        try:
            rep = json.load(open(path))
        except (ValueError, OSError):
            rows.append((f"kernelblaster {policy}", [(float("inf"), None, 0, "no report")]))
            continue
        opt = rep["recorded_best"]
        t = open(path[:-5] + ".time").read().split() if os.path.exists(path[:-5] + ".time") else ["0"]
        secs = float(t[0]) / max(1, len(rep["seeds"]))
        note = "fell back to the default" if rep.get("fell_back_to_default") else ""
        rows.append((f"kernelblaster {policy}",
                     [(opt / s["best"], s["evaluations_to_band"], secs, note) for s in rep["seeds"]]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("results")
    ap.add_argument("--evals", type=int, default=200)
    a = ap.parse_args()
    names = [l.split()[0] for l in open(os.path.join(os.path.dirname(__file__), "spaces.txt"))
             if l.strip() and not l.startswith("#")]
    out = {"evals": a.evals, "spaces": {}}
    md = [f"# Replay on brute-force recordings: {a.evals} evaluations, 5% band\n",
          "Distance: best time found / best time recorded (1.000 is the optimum), mean over seeds. "
          "Band: seeds within 5% of the optimum; evals: mean evaluations to get there "
          f"(a seed that never did counts {a.evals + 1}). s/run: wall seconds per seeded run.\n"]
    for name in names:
        log = os.path.join(a.work, f"{name}.log.json")
        size = json.load(open(log))["space_size"] + 1 if os.path.exists(log) else 0
        md.append(f"\n## {name} ({size} configurations)\n")
        md.append("| strategy | distance | band | evals to band | s/run | note |\n|---|---|---|---|---|---|")
        rows = kt_rows(a.work, name, a.evals) + our_rows(a.work, name)
        out["spaces"][name] = {}
        for strategy, seeds in sorted(rows, key=lambda r: statistics.mean(x[0] for x in r[1])):
            dist = statistics.mean(x[0] for x in seeds)
            reached = sum(x[1] is not None for x in seeds)
            to_band = statistics.mean(x[1] if x[1] is not None else a.evals + 1 for x in seeds)
            secs = statistics.mean(x[2] for x in seeds)
            notes = sorted({x[3] for x in seeds if x[3]})
            out["spaces"][name][strategy] = {"mean_distance": dist, "seeds_in_band": reached, "seeds": len(seeds),
                                             "mean_evals_to_band": to_band, "seconds_per_run": secs, "notes": notes}
            md.append(f"| {strategy} | {dist:.3f} | {reached}/{len(seeds)} | {to_band:.0f} | {secs:.2f} | "
                      f"{'; '.join(n[:60] for n in notes)} |")
    os.makedirs(a.results, exist_ok=True)
    json.dump(out, open(os.path.join(a.results, "summary.json"), "w"), indent=1)
    open(os.path.join(a.results, "summary.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
