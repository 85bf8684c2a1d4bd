#!/usr/bin/env python3
"""The command line of `kernelblaster gpu` on any machine: --help, bad usage,
and info/ceilings either working (a GPU) or skipping with 77 (none)."""
import json
import os
import subprocess
import sys
import tempfile

tool = sys.argv[1]


def run(*args, env=None):
    return subprocess.run([tool, "gpu", *args], capture_output=True, text=True, timeout=600, env=env)


failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what)


p = run("--help")
expect(p.returncode == 0 and "gpu ceilings" in p.stdout, "gpu --help exits 0 and documents ceilings")
for bad in (["bogus"], [], ["info", "--refresh"], ["ceilings", "--device", "x"], ["info", "--unknown"]):
    p = run(*bad)
    expect(p.returncode == 2 and p.stderr.count("\n") == 1, f"gpu {' '.join(bad)} exits 2 with one line")

with tempfile.TemporaryDirectory() as cache:
    env = dict(os.environ, KERNELBLASTER_CACHE_DIR=cache)
    p = run("info", "--json", env=env)
    if p.returncode == 77:
        expect("no CUDA GPU" in p.stderr, "gpu info says why it skips")
        p = run("ceilings", env=env)
        expect(p.returncode == 77, "gpu ceilings skips without a GPU")
        print("no GPU: info and ceilings skip with 77")
    else:
        expect(p.returncode == 0, "gpu info --json exits 0 on a GPU: " + p.stderr)
        info = json.loads(p.stdout)
        expect(info["sm_count"] > 0 and info["fingerprint"], "gpu info reports the fingerprint")
        first = run("ceilings", "--json", env=env)
        expect(first.returncode == 0, "gpu ceilings measures: " + first.stderr)
        a = json.loads(first.stdout)
        expect(not a["cached"] and a["ceilings"]["dram_gbs"] > 0, "first ceilings are measured")
        second = json.loads(run("ceilings", "--json", env=env).stdout)
        expect(second["cached"] and second["ceilings"] == a["ceilings"], "second ceilings come from the cache")
        print(json.dumps(a["ceilings"]))
sys.exit(1 if failures else 0)
