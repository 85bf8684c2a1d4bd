#!/usr/bin/env python3
"""GPU acceptance tests of the measurement engine, run by CTest (label gpu).

  run_cases.py TOOL adversarial   every case in tests/adversarial/cases.json
                                  must end with its expected status
  run_cases.py TOOL adversarial-bound
                                  the cases of tests/adversarial/cases.json
                                  that the object bound must refuse
                                  (forbidden_code with the bound on): refused,
                                  naming what, with or without a GPU (the
                                  bound reads the compiled object before
                                  anything runs), so CI without a GPU runs it
  run_cases.py TOOL self SEEDS    every example judged against itself over
                                  SEEDS seeds must be accepted (no false
                                  rejection)
  run_cases.py TOOL adversarial-synth
                                  the same cases, each judged with a harness
                                  synthesized from a capture instead of the
                                  hand-written one (issue 13's target): the
                                  hand-written harness, run by the engine
                                  with the recording shim as its source, is
                                  the captured program; the original must
                                  pass against itself with the synthesized
                                  harness and every case the hand-written
                                  harness rejects must be rejected
  run_cases.py TOOL kernelbench   every problem in tests/kernelbench: init.cu
                                  and candidate_good.cu accepted,
                                  each candidate_bad*.cu rejected with the status
                                  its `// expected status:` line names
                                  (skipped where libtorch is not found)
  run_cases.py TOOL kernelbench-hostile
                                  every case of tests/kernelbench/hostile/cases.json
                                  against problems of the published dataset
                                  (KERNELBLASTER_KERNELBENCH_DATA, else
                                  ../shared/kernelbench-cuda beside the checkout):
                                  each ends with its expected status, and a
                                  rejected one reports no speedup

Exits 77 (CTest's skip) where `kernelblaster eval` says there is no GPU.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = os.path.join(ROOT, "examples", "kernels", "include")
EXAMPLES = ["vector_add", "softmax", "rmsnorm", "transpose", "matmul"]

# Cases counted so far, over the whole run: a skip may end a run only
# before any case was counted, never discard what was.
COUNTED = {"passed": 0, "failed": 0}


def count(good):
    COUNTED["passed" if good else "failed"] += 1


def skip(reason):
    print("skipped: " + reason)
    if COUNTED["passed"] or COUNTED["failed"]:
        print(f"FAIL: the run was cut short after {COUNTED['passed']} passed and {COUNTED['failed']} failed cases; "
              "a skip here would hide them")
        sys.exit(1)
    sys.exit(77)


def evaluate(tool, source, harness, candidate=None, extra=(), env=None):
    cmd = [tool, "eval", "--json", "--source", os.path.join(ROOT, source),
           "--harness", os.path.join(ROOT, harness), "-I", INCLUDE, "--timeout", "20"]
    if candidate:
        cmd += ["--candidate", os.path.join(ROOT, candidate)]
    cmd += list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=dict(os.environ, **(env or {})))
    if proc.returncode == 77:
        skip(proc.stderr.strip())
    if proc.returncode not in (0, 1):
        return {"status": "tool_error", "detail": proc.stderr.strip()}
    return json.loads(proc.stdout)


def adversarial(tool):
    with open(os.path.join(ROOT, "tests", "adversarial", "cases.json")) as f:
        cases = json.load(f)["cases"]
    only = os.environ.get("KERNELBLASTER_CASES_ONLY")  # a regular expression over the case names
    if only:
        cases = [c for c in cases if re.search(only, c["name"])]
    passed = failed = 0
    for case in cases:
        result = evaluate(tool, case["source"], case["harness"], case["candidate"], env=case.get("env"))
        allowed = [case["expect"]] + case.get("also_ok", [])
        good = result["status"] in allowed
        good = good and case.get("detail", "") in result.get("detail", "")  # forbidden_code names what
        if "speedup_below" in case:  # a forgery that would have shown as a speedup
            good = good and result.get("speedup", 0) < case["speedup_below"]
        for key, want in case.get("sandbox", {}).items():
            good = good and result.get("sandbox", {}).get(key) == want
        passed, failed = passed + good, failed + (not good)
        count(good)
        print(f"{'PASS' if good else 'FAIL'} {case['name']}: {result['status']} "
              f"(expected {'/'.join(allowed)}) {result.get('detail', '')[:200]} "
              f"sandbox {json.dumps(result.get('sandbox', {}))}")
    return passed, failed


def adversarial_bound(tool):
    """Issue 39: what the object bound refuses, it refuses before any GPU is
    asked for; a case that reaches the GPU check (77 here) was not refused."""
    with open(os.path.join(ROOT, "tests", "adversarial", "cases.json")) as f:
        cases = [c for c in json.load(f)["cases"]
                 if c["expect"] == "forbidden_code" and c.get("env", {}).get("KERNELBLASTER_OBJECT_BOUND") != "off"]
    passed = failed = 0
    for case in cases:
        cmd = [tool, "eval", "--json", "--source", os.path.join(ROOT, case["source"]),
               "--harness", os.path.join(ROOT, case["harness"]), "-I", INCLUDE, "--timeout", "20",
               "--candidate", os.path.join(ROOT, case["candidate"])]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        try:
            result = json.loads(proc.stdout)
        except json.JSONDecodeError:
            result = {"status": f"exit {proc.returncode}", "detail": proc.stderr.strip()}
        good = result["status"] == "forbidden_code" and case.get("detail", "") in result.get("detail", "")
        passed, failed = passed + good, failed + (not good)
        print(f"{'PASS' if good else 'FAIL'} {case['name']}: {result['status']} {result.get('detail', '')[:200]}")
    return passed, failed


def self_check(tool, seeds):
    passed = failed = 0
    for name in EXAMPLES:
        result = evaluate(tool, f"examples/kernels/src/{name}.cu", f"examples/kernels/harness/{name}_harness.cu",
                          extra=["--seeds", str(seeds), "--no-timing"])
        checks = result.get("checks", [])
        runs = len(checks)
        # Every size must have run with every seed asked for (plus one
        # repeat of the first): fewer runs would be a weaker check passing.
        sizes = {c["size"] for c in checks}
        short = [z for z in sorted(sizes) if len({c["seed"] for c in checks if c["size"] == z}) != seeds]
        good = result["status"] == "ok" and bool(sizes) and not short and runs == len(sizes) * (seeds + 1)
        if result["status"] == "ok" and not good:
            result["detail"] = (f"{runs} runs over sizes {sorted(sizes)}, expected {seeds} seeds per size plus one "
                                f"repeat; sizes short of seeds: {short}")
        passed, failed = passed + good, failed + (not good)
        count(good)
        print(f"{'PASS' if good else 'FAIL'} {name} against itself: {result['status']} over {runs} runs "
              f"{result.get('detail', '')[:200]}")
    return passed, failed


def marked_status(path, mark, default=None):
    """The status a candidate file names on a line `// MARK: NAME`."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*//\s*" + mark + r":\s*(\w+)", line, re.IGNORECASE)
            if m:
                return m.group(1)
    return default


