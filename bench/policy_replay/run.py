#!/usr/bin/env python3
"""Policy replay benchmark of the tunable search (issue 5 targets).

  run.py record [--tool T] [--kernels a,b] [--devices 0]   record exhaustive runs on a GPU
  run.py replay [--tool T] [--seeds 10] [--band 0.05]      replay them (no GPU needed)

record: runs `kernelblaster tune` with policies/exhaustive.lua, no evaluation
cap and a long budget on each example kernel with tunables, writing the run
log to recorded/<kernel>.json (a throwaway KB, so recording teaches nothing).

replay:
 (b) every recording x every policy (the built-in default and policies/*.lua),
     --seeds seeds each: mean evaluations until the best accepted speedup is
     within --band of the recorded best, as a fraction of the space
     (target: <= 30% for the default policy).
 (c) cross-task memory: for each held-out kernel, a KB warmed by replaying
     the default policy over the OTHER recordings with --learn, against an
     empty KB: mean evaluations to the band (target: >= 30% fewer).
Writes results/replay.json and results/replay.md. A recording marked
"synthetic" is reported as such and never counts as a measurement.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = ["softmax", "rmsnorm", "vector_add", "transpose", "matmul"]


def default_tool():
    for build in sorted(glob.glob(os.path.join(ROOT, "build*"))):
        exe = os.path.join(build, "tool", "src", "cli", "kernelblaster")
        if os.access(exe, os.X_OK):
            return exe
    return "kernelblaster"


def record_command(tool, kernel, devices, budget):
    src = os.path.join(ROOT, "examples", "kernels", "src", kernel + ".cu")
    harness = os.path.join(ROOT, "examples", "kernels", "harness", kernel + "_harness.cu")
    kb = os.path.join(tempfile.gettempdir(), f"kb-record-{kernel}.json")
    cmd = [tool, "tune", "--source", src, "--harness", harness, "-I", os.path.join(ROOT, "examples", "kernels", "include"),
           "--policy", os.path.join(ROOT, "policies", "exhaustive.lua"), "--max-evals", "0", "--budget", str(budget),
           "--kb", kb, "--log", os.path.join(HERE, "recorded", kernel + ".json"), "--json"]
    if devices:
        cmd += ["--devices", devices]
    return cmd


def record(args):
    os.makedirs(os.path.join(HERE, "recorded"), exist_ok=True)
    for kernel in args.kernels.split(","):
        cmd = record_command(args.tool, kernel, args.devices, args.budget)
        print("$ " + " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, text=True, stdout=subprocess.PIPE)
        if proc.returncode == 77:
            sys.exit("no GPU here: recording needs one")
        print(proc.stdout, flush=True)


def replay_json(tool, recording, policy, seeds, band, kb=None, learn=False):
    cmd = [tool, "policy", "replay", "--results", recording, "--policy", policy, "--policy-seeds", str(seeds),
           "--band", str(band), "--json"]
    if kb:
        cmd += ["--kb", kb]
    if learn:
        cmd += ["--learn"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"replay failed: {' '.join(cmd)}\n{proc.stderr}")
    return json.loads(proc.stdout)


def replay(args):
    recordings = sorted(glob.glob(os.path.join(HERE, "recorded", "*.json")))
    if not recordings:
        sys.exit("no recordings in recorded/: run 'run.py record' on a GPU machine first")
    meta = {}
    for r in recordings:
        with open(r) as f:
            log = json.load(f)
        meta[r] = {"kernel": log.get("kernel"), "gpu": log.get("gpu"), "date": log.get("date"),
                   "synthetic": bool(log.get("synthetic")), "space_size": log.get("space_size")}
    policies = ["default"] + sorted(glob.glob(os.path.join(ROOT, "policies", "*.lua")))
    results = {"band": args.band, "seeds": args.seeds, "recordings": meta, "policies": {}, "cross_task": {}}

    # (b) evaluations to the band, per policy and kernel.
    for policy in policies:
        name = os.path.splitext(os.path.basename(policy))[0]
        rows = {}
        for r in recordings:
            rep = replay_json(args.tool, r, policy, args.seeds, args.band)
            rows[meta[r]["kernel"]] = {k: rep[k] for k in ("space_size", "recorded_best", "mean_evaluations_to_band",
                                                           "mean_fraction_to_band", "mean_best",
                                                           "seeds_reaching_band", "fell_back_to_default")}
        results["policies"][name] = rows

    # (c) cross-task memory: warm KB from the other recordings vs an empty KB.
    with tempfile.TemporaryDirectory() as tmp:
        for held in recordings:
            warm = os.path.join(tmp, "warm-" + os.path.basename(held))
            for other in recordings:
                if other != held:
                    replay_json(args.tool, other, "default", 1, args.band, kb=warm, learn=True)
            empty = os.path.join(tmp, "empty.json")  # never created: an empty KB
            cold_rep = replay_json(args.tool, held, "default", args.seeds, args.band, kb=empty)
            warm_rep = replay_json(args.tool, held, "default", args.seeds, args.band, kb=warm)
            cold, hot = cold_rep["mean_evaluations_to_band"], warm_rep["mean_evaluations_to_band"]
            results["cross_task"][meta[held]["kernel"]] = {
                "space_size": cold_rep["space_size"], "empty_kb_mean_to_band": cold, "warm_kb_mean_to_band": hot,
                # The original already in the band: nothing to search, nothing to save.
                "reduction": (1 - hot / cold) if cold > 0 else None}

    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "replay.json"), "w") as f:
        json.dump(results, f, indent=2)
    md = render(results)
    with open(os.path.join(HERE, "results", "replay.md"), "w") as f:
        f.write(md)
    print(md)


def render(res):
    lines = ["# Policy replay", ""]
    lines.append(f"Band {res['band']:.0%} of the recorded best, {res['seeds']} seeds per policy.")
    lines.append("")
    lines.append("| recording | gpu | date | configurations | synthetic |")
    lines.append("|---|---|---|---|---|")
    for m in res["recordings"].values():
        lines.append(f"| {m['kernel']} | {m['gpu']} | {m['date']} | {m['space_size']} | {'yes' if m['synthetic'] else 'no'} |")
    lines += ["", "## Evaluations to the band (fraction of the space; target for default: <= 30%)", ""]
    kernels = sorted({k for rows in res["policies"].values() for k in rows})
    lines.append("| policy | " + " | ".join(kernels) + " | mean |")
    lines.append("|---|" + "---|" * (len(kernels) + 1))
    for name, rows in res["policies"].items():
        fr = [rows[k]["mean_fraction_to_band"] for k in kernels]
        cells = [f"{rows[k]['mean_evaluations_to_band']:.1f} ({rows[k]['mean_fraction_to_band']:.0%})" for k in kernels]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {statistics.mean(fr):.0%} |")
    lines += ["", "## Cross-task memory (default policy; target: >= 30% fewer evaluations)", ""]
    lines.append("| held out | empty KB | warm KB | reduction |")
    lines.append("|---|---|---|---|")
    for k, c in res["cross_task"].items():
        red = "n/a (the original is in the band)" if c["reduction"] is None else f"{c['reduction']:.0%}"
        lines.append(f"| {k} | {c['empty_kb_mean_to_band']:.1f} | {c['warm_kb_mean_to_band']:.1f} | {red} |")
    searched = [c["reduction"] for c in res["cross_task"].values() if c["reduction"] is not None]
    if searched:
        lines.append(f"| mean over the {len(searched)} that need a search | | | {statistics.mean(searched):.0%} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["record", "replay", "commands"])
    ap.add_argument("--tool", default=default_tool())
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--devices", default="")
    ap.add_argument("--budget", type=float, default=3600)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--band", type=float, default=0.05)
    args = ap.parse_args()
    if args.mode == "record":
        record(args)
    elif args.mode == "commands":
        for kernel in args.kernels.split(","):
            print(" ".join(record_command(args.tool, kernel, args.devices, args.budget)))
    else:
        replay(args)


if __name__ == "__main__":
    main()
