#!/usr/bin/env python3
"""Integration tests of kernelblaster_optimize(): configure and build small
CUDA projects that use it, on a machine without a GPU.

usage: cmake_integration_test.py CASE --source-dir DIR --prefix DIR --tool EXE --work DIR [--generator G]
CASE: errors | subdirectory | find_package | configure_time | makefiles | awkward | noharness | llm
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

ARGS = None
SAMPLE = None


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, ok=True, env=None, cwd=None):
    e = dict(os.environ)
    e.pop("KERNELBLASTER_CACHE_DIR", None)
    e.pop("KERNELBLASTER_TARGET_GPU", None)
    e.pop("KERNELBLASTER_UPDATE_LOCKFILE", None)
    if env:
        e.update(env)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, cwd=cwd)
    if ok and p.returncode != 0:
        print(p.stdout)
        fail("command failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
    return p


def configure(build, extra, source=None, ok=True):
    cmd = ["cmake", "-S", source or SAMPLE, "-B", build, "-G", ARGS.generator,
           "-DCMAKE_BUILD_TYPE=Release"] + extra
    return run(cmd, ok=ok)


def build(build_dir, target="kbsample"):
    return run(["cmake", "--build", build_dir, "--target", target]).stdout


def kb_lines(output):
    return [l for l in output.splitlines() if l.startswith("kernelblaster: ")]


def expect_lines(output, expected):
    """expected: {source name: regex}; exactly one line per listed source, none for others."""
    lines = kb_lines(output)
    seen = {}
    for l in lines:
        name = l.split(":")[1].strip()
        seen.setdefault(name, []).append(l)
    if set(seen) != set(expected):
        print(output)
        fail("the tool ran for %s, expected %s" % (sorted(seen), sorted(expected)))
    for name, regex in expected.items():
        if len(seen[name]) != 1:
            fail("%d lines for %s: %s" % (len(seen[name]), name, seen[name]))
        if not re.search(regex, seen[name][0]):
            fail("line for %s: %r does not match %r" % (name, seen[name][0], regex))


def expect_no_work(build_dir, target="kbsample"):
    # A real run, not -n: the glob check of an add_subdirectory'd KernelBlaster
    # (CONFIGURE_DEPENDS) always looks dirty to a dry run.
    out = run(["ninja", "-C", build_dir, target]).stdout
    work = [l for l in out.splitlines() if re.match(r"^\[\d+/\d+\]", l) and "Re-checking globbed" not in l]
    if work or kb_lines(out) or ("no work to do" not in out):
        print(out)
        fail("a rebuild with nothing changed still has work to do")


def expect_report(build_dir, output, sources):
    """The build's report: one line naming it, and a row per source saying what it compiles."""
    page = os.path.join(build_dir, "kernelblaster_report.html")
    named = [l for l in output.splitlines() if l.startswith("kernelblaster report: ")]
    if named != ["kernelblaster report: " + page]:
        print(output)
        fail("the build named its report %d times, expected once as %s: %s" % (len(named), page, named))
    md = read(os.path.join(build_dir, "kernelblaster_report.md"))
    for name, regex in sources.items():
        if not re.search(r"^\| [^|]+ \| " + re.escape(name) + r" \| " + regex, md, re.M):
            print(md)
            fail("the report's row for %s does not match %r" % (name, regex))
    if 'data-strip="sources"' not in read(page):
        fail("the report page has no strip of its sources")