def expected_status(path, default="wrong_result"):
    """A bad candidate names the status that must catch it on a line
    `// expected status: NAME`; without one it is wrong_result."""
    return marked_status(path, "expected status", default)


def bound_status(path):
    """The status the object bound (judge/object_bound.h) gives a bad
    candidate it catches before any defence behind it, on a line
    `// with the object bound: NAME`; None where it lets it through."""
    return marked_status(path, "with the object bound")


def kernelbench(tool):
    """Each problem of tests/kernelbench: init.cu and candidate_good.cu end
    ok, each candidate_bad*.cu with its expected status. A bad candidate
    the object bound catches first is judged twice: as it is (the bound's
    status) and with KERNELBLASTER_OBJECT_BOUND=off (the defence behind it,
    its expected status), so that defence stays tested."""
    passed = failed = 0
    base = os.path.join(ROOT, "tests", "kernelbench")
    for problem in sorted(os.listdir(base)):
        pdir = os.path.join(base, problem)
        if not os.path.isfile(os.path.join(pdir, "driver.cpp")):
            continue  # not a problem (hostile/ holds candidates for the shared dataset)
        bad = sorted(f for f in os.listdir(pdir) if f.startswith("candidate_bad") and f.endswith(".cu"))
        runs = [(None, "ok", {}), ("candidate_good.cu", "ok", {})]
        for b in bad:
            caught = bound_status(os.path.join(pdir, b))
            if caught:
                runs.append((b, caught, {}))
            runs.append((b, expected_status(os.path.join(pdir, b)), {"KERNELBLASTER_OBJECT_BOUND": "off"} if caught else {}))
        for cand, expect, env in runs:
            if cand and not os.path.exists(os.path.join(pdir, cand)):
                continue
            # One work directory per problem: the driver object is built once.
            work = os.path.join(tempfile.gettempdir(), f"kernelblaster-kbtest-{os.getpid()}", problem)
            cmd = [tool, "eval", "--json", "--kernelbench", pdir, "--timeout", "120", "--work-dir", work]
            if cand:
                cmd += ["--candidate", os.path.join(pdir, cand)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=dict(os.environ, **env))
            if proc.returncode == 77:
                skip(proc.stderr.strip())
            result = json.loads(proc.stdout) if proc.returncode in (0, 1) else {"status": "tool_error",
                                                                                "detail": proc.stderr.strip()}
            if "libtorch not found" in result.get("detail", ""):
                skip(result["detail"])
            good = result["status"] == expect
            passed, failed = passed + good, failed + (not good)
            count(good)
            speed = f" speedup {result['speedup']:.2f}x" if result.get("speedup") else ""
            print(f"{'PASS' if good else 'FAIL'} {problem} {cand or 'init.cu'}{' (object bound off)' if env else ''}: {result['status']} "
                  f"(expected {expect}){speed} {result.get('detail', '')[:300]}")
    return passed, failed


