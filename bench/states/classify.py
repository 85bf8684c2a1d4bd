#!/usr/bin/env python3
"""The distribution of states over profiled problems, without a GPU: each
line of a states.jsonl (bench/states/run.sh) classified by `kernelblaster kb
classify` with the KB given (default: the seed).

  classify.py KERNELBLASTER STATES.jsonl [--kb FILE]

Prints a Markdown table (problem, status, the busiest units, state) and the
count per state.
"""
import collections
import json
import subprocess
import sys
import tempfile


def main():
    tool, path = sys.argv[1], sys.argv[2]
    kb = sys.argv[sys.argv.index("--kb") + 1:][:1] if "--kb" in sys.argv else []
    counts = collections.Counter()
    print("| problem | status | SM % | L1 % | L2 % | DRAM % | long-scoreboard stalls | state |")
    print("|---|---|---|---|---|---|---|---|")
    for line in open(path):
        d = json.loads(line)
        m = d.get("metrics") or {}
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump({"metrics": m}, f)
            f.flush()
            out = subprocess.run([tool, "kb", "classify", "--metrics", f.name, "--json"] + (["--kb"] + kb if kb else []),
                                 capture_output=True, text=True)
        state = json.loads(out.stdout).get("state") if out.returncode == 0 else "error: " + out.stderr.strip()
        if not m:
            state = f"({state}: no profile)"
        counts[state] += 1

        def pct(k):
            return f"{m[k]:.1f}" if k in m else "-"

        print(f"| {d['problem']} | {d.get('status')} | {pct('sm_throughput_pct')} | {pct('l1_throughput_pct')} | "
              f"{pct('l2_throughput_pct')} | {pct('dram_throughput_pct')} | {pct('stall_long_scoreboard')} | {state} |")
    print()
    for state, n in counts.most_common():
        print(f"- {state}: {n}")


if __name__ == "__main__":
    main()
