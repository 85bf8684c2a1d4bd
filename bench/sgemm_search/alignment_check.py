#!/usr/bin/env python3
"""Which recorded configurations the space's derived constraints keep.

  alignment_check.py TOOL SOURCE_DIR LOG.json[.gz] ...

Lists the space of SOURCE_DIR/src/runner.cu (SGEMM_CUDA) with `tune --list`
and evaluates every constraint over the tunables each logged evaluation set
(the rest at their defaults). Prints, per log and in all, how many
configurations of each status the constraints keep and exclude: a derived
constraint should exclude what crashed and nothing that verified. The logs
are tuning run logs (`tune --log`, `bench/results/*/…log.json.gz`).
"""
import gzip
import json
import re
import subprocess
import sys
from collections import Counter


def as_python(c):
    c = c.replace("&&", " and ").replace("||", " or ")
    c = re.sub(r"!(?!=)", " not ", c)
    return c.replace("/", "//")


def main():
    tool, root, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
    listing = json.loads(subprocess.run([tool, "tune", "--list", "--source", f"{root}/src/runner.cu", "-I", f"{root}/src",
                                         "--json"], capture_output=True, text=True, check=True).stdout)
    defaults = {t["name"]: int(t["default"]) for t in listing["tunables"]}
    constraints = [(c, as_python(c)) for c in listing["constraints"]]
    print(f"space: {listing['valid']} valid configurations, {len(constraints)} constraints")
    total = Counter()
    for path in logs:
        log = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        counts = Counter()
        for e in log["evaluations"]:
            values = dict(defaults)
            values.update({k: int(v) for k, v in e.get("settings", {}).items()})
            failed = [c for c, p in constraints if set(re.findall(r"KERNELBLASTER_\w+", c)) <= values.keys()
                      and not eval(p, {}, values)]
            key = (e.get("status"), "excluded" if failed else "kept")
            counts[key] += 1
            if failed and e.get("status") == "ok":
                print(f"  verified but excluded: {e['id']} by {failed[0]}")
        total.update(counts)
        print(path, dict(sorted(counts.items())))
    print("all", dict(sorted(total.items())))


if __name__ == "__main__":
    main()
