#!/usr/bin/env python3
"""The profiler against Nsight Compute (issue 4's targets), on a GPU machine.

  python3 bench/profile_vs_ncu.py BUILD_DIR/tool/src/cli/kernelblaster [--out FILE.json] [--md FILE.md]

For every example kernel (examples/kernels):
  * `kernelblaster eval --profile=full --json` (the example against itself)
    gives our dram_throughput_pct, achieved_occupancy_pct and l2_hit_rate_pct
    of the dominant kernel at the profiled (largest) size;
  * the candidate harness built by that eval is run under ncu with a plan
    that profiles the same size once (--clock-control none: neither we nor
    ncu's comparison should lock clocks; --cache-control all, as our kernel
    replay), asking for the same metrics by their CUPTI names;
    target: |ours - ncu| within 5 % (relative, or 1 percentage point for
    small values);
  * one-pass profiling overhead: eval wall time with --profile=cheap minus
    without (median of KERNELBLASTER_BENCH_EVAL_REPS each, default 3); target < 0.5 s.
    Also, with less noise (no nvcc in it), the candidate harness run directly
    with the eval's plan with and without the cheap profile (median of
    KERNELBLASTER_BENCH_HARNESS_REPS each, default 4), and whether its timing medians
    agree with and without profiling (the profiler's set-up runs on a
    thread while the kernels are timed);
  * copy bandwidth: `kernelblaster gpu ceilings --refresh` against a plain
    cudaMemcpy D2D timed here with torch (or the helper's own cudaMemcpy
    number when torch is missing); target within 10 %.
Prints a Markdown table and writes the raw numbers as JSON (written again
after every step, so a run cut short keeps what it measured). --same-state
adds ncu in our cache state (application replay, no ncu cache control).
"""
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "examples", "kernels", "include")
EXAMPLES = ["vector_add", "softmax", "rmsnorm", "transpose", "matmul"]
EVAL_REPS = int(os.environ.get("KERNELBLASTER_BENCH_EVAL_REPS", "3"))  # eval pairs per kernel for the overhead
RUNTIME_KERNELS = ("generate_kernel", "checksum_kernel", "flush_kernel")
COMPARED = {  # our name -> the CUPTI/ncu metric behind it
    "dram_throughput_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l2_hit_rate_pct": "lts__t_sector_hit_rate.pct",
}
CONTEXT = {  # also read from both, to explain differences (not targets)
    "duration_us": "gpu__time_duration.sum",
    "dram_bytes_read": "dram__bytes_read.sum",
    "dram_bytes_write": "dram__bytes_write.sum",
}


def eval_json(tool, name, extra, work=None):
    cmd = [tool, "eval", "--json", "--source", f"{ROOT}/examples/kernels/src/{name}.cu",
           "--harness", f"{ROOT}/examples/kernels/harness/{name}_harness.cu", "-I", INCLUDE, "--input-seed", "11"]
    if work:
        cmd += ["--work-dir", work]
    cmd += extra
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode == 77:
        sys.exit("no GPU: " + p.stderr.strip())
    if p.returncode not in (0, 1):
        sys.exit(f"eval failed for {name}: {p.stderr.strip()}")
    return json.loads(p.stdout), wall


