#!/usr/bin/env python3
"""Converts a Kernel Tuner cache file (a brute-force recording of a whole
search space, as the benchmark_hub of the auto-tuning community keeps them)
into the run log that `kernelblaster policy replay` reads.

  convert.py CACHE.json[.gz] OUT.json [--name NAME]

Each tunable keeps Kernel Tuner's values in their order; a tunable with one
value is left out (nothing to choose). Every recorded configuration becomes
one evaluation: a measured time is status ok with its speedup over the
original, an error string ("CompilationFailedConfig", "RuntimeFailedConfig",
"InvalidConfig") a failed try. The recordings have no author's
configuration, so the original is the valid configuration of median time
(its speedup 1.0): neither a gift nor a trap for either side. Nothing here
measures anything; the times are the recording's.
"""
import argparse
import gzip
import json
import statistics


def technique(name):
    n = name.lower()
    if "unroll" in n:
        return "loop_unrolling"
    if "block" in n or "dimc" in n or "thread" in n:
        return "block_size_adaptation"
    if "tile" in n or "wg" in n or "wi" in n:
        return "tiling"
    if n.startswith("vw") or "vector" in n:
        return "vectorized_memory_access"
    if "shmem" in n or n in ("sa", "sb") or "shared" in n or "padding" in n:
        return "shared_memory_tiling"
    return "parameter_tuning"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def key_values(key):
    return key.split(",")


def convert(cache, name):
    keys = cache["tune_params_keys"]
    params = cache["tune_params"]
    entries = []
    for key, entry in cache["cache"].items():
        values = key_values(key)
        if len(values) != len(keys):
            continue
        t = entry.get("time")
        entries.append((dict(zip(keys, values)), t if isinstance(t, (int, float)) else None, t))
    valid = sorted((e for e in entries if e[1] is not None), key=lambda e: e[1])
    original = valid[(len(valid) - 1) // 2]
    tunables = []
    for k in keys:
        vals = [str(v) for v in params[k]]
        if len(vals) < 2:
            continue
        tunables.append({"name": k, "values": vals, "default": str(original[0][k]), "technique": technique(k)})
    ref = original[1]
    evaluations = []
    n = 0
    for settings, t, raw in entries:
        if settings == original[0]:
            continue
        n += 1
        diff = {tu["name"]: settings[tu["name"]] for tu in tunables if settings[tu["name"]] != tu["default"]}
        ident = ",".join(f"{tu['name']}={diff[tu['name']]}" for tu in tunables if tu["name"] in diff)
        rec = {"n": n, "id": ident, "settings": diff, "flags": [], "sass_hash": f"kt{n:06d}",
               "reference_median_us": ref, "device": 0, "duplicate_of": "", "accepted": False}
        if t is None:
            rec.update({"status": "compile_failed" if "Compil" in str(raw) else "launch_failed",
                        "detail": str(raw), "median_us": 0, "speedup": 0})
        else:
            rec.update({"status": "ok", "detail": "", "median_us": t, "speedup": ref / t})
        evaluations.append(rec)
    best = max((e for e in evaluations if e["status"] == "ok"), key=lambda e: e["speedup"])
    return {
        "version": 1, "synthetic": False,
        "note": "converted from a Kernel Tuner brute-force cache by bench/kt_replay/convert.py; "
                "times are the recording's, the original is its median-time configuration",
        "kernel": name, "source": cache.get("kernel_name", name), "state": "unclassified",
        "arch": "", "gpu": cache.get("device_name", ""), "date": "", "policy": "brute_force",
        "metrics": {}, "tunables": tunables, "constraints": [], "flag_dimensions": [],
        "space_size": len(evaluations), "space_capped": False, "reference_median_us": ref,
        "original_sass_hash": "kt-original", "evaluations": evaluations,
        "best": best["id"], "best_speedup": best["speedup"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("out")
    ap.add_argument("--name", default="")
    a = ap.parse_args()
    log = convert(load(a.cache), a.name or a.cache)
    with open(a.out, "w") as f:
        json.dump(log, f)
    print(f"{a.out}: {log['space_size']} configurations, {len(log['tunables'])} tunables, best {log['best_speedup']:.3f}x over the median")


if __name__ == "__main__":
    main()
