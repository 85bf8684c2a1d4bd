#!/usr/bin/env python3
"""One line per tuning run of `bench/gpu_session.sh spread`, and the spread.

  spread_summary.py RUN.json RUN.log.json N   the run's verdict, chosen speedup
                                              (re-verified; 1.0 when the original
                                              is kept), configuration, evaluations
                                              and median seconds per evaluation
  spread_summary.py --total RUN.json...       min, max and (max - min) / min of
                                              the chosen speedups
"""
import json
import statistics
import sys


def chosen(summary):
    return summary["speedup"] if summary.get("status") == "tuned" else 1.0


def one(run_json, log_json, n):
    s = json.load(open(run_json))
    try:
        evals = json.load(open(log_json)).get("evaluations", [])
    except (OSError, ValueError):
        evals = []
    measured = [e["eval_s"] for e in evals if e.get("eval_s") and not e.get("duplicate_of")]
    per_eval = statistics.median(measured) if measured else 0.0
    cfg = ",".join(f"{k}={v}" for k, v in sorted(s.get("config", {}).items()))
    flags = " ".join(s.get("flags", []))
    print(f"run {n}: {s.get('status')} {chosen(s):.4f}x (search {s.get('search_speedup', 0):.4f}x) "
          f"{cfg} {flags} | {s.get('evaluations')} evaluations of {s.get('space_size')}, "
          f"median eval {per_eval:.2f} s, phases {json.dumps({k: round(v, 1) for k, v in s.get('phases_s', {}).items()})}")


def total(files):
    xs = [chosen(json.load(open(f))) for f in files]
    lo, hi = min(xs), max(xs)
    print(f"{len(xs)} runs: chosen speedup {lo:.4f}x to {hi:.4f}x, spread (max - min) / min = {100 * (hi - lo) / lo:.2f}%")


if __name__ == "__main__":
    if sys.argv[1] == "--total":
        total(sys.argv[2:])
    else:
        one(sys.argv[1], sys.argv[2], sys.argv[3])