def ncu_metrics(harness_bin, size_index, work, cache_control="all", replay="kernel"):
    """ncu's values of COMPARED for the user's kernels of one profiled call."""
    plan = {"runs": [], "timing": {"enabled": False},
            "profile": {"size": size_index, "set": "none", "metrics": []}}
    plan_path = os.path.join(work, "ncu_plan.json")
    out_dir = os.path.join(work, "ncu_out")
    os.makedirs(out_dir, exist_ok=True)
    with open(plan_path, "w") as f:
        json.dump(plan, f)
    cmd = ["ncu", "--metrics", ",".join(list(COMPARED.values()) + list(CONTEXT.values())), "--clock-control", "none",
           "--cache-control", cache_control, "--replay-mode", replay,
           "--csv", "--page", "raw", harness_bin, "--plan", plan_path, "--out", out_dir]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = [line for line in p.stdout.splitlines() if line.startswith('"')]
    if len(rows) < 3:
        return {"error": (p.stdout[-400:] + p.stderr[-400:]).strip()}
    table = list(csv.reader(rows))
    header, data = table[0], table[2:]
    name_col = header.index("Kernel Name")
    user = [r for r in data if not any(k in r[name_col] for k in RUNTIME_KERNELS)]
    if not user:
        return {"error": "ncu saw no user kernel"}
    dur_col = header.index("gpu__time_duration.sum") if "gpu__time_duration.sum" in header else None
    row = user[0] if dur_col is None else max(user, key=lambda r: float(r[dur_col].replace(",", "")))
    units = table[1]

    def value(m):
        v = float(row[header.index(m)].replace(",", ""))
        unit = units[header.index(m)]
        scale = {"usecond": 1e3, "msecond": 1e6, "nsecond": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
                 "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(unit, 1)
        return v * scale

    out = {ours: value(m) for ours, m in COMPARED.items()}
    out.update({ours: value(m) for ours, m in CONTEXT.items()})
    out["duration_us"] /= 1e3  # ns -> us
    out["kernel"] = row[name_col]
    return out


def within(ours, theirs, rel=0.05, abs_floor=1.0):
    if ours is None or theirs is None:
        return False
    return abs(ours - theirs) <= max(rel * abs(theirs), abs_floor)


def plain_d2d_gbs():
    try:
        import torch
    except ImportError:
        return None
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        dst.copy_(src)
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) / 1e3)
    return 2 * n / best / 1e9


