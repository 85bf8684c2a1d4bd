#!/usr/bin/env python3
"""Command-line behaviour of `kernelblaster` and of a harness program, on any
machine: usage errors are one line and exit 2; with no GPU, `eval` and the
harness exit 77 with one line saying why; with a GPU, `eval` judges the
bundled example.

  cli_test.py TOOL HARNESS_BINARY
"""
import json
import shutil
import os
import subprocess
import tempfile
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []
passed = []


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def expect(name, cond, proc):
    if not cond:
        failures.append(f"{name}: exit {proc.returncode}, stdout {proc.stdout[-300:]!r}, stderr {proc.stderr[-300:]!r}")
    if cond:
        passed.append(name)
    print(("ok   " if cond else "FAIL ") + name)


def one_line(text):
    return len(text.strip().splitlines()) == 1


def main():
    tool, harness = sys.argv[1], sys.argv[2]
    p = run([tool])
    expect("no command is a usage error", p.returncode == 2 and "usage" in p.stderr, p)
    p = run([tool, "frobnicate"])
    expect("unknown command is a usage error naming the commands",
           p.returncode == 2 and one_line(p.stderr) and "unknown command" in p.stderr and "optimize" in p.stderr
           and "version" in p.stderr, p)
    # Issue 42: version is a command like the others.
    p = run([tool, "help", "version"])
    expect("help version: its usage, exit 0", p.returncode == 0 and "kernelblaster version" in p.stdout, p)
    p = run([tool, "version", "--bogus"])
    expect("version --bogus: one line, exit 2", p.returncode == 2 and one_line(p.stderr) and "--bogus" in p.stderr, p)
    p = run([tool, "version", "--json"])
    expect("version --json", p.returncode == 0 and json.loads(p.stdout).get("version"), p)
    # One way to say a missing or an unknown subcommand, for every command that has them.
    for cmd, first in (("kb", "validate"), ("llm", "ping"), ("policy", "check"), ("harness", "init")):
        p = run([tool, cmd])
        expect(f"{cmd} alone: one line naming the subcommands, exit 2",
               p.returncode == 2 and one_line(p.stderr) and p.stderr.startswith(f"kernelblaster {cmd}: missing subcommand: one of ")
               and first in p.stderr and p.stderr.rstrip().endswith("(see --help)") and not p.stdout, p)
        p = run([tool, cmd, "frob"])
        expect(f"{cmd} frob: one line naming the subcommands, exit 2",
               p.returncode == 2 and one_line(p.stderr) and f"unknown subcommand 'frob': one of " in p.stderr
               and first in p.stderr and p.stderr.rstrip().endswith("(see --help)"), p)
        p = run([tool, cmd, "--help"])
        expect(f"{cmd} --help: the help on stdout, exit 0", p.returncode == 0 and "usage" in p.stdout and not p.stderr, p)
    p = run([tool, "eval", "--help"])
    expect("eval --help", p.returncode == 0 and "--candidate" in p.stdout, p)
    p = run([tool, "eval", "--bogus"])
    expect("unknown option: one line, exit 2", p.returncode == 2 and one_line(p.stderr) and "--bogus" in p.stderr, p)
    # One meaning per flag: --seed is the policy's seed, --seeds the input
    # seeds per size; a command that had them meaning something else says
    # where that went.
    for cmd, old, new in ((["eval", "--source", "a.cu", "--harness", "b.cu", "--seed", "11"], "--seed", "--input-seed"),
                          (["policy", "replay", "--results", "r.json", "--seeds=3"], "--seeds", "--policy-seeds"),
                          (["kb", "path", "--seed"], "--seed", "--seed-kb")):
        p = run([tool] + cmd)
        expect(f"{cmd[0]} {old} names {new}: one line, exit 2",
               p.returncode == 2 and one_line(p.stderr) and new in p.stderr and old in p.stderr, p)
    p = run([tool, "kb", "path", "--seed-kb"])
    expect("kb path --seed-kb prints the seed KB's path", p.returncode == 0 and p.stdout.strip().endswith(".json"), p)
    p = run([tool, "eval", "--source", "/nonexistent.cu", "--harness", "/nonexistent_h.cu"])
    expect("missing file: one line, exit 2", p.returncode == 2 and one_line(p.stderr) and "no such file" in p.stderr, p)
    p = run([tool, "eval", "--source", "a.cu", "--harness", "b.cu", "--seeds", "2"])
    expect("fewer than 3 seeds refused", p.returncode == 2 and "at least 3" in p.stderr, p)
    p = run([tool, "eval", "--kernelbench", "x", "--source", "a.cu"])
    expect("--kernelbench excludes --source", p.returncode == 2 and one_line(p.stderr), p)
    # The bound on an untrusted candidate's object needs no GPU (judge/object_bound.h).
    hostile = ["--source", f"{ROOT}/examples/kernels/src/softmax.cu",
               "--harness", f"{ROOT}/examples/kernels/harness/softmax_harness.cu",
               "-I", f"{ROOT}/examples/kernels/include", "--arch", "sm_90"]
    p = subprocess.run([tool, "eval"] + hostile + ["--candidate", f"{ROOT}/tests/adversarial/after_timed_region.cu"],
                       capture_output=True, text=True, timeout=300)
    expect("eval --candidate: a candidate that starts a thread is forbidden_code, named, with or without a GPU",
           p.returncode == 1 and "forbidden_code" in p.stdout and "std::thread" in p.stdout, p)
    p = subprocess.run([tool, "eval"] + hostile + ["--candidate", f"{ROOT}/tests/adversarial/good/softmax_online_warp.cu"],
                       capture_output=True, text=True, timeout=300)
    expect("eval --candidate: an honest rewrite passes the bound (then needs a GPU: 77 here, 0 there)",
           p.returncode in (0, 77) and "forbidden_code" not in p.stdout, p)
    p = run([tool, "eval", "--kernelbench", "x", "--back-to-back"])
    expect("--back-to-back is for native harnesses", p.returncode == 2 and one_line(p.stderr) and "native" in p.stderr, p)

    softmax = ["--source", f"{ROOT}/examples/kernels/src/softmax.cu",
               "--harness", f"{ROOT}/examples/kernels/harness/softmax_harness.cu", "-I", f"{ROOT}/examples/kernels/include"]
    no_llm_env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELBLASTER_LLM_")}
    p = run([tool, "optimize", "--help"])
    expect("optimize --help", p.returncode == 0 and "--launcher" in p.stdout and "--trajectories" in p.stdout, p)
    p = subprocess.run([tool, "optimize"] + softmax, capture_output=True, text=True, timeout=600, env=no_llm_env)
    expect("optimize without --launcher finds the one the harness calls (then stops for want of a model)",
           p.returncode == 2 and one_line(p.stderr) and ("no LLM model" in p.stderr or "no libclang" in p.stderr), p)
    mismatched = softmax[:2] + ["--harness", f"{ROOT}/examples/kernels/harness/transpose_harness.cu"] + softmax[4:]
    p = run([tool, "optimize"] + mismatched)
    expect("optimize with a harness that calls no launcher of the source: one line, exit 2, the launchers named",
           p.returncode == 2 and one_line(p.stderr) and "--launcher" in p.stderr and
           ("softmax_rows" in p.stderr or "no libclang" in p.stderr), p)
    p = run([tool, "optimize", "--launcher", "softmax_cols"] + softmax)
    expect("optimize with a launcher the source lacks: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "softmax_cols" in p.stderr, p)
    p = subprocess.run([tool, "optimize", "--launcher", "softmax_rows"] + softmax, capture_output=True, text=True,
                       timeout=600, env=no_llm_env)
    expect("optimize without an LLM model: one line, exit 2, nothing sent",
           p.returncode == 2 and one_line(p.stderr) and "no LLM model" in p.stderr, p)

    # Issue 40: the kernels a rewrite takes one at a time, read from the text.
    hk = f"{ROOT}/tests/cmake/projects/headerkernels"
    # A harness that calls both of ops.cu's launchers (a recorded one does):
    # a kernel is rewritten alone with no launcher named; the whole source
    # needs one.
    with tempfile.TemporaryDirectory() as d:
        both = os.path.join(d, "both_harness.cu")
        with open(both, "w") as f:
            f.write("void ops_transpose(const float*, float*, int, int);\n"
                    "void ops_bias(const float*, float*, int, float);\n"
                    "int main() { ops_transpose(0, 0, 0, 0); ops_bias(0, 0, 0, 0.f); }\n")
        two = ["--source", f"{hk}/src/ops.cu", "--harness", both, "-I", f"{hk}/include"]
        p = subprocess.run([tool, "optimize", "--unit", "source"] + two, capture_output=True, text=True, timeout=600,
                           env=no_llm_env)
        expect("optimize --unit source with a harness of two launchers: one line, exit 2, both named",
               p.returncode == 2 and one_line(p.stderr) and
               (("ops_transpose" in p.stderr and "ops_bias" in p.stderr) or "no libclang" in p.stderr), p)
        p = subprocess.run([tool, "optimize"] + two, capture_output=True, text=True, timeout=600, env=no_llm_env)
        expect("optimize with a harness of two launchers, a kernel at a time: no launcher needed (stops for want of a model)",
               p.returncode == 2 and one_line(p.stderr) and ("no LLM model" in p.stderr or "no libclang" in p.stderr), p)
    p = run([tool, "optimize", "--list", "--json", "--source", f"{hk}/src/ops.cu", "-I", f"{hk}/include",
             "--project-root", hk])
    units = json.loads(p.stdout).get("kernels", []) if p.returncode == 0 else []
    expect("optimize --list finds both header kernels where they are defined, with their launchers",
           [(u["kernel"], os.path.basename(u["file"]), u["launching_functions"]) for u in units] ==
           [("transpose_tiles", "kernels.cuh", 1), ("add_bias", "kernels.cuh", 1)], p)
    p = run([tool, "optimize", "--list", "--source", f"{ROOT}/examples/kernels/src/softmax.cu", "-I",
             f"{ROOT}/examples/kernels/include"])
    expect("optimize --list on a source with its one kernel: the whole source is the unit",
           p.returncode == 0 and "a rewrite takes the whole source" in p.stdout, p)
    p = run([tool, "optimize", "--list"])
    expect("optimize --list without --source: one line, exit 2", p.returncode == 2 and one_line(p.stderr), p)

    p = run([tool, "optimize", "--kernelbench", f"{ROOT}/tests/kernelbench/002_Softmax"] + softmax[:2])
    expect("optimize --kernelbench with --source: one line, exit 2", p.returncode == 2 and one_line(p.stderr), p)
    p = run([tool, "optimize", "--kernelbench", "/nonexistent-problems"])
    expect("optimize --kernelbench on a missing directory: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "no such directory" in p.stderr, p)
    p = run([tool, "optimize", "--kernelbench", f"{ROOT}/tests/kernelbench", "--write", "x.cu",
             "--provider", "command", "--command", "printf none"])
    expect("optimize --write with a directory of problems: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "--write" in p.stderr, p)
    # Issue 41: a dataset over a job array.
    p = run([tool, "optimize", "--kernelbench", f"{ROOT}/tests/kernelbench", "--shard", "4/4"])
    expect("optimize --shard with an index past the jobs: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "from 0 to 3" in p.stderr, p)
    p = subprocess.run([tool, "optimize", "--kernelbench", f"{ROOT}/tests/kernelbench", "--shard", "auto/4"],
                       capture_output=True, text=True, timeout=600,
                       env={k: v for k, v in os.environ.items() if k not in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX")})
    expect("optimize --shard auto/N outside a job array: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "SLURM_ARRAY_TASK_ID" in p.stderr, p)
    p = run([tool, "optimize", "--source", "a.cu", "--harness", "b.cu", "--shard", "0/2"])
    expect("optimize --shard without --kernelbench: one line, exit 2",
           p.returncode == 2 and one_line(p.stderr) and "--kernelbench" in p.stderr, p)

    with tempfile.TemporaryDirectory() as d:
        keys = {}
        for name, manifest in (("plain", {"arch": "sm_90"}), ("llm", {"arch": "sm_90", "llm": {"model": "m1"}})):
            path = os.path.join(d, name + ".json")
            json.dump(manifest, open(path, "w"))
            b = run([tool, "build", "--dry-run", "--json", "--manifest", path, "--cache-dir", os.path.join(d, "cache"),
                     "--out", os.path.join(d, "o.cu")] + softmax[:4])
            keys[name] = json.loads(b.stdout)["key"] if b.returncode == 0 else None
        expect("build: an LLM in the manifest is part of the result's key (a tune-only result is not reused)",
               keys["plain"] and keys["llm"] and keys["plain"] != keys["llm"], keys)
        # A POLICY or KB the tuner would refuse is said by every build, with or without a GPU.
        bad_policy, bad_kb = os.path.join(d, "broken.lua"), os.path.join(d, "broken_kb.json")
        open(bad_policy, "w").write("return { select = function(ctx) return nil end\n")
        open(bad_kb, "w").write('{"schema_version": 1, "states": [\n')
        b = run([tool, "build", "--manifest", os.path.join(d, "plain.json"), "--cache-dir", os.path.join(d, "cache"),
                 "--out", os.path.join(d, "o.cu"), "--policy", bad_policy, "--kb", bad_kb] + softmax[:4])
        said = [l for l in b.stdout.splitlines() if "is refused" in l]
        expect("build: a broken POLICY and a broken KB are each one line naming the file, and the build goes on",
               b.returncode == 0 and len(said) == 2 and "broken.lua" in said[0] and "broken_kb.json" in said[1], b)

        # Issue 74: a lockfile entry is data someone may have edited. One whose flag would have nvcc
        # take its compiler from a directory of the author's choosing, or whose define carries code, is
        # refused with its reason and counts as a miss: the original is compiled, no flag passed on. The
        # same entry with the tuner's own flag and a plain value is applied.
        proj = os.path.join(d, "proj")
        os.makedirs(os.path.join(proj, "src"))
        shutil.copy(f"{ROOT}/examples/kernels/src/softmax.cu", os.path.join(proj, "src"))
        lock, rsp, out = os.path.join(proj, "kernelblaster.lock.json"), os.path.join(d, "o.rsp"), os.path.join(d, "lo.cu")
        gid = "nvidia-h200_sm90_132sm_drv580"
        json.dump({"arch": "sm_90", "include_dirs": [softmax[5]]}, open(os.path.join(d, "lock.json"), "w"))
        args = ["--manifest", os.path.join(d, "lock.json"), "--cache-dir", os.path.join(d, "lock-cache"),
                "--source", os.path.join(proj, "src", "softmax.cu"), "--harness", softmax[3],
                "--lockfile", lock, "--target-gpu", gid, "--out", out, "--rsp", rsp]
        dry = run([tool, "build", "--dry-run", "--json"] + args)
        key = json.loads(dry.stdout)["key"] if dry.returncode == 0 else ""
        gpu = {"name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132, "driver_major": 580}

        def locked(defines, flags):
            entry = {"key": key, "improved": True, "defines": defines, "flags": flags, "config": {}, "speedup": 1.3,
                     "gpu": gpu, "measured_at": "2026-12-07T00:00:00Z", "tool_version": "test"}
            json.dump({"kernelblaster_lockfile": 1, "sources": {"src/softmax.cu": {gid: entry}}}, open(lock, "w"))
            b = run([tool, "build"] + args)
            return b, open(rsp).read() if os.path.exists(rsp) else "", open(out).read() if os.path.exists(out) else ""

        b, flags, text = locked([["BLOCK_SIZE", "128"]], ["--compiler-bindir=" + d])
        expect("build: a lockfile entry whose flag names another compiler directory is refused, the original compiled",
               key and b.returncode == 0 and "is refused (flag '--compiler-bindir=" in b.stdout and
               "counts as a miss" in b.stdout and "compiler-bindir" not in flags and
               "#define BLOCK_SIZE 128" not in text, b)
        for name, defines, said in (
                ("carries code", [["BLOCK_SIZE", "128); abort(); (void(0)"]], "is not one plain token"),
                ("names no tunable of the source", [["KB_TEST_KNOB", "128"]], "names no tunable this build finds"),
                ("sets a value outside its tunable's", [["BLOCK_SIZE", "96"]], "BLOCK_SIZE=96 is not one of its values")):
            b, flags, text = locked(defines, [])
            expect(f"build: a lockfile entry whose define {name} is refused, the original compiled",
                   b.returncode == 0 and said in b.stdout and "abort" not in text and "KB_TEST_KNOB" not in text and
                   "#define BLOCK_SIZE 96" not in text, b)
        b, flags, text = locked([["BLOCK_SIZE", "128"]], ["-use_fast_math"])
        expect("build: an entry with the tuner's own flag and a value of the source's tunable is applied",
               b.returncode == 0 and "applied tuned result" in b.stdout and "-use_fast_math" in flags and
               "#define BLOCK_SIZE 128" in text, b)

        # A CI build that must apply a known result: a miss fails it with one line, a hit does not.
        required = dict(os.environ, KERNELBLASTER_REQUIRE_RESULT="1")
        hit = subprocess.run([tool, "build"] + args, capture_output=True, text=True, timeout=120, env=required)
        os.remove(lock)
        miss = subprocess.run([tool, "build"] + args, capture_output=True, text=True, timeout=120, env=required)
        expect("build with KERNELBLASTER_REQUIRE_RESULT: a hit applies, a miss fails (exit 1, one line why)",
               hit.returncode == 0 and miss.returncode == 1 and one_line(miss.stderr) and
               "KERNELBLASTER_REQUIRE_RESULT" in miss.stderr and "a result is required" in miss.stdout, miss)

        # stats in a build tree reads the results cache its build steps used, not the default one.
        tree = os.path.join(d, "tree")
        gen = os.path.join(tree, "kernelblaster_generated", "lib")
        os.makedirs(gen)
        manifest = os.path.join(gen, "manifest.txt")
        open(manifest, "w").write("kernelblaster-manifest 1\ntarget lib\narch sm_90\n")
        own_cache = os.path.join(d, "own-cache")
        for _ in range(2):
            run([tool, "build", "--manifest", manifest, "--cache-dir", own_cache, "--out", os.path.join(gen, "o.cu"),
                 "--stamp", os.path.join(gen, "softmax.cu.stamp")] + softmax[:4])
        # A second build tree sharing the cache: its step counts in the cache, not in the first tree.
        other = os.path.join(d, "other", "kernelblaster_generated", "lib")
        os.makedirs(other)
        run([tool, "build", "--manifest", manifest, "--cache-dir", own_cache, "--out", os.path.join(other, "o.cu")]
            + softmax[:4])
        st = run([tool, "stats", "--build-dir", tree])
        cache_line = [l for l in st.stdout.splitlines() if l.startswith("results cache ")]
        expect("stats --build-dir: the cache the build used, said as shared, with every build's steps",
               st.returncode == 0 and len(cache_line) == 1 and "(every build that uses it): 3 build steps" in cache_line[0]
               and own_cache.split("/")[-1] in cache_line[0], st)
        expect("stats --build-dir: this build tree's sources, by the last step of each",
               f"this build tree ({tree}): 1 sources" in st.stdout, st)
        sj = run([tool, "stats", "--build-dir", tree, "--json"])
        parsed = json.loads(sj.stdout) if sj.returncode == 0 else {}
        expect("stats --json: the build tree and the caches apart",
               parsed.get("build_tree", {}).get("sources") == 1 and parsed.get("total") == 3, sj)
        here = subprocess.run([tool, "stats"], capture_output=True, text=True, cwd=tree, timeout=60)
        expect("stats run in a build tree reads that tree's cache", own_cache in here.stdout or
               os.path.realpath(own_cache) in here.stdout, here)
        nothing = run([tool, "stats", "--build-dir", d])
        expect("stats --build-dir where no build step ran: one line, exit 2",
               nothing.returncode == 2 and one_line(nothing.stderr) and "no KernelBlaster build step" in nothing.stderr,
               nothing)

        # --json on the commands that write files: one object saying what was done.
        hj = run([tool, "harness", "init", f"{ROOT}/examples/kernels/src/softmax.cu", "-I",
                  f"{ROOT}/examples/kernels/include", "--out", os.path.join(d, "h"), "--json"])
        if "no libclang" not in hj.stderr:
            try:
                j = json.loads(hj.stdout)
                ok = j["written"] and j["launchers"] == ["softmax_rows"] and os.path.isfile(j["harness"]) \
                    and isinstance(j["confirm"], list)
            except (ValueError, KeyError):
                ok = False
            expect("harness init --json: the harness written, its launchers and what to confirm", hj.returncode == 0 and ok, hj)
            again = run([tool, "harness", "init", f"{ROOT}/examples/kernels/src/softmax.cu", "-I",
                         f"{ROOT}/examples/kernels/include", "--out", os.path.join(d, "h"), "--json"])
            expect("harness init --json twice: kept, not written", again.returncode == 0
                   and json.loads(again.stdout)["written"] is False, again)
            ex = run([tool, "harness", "export", j["harness"], os.path.join(d, "none_harness.cu"), "--out",
                      os.path.join(d, "exported"), "--json"])
            try:
                e = json.loads(ex.stdout)
                ok = len(e["exported"]) == 1 and e["kept"] == [] and e["not_synthesized"] == [os.path.join(d, "none_harness.cu")]
            except (ValueError, KeyError):
                ok = False
            expect("harness export --json: exported and not yet synthesized, listed", ex.returncode == 0 and ok, ex)
            sh = run([tool, "capture", "shim", f"{ROOT}/examples/kernels/src/softmax.cu", "-I",
                      f"{ROOT}/examples/kernels/include", "--out", os.path.join(d, "shims"), "--json"])
            try:
                ok = json.loads(sh.stdout)["launchers"] == ["softmax_rows"] and os.path.isfile(json.loads(sh.stdout)["shim"])
            except (ValueError, KeyError):
                ok = False
            expect("capture shim --json: the shim and its launchers", sh.returncode == 0 and ok, sh)
        cj = run([tool, "capture", "--out", os.path.join(d, "cap"), "--json", "--", "true"])
        try:
            ok = json.loads(cj.stdout) == {"exit_code": 0, "captures": [], "left_out": 0, "unreadable": 0, "errors": []}
        except ValueError:
            ok = False
        expect("capture --json -- true: nothing recorded, exit 1, one object", cj.returncode == 1 and ok, cj)

    p = run([harness, "--describe"])
    ok = p.returncode == 0
    if ok:
        d = json.loads(p.stdout)
        ok = d["harness"] == "softmax" and [s["label"] for s in d["sizes"]] == ["small", "large", "odd"] \
            and d["buffers"][1]["role"] == "output" and d["buffers"][1]["tolerance"]["rel_l2"] == 1e-5
    expect("harness --describe prints its declaration without a GPU", ok, p)
    p = run([harness, "--plan", "only-plan.json"])
    expect("harness: --plan without --out is a usage error", p.returncode == 2, p)

    example = [tool, "eval", "--json", "--source", f"{ROOT}/examples/kernels/src/softmax.cu",
               "--harness", f"{ROOT}/examples/kernels/harness/softmax_harness.cu",
               "-I", f"{ROOT}/examples/kernels/include",
               "--candidate", f"{ROOT}/tests/adversarial/good/softmax_online_warp.cu"]
    p = run(example)
    if p.returncode == 77:
        expect("eval without a GPU: exit 77, one line", one_line(p.stderr) and "no CUDA GPU" in p.stderr, p)
        j = run([tool, "eval", "--json"] + softmax)
        expect("eval --json without a GPU still prints its result (status no_gpu), exit 77",
               j.returncode == 77 and json.loads(j.stdout or "{}").get("status") == "no_gpu"
               and "no CUDA GPU on this machine" in json.loads(j.stdout or "{}").get("detail", ""), j)
        h = run([harness])
        expect("harness without a GPU: exit 77, one line", h.returncode == 77 and one_line(h.stderr), h)
        o = run([tool, "optimize", "--launcher", "softmax_rows", "--provider", "command", "--command", "printf none",
                 "--out", os.devnull + "-never"] + softmax)
        expect("optimize without a GPU: exit 77, one line", o.returncode == 77 and one_line(o.stderr), o)
        with tempfile.TemporaryDirectory() as d:
            manifest = os.path.join(d, "m.json")
            json.dump({"llm": {"provider": "command", "command": "printf none", "model": "from-the-build"}},
                      open(manifest, "w"))
            o = subprocess.run([tool, "optimize", "--manifest", manifest, "--out", os.path.join(d, "o")] + softmax,
                               capture_output=True, text=True, timeout=600, env=no_llm_env)
            expect("optimize takes the model from a build's manifest (reaches the GPU check: exit 77)",
                   o.returncode == 77 and one_line(o.stderr), o)
        o = run([tool, "optimize", "--kernelbench", f"{ROOT}/tests/kernelbench", "--provider", "command",
                 "--command", "printf none"])
        expect("optimize --kernelbench on problems without a GPU: exit 77, one line",
               o.returncode == 77 and one_line(o.stderr), o)
    else:
        ok = p.returncode == 0 and json.loads(p.stdout)["status"] == "ok"
        expect("eval on a GPU accepts the honest softmax rewrite", ok, p)

    print(f"{len(passed)} passed, {len(failures)} failed")
    for f in failures:
        print(f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
