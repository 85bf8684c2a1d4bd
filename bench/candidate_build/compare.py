#!/usr/bin/env python3
"""A candidate's build two ways, as judge/candidate_build.cc makes them:
one nvcc of the harness and the source together (eval, gate, optimize),
and the source alone linked with the harness's object compiled once
(a tuning run's HarnessObjects). Prints each way's wall seconds (the
median of --rounds) and whether the two programs carry the same kernel
machine code (every .text section of every cubin in their fatbins). Needs
nvcc and the build tree's harness library; no GPU.

  compare.py HARNESS_LIB [--nvcc NVCC] [--cuda-lib DIR] [--rounds 3] [--pair NAME HARNESS SOURCE INCLUDE ...]
             [--extra-link "WORDS"] [--json OUT]

HARNESS_LIB: the build tree's libkernelblaster_harness.a.

By default the examples' softmax, rmsnorm and vector_add.
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import struct
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, cwd):
    """Wall seconds of cmd, which must succeed."""
    t = time.time()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.time() - t


def kernel_code(program):
    """{section name: sorted md5s} of the .text sections of the cubins in its fatbin."""
    with tempfile.NamedTemporaryFile() as f:
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", program, f.name], check=True)
        data = open(f.name, "rb").read()
    code, i = {}, 0
    while (j := data.find(b"\x7fELF", i)) >= 0:
        shoff = struct.unpack_from("<Q", data, j + 0x28)[0]
        entsize, count, names = struct.unpack_from("<HHH", data, j + 0x3A)
        elf = data[j:j + shoff + entsize * count]
        secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + k * entsize) for k in range(count)]
        base = secs[names][4]
        for s in secs:
            name = elf[base + s[0]:elf.index(b"\0", base + s[0])].decode()
            if name.startswith(".text."):
                code.setdefault(name, []).append(hashlib.md5(elf[s[4]:s[4] + s[5]]).hexdigest())
        i = j + len(elf)
    return {k: sorted(v) for k, v in code.items()}


def compare(a, name, harness, source, includes):
    harness, source = os.path.abspath(harness), os.path.abspath(source)
    includes = [os.path.abspath(d) for d in includes]
    lib, cuda_lib = os.path.abspath(a.harness_lib), a.cuda_lib
    opts = [a.nvcc, "-std=c++17", "-O3", "-lineinfo", "-arch=sm_90", "-I" + os.path.join(ROOT, "tool", "include")]
    opts += ["-I" + d for d in includes]
    link = [lib, "-L" + cuda_lib, "-lcupti", "-ldl"] + a.extra_link.split() + ["-Xlinker", "-rpath=" + cuda_lib]
    work = tempfile.mkdtemp(prefix="kb-build-compare-")
    one, split = [], []
    harness_s = timed(opts + ["-c", harness, "-o", "harness.o"], work)
    for _ in range(a.rounds):
        one.append(timed(opts + [harness, source] + link + ["-o", "one"], work))
        split.append(timed(opts + ["-c", source, "-o", "kernel.o"], work) +
                     timed(opts + ["harness.o", "kernel.o"] + link + ["-o", "split"], work))
    same = kernel_code(os.path.join(work, "one")) == kernel_code(os.path.join(work, "split"))
    shutil.rmtree(work, ignore_errors=True)
    return {"name": name, "one_command_s": statistics.median(one), "source_and_link_s": statistics.median(split),
            "harness_object_s": harness_s, "same_kernel_code": same}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("harness_lib")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuda-lib", default="/usr/local/cuda/lib64")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pair", nargs="+", action="append", help="NAME HARNESS SOURCE INCLUDE...")
    ap.add_argument("--json")
    ap.add_argument("--extra-link", default="", help="words the link adds for every pair (a source's libraries, "
                    "a replay harness's -Xlinker options), as the tool's link line would")
    a = ap.parse_args()
    ex = os.path.join(ROOT, "examples", "kernels")
    pairs = a.pair or [[e, os.path.join(ex, "harness", e + "_harness.cu"), os.path.join(ex, "src", e + ".cu"),
                        os.path.join(ex, "include")] for e in ("softmax", "rmsnorm", "vector_add")]
    rows = [compare(a, p[0], p[1], p[2], p[3:]) for p in pairs]
    print("| source | one nvcc (s) | source + link (s) | harness object, once (s) | same kernel code |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} | {r['one_command_s']:.2f} | {r['source_and_link_s']:.2f} | {r['harness_object_s']:.2f} | "
              f"{'yes' if r['same_kernel_code'] else 'NO'} |")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    return 0 if all(r["same_kernel_code"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