def harness_wall(binary, plan, work, tag, env=None):
    """Wall time of one harness run with `plan`, and its report."""
    plan_path = os.path.join(work, f"{tag}_plan.json")
    out_dir = os.path.join(work, f"{tag}_out")
    os.makedirs(out_dir, exist_ok=True)
    with open(plan_path, "w") as f:
        json.dump(plan, f)
    t0 = time.monotonic()
    p = subprocess.run([binary, "--plan", plan_path, "--out", out_dir], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    wall = time.monotonic() - t0
    ended = time.time()
    report = json.load(open(os.path.join(out_dir, "report.json"))) if p.returncode == 0 else {}
    # How long the process lived after writing its report (exit, CUPTI's
    # and the driver's teardown).
    if report:
        report["_exit_tail_s"] = ended - os.stat(os.path.join(out_dir, "report.json")).st_mtime
    return wall, report


def harness_overhead(work, cheap_metrics, reps=int(os.environ.get("KERNELBLASTER_BENCH_HARNESS_REPS", "4"))):
    """The candidate harness of `work` with its eval plan, without and with
    the cheap profile, alternating; medians of wall time and of the timing."""
    binary = os.path.join(work, "candidate", "harness")
    base = json.load(open(os.path.join(work, "candidate", "main", "plan.json")))
    none = dict(base, profile=dict(base["profile"], size=-1, metrics=[], set=""))
    cheap = dict(base, profile=dict(base["profile"], metrics=cheap_metrics, set="cheap"))
    variants = (("none", none, None), ("cheap", cheap, None))
    walls = {v[0]: [] for v in variants}
    medians = {v[0]: [] for v in variants}
    phases = {"cheap": []}
    tails = {v[0]: [] for v in variants}
    profile_wall = {"cheap": []}
    for i in range(reps):
        for tag, plan, env in variants:
            wall, rep = harness_wall(binary, plan, work, f"{tag}{i}", env)
            walls[tag].append(wall)
            if "_exit_tail_s" in rep:
                tails[tag].append(rep["_exit_tail_s"])
            medians[tag].append([t["median_ns"] for t in rep.get("timings", [])])
            if tag != "none":
                phases[tag].append(rep.get("profile", {}).get("phase_s"))
                profile_wall[tag].append(rep.get("profile", {}).get("wall_s"))
    out = {"walls": walls, "exit_tail_s": {k: statistics.median(v) if v else None for k, v in tails.items()}}
    for tag in ("cheap",):
        per_size = []
        for k in range(len(medians["none"][0]) if medians["none"] and medians["none"][0] else 0):
            a = statistics.median(m[k] for m in medians["none"])
            b = statistics.median(m[k] for m in medians[tag] if len(m) > k)
            per_size.append({"without_us": a / 1e3, "with_us": b / 1e3, "diff_pct": 100 * (b - a) / a})
        out[tag] = {"overhead_s": statistics.median(walls[tag]) - statistics.median(walls["none"]),
                    "profile_wall_s": statistics.median(x for x in profile_wall[tag] if x is not None)
                    if any(x is not None for x in profile_wall[tag]) else None,
                    "phase_s": phases[tag][len(phases[tag]) // 2] if phases[tag] else None, "timing": per_size}
    out["overhead_s"] = out["cheap"]["overhead_s"]
    out["profile_wall_s"] = out["cheap"]["profile_wall_s"]
    out["timing"] = out["cheap"]["timing"]
    return out


def main():
    tool = os.path.abspath(sys.argv[1])
    out_path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    md_path = sys.argv[sys.argv.index("--md") + 1] if "--md" in sys.argv else None
    same_state = "--same-state" in sys.argv
    cache = tempfile.mkdtemp(prefix="kb-bench-cache-")
    env_cache = {"KERNELBLASTER_CACHE_DIR": cache}
    os.environ.update(env_cache)
    ceil = subprocess.run([tool, "gpu", "ceilings", "--refresh", "--json"], capture_output=True, text=True)
    ceilings = json.loads(ceil.stdout) if ceil.returncode == 0 else {"error": ceil.stderr.strip()}
    results = {"date": datetime.date.today().isoformat(), "ceilings": ceilings, "kernels": {}}

    def save():
        if out_path:
            with open(out_path, "w") as f:
                json.dump(results, f, indent=2)

    plain = plain_d2d_gbs()
    if "ceilings" in ceilings:
        ref = plain if plain else ceilings.get("copy_memcpy_gbs")
        results["copy"] = {"ours_gbs": ceilings["ceilings"]["dram_gbs"], "plain_d2d_gbs": ref,
                           "plain_source": "torch copy_" if plain else "helper cudaMemcpy",
                           "within_10pct": abs(ceilings["ceilings"]["dram_gbs"] - ref) <= 0.10 * ref}
    works = {}
    for name in EXAMPLES:
        work = tempfile.mkdtemp(prefix=f"kb-bench-{name}-")
        works[name] = work
        full, _ = eval_json(tool, name, ["--profile=full", "--keep", "--budget-ms", "100"], work)
        results["device"] = full.get("device")
        entry = {"status": full["status"], "profile_note": full.get("profile_note", "")}
        prof = full.get("profile") or []
        dominant = prof[0] if prof else {"name": None, "metrics": {}}
        entry["kernel"] = dominant["name"]
        entry["ours"] = {k: dominant["metrics"].get(k) for k in COMPARED}
        entry["ours_extra"] = {k: dominant["metrics"].get(k) for k in (
            "duration_us", "range_duration_us", "l2_writeback_bytes", "l2_writeback_us", "dram_bytes_read",
            "dram_bytes_write", "theoretical_occupancy_pct", "registers_per_thread", "achieved_bandwidth_gbs",
            "bandwidth_pct_of_peak", "flops_pct_of_peak", "spill_bytes")}
        entry["metrics_full"] = dominant["metrics"]  # what `kb classify` reads
        plan = json.load(open(os.path.join(work, "candidate", "main", "plan.json")))
        entry["ncu"] = ncu_metrics(os.path.join(work, "candidate", "harness"), plan["profile"]["size"], work)
        entry["match"] = {k: within(entry["ours"][k], entry["ncu"].get(k)) for k in COMPARED}
        if same_state:
            # The same kernel under ncu in our cache state: each pass a fresh run
            # of the harness (our inputs, our L2 eviction), no ncu cache flush.
            entry["ncu_same_state"] = ncu_metrics(os.path.join(work, "candidate", "harness"), plan["profile"]["size"],
                                                  work, cache_control="none", replay="application")
            entry["match_same_state"] = {k: within(entry["ours"][k], entry["ncu_same_state"].get(k)) for k in COMPARED}
        cand_report = json.load(open(os.path.join(work, "candidate", "main", "report.json")))
        entry["full_profile_phase_s"] = cand_report.get("profile", {}).get("phase_s")
        results["kernels"][name] = entry
        save()
        print(json.dumps({name: {k: entry[k] for k in ("ours", "ncu", "ours_extra")}}), flush=True)

    # The cheap set's CUPTI names, as the tool puts them in a plan.
    cheap_work = tempfile.mkdtemp(prefix="kb-bench-cheap-")
    eval_json(tool, "vector_add", ["--profile=cheap", "--budget-ms", "100"], cheap_work)
    cheap_metrics = json.load(open(os.path.join(cheap_work, "candidate", "main", "plan.json")))["profile"]["metrics"]
    for name in EXAMPLES:
        entry = results["kernels"][name]
        entry["harness"] = harness_overhead(works[name], cheap_metrics)
        save()
        print(json.dumps({name: entry["harness"]}), flush=True)
    for name in EXAMPLES if EVAL_REPS > 0 else []:
        entry = results["kernels"][name]
        walls = {"none": [], "cheap": []}
        for _ in range(EVAL_REPS):
            for mode in ("none", "cheap"):
                r, wall = eval_json(tool, name, ["--budget-ms", "100"] + ([] if mode == "none" else ["--profile=cheap"]))
                walls[mode].append(wall)
                if mode == "cheap":
                    entry["cheap_profile_seconds"] = r.get("profile_seconds")
        entry["eval_walls"] = walls
        entry["overhead_s"] = statistics.median(walls["cheap"]) - statistics.median(walls["none"])
        save()
        print(json.dumps({name: {"overhead_s": entry["overhead_s"], "walls": walls}}), flush=True)

    def fmt(v):
        return "-" if v is None else f"{v:.2f}"

    cols = "| kernel | metric | ours | ncu (cache flush) | within 5% |"
    if same_state:
        cols += " ncu (our cache state) | within 5% |"
    lines = [cols, "|---|---|---:|---:|---|" + ("---:|---|" if same_state else "")]
    for name, e in results["kernels"].items():
        for k in COMPARED:
            row = (f"| {name} | {k} | {fmt(e['ours'].get(k))} | {fmt(e['ncu'].get(k))} | "
                   f"{'yes' if e['match'][k] else 'NO'} |")
            if same_state:
                row += (f" {fmt(e['ncu_same_state'].get(k))} | "
                        f"{'yes' if e['match_same_state'][k] else 'NO'} |")
            lines.append(row)
    lines += ["", "| kernel | eval overhead, --profile=cheap (s) | harness overhead (s) | profile in harness (s) "
              "| timing with/without profiling |",
              "|---|---:|---:|---:|---|"]
    for name, e in results["kernels"].items():
        h = e.get("harness", {})
        timing = ", ".join(f"{t['diff_pct']:+.1f}%" for t in h.get("timing", []))
        ov = e.get("overhead_s")
        lines.append(f"| {name} | {'-' if ov is None else f'{ov:.3f}'} | {h.get('overhead_s', 0):.3f} | "
                     f"{h.get('profile_wall_s') or 0:.3f} | {timing} |")
    if "copy" in results:
        c = results["copy"]
        lines += ["", f"Copy bandwidth: ours {c['ours_gbs']:.1f} GB/s vs plain D2D ({c['plain_source']}) "
                      f"{c['plain_d2d_gbs']:.1f} GB/s: {'within' if c['within_10pct'] else 'NOT within'} 10%."]
        cl = results["ceilings"]["ceilings"]
        lines.append(f"Ceilings: FP32 {cl['fp32_gflops']:.0f} GFLOP/s, FP16 {cl['fp16_gflops']:.0f} GFLOP/s, "
                     f"tensor (mma.sync) {cl['tensor_gflops']:.0f} GFLOP/s.")
    table = "\n".join(lines)
    print(table)
    if md_path:
        with open(md_path, "w") as f:
            f.write(table + "\n")
    save()


if __name__ == "__main__":
    main()