def dataset_dir():
    candidates = [os.environ.get("KERNELBLASTER_KERNELBENCH_DATA", ""),
                  os.path.join(os.path.dirname(ROOT), "shared", "kernelbench-cuda"),
                  os.path.join(ROOT, ".kb-data", "kernelbench-cuda")]
    for d in candidates:
        if d and os.path.isdir(os.path.join(d, "level1")):
            return d
    return None


def kernelbench_hostile(tool):
    """Each case of tests/kernelbench/hostile/cases.json, one at a time (the
    cases of a problem share its work directory, where its driver object is
    built once); KERNELBLASTER_HOSTILE_ONLY, a regular expression over the
    candidate names, picks some."""
    data = dataset_dir()
    if not data:
        skip("the KernelBench-CUDA dataset is not here (set KERNELBLASTER_KERNELBENCH_DATA)")
    base = os.path.join(ROOT, "tests", "kernelbench", "hostile")
    with open(os.path.join(base, "cases.json")) as f:
        cases = json.load(f)["cases"]
    only = os.environ.get("KERNELBLASTER_HOSTILE_ONLY")
    if only:
        cases = [c for c in cases if re.search(only, c.get("candidate") or "init.cu")]
    work_root = os.path.join(tempfile.gettempdir(), f"kernelblaster-kbhostile-{os.getpid()}")

    def judge(case):
        pdir = os.path.join(data, case["problem"])
        # One work directory per problem: its driver object is built once.
        work = os.path.join(work_root, case["problem"].replace("/", "_"))
        cmd = [tool, "eval", "--json", "--kernelbench", pdir, "--work-dir", work]
        if case.get("candidate"):
            cmd += ["--candidate", os.path.join(base, case["candidate"])]
        start = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800,
                              env=dict(os.environ, **case.get("env", {})))
        wall = time.time() - start
        if proc.returncode == 77:
            return case, None, wall, proc.stderr.strip()
        result = json.loads(proc.stdout) if proc.returncode in (0, 1) else {"status": "tool_error",
                                                                            "detail": proc.stderr.strip()}
        return case, result, wall, ""

    passed = failed = 0

    def report(case, result, wall, no_gpu):
        nonlocal passed, failed
        if result is None:
            skip(no_gpu)
        if "libtorch not found" in result.get("detail", ""):
            skip(result["detail"])
        allowed = [case["expect"]] + case.get("also_ok", [])
        good = result["status"] in allowed and (result["status"] == "ok" or not result.get("speedup"))
        good = good and case.get("detail", "") in result.get("detail", "")  # forbidden_code names what
        if "speedup_below" in case:  # a forgery that would have shown as a speedup
            good = good and result.get("speedup", 0) < case["speedup_below"]
        sandbox = result.get("sandbox", {})
        for key, want in case.get("sandbox", {}).items():
            if key == "strays_killed_at_least":
                good = good and sandbox.get("strays_killed", 0) >= want
            else:
                good = good and sandbox.get(key) == want
        passed, failed = passed + good, failed + (not good)
        count(good)
        speed = f" speedup {result['speedup']:.3f}x" if result.get("speedup") else ""
        plaus = result.get("plausibility", {}).get("line", "")
        print(f"{'PASS' if good else 'FAIL'} {case['problem']} {case.get('candidate') or 'init.cu'}: "
              f"{result['status']} (expected {'/'.join(allowed)}){speed} wall {wall:.1f} s "
              f"(compile {result.get('compile_seconds', 0):.1f} s, eval {result.get('eval_seconds', 0):.1f} s) "
              f"{result.get('detail', '')[:300]} sandbox {json.dumps(sandbox)}"
              f"{' plausibility: ' + plaus if plaus else ''}", flush=True)

    for case in cases:
        report(*judge(case))
    return passed, failed


