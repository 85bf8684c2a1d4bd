#!/usr/bin/env python3
"""What remote results storage costs a build step (issue 41 targets: under
50 ms on a hit, under 5 s when the server hangs). No GPU needed: the build
step runs for a machine without the GPU that names it by its fingerprint
id (TARGET_GPU), as a GPU-less CI job applies what a GPU runner tuned.

  run.py TOOL [--runs N] [--json FILE]

Starts tests/build_step/storage_server.py on loopback (files, then hang), puts one
result for the example's vector_add under its content key, and times
`kernelblaster build` (the step's wall time, median of N):
  local hit      the result in the local cache (remote storage configured)
  remote hit     an empty local cache: the result fetched from the server
  no storage     an empty local cache, no remote storage (a plain miss)
  hanging server an empty local cache, the server never answers
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = os.path.join(ROOT, "tests", "cache", "storage_server.py")
GPU = {"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132, "driver_major": 580}
GPU_ID = "nvidia-h200_sm90_132sm_drv580"


def start(mode, root):
    p = subprocess.Popen([sys.executable, SERVER, mode, root], stdout=subprocess.PIPE, text=True)
    return p, int(p.stdout.readline())


def build(tool, work, remote=None):
    cmd = [tool, "build", "--source", os.path.join(ROOT, "examples/kernels/src/vector_add.cu"),
           "--harness", os.path.join(ROOT, "examples/kernels/harness/vector_add_harness.cu"),
           "--out", os.path.join(work, "out.cu"), "--cache-dir", os.path.join(work, "cache"),
           "--target-gpu", GPU_ID, "--mode", "APPLY", "--json"]
    if remote:
        cmd += ["--remote-storage", remote]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t0, json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as d:
        work, served = os.path.join(d, "work"), os.path.join(d, "served")
        os.makedirs(served)
        key = build(a.tool, work)[1]["key"]
        entry = {"key": key, "improved": True, "defines": [], "flags": ["-lineinfo"], "config": {},
                 "speedup": 1.10, "gpu": GPU, "measured_at": "2026-11-28T00:00:00Z", "tool_version": "bench"}
        os.makedirs(os.path.join(served, "kb", GPU_ID))
        json.dump(entry, open(os.path.join(served, "kb", GPU_ID, key + ".json"), "w"))
        server, port = start("files", served)
        url = f"http://127.0.0.1:{port}/kb"

        def timed(label, remote, clear):
            times, origin = [], ""
            for _ in range(a.runs):
                if clear:
                    shutil.rmtree(os.path.join(work, "cache"), ignore_errors=True)
                t, rep = build(a.tool, work, remote)
                times.append(t)
                origin = rep.get("origin", "")
            out[label] = {"median_ms": 1000 * statistics.median(times), "min_ms": 1000 * min(times), "origin": origin}
            print(f"{label:15s} median {out[label]['median_ms']:7.1f} ms  min {out[label]['min_ms']:7.1f} ms  "
                  f"origin {origin!r}")

        timed("remote hit", url, True)
        timed("local hit", url, False)
        timed("no storage", None, True)
        server.kill()
        server, port = start("hang", served)
        a.runs = min(a.runs, 3)
        timed("hanging server", f"http://127.0.0.1:{port}/kb", True)
        server.kill()
    out["remote_hit_cost_ms"] = out["remote hit"]["median_ms"] - out["local hit"]["median_ms"]
    print(f"a remote hit costs {out['remote_hit_cost_ms']:.1f} ms over a local one; a hanging server "
          f"{out['hanging server']['median_ms'] / 1000:.1f} s")
    if a.json:
        json.dump(out, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