def gen_dir(build_dir):
    return os.path.join(build_dir, "kernelblaster_generated", "kbsample")


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def copy_sample(dest):
    """A writable copy of the sample, so edits never touch the source tree."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SAMPLE, dest)
    return dest


# ---------------------------------------------------------------- cases

ERRORS = {
    "unknown_keyword": r"kernelblaster_optimize\(kbsample\): unknown argument\(s\): BUDGIT 30",
    "missing_target": r"there is no target named 'no_such_target'",
    "bad_mode": r"MODE must be AUTO, APPLY, TUNE or OFF, not 'FAST'",
    "bad_budget": r"BUDGET must be a positive number of seconds, not 'soon'",
    "bad_min_speedup": r"MIN_SPEEDUP must be a positive number such as 1.1, not '1.1x'",
    "zero_min_speedup": r"MIN_SPEEDUP must be a positive number such as 1.1, not '0'",  # the tool refuses 0 too
    "missing_harness": r"HARNESS file .*nope_harness.cu does not exist",
    "source_not_in_target": r"src/other.cu is not a CUDA source of target 'kbsample'",
    "unpaired": r"SOURCES has 2 entries but HARNESS has 1",
    "no_cuda": r"target 'kbsample_host' has no CUDA sources",
    "capture_both": r"give CAPTURE_TESTS or NO_CAPTURE, not both",
    "bad_policy": r"POLICY file .*broken\.lua is refused: kernelblaster policy check: .*syntax error",
    "bad_kb": r"KB file .*broken_kb\.json is refused: .*not valid JSON",
}


def case_errors():
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    configure(b, ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix])
    for case, regex in ERRORS.items():
        p = configure(b, ["-DKBSAMPLE_CASE=" + case], ok=False)
        text = re.sub(r"\s+", " ", p.stdout)
        if p.returncode == 0:
            fail("%s: configure succeeded" % case)
        if not re.search(regex, text):
            print(p.stdout)
            fail("%s: the error does not say %r" % (case, regex))
        print("ok: %s -> %s" % (case, regex))
    p = configure(b, ["-DKBSAMPLE_CASE=good", "-DKERNELBLASTER_MODE=SOMETIMES"], ok=False)
    if p.returncode == 0 or "KERNELBLASTER_MODE must be AUTO, APPLY, TUNE, OFF or empty" not in p.stdout:
        print(p.stdout)
        fail("a bad KERNELBLASTER_MODE was accepted")
    print("ok: bad KERNELBLASTER_MODE")


def case_subdirectory():
    src = copy_sample(os.path.join(ARGS.work, "src"))
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    cache = os.path.join(ARGS.work, "cache")
    common = ["-DKBSAMPLE_VIA=subdirectory", "-DKBSAMPLE_KERNELBLASTER_DIR=" + ARGS.source_dir,
              "-DKERNELBLASTER_CACHE_DIR=" + cache]
    # Without KERNELBLASTER_EXECUTABLE the build step runs the tool this
    # checkout builds: CMake must order that build first.
    configure(b, common, source=src)
    q = run(["ninja", "-C", b, "-t", "query", os.path.join(gen_dir(b), "src", "scale.cu.stamp")]).stdout
    # The inputs section of the query, read line by line: a regular expression
    # with nested repeats over the whole output backtracked for minutes.
    inputs = q.split("input:", 1)[1].split("outputs:", 1)[0] if "input:" in q else ""
    if not any(line.strip().lstrip("|").strip().endswith("kernelblaster/tool/src/cli/kernelblaster")
               for line in inputs.splitlines()):
        print(q)
        fail("the build step does not depend on the kernelblaster tool target")
    print("ok: the build step depends on the kernelblaster target")
    # Build with the already built tool, so the test does not rebuild it.
    configure(b, common + ["-DKERNELBLASTER_EXECUTABLE=" + ARGS.tool], source=src)
    out = build(b)
    no_gpu = r"no GPU and no cached result for sm_90; using the original"
    expect_lines(out, {"scale.cu": no_gpu, "shift.cu": no_gpu})
    text = read(os.path.join(gen_dir(b), "src", "scale.cu"))
    if not text.startswith('#line 1 "%s"\n' % os.path.join(src, "src", "scale.cu")):
        fail("the compiled copy does not begin with a #line to the original: %r" % text[:120])
    print("ok: first build uses the originals and says so")
    ninja_text = read(os.path.join(b, "build.ninja"))
    stamp_edge = re.search(r"^build [^\n]*scale\.cu\.stamp[^\n]*: CUSTOM_COMMAND[^\n]*\n((?:  [^\n]*\n)*)", ninja_text, re.M)
    if not stamp_edge or "pool = kernelblaster_gpu" not in stamp_edge.group(1) or "restat = 1" not in stamp_edge.group(1):
        fail("the build step is not in the kernelblaster_gpu pool with restat")
    print("ok: build steps share the kernelblaster_gpu pool (size 1) and restat")

    expect_no_work(b)
    print("ok: a rebuild with nothing changed has no work")

    with open(os.path.join(src, "src", "shift.cu"), "a") as f:
        f.write("// an edit\n")
    out = build(b)
    expect_lines(out, {"shift.cu": no_gpu})
    if "scale.cu.o" in out:
        fail("editing shift.cu recompiled scale.cu")
    print("ok: editing one kernel re-runs the tool for it only")

    time.sleep(1.1)
    hdr = os.path.join(src, "src", "detail.cuh")
    write(hdr, read(hdr) + "// header edit\n")
    out = build(b)
    expect_lines(out, {"scale.cu": no_gpu})
    print("ok: editing a header re-runs the tool for the source that includes it (depfile)")

    # The tool runs again (its input changed) but writes nothing new: no
    # recompilation (restat).
    lock = os.path.join(src, "kernelblaster.lock.json")
    write(lock, json.dumps({"kernelblaster_lockfile": 1, "sources": {}}))
    configure(b, common + ["-DKERNELBLASTER_EXECUTABLE=" + ARGS.tool], source=src)
    build(b)
    time.sleep(1.1)
    write(lock, json.dumps({"kernelblaster_lockfile": 1, "sources": {}}, indent=1))
    out = build(b)
    expect_lines(out, {"scale.cu": no_gpu, "shift.cu": no_gpu})
    if re.search(r"Building CUDA object", out):
        print(out)
        fail("an unchanged tuned source was recompiled")
    print("ok: re-running the tool with an unchanged result recompiles nothing")


def key_of(tool, build_dir, source_rel, src_root, target_gpu):
    g = gen_dir(build_dir)
    p = run([tool, "build", "--dry-run", "--json", "--manifest", os.path.join(g, "manifest.txt"),
             "--source", os.path.join(src_root, source_rel),
             "--harness", os.path.join(src_root, "harness", os.path.basename(source_rel).replace(".cu", "_harness.cu")),
             "--out", os.path.join(g, source_rel), "--target-gpu", target_gpu,
             "--cache-dir", os.path.join(ARGS.work, "unused-cache")])
    return json.loads(p.stdout)["key"]


H200 = {"id": "nvidia-h200_sm90_132sm_drv13", "name": "NVIDIA H200", "arch": "sm_90",
        "compute_capability": "9.0", "sm_count": 132, "driver_major": 13}


def case_find_package():
    src = copy_sample(os.path.join(ARGS.work, "src"))
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    cache = os.path.join(ARGS.work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    lockfile = os.path.join(src, "kernelblaster.lock.json")  # the default: beside the CMakeLists.txt
    tool = os.path.join(ARGS.prefix, "bin", "kernelblaster")
    common = ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_CACHE_DIR=" + cache]
    configure(b, common, source=src)
    if tool not in read(os.path.join(b, "build.ninja")):
        fail("the build does not run the installed tool " + tool)
    out = build(b)
    no_gpu = r"no GPU and no cached result for sm_90; using the original"
    expect_lines(out, {"scale.cu": no_gpu, "shift.cu": no_gpu})
    print("ok: find_package build uses the originals and says so")

    # Issue 41: the gates hold one lock for all, or with KERNELBLASTER_CTEST_GPUS
    # take one GPU each through CTest's resource allocation.
    def gate_shares():
        tests = json.loads(run(["ctest", "--test-dir", b, "--show-only=json-v1"]).stdout)["tests"]
        return {t["name"]: sorted(p["name"] for p in t.get("properties", [])
                                  if p["name"] in ("RESOURCE_LOCK", "RESOURCE_GROUPS"))
                for t in tests if t["name"].startswith("kernelblaster.")}
    shares = gate_shares()
    if not shares or any(v != ["RESOURCE_LOCK"] for v in shares.values()):
        fail("the gates should hold the one GPU lock by default: %s" % shares)
    configure(b, common + ["-DKERNELBLASTER_CTEST_GPUS=ON"], source=src)
    shares = gate_shares()
    if not shares or any(v != ["RESOURCE_GROUPS"] for v in shares.values()):
        fail("with KERNELBLASTER_CTEST_GPUS the gates should ask CTest for a GPU each: %s" % shares)
    configure(b, common + ["-DKERNELBLASTER_CTEST_GPUS=OFF"], source=src)
    print("ok: the gates take one lock, or one GPU each with KERNELBLASTER_CTEST_GPUS")

    # A cache entry measured on an H200, and a lockfile entry, prepared here.
    scale_key = key_of(tool, b, "src/scale.cu", src, "NVIDIA H200")
    shift_key = key_of(tool, b, "src/shift.cu", src, "NVIDIA H200")
    write(os.path.join(cache, H200["id"], "gpu.json"), json.dumps(H200))
    write(os.path.join(cache, H200["id"], scale_key + ".json"), json.dumps({
        "key": scale_key, "source": "scale.cu", "improved": True, "defines": [["BLOCK_SIZE", "128"]],
        "flags": [], "config": {"BLOCK_SIZE": "128"}, "speedup": 1.3, "gpu": H200,
        "measured_at": "2026-11-21T00:00:00Z", "tool_version": "0.1.0"}))
    shift_rel = "src/shift.cu"
    lock = {"kernelblaster_lockfile": 1, "sources": {shift_rel: {H200["id"]: {
        "key": shift_key, "improved": True, "defines": [["KERNELBLASTER_BLOCK_L9", "64"]], "flags": ["-use_fast_math"],
        "config": {}, "speedup": 1.25, "gpu": H200, "measured_at": "2026-11-21T00:00:00Z",
        "tool_version": "0.1.0"}}}}
    write(lockfile, json.dumps(lock, indent=2))

    configure(b, common + ["-DKERNELBLASTER_TARGET_GPU=NVIDIA H200"], source=src)
    out = build(b)
    expect_lines(out, {
        "scale.cu": r"applied tuned result for NVIDIA H200 from the cache \(1\.30x, BLOCK_SIZE=128\)",
        "shift.cu": r"applied tuned result for NVIDIA H200 from kernelblaster.lock.json \(1\.25x, KERNELBLASTER_BLOCK_L9=64, -use_fast_math\)"})
    scale = read(os.path.join(gen_dir(b), "src", "scale.cu"))
    if not scale.startswith('#define BLOCK_SIZE 128\n#line 1 "%s"\n' % os.path.join(src, "src", "scale.cu")):
        fail("the tuned scale.cu is not the cached result: %r" % scale[:200])
    if read(os.path.join(gen_dir(b), "src", "shift.cu.rsp")).split() != ["-use_fast_math"]:
        fail("the lockfile's flags are not in shift.cu.rsp")
    cmds = run(["ninja", "-C", b, "-t", "commands", "kbsample"]).stdout
    if not re.search(r"nvcc .*--options-file=\S*shift.cu.rsp", cmds):
        fail("the compile of shift.cu does not read its options file")
    print("ok: cache and lockfile entries are applied for TARGET_GPU without a GPU")

    # The same entries by architecture.
    configure(b, common + ["-DKERNELBLASTER_TARGET_GPU=sm_90"], source=src)
    out = build(b)
    expect_lines(out, {"scale.cu": r"from the cache", "shift.cu": r"from kernelblaster.lock.json"})
    print("ok: entries are found by architecture too")

    # The explicit tuning target runs the tool in TUNE mode on the terminal.
    out = build(b, "kernelblaster_tune_kbsample")
    expect_lines(out, {"scale.cu": r"from the cache", "shift.cu": r"from kernelblaster.lock.json"})
    if "kernelblaster_tune_kbsample" not in run(["ninja", "-C", b, "-t", "targets", "all"]).stdout or \
            "kernelblaster_tune:" not in run(["ninja", "-C", b, "-t", "targets", "all"]).stdout:
        fail("no kernelblaster_tune targets")
    print("ok: kernelblaster_tune_<target> and kernelblaster_tune exist and run")

    # A stale lockfile entry (measured on other content) is refused.
    lock["sources"][shift_rel][H200["id"]]["key"] = "0" * 64
    write(lockfile, json.dumps(lock, indent=2))
    out = build(b)
    expect_lines(out, {"scale.cu": r"from the cache",
                       "shift.cu": r"kernelblaster.lock.json entry for NVIDIA H200 is stale .*; no GPU and no cached result for sm_90; using the original"})
    if read(os.path.join(gen_dir(b), "src", "shift.cu.rsp")).strip():
        fail("the stale entry's flags are still applied")
    print("ok: a stale lockfile entry is not applied and the line says so")

    # MODE OFF: the originals, no build step at all.
    configure(b, common + ["-DKERNELBLASTER_MODE=OFF"], source=src)
    out = build(b)
    if kb_lines(out) or "kernelblaster_generated" in run(["ninja", "-C", b, "-t", "commands", "kbsample"]).stdout:
        fail("MODE OFF still runs the build step")
    print("ok: MODE OFF compiles the originals")

    # STRICT without a result fails the build with the reason.
    configure(b, common + ["-DKERNELBLASTER_MODE=", "-DKERNELBLASTER_TARGET_GPU=NVIDIA B200"], source=src)
    p = run([tool, "build", "--strict", "--manifest", os.path.join(gen_dir(b), "manifest.txt"),
             "--source", os.path.join(src, "src", "shift.cu"), "--harness", os.path.join(src, "harness", "shift_harness.cu"),
             "--out", os.path.join(ARGS.work, "strict.cu"), "--cache-dir", cache], ok=False)
    if p.returncode != 1 or "STRICT" not in p.stdout:
        print(p.stdout)
        fail("--strict without a result did not fail")
    print("ok: STRICT fails without a verified result")

    # The gates are registered, labelled and skip without a GPU.
    t = run(["ctest", "--test-dir", b, "-N", "-L", "kernelblaster"]).stdout
    for name in ("kernelblaster.kbsample.scale.cu.correctness", "kernelblaster.kbsample.shift.cu.speed"):
        if name not in t:
            print(t)
            fail("no CTest gate " + name)
    r = run(["ctest", "--test-dir", b, "-R", "scale.cu.correctness", "--output-on-failure"], ok=False)
    if r.returncode != 0 or "Skipped" not in r.stdout:
        print(r.stdout)
        fail("the correctness gate does not skip without a GPU")
    # The gate kept its verdict beside the compiled source and refreshed the build's report.
    verdict = json.loads(read(os.path.join(gen_dir(b), "src", "scale.cu.gate-correctness.json")))
    if verdict["exit_code"] != 77 or not verdict["verdict"].startswith("skipped: ") or len(verdict["judged_sha256"]) != 64:
        fail("the correctness gate's record: %r" % verdict)
    md = read(os.path.join(b, "kernelblaster_report.md"))
    if not re.search(r"^\| kbsample \| scale\.cu \| skipped: [^|]+ \| not run \|", md, re.M):
        print(md)
        fail("the build's report does not show the gate's verdict after ctest")
    print("ok: CTest gates registered and skipped without a GPU; the verdict is recorded and in the build's report")


def case_configure_time():
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    p = configure(b, ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_REPORT_CONFIGURE_TIME=ON"],
                  source=os.path.join(ARGS.source_dir, "examples", "kernels"))
    m = re.search(r"kernelblaster: kbexamples: (\d+) sources, configure time (\d+) ms \((\d+) us\)", p.stdout)
    if not m:
        print(p.stdout)
        fail("no configure time reported for examples/kernels")
    n, ms, us = int(m.group(1)), int(m.group(2)), int(m.group(3))
    print("configure time of kernelblaster_optimize(kbexamples), %d sources: %.1f ms" % (n, us / 1000.0))
    if n != 5:
        fail("expected the 5 example kernels, got %d" % n)
    if us >= 1000000:
        fail("kernelblaster_optimize() added %d ms of configure time (limit 1000)" % ms)


def case_makefiles():
    """The same build step under the Makefile generator: depfile and no
    recompilation when the tool rewrites nothing."""
    src = copy_sample(os.path.join(ARGS.work, "src"))
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    run(["cmake", "-S", src, "-B", b, "-G", "Unix Makefiles", "-DCMAKE_PREFIX_PATH=" + ARGS.prefix,
         "-DKERNELBLASTER_CACHE_DIR=" + os.path.join(ARGS.work, "cache")])
    no_gpu = r"no GPU and no cached result for sm_90; using the original"
    expect_lines(build(b), {"scale.cu": no_gpu, "shift.cu": no_gpu})
    out = build(b)
    if kb_lines(out) or "Building" in out:
        fail("a Makefile rebuild with nothing changed did work:\n" + out)
    time.sleep(1.1)
    hdr = os.path.join(src, "src", "detail.cuh")
    write(hdr, read(hdr) + "// header edit\n")
    expect_lines(build(b), {"scale.cu": no_gpu})
    time.sleep(1.1)
    os.utime(os.path.join(gen_dir(b), "manifest.txt"))
    out = build(b)
    expect_lines(out, {"scale.cu": no_gpu, "shift.cu": no_gpu})
    if "Building" in out:
        fail("an unchanged result was recompiled under Makefiles:\n" + out)
    # The whole project: the report rule after the targets, also under Makefiles.
    out = run(["cmake", "--build", b]).stdout
    expect_report(b, out, {"scale.cu": r"the original \| no GPU, and no result for the target",
                           "shift.cu": r"the original \| no GPU, and no result for the target"})
    out = run(["cmake", "--build", b]).stdout
    if "kernelblaster report" in out or kb_lines(out):
        fail("a Makefile rebuild of everything with nothing changed made the report again:\n" + out)
    print("ok: Makefiles: no-op rebuild, depfile, no recompilation for an unchanged result; the report after the "
          "targets, and not again when nothing ran")


AWKWARD_DEFINITIONS = [
    'GREETING="hi"', "WIN_PATH=C:\\temp\\x", "SPACED=a b", "SEMI=a;b",
    'UNICODE_NAME="h\u00e9llo w\u00f6rld"', "FROM_GENEX=rel", "COMPARE=1>0", "DOLLAR=$$x", "NO"]


def case_awkward():
    """Every compile setting reaches the tool exactly, whatever it holds;
    an unreadable manifest costs the tuning, never the build."""
    src = os.path.join(ARGS.work, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(ARGS.source_dir, "tests", "cmake", "projects", "awkward"), src)
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_CACHE_DIR=" + os.path.join(ARGS.work, "cache")])
    g = os.path.join(b, "kernelblaster_generated", "kbawkward")
    kdir = os.path.join(src, "kernels dir \u00e9")
    no_gpu = r"no GPU and no cached result for sm_90; using the original"
    out = build(b, "kbawkward")
    expect_lines(out, {"scale.cu": no_gpu})
    print("ok: the project builds, with one line for its kernel")

    p = run([ARGS.tool, "build", "--dry-run", "--json", "--manifest", os.path.join(g, "manifest.txt"),
             "--source", os.path.join(kdir, "scale.cu"), "--harness", os.path.join(kdir, "harness", "scale_harness.cu"),
             "--out", os.path.join(g, "scale.cu"), "--cache-dir", os.path.join(ARGS.work, "unused-cache")])
    got = json.loads(p.stdout)["settings"]
    inc = os.path.join(src, "include with space")
    want = {"arch": "sm_90", "include_dirs": [kdir, inc, inc], "definitions": AWKWARD_DEFINITIONS,
            "flags": ["-DFROM_FLAGS=a b", "-O3", "-DNDEBUG", "-Xcompiler", "-Wno-unused-variable"]}
    for k, v in want.items():
        if got.get(k) != v:
            fail("manifest %s: the tool read %r, the build has %r" % (k, got.get(k), v))
    print("ok: definitions, include directories and flags reach the tool exactly")

    time.sleep(1.1)
    write(os.path.join(g, "manifest.txt"), "kernelblaster-manifest 99\n")
    out = build(b, "kbawkward")
    expect_lines(out, {"scale.cu": r"manifest .*manifest.txt has the header 'kernelblaster-manifest 99'.*; using the original$"})
    print("ok: an unreadable manifest is one line and the original, not a failed build")


def pretend_gpu(cache_dir, present=True):
    """The build steps using `cache_dir` see an NVIDIA H200 (their GPU memo,
    build_step/gpu_memo.h), so a build here decides as one on a GPU machine
    would, up to the tuning itself; present=False takes it away again."""
    boot = open("/proc/sys/kernel/random/boot_id").read().rstrip("\n ")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    digest = hashlib.sha256()
    for field in (boot, "unset" if visible is None else "=" + visible, "0"):
        digest.update(("%d:" % len(field.encode())).encode() + field.encode())
    memo = os.path.join(cache_dir, "gpu-" + digest.hexdigest()[:32] + ".json")
    if present:
        os.makedirs(cache_dir, exist_ok=True)
        with open(memo, "w") as f:
            json.dump({"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132, "driver_major": 580}, f)
    elif os.path.exists(memo):
        os.remove(memo)


def recorded_line(shim_text, source, n):
    """One line as the recording runtime appends it for a call with n elements."""
    launcher = json.loads(re.search(r'R"KBCAPTURE\((.*?)\)KBCAPTURE"', shim_text).group(1))
    return json.dumps({"source": source, "launcher": launcher,
                       "args": [{"elements": n, "written": False}, {"elements": n, "written": True},
                                {"value": "3"}, {"value": "1"}, {"value": str(n)}]}) + "\n"


def case_noharness():
    """The one line in a project with no harness at all. Configure and build
    never fail: the build compiles a recording shim in the source's place
    (one configure line and one build line say so), the gates skip until
    there is a harness; calls recorded by the project's runs (written here
    as the runtime writes them: no GPU) make the next build synthesize a
    harness; kernelblaster_harness_export puts it in the source tree, where
    the next configure finds it. NO_CAPTURE compiles the original; STRICT
    makes a missing harness a configure error."""
    src = os.path.join(ARGS.work, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(ARGS.source_dir, "tests", "cmake", "projects", "noharness"), src)
    source = os.path.realpath(os.path.join(src, "src", "scale_shift.cu"))
    line = (r"kernelblaster: scale: no harness for scale_shift\.cu \(looked for harness/<stem>_harness\.cu\): the "
            r"project's runs \(ctest\) record the launches of its kernels \(and the calls of its host launchers, through "
            r"a recording shim that calls the original\), and the next build synthesizes a harness from them "
            r"\(kernelblaster_generated/scale/harness\) and tunes\. NO_CAPTURE")
    vias = {"find_package": ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix],
            "subdirectory": ["-DKBNOH_VIA=subdirectory", "-DKBNOH_KERNELBLASTER_DIR=" + ARGS.source_dir,
                             "-DKERNELBLASTER_EXECUTABLE=" + ARGS.tool]}
    for via, extra in vias.items():
        b = os.path.join(ARGS.work, "build-" + via)
        cache = os.path.join(ARGS.work, "cache-" + via)
        shutil.rmtree(b, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(os.path.join(src, "harness"), ignore_errors=True)
        p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DCMAKE_BUILD_TYPE=Release",
                 "-DKERNELBLASTER_CACHE_DIR=" + cache] + extra)
        lines = [l for l in p.stdout.splitlines() if "kernelblaster: scale:" in l]
        if len(lines) != 1 or not re.search(line, lines[0]):
            print(p.stdout)
            fail("%s: the configure does not say, in one line, that scale_shift.cu has no harness and is captured" % via)
        # Issue 72: a build with no GPU compiles the original, shim or not:
        # the user's binary runs as written and holds no build-tree path.
        out = run(["cmake", "--build", b, "--target", "app"]).stdout
        expect_lines(out, {"scale_shift.cu": r"no GPU, no cached result for sm_90 and no harness yet \(a build on a "
                                             r"machine with the GPU records\); using the original$"})
        compiled = open(os.path.join(b, "kernelblaster_generated", "scale", "src", "scale_shift.cu")).read()
        if "kb_capture_original" in compiled or not compiled.startswith("#line 1 "):
            fail("%s: a build with no GPU compiled the shim:\n%s" % (via, compiled[:400]))
        pretend_gpu(cache)
        os.utime(os.path.join(src, "src", "scale_shift.cu"))
        out = run(["cmake", "--build", b, "--target", "app"]).stdout
        expect_lines(out, {"scale_shift.cu": r"no harness yet: recording the calls of scale_shift into .*"
                                             r"kernelblaster_generated/calls/scale/scale_shift\.calls\.jsonl and the "
                                             r"launches of scale_shift_kernel \(a shim compiled in the original's place"})
        early = run(["cmake", "--build", b, "--target", "kernelblaster_harness_export"], ok=False)
        if early.returncode != 0 or "nothing to export for scale_shift_harness.cu yet" not in early.stdout:
            print(early.stdout)
            fail("%s: kernelblaster_harness_export before any harness should say so and succeed" % via)
        gen = os.path.join(b, "kernelblaster_generated", "scale")
        compiled = open(os.path.join(gen, "src", "scale_shift.cu")).read()
        if "kb_capture_original_scale_shift" not in compiled:
            fail("%s: the compiled copy is not the recording shim:\n%s" % (via, compiled[:600]))
        if "KERNELBLASTER_CAPTURE_DEFAULT_FILE" in compiled or b in compiled.replace(os.path.join(b, "kernelblaster_generated", "scale", "src"), ""):
            fail("%s: the shim holds a path of the build tree (it must record only where the environment says):\n%s"
                 % (via, compiled[:600]))
        if not os.path.exists(os.path.join(gen, "src", "kernelblaster_capture_include", "kernelblaster", "capture.h")):
            fail("%s: the shim's runtime header was not written beside it" % via)
        if not os.path.exists(os.path.join(b, "app")):
            fail("%s: the app was not built" % via)
        # Every test of the project records its kernel launches (ctest reads
        # the recorder into its environment); the gates take it out.
        script = os.path.join(b, "kernelblaster_generated", "record_kernel_launches.cmake")
        if script not in open(os.path.join(b, "CTestTestfile.cmake")).read() or \
                "set(ENV{CUDA_INJECTION64_PATH}" not in open(script).read() or \
                "set(ENV{KERNELBLASTER_CAPTURE_DIR} [==[%s]==])" % os.path.join(b, "kernelblaster_generated", "calls") \
                not in open(script).read():
            fail("%s: ctest does not put the kernel recorder and the calls file in the tests' environment" % via)
        shown = json.loads(run(["ctest", "--test-dir", b, "--show-only=json-v1"]).stdout)["tests"]
        for t in shown:
            mods = [v for prop in t.get("properties", []) if prop["name"] == "ENVIRONMENT_MODIFICATION" for v in prop["value"]]
            if t["name"].startswith("kernelblaster.") != ("CUDA_INJECTION64_PATH=unset:" in mods and
                                                        "KERNELBLASTER_CAPTURE_DIR=unset:" in mods):
                fail("%s: %s: the recorder should be taken out of the gates' environment only: %s" % (via, t["name"], mods))
        listed = run(["ctest", "--test-dir", b, "-N"]).stdout
        if "kernelblaster.scale.scale_shift.cu.correctness" not in listed:
            fail("%s: no correctness gate for the captured source:\n%s" % (via, listed))
        gate = run(["ctest", "--test-dir", b, "-R", "kernelblaster", "-V"], ok=False)
        if gate.returncode != 0 or "no harness yet" not in gate.stdout:
            print(gate.stdout)
            fail("%s: the gates do not skip while there is no harness" % via)
        # A run recorded two call shapes (the app and its odd-size test).
        with open(os.path.join(b, "kernelblaster_generated", "calls", "scale", "scale_shift.calls.jsonl"), "a") as f:
            f.write(recorded_line(compiled, source, 1 << 20))
            f.write(recorded_line(compiled, source, 4099))
        pretend_gpu(cache, False)  # no tuning here: the GPU is pretended
        out = run(["cmake", "--build", b, "--target", "app"]).stdout
        expect_lines(out, {"scale_shift.cu": r"harness synthesized from 2 recorded calls of scale_shift; "
                                             r"no GPU and no cached result for sm_90; using the original$"})
        harness = os.path.join(gen, "harness", "scale_shift_harness.cu")
        text = open(harness).read() if os.path.exists(harness) else ""
        if "scale_shift(" not in text or "4099" not in text or "1048576" not in text:
            fail("%s: no harness synthesized from the recorded calls:\n%s" % (via, text[:800]))
        if "kb_capture_original" in open(os.path.join(gen, "src", "scale_shift.cu")).read():
            fail("%s: the shim is still compiled once a harness exists" % via)
        if kb_lines(run(["cmake", "--build", b, "--target", "app"]).stdout):
            fail("%s: an unchanged rebuild ran the build step again" % via)
        exported = run(["cmake", "--build", b, "--target", "kernelblaster_harness_export"]).stdout
        if not os.path.exists(os.path.join(src, "harness", "scale_shift_harness.cu")):
            fail("%s: kernelblaster_harness_export did not copy the harness into the source tree:\n%s" % (via, exported))
        p = run(["cmake", "-S", src, "-B", b])
        if "kernelblaster: scale:" in p.stdout:
            fail("%s: the exported harness was not found by the next configure:\n%s" % (via, p.stdout))
        print("ok: %s: shim compiled and said, gates skip, recorded calls give a harness, exported and found" % via)
    shutil.rmtree(os.path.join(src, "harness"), ignore_errors=True)
    b = os.path.join(ARGS.work, "build-nocapture")
    shutil.rmtree(b, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKBNOH_NO_CAPTURE=ON"] + vias["find_package"])
    nocap = (r"kernelblaster: scale: no harness for scale_shift\.cu \(looked for harness/<stem>_harness\.cu\); "
             r"compiling the original\.")
    if not re.search(nocap, p.stdout):
        print(p.stdout)
        fail("NO_CAPTURE: the configure does not say the original is compiled")
    out = run(["cmake", "--build", b, "--target", "app"]).stdout
    if kb_lines(out) or os.path.exists(os.path.join(b, "kernelblaster_generated", "scale", "src")):
        fail("NO_CAPTURE: the build ran the tool for a source with no harness:\n" + out)
    print("ok: NO_CAPTURE compiles the original and says so")
    # The builds below decide as on a GPU machine (a pretended H200).
    on_gpu = vias["find_package"] + ["-DKERNELBLASTER_CACHE_DIR=" + os.path.join(ARGS.work, "cache-gpu")]
    pretend_gpu(os.path.join(ARGS.work, "cache-gpu"))
    # MODE APPLY neither records nor tunes: the original is compiled, and no
    # test or helper records.
    b = os.path.join(ARGS.work, "build-apply")
    shutil.rmtree(b, ignore_errors=True)
    run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKERNELBLASTER_MODE=APPLY"] + on_gpu)
    out = run(["cmake", "--build", b, "--target", "app"]).stdout
    expect_lines(out, {"scale_shift.cu": r"no cached or locked result for NVIDIA H200 and no harness yet \(MODE APPLY "
                                         r"neither records nor tunes\); using the original$"})
    compiled = open(os.path.join(b, "kernelblaster_generated", "scale", "src", "scale_shift.cu")).read()
    if "kb_capture_original" in compiled or os.path.exists(os.path.join(b, "kernelblaster_generated", "record")) or \
            os.path.exists(os.path.join(b, "kernelblaster_generated", "record_kernel_launches.cmake")):
        fail("MODE APPLY compiled the shim or set up recording")
    print("ok: MODE APPLY compiles the original, and nothing records")
    # CAPTURE_TESTS: the named test records (its environment names the
    # file), the shim records nothing without it; a wrong name is an error.
    b = os.path.join(ARGS.work, "build-capture-tests")
    shutil.rmtree(b, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKBNOH_CAPTURE_TESTS=app_odd_size"] + on_gpu)
    if "the tests app_odd_size record the launches of its kernels" not in p.stdout:
        print(p.stdout)
        fail("CAPTURE_TESTS: the configure line does not name the tests that record")
    out = run(["cmake", "--build", b, "--target", "app"]).stdout
    expect_lines(out, {"scale_shift.cu": r"no harness yet: recording the calls of scale_shift into .*capture/calls\.jsonl "
                                         r"and the launches of scale_shift_kernel while the CAPTURE_TESTS run"})
    compiled = open(os.path.join(b, "kernelblaster_generated", "scale", "src", "scale_shift.cu")).read()
    if "kb_capture_original_scale_shift" not in compiled or "KERNELBLASTER_CAPTURE_DEFAULT_FILE" in compiled:
        fail("CAPTURE_TESTS: the shim should record only on request:\n" + compiled[:600])
    tests = json.loads(run(["ctest", "--test-dir", b, "--show-only=json-v1"]).stdout)["tests"]
    env = {t["name"]: [v for prop in t.get("properties", []) if prop["name"] == "ENVIRONMENT" for v in prop["value"]]
           for t in tests}
    want = ["KERNELBLASTER_CAPTURE_FILE=" + os.path.join(b, "kernelblaster_generated", "scale", "capture", "calls.jsonl"),
            "CUDA_INJECTION64_PATH=" + os.path.join(ARGS.prefix, "lib", "libkernelblaster_recorder.so"),
            "KERNELBLASTER_KERNEL_CAPTURE_DIR=" + os.path.join(b, "kernelblaster_generated", "kernel_launches")]
    if env.get("app_odd_size") != want or env.get("app_runs"):
        fail("CAPTURE_TESTS: the environments are %s, expected %s on app_odd_size alone" % (env, want))
    b2 = b + "-bad"
    shutil.rmtree(b2, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b2, "-G", ARGS.generator, "-DKBNOH_CAPTURE_TESTS=no_such_test"] + vias["find_package"],
            ok=False)
    if p.returncode == 0 or "CAPTURE_TESTS names 'no_such_test', which is no test of this directory" not in re.sub(r"\s+", " ", p.stdout):
        print(p.stdout)
        fail("CAPTURE_TESTS with an unknown test did not stop the configure with the reason")
    print("ok: CAPTURE_TESTS records in the named test only, and a wrong name is a configure error")
    # A shim that cannot compile with the target's settings never reaches
    # the target: the original is compiled, its kernels' launches are still
    # recorded (issue 27), and the line says why.
    b = os.path.join(ARGS.work, "build-broken-shim")
    shutil.rmtree(b, ignore_errors=True)
    run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKBNOH_BREAK_SHIM=ON"] + on_gpu)
    out = run(["cmake", "--build", b, "--target", "app"]).stdout
    expect_lines(out, {"scale_shift.cu": r"no harness yet: the recording shim does not compile \(.*error.*\), so the "
                                         r"launches of the kernels are recorded into .*kernel_launches \(the original "
                                         r"compiled as it is\)"})
    compiled = open(os.path.join(b, "kernelblaster_generated", "scale", "src", "scale_shift.cu")).read()
    if "kb_capture_original" in compiled or not compiled.startswith("#line 1 "):
        fail("a shim that does not compile was not replaced by the original:\n" + compiled[:400])
    print("ok: a shim that does not compile with the target's settings gives the original, recorded at the kernel "
          "level, and one line says why")
    b = os.path.join(ARGS.work, "build-strict")
    shutil.rmtree(b, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKBNOH_STRICT=ON"] + vias["find_package"], ok=False)
    said = re.sub(r"\s+", " ", p.stdout)
    if p.returncode == 0 or "STRICT is set and there is no harness for scale_shift.cu" not in said or \
            "compiling the original" in said:
        print(p.stdout)
        fail("STRICT with no harness did not stop the configure with the reason (and only that)")
    print("ok: STRICT makes a missing harness a configure error")
    b = os.path.join(ARGS.work, "build-off")
    shutil.rmtree(b, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKERNELBLASTER_MODE=OFF"] + vias["find_package"])
    if "harness init" in p.stdout or "no harness" in p.stdout:
        print(p.stdout)
        fail("MODE OFF still suggests a harness")
    print("ok: MODE OFF suggests no harness")
    # No enable_testing(): the gates cannot be registered, and one line says so.
    b = os.path.join(ARGS.work, "build-no-testing")
    shutil.rmtree(b, ignore_errors=True)
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator, "-DKBNOH_NO_TESTING=ON"] + vias["find_package"])
    said = [l for l in p.stdout.splitlines() if "does not call enable_testing()" in l]
    if (len(said) != 1 or "a program run as 'kernelblaster_generated/record ./program args' records what the next "
            "build needs" not in said[0] or "speed gates are registered" not in said[0]):
        print(p.stdout)
        fail("without enable_testing() the configure does not say, in one line, that the gates are off")
    helper = open(os.path.join(b, "kernelblaster_generated", "record")).read()
    if not os.access(os.path.join(b, "kernelblaster_generated", "record"), os.X_OK) or \
            "CUDA_INJECTION64_PATH='%s'" % os.path.join(ARGS.prefix, "lib", "libkernelblaster_recorder.so") not in helper:
        fail("the record helper is not an executable that injects the recorder:\n" + helper)
    # It runs what it is given, with the recorder's environment.
    seen = run([os.path.join(b, "kernelblaster_generated", "record"), "sh", "-c",
                "echo $KERNELBLASTER_KERNEL_CAPTURE_DIR $KERNELBLASTER_CAPTURE_DIR"]).stdout.strip()
    if seen != os.path.join(b, "kernelblaster_generated", "kernel_launches") + " " + \
            os.path.join(b, "kernelblaster_generated", "calls"):
        fail("the record helper does not name the launches directory and the calls directory: %r" % seen)
    print("ok: without enable_testing() one configure line says the gates are off and how calls are recorded")

def launchers_in(shim_text):
    """The launchers a recording shim records, by name, as it writes them."""
    found = {}
    for m in re.finditer(r'R"KBCAPTURE\((.*?)\)KBCAPTURE"', shim_text):
        launcher = json.loads(m.group(1))
        found[launcher["name"]] = launcher
    return found


def recorded_call(source, launcher, dims, elements):
    """One line as the runtime appends it: every buffer `elements` long,
    written where the launcher may write it; dims by name; reals 1.5."""
    args = []
    for p in launcher["params"]:
        if p["kind"] == "buffer":
            a = {"elements": elements, "written": bool(p.get("writable"))}
            if p.get("element") == "u8" and not p.get("writable"):
                a.update({"min": 0, "max": 255})
            args.append(a)
        elif p["kind"] == "dim":
            args.append({"value": str(dims[p["name"]])})
        elif p["kind"] == "real":
            args.append({"value": "1.5"})
        else:
            args.append({})
    return json.dumps({"source": source, "launcher": launcher, "args": args}) + "\n"


def case_imagelib():
    """Issue 27: the one line on a library with two sources and five
    launchers (one returns its result, one only a test calls, one launches a
    template kernel) and on a program whose main() launches a kernel. Each
    source records into its own file, main() is no launcher, a source's
    harness calls every launcher recorded for it, a launcher never called
    keeps the source untuned unless ALLOW_UNVERIFIED, and every line says
    what happened."""
    src = os.path.join(ARGS.work, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(ARGS.source_dir, "tests", "cmake", "projects", "imagelib"), src)
    b = os.path.join(ARGS.work, "build")
    cache = os.path.join(ARGS.work, "cache-imagelib")
    shutil.rmtree(b, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    pretend_gpu(cache)  # the shim is compiled where a build could tune next
    via = ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_CACHE_DIR=" + cache]
    p = run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator] + via)
    if not re.search(r"kernelblaster: imagelib: no harness for adjust\.cu, filters\.cu", p.stdout):
        print(p.stdout)
        fail("imagelib: the configure does not say that both sources are recorded")
    out = run(["cmake", "--build", b]).stdout
    gen = os.path.join(b, "kernelblaster_generated")
    captures = {stem: os.path.join(gen, "calls", "imagelib", stem + ".calls.jsonl") for stem in ("adjust", "filters")}
    expect_lines(out, {
        "adjust.cu": r"no harness yet: recording the calls of brighten, mean_brightness into .*adjust\.calls\.jsonl",
        "filters.cu": r"no harness yet: recording the calls of box_blur, threshold, invert into .*filters\.calls\.jsonl",
        "main.cu": r"no harness yet: recording the launches of fill into .*kernel_launches \(the original compiled as "
                   r"it is\)"})
    expect_report(b, out, {"adjust.cu": r"a recording shim \(calling the original\) \| recording calls for a harness",
                           "filters.cu": r"a recording shim \(calling the original\) \| recording calls for a harness",
                           "main.cu": r"a recording shim \(calling the original\) \| recording calls for a harness"})
    expect_no_work(b, "all")
    print("ok: imagelib: each source records into its own file; main() is the program, not a launcher; "
          "nothing runs again until calls are recorded; the build's report names all three")
    shims = {stem: open(os.path.join(gen, "imagelib", "src", stem + ".cu")).read() for stem in ("adjust", "filters")}
    adjust = launchers_in(shims["adjust"])
    filters = launchers_in(shims["filters"])
    adjust_src = os.path.realpath(os.path.join(src, "src", "adjust.cu"))
    filters_src = os.path.realpath(os.path.join(src, "src", "filters.cu"))
    # What the program's runs recorded (written as the runtime writes it: no
    # GPU here): every launcher of adjust.cu, and filters.cu's but invert,
    # which only the test program calls.
    with open(captures["adjust"], "a") as f:
        for w in (640, 1920):
            f.write(recorded_call(adjust_src, adjust["brighten"], {"width": w, "height": 480}, w * 480))
            f.write(recorded_call(adjust_src, adjust["mean_brightness"], {"pixels": w * 480}, w * 480))
    with open(captures["filters"], "a") as f:
        for w in (640, 1920):
            f.write(recorded_call(filters_src, filters["box_blur"], {"width": w, "height": 480}, w * 480))
            f.write(recorded_call(filters_src, filters["threshold"], {"n": w * 480}, w * 480))
    pretend_gpu(cache, False)  # no tuning here: the GPU was pretended
    out = run(["cmake", "--build", b]).stdout
    expect_lines(out, {
        "adjust.cu": r"harness synthesized from 4 recorded calls of brighten, mean_brightness; no GPU and no cached "
                     r"result for sm_90; using the original$",
        "filters.cu": r"harness synthesized from 4 recorded calls of box_blur, threshold; the kernel invert_kernel "
                      r"runs in no recorded call \(invert was never called while calls were recorded\), so only the "
                      r"launch sites the harness runs are tuned, with no compiler flag \(ALLOW_UNVERIFIED tunes the "
                      r"whole file\); no GPU and no cached result for sm_90; using the original$"})
    expect_report(b, out, {"adjust.cu": r"the original \| no GPU, and no result for the target",
                           "filters.cu": r"the original \| no GPU, and no result for the target"})
    harness = open(os.path.join(gen, "imagelib", "harness", "adjust_harness.cu")).read()
    for needed in ("brighten(", "mean_brightness(", '.output("mean_brightness_returned", DType::f32, {1})',
                   '.inout("brighten_out", DType::u8'):
        if needed not in harness:
            fail("imagelib: the synthesized harness of adjust.cu lacks %r:\n%s" % (needed, harness[:1500]))
    compiled = subprocess.run(["nvcc", "-std=c++17", "-c", "-I", os.path.join(ARGS.prefix, "include"),
                               os.path.join(gen, "imagelib", "harness", "adjust_harness.cu"), "-o",
                               os.path.join(ARGS.work, "adjust_harness.o")], capture_output=True, text=True)
    if compiled.returncode != 0:
        fail("imagelib: the synthesized two-launcher harness does not compile:\n" + compiled.stderr[-1500:])
    print("ok: imagelib: one harness calls both launchers of adjust.cu (the returned mean is an output) and compiles")
    print("ok: imagelib: filters.cu, whose invert never ran, is tuned only where its harness runs, and says why")
    p = run(["cmake", "-S", src, "-B", b, "-DKBIMG_ALLOW_UNVERIFIED=ON"])
    out = run(["cmake", "--build", b]).stdout
    # The option is the target's: its manifest changes, so both sources run again.
    expect_lines(out, {"adjust.cu": r"harness synthesized from 4 recorded calls of brighten, mean_brightness; no GPU",
                       "filters.cu": r"harness synthesized from 4 recorded calls of box_blur, threshold; the kernel "
                                     r"invert_kernel is not verified \(ALLOW_UNVERIFIED\); no GPU and no cached result for sm_90; using the original$"})
    print("ok: imagelib: ALLOW_UNVERIFIED lets filters.cu be tuned on the launchers that ran")


def case_sgemmlike():
    """Issue 27: a program shaped like a well-known SGEMM tutorial. main()
    in one file calls a dispatcher in another that takes a cuBLAS handle and
    reaches the kernels through launchers of its own file, beside a cuBLAS
    wrapper and a helper printing to a std::ofstream&. The shim compiles,
    main() and the helpers are no launchers, the dispatcher's own calls of
    the launchers are recorded (the shim renames definitions in place), and
    every kernel of the file must run in a recorded call before it is tuned."""
    src = os.path.join(ARGS.work, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(os.path.join(ARGS.source_dir, "tests", "cmake", "projects", "sgemmlike"), src)
    b = os.path.join(ARGS.work, "build")
    cache = os.path.join(ARGS.work, "cache-sgemmlike")
    shutil.rmtree(b, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    pretend_gpu(cache)  # the shim is compiled where a build could tune next
    via = ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_CACHE_DIR=" + cache]
    run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator] + via)
    out = run(["cmake", "--build", b]).stdout
    expect_lines(out, {
        "sgemm.cu": r"no harness, and neither a kernel nor a kernel launch in it: nothing to record; using the original$",
        "runner.cu": r"no harness yet: recording the calls of run_sgemm_naive, run_sgemm_tiled, run_kernel into "})
    expect_no_work(b, "all")
    gen = os.path.join(b, "kernelblaster_generated", "sgemm")
    shim = open(os.path.join(gen, "src", "runner.cu")).read()
    # The dispatcher's body still names the launchers: its calls are recorded.
    body = shim[shim.index("kb_capture_original_run_kernel("):]
    if "run_sgemm_naive(M, N, K" not in body or "kb_capture_original_run_sgemm_naive(M" in body.split("}")[0]:
        fail("sgemmlike: the dispatcher's calls of the launchers do not go through the recording ones:\n" + body[:800])
    launchers = launchers_in(shim)
    print("ok: sgemmlike: the shim compiles; main(), the printer and the cuBLAS wrapper are no launchers")
    runner = os.path.realpath(os.path.join(src, "src", "runner.cu"))
    capture = os.path.join(b, "kernelblaster_generated", "calls", "sgemm", "runner.calls.jsonl")
    pretend_gpu(cache, False)  # no tuning here: the GPU was pretended

    def record(kernel, n):
        dims = {"kernel_num": kernel, "M": n, "N": n, "K": n}
        with open(capture, "a") as f:
            f.write(recorded_call(runner, launchers["run_kernel"], dims, n * n))
            if kernel:
                f.write(recorded_call(runner, launchers[["", "run_sgemm_naive", "run_sgemm_tiled"][kernel]], dims, n * n))

    # What `ctest -R sgemm_naive` records on a GPU: the reference cuBLAS call
    # and kernel 1, each through the dispatcher.
    for n in (256, 512):
        record(0, n)
        record(1, n)
    out = run(["cmake", "--build", b]).stdout
    expect_lines(out, {"runner.cu": r"harness synthesized from 2 recorded calls of run_sgemm_naive; the kernel "
                                    r"sgemm_tiled runs in no recorded call \(run_sgemm_tiled was never called while "
                                    r"calls were recorded; run_kernel takes cublasHandle_t handle, which no recorded "
                                    r"call can give a harness\), so only the launch sites the harness runs are tuned, "
                                    r"with no compiler flag \(ALLOW_UNVERIFIED tunes the whole file\); no GPU and no "
                                    r"cached result for sm_90; using the original$"})
    print("ok: sgemmlike: with only the naive kernel run, the tiled kernel is named and only the naive one's "
          "launch sites may be tuned")
    for n in (256, 512):
        record(2, n)
    out = run(["cmake", "--build", b]).stdout
    expect_lines(out, {"runner.cu": r"harness synthesized from 4 recorded calls of run_sgemm_naive, run_sgemm_tiled; "
                                    r"no GPU and no cached result for sm_90; using the original$"})
    harness = os.path.join(gen, "harness", "runner_harness.cu")
    text = open(harness).read()
    if "run_sgemm_naive(" not in text or "run_sgemm_tiled(" not in text or "run_kernel(" in text:
        fail("sgemmlike: the harness should call both launchers and not the dispatcher:\n" + text[:1500])
    compiled = subprocess.run(["nvcc", "-std=c++17", "-c", "-I", os.path.join(ARGS.prefix, "include"), harness,
                               "-o", os.path.join(ARGS.work, "runner_harness.o")], capture_output=True, text=True)
    if compiled.returncode != 0:
        fail("sgemmlike: the synthesized harness does not compile:\n" + compiled.stderr[-1500:])
    print("ok: sgemmlike: once both kernels ran, one harness calls both launchers (not the dispatcher) and compiles")

    # The kernel recorder alone (what a GPU run records when no launcher
    # call is: kernels reached through run_kernel and its cuBLAS handle):
    # a fresh build tree, the launches written as the recorder writes them,
    # with the kernels' real names from the compiled object.
    b = os.path.join(ARGS.work, "build-kernels")
    shutil.rmtree(b, ignore_errors=True)
    pretend_gpu(cache)
    run(["cmake", "-S", src, "-B", b, "-G", ARGS.generator] + via)
    out = run(["cmake", "--build", b]).stdout
    pretend_gpu(cache, False)
    expect_lines(out, {"runner.cu": r"no harness yet: recording the calls of run_sgemm_naive, run_sgemm_tiled, "
                                    r"run_kernel into .*runner\.calls\.jsonl and the launches of sgemm_naive, "
                                    r"sgemm_tiled \(a shim compiled",
                       "sgemm.cu": r"nothing to record; using the original$"})
    objects = [os.path.join(d, f) for d, _, fs in os.walk(b) for f in fs if f == "runner.cu.o"]
    symbols = run(["nm", objects[0]]).stdout.split()
    mangled = sorted({x for x in symbols if re.match(r"_Z\d+sgemm_(naive|tiled)", x)})
    if len(mangled) != 2:
        fail("sgemmlike: expected the two kernels' host stubs in runner.cu.o, found %s" % mangled)
    launches = os.path.join(b, "kernelblaster_generated", "kernel_launches")
    for name in mangled:
        demangled = run(["c++filt", name]).stdout.strip()
        with open(os.path.join(launches, "k_%s.jsonl" % name), "w") as f:
            for n in (256, 512):
                matrix = {"extent": n * n * 4, "alloc_offset": 0, "min": -1.0, "max": 1.0}
                params = [{"offset": 4 * i, "bytes": n.to_bytes(4, "little").hex()} for i in range(3)]
                params.append({"offset": 12, "bytes": "0000803f"})  # alpha 1.0
                params += [{"offset": 16, "bytes": "00a0000000000000", "buffer": dict(matrix, written=False)},
                           {"offset": 24, "bytes": "00b0000000000000", "buffer": dict(matrix, written=False)},
                           {"offset": 32, "bytes": "00000000"},  # beta 0
                           {"offset": 40, "bytes": "00c0000000000000", "buffer": dict(matrix, written=True)}]
                f.write(json.dumps({"format": "kernelblaster-launch-1", "kernel": name, "name": demangled,
                                    "key": "%s%d" % (name, n), "grid": [n // 16, n // 16, 1], "block": [16, 16, 1],
                                    "shared": 0, "params": params}) + "\n")
    with open(os.path.join(launches, "recorded.stamp"), "w") as f:
        f.write("1\n")
    out = run(["cmake", "--build", b]).stdout
    # A new launch makes every captured source look again (sgemm.cu too).
    expect_lines(out, {"runner.cu": r"harness synthesized from 4 recorded launches of sgemm_naive, sgemm_tiled<16>; "
                                    r"no GPU and no cached result for sm_90; using the original$",
                       "sgemm.cu": r"nothing to record; using the original$"})
    harness = os.path.join(b, "kernelblaster_generated", "sgemm", "harness", "runner_harness.cu")
    text = open(harness).read()
    for needed in ["kernel_symbol(\"%s\")" % m for m in mangled] + ['.inout("k_sgemm_naive_p7"', "launches kernels as recorded"]:
        if needed not in text:
            fail("sgemmlike: the kernel-level harness lacks %r:\n%s" % (needed, text[:2500]))
    # It links with the source as the tuner builds it (run_kernel's cuBLAS included).
    linked = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-I", os.path.join(ARGS.prefix, "include"), harness,
                             os.path.join(src, "src", "runner.cu"), os.path.join(ARGS.prefix, "lib", "libkernelblaster_harness.a"),
                             "-lcublas", "-lcupti", "-ldl", "-o", os.path.join(ARGS.work, "runner_harness")],
                            capture_output=True, text=True)
    if linked.returncode != 0:
        fail("sgemmlike: the kernel-level harness does not build with runner.cu:\n" + linked.stderr[-1500:])
    print("ok: sgemmlike: the kernels' recorded launches give one harness that launches both (the template too) "
          "through their host stubs, and it builds with the source")


LLM_KEY = "kb-llm-key-marker-5c1e0a"


def files_holding(root, marker):
    hits = []
    for d, _, names in os.walk(root):
        for n in names:
            path = os.path.join(d, n)
            try:
                with open(path, "rb") as f:
                    if marker.encode() in f.read():
                        hits.append(path)
            except OSError:
                pass
    return hits


def case_llm():
    """The KERNELBLASTER_LLM_* cache variables reach the build's manifest
    (quotes and all) and `llm ping --manifest` uses them; a key given to
    CMake is dropped with a warning and found in no file of the build tree;
    bad values are one-line configure errors."""
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    # The command provider's program answers with what it was asked.
    echo = os.path.join(ARGS.work, "echo_llm.py")
    write(echo, "import json, sys\nr = json.load(sys.stdin)\n"
                "print(json.dumps({'text': '%s|%s|%s' % (r['model'], r['max_tokens'], r.get('temperature')), 'finish': 'stop'}))\n")
    model = 'local "coder" 7b; v2'
    extra = ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_LLM_PROVIDER=command",
             "-DKERNELBLASTER_LLM_COMMAND=%s %s" % (sys.executable, echo), "-DKERNELBLASTER_LLM_MODEL=" + model,
             "-DKERNELBLASTER_LLM_MAX_TOKENS=77", "-DKERNELBLASTER_LLM_TEMPERATURE=0.25",
             "-DKERNELBLASTER_LLM_API_KEY=" + LLM_KEY, "-DOPENAI_API_KEY=" + LLM_KEY]
    p = configure(b, extra)
    text = re.sub(r"\s+", " ", p.stdout)
    for var in ("KERNELBLASTER_LLM_API_KEY", "OPENAI_API_KEY"):
        if "kernelblaster: %s was given to CMake and is not kept" % var not in text:
            print(p.stdout)
            fail("no warning that %s given to CMake is dropped" % var)
    manifest = os.path.join(gen_dir(b), "manifest.txt")
    lines = read(manifest).splitlines()
    want = ["L provider command", "L model " + model, "L max-tokens 77", "L temperature 0.25"]
    missing = [w for w in want if w not in lines]
    if missing:
        fail("the manifest lacks %s:\n%s" % (missing, read(manifest)))
    build(b)
    held = files_holding(b, LLM_KEY)
    if held:
        fail("the key given to CMake is in the build tree: %s" % held)
    e = {"KERNELBLASTER_LLM_MODEL": ""}
    p = run([ARGS.tool, "llm", "ping", "--json", "--manifest", manifest], env=e)
    doc = json.loads(p.stdout)
    if doc.get("reply") != model + "|77|0.25":
        fail("llm ping --manifest did not use the manifest's settings: %r" % doc)
    p = run([ARGS.tool, "llm", "ping", "--json", "--manifest", manifest, "--max-tokens", "9"],
            env={"KERNELBLASTER_LLM_MODEL": "from-env"})
    if json.loads(p.stdout).get("reply") != "from-env|9|0.25":
        fail("the environment and the flags do not override the manifest: %s" % p.stdout)
    print("ok: cache variables reach the manifest and llm ping; the key is dropped and found nowhere")
    for var, value, says in [("PROVIDER", "openia", "KERNELBLASTER_LLM_PROVIDER is 'openia', not openai, anthropic or command"),
                             ("MAX_TOKENS", "lots", "KERNELBLASTER_LLM_MAX_TOKENS is 'lots', not a positive integer"),
                             ("TEMPERATURE", "3", "KERNELBLASTER_LLM_TEMPERATURE is '3', not a number from 0 to 2"),
                             ("REASONING_EFFORT", "max", "KERNELBLASTER_LLM_REASONING_EFFORT is 'max'")]:
        bb = os.path.join(ARGS.work, "build-bad")
        shutil.rmtree(bb, ignore_errors=True)
        p = configure(bb, ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_LLM_%s=%s" % (var, value)], ok=False)
        if p.returncode == 0 or says not in re.sub(r"\s+", " ", p.stdout):
            print(p.stdout)
            fail("a bad KERNELBLASTER_LLM_%s was not a configure error saying %r" % (var, says))
    print("ok: bad LLM cache variables are one-line configure errors")


def case_example_lockfile():
    """README's first command, as CI runs it: the example built with the
    installed tool and TARGET_GPU "NVIDIA H200" applies the H200 results
    committed in examples/kernels/kernelblaster.lock.json. Their keys hold the
    seed KB, the tool and the sources; a change to any of them makes the
    entries stale and the README's main job silently builds the originals."""
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    cache = os.path.join(ARGS.work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    # As the README configures it: no build type (the flags are in the key).
    run(["cmake", "-S", os.path.join(ARGS.source_dir, "examples", "kernels"), "-B", b, "-G", ARGS.generator,
         "-DCMAKE_PREFIX_PATH=" + ARGS.prefix, "-DKERNELBLASTER_CACHE_DIR=" + cache,
         "-DKERNELBLASTER_TARGET_GPU=NVIDIA H200"])
    out = build(b, target="kbexamples")
    lines = kb_lines(out)
    applied = [s for s in ("vector_add.cu", "softmax.cu", "rmsnorm.cu")
               if any(l.startswith("kernelblaster: %s: applied tuned result for NVIDIA H200 from kernelblaster.lock.json"
                                   % s) for l in lines)]
    if len(applied) != 3 or any("is stale" in l for l in lines):
        print("\n".join(lines))
        fail("examples/kernels/kernelblaster.lock.json does not apply (applied: %s): re-measure it on an H200 "
             "(bench/gpu_session.sh cmake)" % applied)
    print("ok: the example applies the committed H200 results: " + ", ".join(applied))


def case_nested():
    """find_package() and the one line in two sibling subdirectories, as a
    project of one program per folder writes them (Tony-Tan/CUDA_Freshman):
    the imported tool must reach the report rule of the top directory."""
    src = os.path.join(ARGS.work, "src")
    shutil.rmtree(src, ignore_errors=True)
    write(os.path.join(src, "CMakeLists.txt"),
          "cmake_minimum_required(VERSION 3.24)\nset(CMAKE_CUDA_ARCHITECTURES 90)\n"
          "project(nested LANGUAGES CXX CUDA)\nadd_subdirectory(one)\nadd_subdirectory(two)\n")
    for sub, name in (("one", "scale"), ("two", "shift")):
        shutil.copytree(os.path.join(SAMPLE, "include"), os.path.join(src, sub, "include"))
        shutil.copy(os.path.join(SAMPLE, "src", name + ".cu"), os.path.join(src, sub, name + ".cu"))
        shutil.copy(os.path.join(SAMPLE, "src", "detail.cuh"), os.path.join(src, sub, "detail.cuh"))
        write(os.path.join(src, sub, "CMakeLists.txt"),
              "add_library(%s STATIC %s.cu)\ntarget_include_directories(%s PUBLIC include)\n"
              "find_package(KernelBlaster REQUIRED)\nkernelblaster_optimize(%s BUDGET 30 NO_TESTS)\n"
              % (name, name, name, name))
    b = os.path.join(ARGS.work, "build")
    shutil.rmtree(b, ignore_errors=True)
    p = configure(b, ["-DCMAKE_PREFIX_PATH=" + ARGS.prefix,
                      "-DKERNELBLASTER_CACHE_DIR=" + os.path.join(ARGS.work, "cache")], source=src, ok=False)
    if p.returncode != 0:
        print(p.stdout)
        fail("a project whose subdirectories each find KernelBlaster does not configure")
    out = run(["cmake", "--build", b]).stdout
    expect_lines(out, {"scale.cu": r"no GPU, no cached result for sm_90 and no harness yet",
                       "shift.cu": r"no GPU, no cached result for sm_90 and no harness yet"})
    if not os.path.exists(os.path.join(b, "kernelblaster_report.html")):
        fail("no build report at the top of the build tree")
    print("ok: find_package in two subdirectories configures, builds and reports")


def main():
    global ARGS, SAMPLE
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["errors", "subdirectory", "find_package", "configure_time", "makefiles", "awkward", "noharness",
                                     "llm", "imagelib", "sgemmlike", "nested", "example_lockfile"])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--generator", default="Ninja")
    ARGS = ap.parse_args()
    SAMPLE = os.path.join(ARGS.source_dir, "tests", "cmake", "projects", "sample")
    os.makedirs(ARGS.work, exist_ok=True)
    globals()["case_" + ARGS.case]()
    print("PASS")


if __name__ == "__main__":
    main()
