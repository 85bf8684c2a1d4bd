#!/usr/bin/env python3
"""Every problem of the published KernelBench-CUDA dataset, init.cu judged
against itself by `kernelblaster eval --kernelbench`, N evaluations at once.

  kernelbench_dataset.py TOOL [--data DIR] [--out DIR] [--jobs N]
                              [--devices 0,1] [--only REGEX] [--every N]
                              [--also REGEX] [--limit N]
                              [--work DIR] [--seconds S] [--table-only]

Resumable: each finished problem is one line of OUT/results.jsonl, and a
rerun skips the problems already there (delete a line to redo it). Any
subset: --only matches "level1/023_Softmax"-style names, --every N keeps
every Nth problem in dataset order (a sample of the whole), --also adds
the problems matching a second expression. --seconds stops
starting new problems after S seconds (the device tool's 10-minute limit),
so the table grows over several runs. --devices spreads the problems over
several GPUs, N evaluations at once on each (each GPU sees what one GPU
alone would: N at once under its own lock). OUT/table.md is rewritten from all
lines after every run.

What the table says per problem: the status, the self-speedup (the
original's median over itself: 1.00 is the ideal), the median time, the
IQR over the median, seconds of wall time (building the driver, waiting
for the GPU lock that the other evaluations hold, and the evaluation), the
evaluation's own seconds (eval_seconds: both processes, calibration and
judging; builds excluded), and how far init.cu's output is
from torch's reference (relative L2). A problem whose init.cu is itself
wrong (it fails its own check, leaves output unwritten, does not fit its
driver, or is far from torch) is named with the evidence and not counted
as passed.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# init.cu further than this from torch's reference (relative L2) is named
# as suspect in the table: 10 times the f16 default tolerance.
FAR_FROM_TORCH = 1e-2


def find_data(explicit):
    for d in (explicit, os.environ.get("KERNELBLASTER_KERNELBENCH_DATA", ""),
              os.path.join(os.path.dirname(ROOT), "shared", "kernelbench-cuda"),
              os.path.join(ROOT, ".kb-data", "kernelbench-cuda")):
        if d and os.path.isdir(os.path.join(d, "level1")):
            return d
    sys.exit("kernelbench_dataset.py: the dataset is not here (--data or KERNELBLASTER_KERNELBENCH_DATA)")


def problems(data):
    out = []
    for level in sorted(os.listdir(data)):
        ldir = os.path.join(data, level)
        if not level.startswith("level") or not os.path.isdir(ldir):
            continue
        for p in sorted(os.listdir(ldir)):
            if os.path.isfile(os.path.join(ldir, p, "driver.cpp")):
                out.append(f"{level}/{p}")
    return out


def chosen_problems(names, only="", every=1, also=""):
    """Those matching `only`, every `every`th of them in dataset order, and those matching `also`."""
    every = max(1, every)
    return [p for i, p in enumerate(names)
            if (re.search(only, p) and i % every == 0) or (also and re.search(also, p))]


def load_done(path):
    done = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    row = json.loads(line)
                    done[row["problem"]] = row
    return done


# A failure of the machine, not of the problem: the row is not kept, so
# the next run evaluates the problem again.
MACHINE_TROUBLE = re.compile(r"No space left on device|Cannot allocate memory")


def evaluate(tool, data, work, problem, timeout, device=0):
    start = time.time()
    workdir = os.path.join(work, problem.replace("/", "_"))
    cmd = [tool, "eval", "--json", "--kernelbench", os.path.join(data, problem), "--work-dir", workdir]
    # The driver's own torch work uses the current device: the process sees
    # its one GPU only, rather than relying on --device reaching torch.
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(device))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        rc, stdout, stderr = -1, "", f"no answer within {timeout} s"
    wall = time.time() - start
    row = {"problem": problem, "wall_s": round(wall, 2), "rc": rc, "device_index": device}
    if rc in (0, 1):
        r = json.loads(stdout)
        row.update({k: r.get(k) for k in ("status", "detail", "speedup", "reverified", "device", "eval_seconds",
                                           "compile_seconds", "prepare_seconds", "phase_seconds",
                                           "process_phase_seconds", "wall_seconds", "notes", "sandbox")})
        # Waiting for the GPU lock while other evaluations held it is not
        # this problem's cost: the rest is what one evaluation alone takes.
        waits = [p["seconds"] for p in r.get("process_phase_seconds") or [] if p["phase"].endswith("lock wait")]
        if waits and r.get("eval_seconds") is not None:
            row["lock_wait_s"] = round(sum(waits), 2)
            row["eval_seconds_without_lock_wait"] = round(r["eval_seconds"] - sum(waits), 2)
        t = (r.get("timing") or [{}])[0]
        row["median_us"] = t.get("median_us")
        row["reference_median_us"] = t.get("reference_median_us")
        if t.get("median_us"):
            row["iqr_over_median"] = (t["q3_us"] - t["q1_us"]) / t["median_us"]
        row["kernels_per_run"] = t.get("kernels_per_run")
        row["busy_median_us"] = t.get("busy_median_us")
        row["basis"] = t.get("basis")
        cal = r.get("calibration") or []
        if cal:
            row["init_vs_torch_rel_l2"] = max(c.get("original_vs_oracle_rel_l2", 0) for c in cal)
            row["init_spread_rel_l2"] = max(c.get("original_spread_rel_l2", 0) for c in cal)
    else:
        row.update({"status": "tool_error", "detail": (stderr or stdout).strip()[-400:]})
    # The output dumps of a big problem run to GB: keep the built driver
    # (a rerun reuses it), not the runs.
    shutil.rmtree(os.path.join(workdir, "runs"), ignore_errors=True)
    return row


def verdict(row):
    """How the table counts a problem: passed, a false rejection, or a wrong original."""
    s = row.get("status")
    if s == "ok":
        far = (row.get("init_vs_torch_rel_l2") or 0) > FAR_FROM_TORCH
        return "init.cu far from torch" if far else "passed"
    if s == "reference_failed":
        if re.search(r"harness_error: cannot tell which side", row.get("detail") or ""):
            return "tool cannot run it"  # the tool's limit, not the problem's fault
        return "original wrong"
    if s in ("nondeterministic", "wrong_result", "inaccurate") and (row.get("init_spread_rel_l2") or 0) > 0:
        # init.cu gave different outputs on the same inputs in the
        # reference process: the original is nondeterministic.
        return "original nondeterministic"
    return "false rejection"


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) and v is not None else ""


def write_table(out_dir, rows, started):
    rows = sorted(rows.values(), key=lambda r: r["problem"])
    ok = [r for r in rows if r.get("status") == "ok" and r.get("speedup")]
    within = [r for r in ok if abs(r["speedup"] - 1) <= 0.03]
    counts = {}
    for r in rows:
        counts[verdict(r)] = counts.get(verdict(r), 0) + 1
    device = next((r.get("device") for r in rows if r.get("device")), "?")
    lines = [f"# KernelBench-CUDA dataset: init.cu against itself", "",
             f"Device: {device}. Table written {datetime.date.today().isoformat()} from "
             f"`bench/kernelbench_dataset.py` (results.jsonl beside this file"
             + (f"; last run started {started}" if started else "") + ").", "",
             f"- problems evaluated: {len(rows)}",
             *(f"- {k}: {v}" for k, v in sorted(counts.items())),
             f"- self-speedup within 1.00 +- 0.03: {len(within)} of {len(ok)} timed and accepted"
             + (f" ({100.0 * len(within) / len(ok):.1f}%)" if ok else ""), "",
             "| problem | status | counted as | self-speedup | basis | median us | GPU busy us | IQR/median | seconds | eval s | eval s without lock waits | init.cu vs torch (rel L2) | detail |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        detail = (r.get("detail") or "").replace("|", "/").replace("\n", " ")
        if r.get("status") == "ok":
            notes = [n for n in (r.get("notes") or []) if "work directory" not in n]
            detail = "; ".join(notes)[:200]
        lines.append(f"| {r['problem']} | {r.get('status')} | {verdict(r)} | {fmt(r.get('speedup'), '.3f')} | "
                     f"{r.get('basis') or ''} | {fmt(r.get('median_us'), '.1f')} | {fmt(r.get('busy_median_us'), '.1f')} | "
                     f"{fmt(r.get('iqr_over_median'), '.3f')} | "
                     f"{fmt(r.get('wall_s'), '.1f')} | {fmt(r.get('eval_seconds'), '.1f')} | "
                     f"{fmt(r.get('eval_seconds_without_lock_wait'), '.1f')} | "
                     f"{fmt(r.get('init_vs_torch_rel_l2'), '.2e')} | {detail[:300]} |")
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return counts, len(within), len(ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tool")
    ap.add_argument("--data")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "kernelbench-dataset"))
    ap.add_argument("--jobs", type=int, default=8, help="evaluations at once on each device")
    ap.add_argument("--devices", default="0", help="CUDA devices, comma-separated (default 0)")
    ap.add_argument("--only", default="")
    ap.add_argument("--every", type=int, default=1, help="every Nth problem in dataset order")
    ap.add_argument("--also", default="", help="regular expression: problems added to the chosen ones")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--work", default=os.path.join("/tmp", "kernelblaster-kbdataset"))
    ap.add_argument("--seconds", type=float, default=0, help="start no new problem after this many seconds")
    ap.add_argument("--timeout", type=float, default=1500)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--first", help="regular expression: matching problems run before the others")
    args = ap.parse_args()
    data = find_data(args.data)
    os.makedirs(args.out, exist_ok=True)
    results = os.path.join(args.out, "results.jsonl")
    done = load_done(results)
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    chosen = chosen_problems(problems(data), args.only, args.every, args.also)
    pending = [p for p in chosen if p not in done]
    if args.first:
        pending.sort(key=lambda p: 0 if re.search(args.first, p) else 1)  # stable: dataset order otherwise
    if args.limit:
        pending = pending[:args.limit]
    if not args.table_only and pending:
        devices = [int(d) for d in args.devices.split(",") if d.strip()]
        print(f"{len(pending)} problems to evaluate, {args.jobs} at once on each of devices {devices} "
              f"({len(done)} done before)", flush=True)
        lock = threading.Lock()
        t0 = time.time()
        slots = queue.Queue()  # one token per evaluation a device may run at once
        for _ in range(args.jobs):
            for d in devices:
                slots.put(d)

        def run(problem):
            if args.seconds and time.time() - t0 > args.seconds:
                return None
            device = slots.get()
            try:
                row = evaluate(os.path.abspath(args.tool), data, args.work, problem, args.timeout, device)
            finally:
                slots.put(device)
            if MACHINE_TROUBLE.search(row.get("detail") or ""):
                print(f"{problem}: not kept, the machine failed: {row['detail'][:160]}", flush=True)
                return None
            with lock:
                with open(results, "a") as f:
                    f.write(json.dumps(row) + "\n")
                done[problem] = row
                print(f"{problem}: {row.get('status')} speedup {fmt(row.get('speedup'), '.3f')} "
                      f"{row['wall_s']:.0f} s {(row.get('detail') or '')[:160]}", flush=True)
            return row

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs * len(devices)) as pool:
            list(pool.map(run, pending))
    counts, within, timed = write_table(args.out, done, None if args.table_only else started)
    left = [p for p in chosen if p not in done]
    print(f"{len(done)} problems in the table; {counts}; within 1.00+-0.03: {within}/{timed}; "
          f"{len(left)} left", flush=True)


if __name__ == "__main__":
    main()
