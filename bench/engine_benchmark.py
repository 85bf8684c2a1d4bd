#!/usr/bin/env python3
"""Benchmark of the measurement engine (issue: targets of the eval engine).

Run on a GPU machine from the repository root, after building:

  python3 bench/engine_benchmark.py build/tool/src/cli/kernelblaster [--out bench/results/engine.json]

For every example kernel it measures
  * repeatability: two separate `eval` runs of the same source; the medians
    of both runs must agree within 2%, and IQR/median must stay under 3% for
    sizes of 20 us or more;
  * evaluation time, compilation excluded (target: under 5 s);
  * agreement with Nsight Compute: the harness built by `eval` is run under
    ncu with clock control off (the engine never sets clocks either) and
    ncu's gpu__time_duration of the user's kernel is compared with the
    engine's median for the same size (target: within 5%).
Prints a Markdown table and writes the raw numbers as JSON.
"""
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "examples", "kernels", "include")
EXAMPLES = ["vector_add", "softmax", "rmsnorm", "transpose", "matmul"]
RUNTIME_KERNELS = ("generate_kernel", "checksum_kernel", "flush_kernel")  # the harness runtime's own work


def run_eval(tool, name, work_dir):
    cmd = [tool, "eval", "--json", "--source", f"{ROOT}/examples/kernels/src/{name}.cu",
           "--harness", f"{ROOT}/examples/kernels/harness/{name}_harness.cu", "-I", INCLUDE,
           "--work-dir", work_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode == 77:
        sys.exit("no GPU: " + proc.stderr.strip())
    if proc.returncode not in (0, 1):
        sys.exit(f"eval failed for {name}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def ncu_durations(harness_bin, sizes, work_dir):
    """ncu's gpu__time_duration (us) of the user's kernels, per size label."""
    plan = {"runs": [{"size": i, "seed": 100 + k} for i in range(len(sizes)) for k in range(10)],
            "timing": {"enabled": False}}
    plan_path = os.path.join(work_dir, "ncu_plan.json")
    out_dir = os.path.join(work_dir, "ncu_out")
    os.makedirs(out_dir, exist_ok=True)
    with open(plan_path, "w") as f:
        json.dump(plan, f)
    cmd = ["ncu", "--metrics", "gpu__time_duration.sum", "--clock-control", "none", "--cache-control", "all",
           "--csv", "--page", "raw", harness_bin, "--plan", plan_path, "--out", out_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    rows = [line for line in proc.stdout.splitlines() if line.startswith('"')]
    if not rows:
        return {"error": proc.stdout[-500:] + proc.stderr[-500:]}
    import csv
    table = list(csv.reader(rows))
    header = table[0]
    name_col = header.index("Kernel Name")
    dur_col = header.index("gpu__time_duration.sum")
    unit = table[1][dur_col] if len(table) > 1 else "ns"
    scale = {"ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "nsecond": 1e-3}.get(unit, 1e-3)
    user = [float(r[dur_col].replace(",", "")) * scale for r in table[2:]
            if not any(k in r[name_col] for k in RUNTIME_KERNELS)]
    per_size = len(user) // len(sizes) if sizes else 0
    out = {}
    for i, label in enumerate(sizes):
        chunk = user[i * per_size:(i + 1) * per_size]
        out[label] = statistics.median(chunk) if chunk else None
    return out


def main():
    tool = os.path.abspath(sys.argv[1])
    out_path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    have_ncu = shutil.which("ncu") is not None
    results = {"date": datetime.date.today().isoformat(), "examples": {}}
    lines = ["| kernel | size | median A (us) | median B (us) | A vs B | IQR/median | ncu (us) | vs ncu | SM MHz | eval s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name in EXAMPLES:
        work = tempfile.mkdtemp(prefix=f"kb-bench-{name}-")
        a = run_eval(tool, name, os.path.join(work, "a"))
        b = run_eval(tool, name, os.path.join(work, "b"))
        results["device"] = a.get("device")
        sizes = [t["size"] for t in a["timing"]]
        ncu = ncu_durations(os.path.join(work, "a", "reference", "harness"), sizes, work) if have_ncu else {}
        rows = []
        for ta, tb in zip(a["timing"], b["timing"]):
            ma, mb = ta["median_us"], tb["median_us"]
            row = {"size": ta["size"], "median_a_us": ma, "median_b_us": mb,
                   "a_vs_b_pct": 100 * abs(ma - mb) / ma, "iqr_over_median_pct": 100 * (ta["q3_us"] - ta["q1_us"]) / ma,
                   "runs": ta["runs"], "sm_clock_mhz": ta["sm_clock_mhz"], "event_median_us": ta["event_median_us"],
                   "ncu_us": ncu.get(ta["size"]) if isinstance(ncu, dict) else None}
            row["vs_ncu_pct"] = 100 * abs(ma - row["ncu_us"]) / row["ncu_us"] if row["ncu_us"] else None
            rows.append(row)
            lines.append(f"| {name} | {row['size']} | {ma:.2f} | {mb:.2f} | {row['a_vs_b_pct']:.2f}% | "
                         f"{row['iqr_over_median_pct']:.2f}% | "
                         + (f"{row['ncu_us']:.2f} | {row['vs_ncu_pct']:.2f}%" if row["ncu_us"] else "- | -")
                         + f" | {row['sm_clock_mhz']:.0f} | {a['eval_seconds']:.2f} |")
        results["examples"][name] = {"sizes": rows, "eval_seconds": [a["eval_seconds"], b["eval_seconds"]],
                                     "compile_seconds": a["compile_seconds"], "status": [a["status"], b["status"]],
                                     "ncu_error": ncu.get("error") if isinstance(ncu, dict) else None}
        shutil.rmtree(work, ignore_errors=True)
    print(f"device: {results.get('device')}, {results['date']}")
    print("\n".join(lines))
    if out_path:
        with open(out_path, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
