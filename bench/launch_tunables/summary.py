"""The table of bench/launch_tunables/run.sh: one row per source."""
import collections
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
seconds = {}
for line in (out / "seconds.tsv").read_text().splitlines():
    name, src, s = line.split("\t")
    seconds[name] = (src, s)

print("| source | launch sites | tunables (define / constant / template argument / other) | constraints | groups | valid configurations (before flags) | seconds |")
print("|---|---|---|---|---|---|---|")
for name, (src, s) in seconds.items():
    try:
        j = json.loads((out / f"{name}.json").read_text())
    except (OSError, ValueError):
        print(f"| {src} | listing failed: see {name}.txt | | | | | {s} |")
        continue
    kinds = collections.Counter(t["kind"] for t in j["tunables"])
    other = len(j["tunables"]) - kinds["define"] - kinds["constant"] - kinds["template argument"]
    groups = len([g for g in j["groups"] if g["group"]])
    valid = j["valid"] if not j["error"] else j["error"]
    notes = f" ({len(j['notes'])} notes)" if j["notes"] else ""
    print(f"| {src} | {len(j['sites'])} | {len(j['tunables'])} ({kinds['define']} / {kinds['constant']} / "
          f"{kinds['template argument']} / {other}) | {len(j['constraints'])}{notes} | {groups} | {valid} | {s} |")
