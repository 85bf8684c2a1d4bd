#!/usr/bin/env python3
"""Issue 41's shard target: does `optimize --kernelbench` in shards keep what
one whole run keeps, and does the shards' merged KB hold what the whole
run's KB holds?

  compare_shards.py WHOLE_DIR SHARDED_DIR WHOLE_KB MERGED_KB

Per problem: kept or not, the kept attempt, every attempt's status (the
speedups are measurements and differ run to run; they are printed, not
compared). Per KB entry (state, technique, architecture, setting): tries,
successes and measured counts. Exits 1 on any difference.
"""
import json
import os
import sys


def problems(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        summary = os.path.join(folder, name, "summary.json")
        trajectory = os.path.join(folder, name, "trajectory.json")
        if not os.path.isfile(summary):
            continue
        s = json.load(open(summary))
        statuses = []
        if os.path.isfile(trajectory):
            for step in json.load(open(trajectory)).get("steps", []):
                statuses += [a.get("status", "?") for a in step.get("attempts", [])]
        out[name] = {"improved": bool(s.get("improved")), "best": s.get("best"), "statuses": statuses,
                     "speedup": s.get("confirmed_speedup") or s.get("search_speedup"), "stop": s.get("stop_reason")}
    return out


def kb_counts(path):
    kb = json.load(open(path))
    return {(e["state"], e["technique"], e["arch"], e.get("setting", "")): (e["tries"], e["successes"], e["measured"])
            for e in kb.get("stats", [])}


def main():
    whole_dir, sharded_dir, whole_kb, merged_kb = sys.argv[1:5]
    whole, sharded = problems(whole_dir), problems(sharded_dir)
    differences = 0
    print("| problem | whole: kept, statuses, speedup | shards: kept, statuses, speedup | same |")
    print("|---|---|---|---|")
    for name in sorted(set(whole) | set(sharded)):
        a, b = whole.get(name), sharded.get(name)
        same = a is not None and b is not None and all(a[k] == b[k] for k in ("improved", "best", "statuses"))
        differences += not same

        def cell(r):
            if r is None:
                return "missing"
            speed = f"{r['speedup']:.3f}x" if isinstance(r["speedup"], (int, float)) else "-"
            return f"{'kept ' + str(r['best']) if r['improved'] else 'not kept'}, {' '.join(r['statuses']) or '-'}, {speed}"

        print(f"| {name} | {cell(a)} | {cell(b)} | {'yes' if same else 'NO'} |")
    kw, km = kb_counts(whole_kb), kb_counts(merged_kb)
    print("\n| KB entry (state, technique, arch) | whole: tries, successes, measured | merged shards | same |")
    print("|---|---|---|---|")
    for key in sorted(set(kw) | set(km)):
        same = kw.get(key) == km.get(key)
        differences += not same
        print(f"| {', '.join(k for k in key if k)} | {kw.get(key, '-')} | {km.get(key, '-')} | {'yes' if same else 'NO'} |")
    print(f"\n{len(whole)} problems whole, {len(sharded)} in shards; {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
