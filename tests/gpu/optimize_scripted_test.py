#!/usr/bin/env python3
"""`kernelblaster optimize` end to end on a GPU with scripted replies that
hold real rewrites: honest ones from tests/adversarial/good and hostile ones
from tests/adversarial and tests/kernelbench/hostile. Each attempt must end
with the status that names what its code does (the static checks before the
engine, the engine after), every step must reach the KB, and a kept kernel
must be the honest rewrite.

  optimize_scripted_test.py TOOL

KERNELBLASTER_OPTIMIZE_ARTIFACTS=DIR keeps each run's artifacts there.
Exits 77 where the tool says there is no GPU (or, for the KernelBench part,
where the dataset or libtorch is missing, as long as nothing was counted).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
failures, passed = [], []


def check(name, cond, detail=""):
    (passed if cond else failures).append(name)
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))


def optimize(tool, work, script, args, name):
    script_path = os.path.join(work, "script.json")
    json.dump(script, open(script_path, "w"))
    state = os.path.join(work, "calls")
    out = os.path.join(work, "run")
    cmd = [tool, "optimize", "--out", out, "--kb", os.path.join(work, "kb.json"), "--trajectories", "1",
           "--review-every", "0", "--provider", "command",
           "--command", f"python3 {HERE}/scripted_llm.py {script_path} {state}", "--model", "scripted"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3000)
    keep = os.environ.get("KERNELBLASTER_OPTIMIZE_ARTIFACTS")
    if keep and os.path.isdir(out):  # the run's artifacts, for bench/results
        shutil.copytree(out, os.path.join(keep, name), dirs_exist_ok=True)
    return proc, out


def attempts_of(out):
    log = json.load(open(os.path.join(out, "trajectory.json")))
    return log, [(a["end"], a.get("status")) for s in log["steps"] for a in s["attempts"]]


def softmax_example(tool):
    with tempfile.TemporaryDirectory() as work:
        script = [{"file": "tests/adversarial/all_zero_softmax.cu"},      # step 0: wrong_result
                  {"file": "tests/adversarial/good/softmax_online_warp.cu"},  # its fix: honest
                  {"file": "tests/adversarial/other_stream.cu"},          # step 1: untimed_work
                  {"file": "tests/adversarial/partial_output.cu"},        # its fix: unwritten_output
                  {"text": "I cannot improve it further."}]               # last fix: no code
        proc, out = optimize(tool, work, script, [
            "--source", f"{ROOT}/examples/kernels/src/softmax.cu",
            "--harness", f"{ROOT}/examples/kernels/harness/softmax_harness.cu",
            "-I", f"{ROOT}/examples/kernels/include", "--launcher", "softmax_rows", "--steps", "2"], "softmax")
        if proc.returncode == 77:
            print("skipped: " + proc.stderr.strip())
            sys.exit(77)
        print(proc.stderr[-3000:])
        check("softmax: the run ends with 0 or 1", proc.returncode in (0, 1), proc.stderr[-500:])
        if proc.returncode not in (0, 1):
            return
        log, attempts = attempts_of(out)
        want = [("rejected", "wrong_result"), ("verified", "ok"), ("rejected", "untimed_work"),
                ("rejected", "unwritten_output"), ("no_code", None)]
        check("softmax: every attempt ends with the status naming it", attempts == want, attempts)
        check("softmax: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])
        summary = json.load(open(os.path.join(out, "summary.json")))
        if summary["improved"]:
            best = open(os.path.join(out, "best.cu")).read()
            honest = open(f"{ROOT}/tests/adversarial/good/softmax_online_warp.cu").read()
            check("softmax: the kept kernel is the honest rewrite", best.strip() == honest.strip())
        print(f"softmax: search {summary['search_speedup']:.3f}x, improved {summary['improved']}")


def kernelbench_relu(tool):
    data = os.environ.get("KERNELBLASTER_KERNELBENCH_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "kernelbench-cuda")
    problem = os.path.join(data, "level1", "019_ReLU")
    if not os.path.isdir(problem):
        print("KernelBench part skipped: the dataset is not here (set KERNELBLASTER_KERNELBENCH_DATA)")
        return
    with tempfile.TemporaryDirectory() as work:
        hostile = "tests/kernelbench/hostile/"
        script = [{"file": hostile + "relu_deferred_thread.cu"},    # std::thread: the static checks stop it
                  {"file": hostile + "relu_side_stream.cu"},        # untimed_work
                  {"file": hostile + "relu_pointer_cache.cu"},      # #include <set>: the static checks stop it
                  {"file": hostile + "relu_own_stream_synced.cu"}]  # step 1: honest
        proc, out = optimize(tool, work, script, ["--kernelbench", problem, "--steps", "2"], "level1_019_ReLU")
        print(proc.stderr[-3000:])
        if proc.returncode not in (0, 1):
            check("ReLU: the run ends with 0 or 1", False, proc.stderr[-500:])
            return
        log, attempts = attempts_of(out)
        want = [("static_check", None), ("rejected", "untimed_work"), ("static_check", None),
                ("verified", "ok")]
        check("ReLU: every attempt ends with the status naming it", attempts == want, attempts)
        check("ReLU: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])


def main():
    tool = sys.argv[1]
    softmax_example(tool)
    kernelbench_relu(tool)
    print(f"{len(passed)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