def adversarial_synth(tool):
    """Issue 13: a synthesized harness catches what the hand-written one does."""
    import concurrent.futures
    import glob
    with open(os.path.join(ROOT, "tests", "adversarial", "cases.json")) as f:
        cases = json.load(f)["cases"]
    work = tempfile.mkdtemp(prefix="kernelblaster-synth-cases-")
    runtime_include = os.path.join(ROOT, "tool", "include")
    synthesized, failures = {}, []
    for source, harness in sorted({(c["source"], c["harness"]) for c in cases}):
        stem = os.path.splitext(os.path.basename(source))[0]
        shims, captured = os.path.join(work, "shims"), os.path.join(work, "captured", stem)
        subprocess.run([tool, "capture", "shim", os.path.join(ROOT, source), "-I", INCLUDE, "--out", shims],
                       check=True, capture_output=True, text=True)
        # The program: the hand-written harness, its source the recording shim.
        rec = subprocess.run([tool, "capture", "--out", captured, "--", tool, "eval", "--json",
                              "--source", os.path.join(shims, stem + ".capture.cu"),
                              "--harness", os.path.join(ROOT, harness), "-I", INCLUDE, "-I", runtime_include,
                              "-I", os.path.dirname(os.path.join(ROOT, source)), "--no-timing"],
                             capture_output=True, text=True, timeout=900)
        print(f"capture {stem}: rc {rec.returncode} {rec.stdout.strip()[-300:]} {rec.stderr.strip()[-300:]}", flush=True)
        if "the command exited with 77" in rec.stderr:
            skip("no GPU (kernelblaster eval exited 77)")
        files = glob.glob(os.path.join(captured, "*.capture.json"))
        if len(files) != 1:
            print(f"FAIL {stem}: {len(files)} capture files")
            count(False)
            failures.append(stem)
            continue
        out = os.path.join(work, "synth")
        syn = subprocess.run([tool, "harness", "synth", files[0], "--out", out, "--force"], capture_output=True, text=True)
        print(f"synth {stem}: {syn.stdout.strip()} {syn.stderr.strip()}", flush=True)
        synthesized[(source, harness)] = os.path.join(out, stem + "_harness.cu")
    jobs = [(None, src, h, syn) for (src, h), syn in synthesized.items()]  # each original against itself
    jobs += [(c, c["source"], c["harness"], synthesized[(c["source"], c["harness"])]) for c in cases
             if (c["source"], c["harness"]) in synthesized]

    def judge(job):
        case, source, _, syn = job
        return job, evaluate(tool, source, syn, case["candidate"] if case else None)

    passed, failed = 0, len(failures)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for (case, source, _, syn), result in pool.map(judge, jobs):
            if case is None:
                good, label, want = result["status"] == "ok", f"{os.path.basename(source)} against itself", "ok"
            else:
                allowed = [case["expect"]] + case.get("also_ok", [])
                # Rejected as the hand-written harness rejects it; "caught" at
                # least when the status differs but is still a rejection.
                caught = result["status"] not in ("ok", "tool_error", "harness_error", "reference_failed")
                good = result["status"] in allowed if "ok" in allowed else caught
                label, want = case["name"], "/".join(allowed)
            passed, failed = passed + good, failed + (not good)
            count(good)
            print(f"{'PASS' if good else 'FAIL'} synthesized harness, {label}: {result['status']} "
                  f"(hand-written harness: {want}) {result.get('detail', '')[:200]}", flush=True)
    return passed, failed


def main():
    tool, mode = sys.argv[1], sys.argv[2]
    if mode == "adversarial":
        passed, failed = adversarial(tool)
    elif mode == "adversarial-bound":
        passed, failed = adversarial_bound(tool)
    elif mode == "adversarial-synth":
        passed, failed = adversarial_synth(tool)
    elif mode == "kernelbench":
        passed, failed = kernelbench(tool)
    elif mode == "kernelbench-hostile":
        passed, failed = kernelbench_hostile(tool)
    elif mode == "self":
        passed, failed = self_check(tool, int(sys.argv[3]))
    else:
        sys.exit(f"unknown mode {mode}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
