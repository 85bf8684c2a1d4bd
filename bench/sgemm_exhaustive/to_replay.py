#!/usr/bin/env python3
"""Turns a kernel's screen (exhaustive.py) into the run log `kernelblaster
policy replay` reads, so the default policy can be replayed on a landscape
of SGEMM_CUDA as the one line sees it.

  to_replay.py SPACE.json LISTING.json SCREEN.jsonl KERNEL OUT.json [--suspect-tail] [--space-today]
               [--times=TIME.jsonl[,TIME.jsonl...]] [--measured=RUN.log.json[.gz]]

Each configuration of the kernel's space is one evaluation with the status
the screen gave it (ok, wrong_result, out_of_bounds, crashed, launch_failed;
a hang and a configuration whose loops never end are timed_out), an ok one
with its speedup at 2048 over the author's configuration (the median of the
author's screens). Tunables keep the tool's names and value order; the
original is the author's configuration. Refuses a kernel whose screen is
incomplete. Nothing here measures anything.

--suspect-tail: for a screen by the driver before its fix of 2026-11-29
(the first H200 run), whose check took what an earlier configuration of the
same process had written to C beyond the 128 x 128 result for this one's
stray writes: an out_of_bounds verdict that follows a configuration that
wrote there (one verified, or failed at 2048) in the same process is left
out of the recording (unknown), not counted as a failure.

--space-today: for the first run's space.json, leaves out the configurations
space.py set aside there (`never_ends`) because
their loops never end, as the tool's own space does since it reads loop
steps (tuner/counted_loops.h); without it they are timed_out tries.

--times: `exhaustive.py time` files of the kernel: each configuration timed
there takes the geometric mean of its speedup at 2048 (the screen's) and
at 4096 over the author's (the median of the author's timings in those
files), and one that failed there (at a size the screen did not check) its
failure; the others keep the screen's at 2048. That mean is what the one
line optimizes: the harness it synthesizes for the program times the two
largest recorded calls, 2048 and 4096, and a candidate's speedup is their
geometric mean (on kernel 12's H200 run, 94 configurations measured both
ways agree within 0.09%, median absolute deviation, against 0.24% for 4096
alone), and single moves can rank otherwise there than at 2048 alone.

--measured: a one-line run's log (`runner.cu.tuned.cu.log.json`, gzip or
not): each configuration it verified takes the figure it measured, so a
replay with that run's seed and pace (`policy replay --first-seed 0
--builders 16 ...`) walks the run's own path where its figures and the
landscape's differ by a tie.
"""
import gzip
import json
import statistics
import sys


