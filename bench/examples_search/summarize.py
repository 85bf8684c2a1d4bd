#!/usr/bin/env python3
"""One example's tuning run in a few lines: the summary's verdict, where the
wall time went, and each evaluation with its own phases (the run log)."""
import json
import sys


def main(summary_path, log_path):
    try:
        s = json.load(open(summary_path))
    except (OSError, ValueError) as e:
        print(f"  no summary: {e}")
        return
    print(f"  {s.get('status')} {s.get('speedup', 0):.3f}x (search {s.get('search_speedup', 0):.3f}x) "
          f"in {s.get('seconds', 0):.1f} s, {s.get('evaluations')} evaluations, {s.get('builds')} builds; "
          f"config {s.get('config')} flags {s.get('flags')}; search stop: {s.get('search_stop', '?')}; {s.get('reason', '')}")
    print("  phases " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(s.get("phases_s", {}).items())))
    try:
        log = json.load(open(log_path))
    except (OSError, ValueError):
        return
    for r in log.get("evaluations", []):
        ph = ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.get("phases_s", {}).items()) if v >= 0.05)
        print(f"  #{r['n']} at {r['at_s']:.1f} s  {r['id']}: {r['status']} {r['speedup']:.3f}x  "
              f"compile {r['compile_s']:.1f} s, waited {r.get('build_wait_s', 0):.1f} s, eval {r['eval_s']:.2f} s  [{ph}]")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
