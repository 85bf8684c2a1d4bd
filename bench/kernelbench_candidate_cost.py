#!/usr/bin/env python3
"""What one candidate costs in KernelBench-CUDA mode: wall seconds of the
whole `kernelblaster eval --kernelbench P --candidate C` command, one
evaluation at a time, the driver object already built (issue 11's target:
under 15 s per candidate), over any subset of the published dataset.

  kernelbench_candidate_cost.py TOOL [--data DIR] [--out DIR] [--work DIR]
                                     [--only REGEX] [--every N] [--also REGEX]
                                     [--seconds S] [--table-only]

The candidate is init.cu with a comment appended, so it compiles afresh
(its compile overlaps the original's process, as every candidate's does)
and is judged like any other: both processes, calibration and judging.
A problem whose driver object is not built yet in --work (the dataset
benchmark's work directory is the default, so a run of it first builds the
drivers eight at once) is evaluated once to build it, and then the fresh
candidate is timed: builds are never in the figure.

Resumable: each timed problem is a line of OUT/results.jsonl; a rerun skips
those. --every N takes every Nth problem in dataset order (a sample of the
whole), --also adds problems matching a regular expression (the slow
ones). OUT/table.md is rewritten after every run: each problem's wall
seconds and where they went, and how many are under 15 s.
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernelbench_dataset import chosen_problems, find_data, fmt, load_done, problems  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_S = 15.0


def phases(result):
    out = {}
    for p in (result.get("phase_seconds") or []) + (result.get("process_phase_seconds") or []):
        out[p["phase"]] = out.get(p["phase"], 0) + p["seconds"]
    return out


def run_candidate(tool, data, workdir, problem, timeout):
    cand_dir = os.path.join(workdir, "cost-candidates")
    os.makedirs(cand_dir, exist_ok=True)
    cand = os.path.join(cand_dir, "candidate.cu")
    with open(os.path.join(data, problem, "init.cu")) as src, open(cand, "w") as dst:
        dst.write(src.read() + f"\n// a fresh candidate {time.time_ns()}\n")
    cmd = [tool, "eval", "--json", "--kernelbench", os.path.join(data, problem), "--candidate", cand,
           "--work-dir", workdir]
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        rc, stdout, stderr = -1, "", f"no answer within {timeout} s"
    wall = time.time() - start
    row = {"problem": problem, "wall_s": round(wall, 2), "rc": rc}
    if rc in (0, 1):
        r = json.loads(stdout)
        row.update({k: r.get(k) for k in ("status", "detail", "speedup", "device", "wall_seconds", "eval_seconds",
                                           "compile_seconds", "prepare_seconds", "sandbox")})
        row["phases"] = {k: round(v, 2) for k, v in phases(r).items()}
        t = (r.get("timing") or [{}])[0]
        row["reference_median_us"] = t.get("reference_median_us")
        row["timed_runs"] = t.get("runs")
        row["correctness_runs"] = len(r.get("checks") or [])
    else:
        row.update({"status": "tool_error", "detail": (stderr or stdout).strip()[-400:]})
    # Output dumps run to GB on the big problems: keep the driver, not the runs.
    shutil.rmtree(os.path.join(workdir, "runs"), ignore_errors=True)
    return row


def kernel_seconds(row):
    """The original's own GPU time in one evaluation, estimated: each
    process calls the launcher once to discover, once per checked run
    (`correctness_runs`, the check after timing included), 3 times to warm
    up and `timed_runs` times; the original's process once more (the run-0
    probe). The candidate is counted at the original's speed (a copy)."""
    call_ms, checked, timed = row.get("reference_median_us"), row.get("correctness_runs"), row.get("timed_runs")
    if not call_ms or not checked or not timed:
        return None
    return (2 * (1 + checked + 3 + timed) + 1) * call_ms / 1e6


def write_table(out_dir, done):
    rows = sorted(done.values(), key=lambda r: -(r.get("wall_s") or 0))
    timed = [r for r in rows if r.get("status") not in (None, "tool_error")]
    under = [r for r in timed if r["wall_s"] < TARGET_S]
    device = next((r.get("device") for r in rows if r.get("device")), "?")
    walls = sorted(r["wall_s"] for r in timed)
    median = walls[len(walls) // 2] if walls else 0
    lines = ["# KernelBench-CUDA: seconds per candidate, driver built, one at a time", "",
             f"Device: {device}. Table written {datetime.date.today().isoformat()} from "
             "`bench/kernelbench_candidate_cost.py` (results.jsonl beside this file).", "",
             f"- problems timed: {len(timed)}; under {TARGET_S:.0f} s: {len(under)}; median {median:.1f} s",
             "- wall s: the whole `eval --kernelbench --candidate` command, the candidate's compile included",
             "- kernels s: the original's own GPU time in it, estimated from its median call and the number of calls",
             "", "| problem | status | wall s | original's call ms | kernels s | correctness runs | timed runs | compile s | "
             "reference process s | candidate process s | calibration s | judging s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = r.get("phases") or {}
        ref = r.get("reference_median_us")
        lines.append(f"| {r['problem']} | {r.get('status')} | {fmt(r.get('wall_s'), '.1f')} | "
                     f"{fmt(ref / 1000 if ref else None, '.2f')} | {fmt(kernel_seconds(r), '.1f')} | "
                     f"{r.get('correctness_runs', '')} | "
                     f"{r.get('timed_runs') or ''} | {fmt(r.get('compile_seconds'), '.1f')} | "
                     f"{fmt(p.get('reference process'), '.1f')} | {fmt(p.get('candidate process'), '.1f')} | "
                     f"{fmt(p.get('calibration'), '.1f')} | {fmt(p.get('judging'), '.1f')} |")
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(timed), len(under), median


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tool")
    ap.add_argument("--data")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "kernelbench-candidate-cost"))
    ap.add_argument("--work", default=os.path.join("/tmp", "kernelblaster-kbdataset"))
    ap.add_argument("--only", default="")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--also", default="")
    ap.add_argument("--seconds", type=float, default=0, help="start no new problem after this many seconds")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    data = find_data(args.data)
    os.makedirs(args.out, exist_ok=True)
    results = os.path.join(args.out, "results.jsonl")
    done = load_done(results)
    chosen = chosen_problems(problems(data), args.only, args.every, args.also)
    pending = [p for p in chosen if p not in done]
    t0 = time.time()
    if not args.table_only:
        print(f"{len(pending)} problems to time one at a time ({len(done)} done before)", flush=True)
        for problem in pending:
            if args.seconds and time.time() - t0 > args.seconds:
                break
            workdir = os.path.join(args.work, problem.replace("/", "_"))
            row = run_candidate(os.path.abspath(args.tool), data, workdir, problem, args.timeout)
            if (row.get("prepare_seconds") or 0) > 0.5:  # the driver was built by this call: time another
                row = run_candidate(os.path.abspath(args.tool), data, workdir, problem, args.timeout)
            with open(results, "a") as f:
                f.write(json.dumps(row) + "\n")
            done[problem] = row
            print(f"{problem}: {row.get('status')} {row['wall_s']:.1f} s {(row.get('detail') or '')[:160]}",
                  flush=True)
    timed, under, median = write_table(args.out, done)
    left = [p for p in chosen if p not in done]
    print(f"{timed} timed; under {TARGET_S:.0f} s: {under}; median {median:.1f} s; {len(left)} of the chosen left",
          flush=True)


if __name__ == "__main__":
    main()