def main():
    space_path, listing_path, screen_path, kernel, out = sys.argv[1:6]
    space = json.load(open(space_path))[kernel]
    listing = json.load(open(listing_path))
    techniques = {t["name"]: t["technique"] for t in listing["tunables"]}
    suspect_tail = "--suspect-tail" in sys.argv[6:]
    last, suspect = {}, set()
    originals = []
    dirty = False
    for line in open(screen_path):
        if not line.strip():
            continue
        m = json.loads(line)
        if m.get("kernel") != int(kernel) or "i" not in m:
            continue
        if m["i"] == 0:
            dirty = False  # a program's first configuration: C as it started
        if m["status"] == "out_of_bounds" and dirty:
            suspect.add(m["i"])
        # A crash or hang starts a fresh process; an out_of_bounds verdict
        # restores the buffers; a failure at 128 returns before 2048.
        dirty = m["status"] == "ok" or (m["status"] == "wrong_result" and "at size 2048" in m.get("detail", ""))
        if m["i"] == 0 and m["status"] == "ok":
            originals.append(m["us2048"])
        last[m["i"]] = m
    missing = [i for i in range(1, len(space["configs"])) if i not in last]
    if missing or not originals:
        sys.exit(f"kernel {kernel}: {len(missing)} of {len(space['configs']) - 1} configurations not screened")
    ref = statistics.median(originals)
    names, original = space["names"], space["configs"][0]
    tunables = [{"name": n, "values": [str(v) for v in vals], "default": str(d),
                 "technique": techniques.get(n, "parameter_tuning")}
                for n, vals, d in zip(names, space["values"], original)]
    status_of = {"hang": "timed_out"}
    evaluations = []

    def add(config, status, us, detail):
        n = len(evaluations) + 1
        diff = {name: str(v) for name, v, d in zip(names, config, original) if v != d}
        rec = {"n": n, "id": ",".join(f"{k}={v}" for k, v in diff.items()), "settings": diff, "flags": [],
               "sass_hash": f"sgemm{kernel}-{n:06d}", "reference_median_us": ref, "device": 0,
               "duplicate_of": "", "accepted": False, "status": status, "detail": detail,
               "median_us": us if status == "ok" else 0, "speedup": ref / us if status == "ok" and us > 0 else 0}
        evaluations.append(rec)

    for i in range(1, len(space["configs"])):
        if suspect_tail and i in suspect:
            continue
        m = last[i]
        add(space["configs"][i], status_of.get(m["status"], m["status"]), m.get("us2048", 0), m.get("detail", ""))
    for config in [] if "--space-today" in sys.argv[6:] else space.get("never_ends", []):
        add(config, "timed_out", 0, "its load loops never end (a step of 0)")
    timed = with_4096(sys.argv[6:], kernel, evaluations, space)
    measured = with_measured(sys.argv[6:], evaluations)
    ok = [e for e in evaluations if e["status"] == "ok"]
    best = max(ok, key=lambda e: e["speedup"]) if ok else None
    log = {
        "version": 1, "synthetic": False,
        "note": "converted from bench/sgemm_exhaustive's screen by to_replay.py; times at 2048 (the screen's)"
                + (f", {timed} configurations the geometric mean of 2048 and 4096 (exhaustive.py time)"
                   if timed else "")
                + ", the original is the author's configuration",
        "kernel": f"SGEMM_CUDA kernel {kernel} ({space['kernel']})", "source": "src/runner.cu",
        "state": "unclassified", "arch": "sm_90", "gpu": "NVIDIA H200", "date": "", "policy": "exhaustive",
        "metrics": {}, "tunables": tunables, "constraints": [], "flag_dimensions": [],
        "space_size": len(evaluations), "space_capped": False, "reference_median_us": ref,
        "original_sass_hash": f"sgemm{kernel}-original", "evaluations": evaluations,
        "best": best["id"] if best else "", "best_speedup": best["speedup"] if best else 1.0,
    }
    json.dump(log, open(out, "w"))
    left = f", {len(suspect)} suspect out_of_bounds left out" if suspect_tail else ""
    where = f"{timed} over 2048 and 4096, the rest at 2048" if timed else "at 2048"
    where += f"; {measured} as a run measured them" if measured else ""
    print(f"{out}: {len(evaluations)} configurations, {len(ok)} verified, best {log['best_speedup']:.3f}x ({where}; "
          f"{log['best']}){left}")


def with_4096(options, kernel, evaluations, space):
    """Applies --times to `evaluations` (in space order from index 1); returns how many it set."""
    files = [f for o in options if o.startswith("--times=") for f in o[len("--times="):].split(",") if f]
    if not files:
        return 0
    rows = [m for f in files for m in map(json.loads, filter(str.strip, open(f)))
            if m.get("kernel") == int(kernel) and m.get("i") is not None]
    authors = [m["us4096"] for m in rows if m["i"] == 0 and m["status"] == "ok"]
    if not authors:
        sys.exit(f"kernel {kernel}: no timing of the author's configuration in {', '.join(files)}")
    ref = statistics.median(authors)
    by_config = {tuple(space["configs"][m["i"]]): m for m in rows if m["i"] != 0}
    names, original = space["names"], space["configs"][0]
    count = 0
    for e in evaluations:
        key = tuple(int(e["settings"].get(n, d)) for n, d in zip(names, original))
        m = by_config.get(key)
        if m is None:
            continue
        count += 1
        if m["status"] != "ok":
            e.update(status={"hang": "timed_out", "timing_failed": "crashed"}.get(m["status"], m["status"]),
                     median_us=0, speedup=0, detail=m.get("detail", ""))
        elif e["status"] == "ok":  # `time` takes only what the screen verified
            e.update(median_us=(e["median_us"] * m["us4096"]) ** 0.5,
                     reference_median_us=(e["reference_median_us"] * ref) ** 0.5,
                     speedup=(e["speedup"] * ref / m["us4096"]) ** 0.5)
    return count


def with_measured(options, evaluations):
    """Applies --measured to `evaluations`; returns how many it set."""
    paths = [o[len("--measured="):] for o in options if o.startswith("--measured=")]
    if not paths:
        return 0
    opener = gzip.open if paths[0].endswith(".gz") else open
    with opener(paths[0], "rt") as f:
        run = json.load(f)
    seen = {tuple(sorted(r.get("settings", {}).items())): r for r in run["evaluations"] if r["status"] == "ok"}
    count = 0
    for e in evaluations:
        r = seen.get(tuple(sorted(e["settings"].items())))
        if r and e["status"] == "ok":
            e.update(speedup=r["speedup"], median_us=r["median_us"], reference_median_us=r["reference_median_us"])
            count += 1
    return count


if __name__ == "__main__":
    main()
