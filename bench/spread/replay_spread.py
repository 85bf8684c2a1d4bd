#!/usr/bin/env python3
"""The spread of the best speedup a cold (empty-KB) search reaches after N
evaluations, over many policy seeds, replayed on CPU from the recorded
exhaustive runs of bench/policy_replay/recorded (issue 27 item 6).

    python3 bench/spread/replay_spread.py --tool build/tool/src/cli/kernelblaster [--seeds 50]

Prints, per kernel and N, min-max of the best reached, the share of seeds
within 5% of the recorded best, and the spread (max - min) / min.
"""
import argparse, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "..", "policy_replay", "recorded")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--evals", default="8,12,16,20,30")
    ap.add_argument("--policy", default="")
    args = ap.parse_args()
    print("| kernel (space) | N | best min-max | in band | spread |")
    print("|---|---|---|---|---|")
    for name in sorted(os.listdir(RECORDED)):
        path = os.path.join(RECORDED, name)
        for n in [int(x) for x in args.evals.split(",")]:
            cmd = [args.tool, "policy", "replay", "--results", path, "--policy-seeds", str(args.seeds),
                   "--max-evals", str(n), "--json"]
            if args.policy:
                cmd += ["--policy", args.policy]
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            bests = [s["best"] for s in r["seeds"]]
            lo, hi = min(bests), max(bests)
            band = sum(1 for b in bests if b >= r["recorded_best"] * 0.95)
            print(f"| {r['kernel']} ({r['space_size']}) | {n} | {lo:.3f}-{hi:.3f} | {band}/{len(bests)} | "
                  f"{100 * (hi - lo) / lo:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
