#!/usr/bin/env python3
"""Joins the replay logs of several kernels (to_replay.py) into one, each
kernel's tunables one group of launch sites, as the one line sees a source
whose launchers are judged group by group: a configuration changes one
kernel's settings, at that kernel's speedup. `kernelblaster policy replay`
then searches the groups as the tool does (search_loop.h: part by part)
and reports each part's best.

  combine_replay.py OUT.json K5.json K6.json [...]
"""
import json
import sys


def main():
    out, inputs = sys.argv[1], sys.argv[2:]
    if len(inputs) < 2:
        sys.exit("name an output and at least two replay logs")
    logs = [json.load(open(p)) for p in inputs]
    tunables, evaluations, names = [], [], set()
    for log in logs:
        group = log["kernel"]
        for t in log["tunables"]:
            if t["name"] in names:
                sys.exit(f"tunable {t['name']} is in two of the logs")
            names.add(t["name"])
            tunables.append(dict(t, group=group))
        for e in log["evaluations"]:
            evaluations.append(dict(e, n=len(evaluations) + 1))
    best = max((e for e in evaluations if e["status"] == "ok"), key=lambda e: e["speedup"], default=None)
    joined = dict(logs[0], kernel=" + ".join(log["kernel"] for log in logs), tunables=tunables,
                  evaluations=evaluations, space_size=len(evaluations),
                  note="joined by combine_replay.py from " + ", ".join(inputs),
                  best=best["id"] if best else "", best_speedup=best["speedup"] if best else 1.0)
    json.dump(joined, open(out, "w"))
    print(f"{out}: {len(evaluations)} configurations in {len(logs)} groups")


if __name__ == "__main__":
    main()
