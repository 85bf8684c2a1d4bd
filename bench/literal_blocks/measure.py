#!/usr/bin/env python3
"""Issue 27, linked literals: how much of a tuning run is wasted on block
sizes that cannot cover the grid. Tunes bench/literal_blocks/brighten.cu (a
literal block size, its grid computed from the same literal in a variable)
with each tool given (every block size in turn: the exhaustive policy, no
flag space), and counts the evaluations that ended
`unwritten_output`, by the block size they tried.

  measure.py OUT_DIR LABEL=TOOL [LABEL=TOOL ...] [--budget SECONDS]

Writes OUT_DIR/brighten-LABEL.log.json (the run log), .summary.json, and
prints one table row per tool; OUT_DIR/literal_blocks.md gets the table.
"""
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = sys.argv[1]
    budget = "60"
    runs = []
    for a in sys.argv[2:]:
        if a.startswith("--budget="):
            budget = a.split("=", 1)[1]
        else:
            label, tool = a.split("=", 1)
            runs.append((label, tool))
    os.makedirs(out, exist_ok=True)
    rows = ["| tool | evaluations | unwritten_output | share | block sizes tried (unwritten of all) | best |",
            "|---|---|---|---|---|---|"]
    for label, tool in runs:
        log = os.path.join(out, f"brighten-{label}.log.json")
        summary = os.path.join(out, f"brighten-{label}.summary.json")
        with open(summary, "w") as f:
            p = subprocess.run([tool, "tune", "--source", os.path.join(HERE, "brighten.cu"), "--harness",
                                os.path.join(HERE, "brighten_harness.cu"), "--budget", budget, "--log", log,
                                "--kb", os.path.join(out, f"kb-{label}.json"), "--quiet", "--json",
                                "--policy", os.path.join(HERE, "..", "..", "policies", "exhaustive.lua")],
                               stdout=f, stderr=subprocess.PIPE, text=True, timeout=1200)
        if not os.path.exists(log):
            print(f"{label}: no run log (exit {p.returncode}): {p.stderr.strip()[-300:]}")
            continue
        r = json.load(open(log))
        evals = r.get("evaluations", [])
        by_block = collections.defaultdict(lambda: [0, 0])
        wasted = 0
        for e in evals:
            block = next((v for k, v in e.get("settings", {}).items() if k.startswith("KERNELBLASTER_BLOCK_L")),
                         "default")
            by_block[block][1] += 1
            if e.get("status") == "unwritten_output":
                by_block[block][0] += 1
                wasted += 1
        blocks = ", ".join(f"{b}: {u}/{n}" for b, (u, n) in sorted(by_block.items()))
        share = f"{100 * wasted / len(evals):.0f}%" if evals else "-"
        best = f"{r.get('best_speedup', 0):.3f}x {r.get('best') or ''}".strip()
        rows.append(f"| {label} | {len(evals)} | {wasted} | {share} | {blocks} | {best} |")
        print(rows[-1], flush=True)
    with open(os.path.join(out, "literal_blocks.md"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
