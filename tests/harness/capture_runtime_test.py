#!/usr/bin/env python3
"""The capture runtime (tool/include/kernelblaster/capture.h) in a program
that links the recording shims of two sources, as a library with two .cu
files is linked into its tests: each source's calls must land in its own
file under KERNELBLASTER_CAPTURE_DIR (issue 27: with one function-local
static, the first shim's file took every source's calls), and nothing is
recorded without the environment (issue 72: the shims hold no path, and a
program run plainly runs at its own speed). Built with nvcc, run without a
GPU: the CUDA calls fail quietly, the lines are still written.

  capture_runtime_test.py NVCC INCLUDE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

SHIM = """#define KERNELBLASTER_CAPTURE_NAME "lib/{name}"
#include <kernelblaster/capture.h>
void {name}(float* x, unsigned char* mask, int n) {{
  kernelblaster::capture::Call kb_call("{name}.cu", R"KBCAPTURE({{"name": "{name}"}})KBCAPTURE",
                                       KERNELBLASTER_CAPTURE_NAME);
  kb_call.buffer(x, 4);
  kb_call.buffer(mask, 1);
  kb_call.value(static_cast<long long>(n));
  kb_call.begin();
  kb_call.finish();
}}
"""

MAIN = """void first(float*, unsigned char*, int);
void second(float*, unsigned char*, int);
int main() {
  first(nullptr, nullptr, 3);
  second(nullptr, nullptr, 4);
  first(nullptr, nullptr, 5);
  return 0;
}
"""


def main():
    nvcc, include, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files = {}
    calls = os.path.join(work, "calls")
    os.makedirs(os.path.join(calls, "lib"))
    for name in ("first", "second"):
        files[name] = os.path.join(calls, "lib", name + ".calls.jsonl")
        with open(os.path.join(work, name + ".cu"), "w") as f:
            f.write(SHIM.format(name=name))
    with open(os.path.join(work, "main.cu"), "w") as f:
        f.write(MAIN)
    exe = os.path.join(work, "app")
    build = subprocess.run([nvcc, "-std=c++17", "-I", include, os.path.join(work, "first.cu"),
                            os.path.join(work, "second.cu"), os.path.join(work, "main.cu"), "-o", exe, "-lcuda"],
                           capture_output=True, text=True)
    if build.returncode != 0:  # no libcuda stub to link against: the driver API is looked up at run time anyway
        build = subprocess.run([nvcc, "-std=c++17", "-I", include, os.path.join(work, "first.cu"),
                                os.path.join(work, "second.cu"), os.path.join(work, "main.cu"), "-o", exe],
                               capture_output=True, text=True)
    if build.returncode != 0:
        print(build.stderr)
        sys.exit("FAIL: the two shims do not build into one program")
    env = dict(os.environ)
    env.pop("KERNELBLASTER_CAPTURE_FILE", None)
    env.pop("KERNELBLASTER_CAPTURE_DIR", None)
    subprocess.run([exe], env=env, timeout=120, check=True)
    failures = []
    if os.listdir(os.path.join(calls, "lib")):
        failures.append("the program recorded without the environment naming where")
    else:
        print("ok   nothing is recorded where the environment names no file or directory")
    if calls.encode() in open(exe, "rb").read():
        failures.append("the program holds the calls directory's path")
    env["KERNELBLASTER_CAPTURE_DIR"] = calls
    run = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=120)
    if run.returncode != 0:
        print(run.stdout, run.stderr)
        sys.exit(f"FAIL: the program exited {run.returncode}")
    for name, path in files.items():
        lines = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
        sources = sorted({l["source"] for l in lines})
        want_shapes = 2 if name == "first" else 1
        if sources != [name + ".cu"] or len(lines) != want_shapes:
            failures.append(f"{path}: sources {sources}, {len(lines)} lines (want {want_shapes} of {name}.cu)")
        else:
            print(f"ok   {name}.cu recorded {len(lines)} calls into its own file")
    # The environment still names one file for every source.
    both = os.path.join(work, "both.jsonl")
    env["KERNELBLASTER_CAPTURE_FILE"] = both
    subprocess.run([exe], env=env, timeout=120, check=True)
    got = sorted(json.loads(l)["source"] for l in open(both))
    if got != ["first.cu", "first.cu", "second.cu"]:
        failures.append(f"KERNELBLASTER_CAPTURE_FILE: {got}")
    else:
        print("ok   KERNELBLASTER_CAPTURE_FILE takes every source's calls")
    env["KERNELBLASTER_CAPTURE_FILE"] = "off"
    for path in files.values():
        os.remove(path)
    subprocess.run([exe], env=env, timeout=120, check=True)
    if any(os.path.exists(p) for p in files.values()):
        failures.append("KERNELBLASTER_CAPTURE_FILE=off still recorded")
    else:
        print("ok   KERNELBLASTER_CAPTURE_FILE=off records nothing")
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
