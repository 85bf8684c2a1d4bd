#!/usr/bin/env python3
"""The commands of docs/fleet.md's recipes, run as the recipes run them
(the YAML around them is not): without a GPU, the GPU steps must stop at the
GPU check (exit 77, one line) having accepted their arguments, and the
steps that need no GPU must do their work.

  fleet_recipes_test.py TOOL
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures, passed = [], []


def expect(name, cond, p=None):
    (passed if cond else failures).append(name)
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or p is None else f": exit {p.returncode} {p.stderr[-300:]!r}"))


def fragment(gpu_name, speedup):
    g = {"name": gpu_name, "compute_capability": "9.0", "sm_count": 132, "driver_major": 580}
    gid = gpu_name.lower().replace(" ", "-") + "_sm90_132sm_drv580"
    return gid, {"kernelblaster_lockfile": 1, "sources": {"src/k.cu": {gid: {
        "key": "k1", "improved": True, "defines": [["BLOCK", "128"]], "flags": [], "config": {}, "speedup": speedup,
        "gpu": g, "measured_at": "2026-11-28T00:00:00Z", "tool_version": "test"}}}}


def main():
    tool = os.path.abspath(sys.argv[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION"))}
    with tempfile.TemporaryDirectory() as d:
        run = lambda cmd, **kw: subprocess.run(cmd, cwd=d, capture_output=True, text=True, **kw)
        # CI matrix, a GPU job: the resource spec of the runner's GPUs.
        p = run([tool, "gpu", "resource-spec", "--out", "gpus.json"], env=env)
        if p.returncode == 0:
            spec = json.load(open(os.path.join(d, "gpus.json")))
            expect("gpu resource-spec writes CTest's spec of this machine's GPUs", spec["local"][0]["gpus"][0]["id"] == "0")
        else:
            expect("gpu resource-spec without a GPU: exit 77, one line", p.returncode == 77 and
                   len(p.stderr.strip().splitlines()) == 1, p)
        # CI matrix, the merge job: the fragments both GPU jobs uploaded, into the lockfile.
        os.makedirs(os.path.join(d, "fragments"))
        ids = []
        for name, speedup in (("NVIDIA H100 80GB HBM3", 1.2), ("NVIDIA H200", 1.3)):
            gid, frag = fragment(name, speedup)
            ids.append(gid)
            json.dump(frag, open(os.path.join(d, "fragments", gid + ".json"), "w"))
        shutil.copy(os.path.join(d, "fragments", ids[0] + ".json"), os.path.join(d, "kernelblaster.lock.json"))
        frags = sorted(os.path.join("fragments", f) for f in os.listdir(os.path.join(d, "fragments")))
        p = run([tool, "lock", "merge", "kernelblaster.lock.json"] + frags, env=env)
        lock = json.load(open(os.path.join(d, "kernelblaster.lock.json")))
        expect("lock merge kernelblaster.lock.json fragments/*.json: both GPUs' entries",
               p.returncode == 0 and sorted(lock["sources"]["src/k.cu"]) == sorted(ids), p)
        # The dataset recipes: Slurm's array index and a Kubernetes indexed Job's.
        problems = os.path.join(ROOT, "tests", "kernelbench")
        for var, value in (("SLURM_ARRAY_TASK_ID", "3"), ("JOB_COMPLETION_INDEX", "3")):
            e = dict(env, **{var: value})
            p = run([tool, "optimize", "--kernelbench", problems, "--shard", "auto/8", "--out", "runs/level1",
                     "--kb", f"runs/kb-{value}.json", "--provider", "command", "--command", "printf none"], env=e)
            expect(f"optimize --shard auto/8 with {var}: its arguments accepted (no GPU: exit 77, one line)",
                   p.returncode in (0, 1, 77) and (p.returncode != 77 or len(p.stderr.strip().splitlines()) == 1), p)
        # After the array: one KB of the shards' KBs.
        seed = os.path.join(ROOT, "data", "kb", "seed.json")
        os.makedirs(os.path.join(d, "runs"), exist_ok=True)
        for i in range(3):
            shutil.copy(seed, os.path.join(d, "runs", f"kb-{i}.json"))
        ok = all(run([tool, "kb", "merge", "runs/kb-0.json", f"runs/kb-{i}.json"], env=env).returncode == 0
                 for i in (1, 2))
        p = run([tool, "kb", "validate", "runs/kb-0.json"], env=env)
        expect("kb merge runs/kb-0.json runs/kb-$i.json: one valid KB", ok and p.returncode == 0, p)
    print(f"{len(passed)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
