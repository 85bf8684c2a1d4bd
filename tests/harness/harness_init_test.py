#!/usr/bin/env python3
"""kernelblaster harness init on sources nobody wrote for it: every example
of examples/kernels and the issue's scale_shift library (the harness is
compiled, linked with the source and the harness runtime, and describes
itself), a sample of the published KernelBench-CUDA init.cu files where the
dataset is present (the harness and the capture shim compile), and the
command's errors; harness synth and capture on recorded calls.

usage: harness_init_test.py TOOL ROOT NVCC HARNESS_LIB CUPTI_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

TOOL, ROOT, NVCC, HARNESS_LIB, CUPTI_DIR = sys.argv[1:6]
failures = []
checks = 0

SCALE = r"""#include <cstddef>
#ifndef THREADS
#define THREADS 128
#endif
__global__ void scale_shift_kernel(const float* x, float* y, float a, float b, std::size_t n) {
  std::size_t i = blockIdx.x * (std::size_t)THREADS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
void scale_shift(const float* x, float* y, float a, float b, std::size_t n) {
  scale_shift_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, y, a, b, n);
}
"""


SUMSQ = r"""__global__ void sumsq_kernel(const float* x, float* out, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i] * x[i];
  atomicAdd(out, s);
}
float sum_of_squares(const float* x, int n) {
  float* d = nullptr;
  cudaMalloc(&d, sizeof(float));
  cudaMemset(d, 0, sizeof(float));
  sumsq_kernel<<<1, 256>>>(x, d, n);
  float h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}
"""


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL", what)


def init(source, out, *extra):
    return subprocess.run([TOOL, "harness", "init", source, "--out", out, *extra], capture_output=True, text=True,
                          timeout=120)


def param(name, type_, kind, writable=False, element=""):
    return {"name": name, "type": type_, "canonical": type_, "kind": kind, "writable": writable, "element": element}


def capture(path, source, name, params, calls):
    with open(path, "w") as f:
        json.dump({"format": "kernelblaster-capture-1", "source": source,
                   "launcher": {"name": name, "return_type": "void", "params": params},
                   "calls": [{"args": c} for c in calls]}, f)


def synth(capture_path, out, *extra):
    return subprocess.run([TOOL, "harness", "synth", capture_path, "--out", out, *extra], capture_output=True,
                          text=True, timeout=120)


def link_and_describe(harness, source, includes, work, pointers, defines=()):
    exe = os.path.join(work, os.path.basename(harness) + "".join("-" + d.split("=")[-1] for d in defines) + ".bin")
    cmd = [NVCC, "-std=c++17", "-I" + os.path.join(ROOT, "tool", "include")] + ["-I" + i for i in includes] + \
          ["-D" + d for d in defines] + \
          [harness, source, HARNESS_LIB, "-L" + CUPTI_DIR, "-lcupti", "-ldl", "-Xlinker", "-rpath=" + CUPTI_DIR,
           "-o", exe]
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    check(built.returncode == 0, f"{harness} does not build with {source}: {built.stderr[-600:]}")
    if built.returncode != 0:
        return
    described = subprocess.run([exe, "--describe"], capture_output=True, text=True, timeout=60)
    check(described.returncode == 0, f"{exe} --describe failed: {described.stderr[-300:]}")
    if described.returncode == 0:
        names = sorted(b["name"] for b in json.loads(described.stdout)["buffers"])
        check(names == sorted(pointers), f"{harness}: buffers {names}, expected {sorted(pointers)}")
        return json.loads(described.stdout)
    return None


with tempfile.TemporaryDirectory() as work:
    # The examples and the library: link, run --describe.
    examples = os.path.join(ROOT, "examples", "kernels")
    expected = {"matmul": ["A", "B", "C"], "rmsnorm": ["x", "weight", "y"], "softmax": ["x", "y"],
                "transpose": ["in", "out"], "vector_add": ["a", "b", "c"]}
    for stem, pointers in sorted(expected.items()):
        src = os.path.join(examples, "src", stem + ".cu")
        out = os.path.join(work, "examples")
        r = init(src, out, "-I", os.path.join(examples, "include"))
        check(r.returncode == 0, f"harness init {stem}: rc {r.returncode} {r.stderr}")
        harness = os.path.join(out, stem + "_harness.cu")
        check(os.path.exists(harness), f"{stem}: no {harness} (one launcher pairs by name): {r.stdout}")
        if os.path.exists(harness):
            link_and_describe(harness, src, [os.path.join(examples, "include")], work, pointers)
    scale = os.path.join(work, "scale.cu")
    with open(scale, "w") as f:
        f.write(SCALE)
    r = init(scale, os.path.join(work, "scale"))
    check(r.returncode == 0 and "2 things to confirm" in r.stdout, f"scale: {r.returncode} {r.stdout} {r.stderr}")
    link_and_describe(os.path.join(work, "scale", "scale_harness.cu"), scale, [], work, ["x", "y"])

    # A launcher that returns its result: the harness compares it as an output.
    sumsq = os.path.join(work, "sumsq.cu")
    with open(sumsq, "w") as f:
        f.write(SUMSQ)
    r = init(sumsq, os.path.join(work, "sumsq"))
    check(r.returncode == 0, f"sumsq: {r.returncode} {r.stdout} {r.stderr}")
    d = link_and_describe(os.path.join(work, "sumsq", "sumsq_harness.cu"), sumsq, [], work, ["x", "returned"])
    if d:
        roles = {b["name"]: (b["role"], b["dtype"]) for b in d["buffers"]}
        check(roles.get("returned") == ("output", "f32"), f"sumsq: the return value is not an f32 output: {roles}")

    # Two launchers in one source: one harness, which the build pairs with
    # the source as it is, calls both (each one's buffers prefixed).
    both = os.path.join(work, "both.cu")
    with open(both, "w") as f:
        f.write(SCALE + SUMSQ)
    r = init(both, os.path.join(work, "both"))
    written = sorted(os.listdir(os.path.join(work, "both"))) if r.returncode == 0 else []
    check(written == ["both_harness.cu"] and "for scale_shift, sum_of_squares" in r.stdout,
          f"two launchers: expected one both_harness.cu for both, got {written}: {r.stdout} {r.stderr}")
    if written:
        link_and_describe(os.path.join(work, "both", "both_harness.cu"), both, [], work,
                          ["scale_shift_x", "scale_shift_y", "sum_of_squares_x", "sum_of_squares_returned"])
        # Built with a launcher mask (what the tuner does to judge one
        # launcher alone), it declares only that launcher's buffers.
        with open(os.path.join(work, "both", "both_harness.cu")) as f:
            check("// kernelblaster: launchers scale_shift sum_of_squares\n" in f.read(),
                  "two launchers: the harness does not name them on its marker line")
        link_and_describe(os.path.join(work, "both", "both_harness.cu"), both, [], work,
                          ["sum_of_squares_x", "sum_of_squares_returned"], ["KERNELBLASTER_LAUNCHER_MASK=0x2ull"])
        link_and_describe(os.path.join(work, "both", "both_harness.cu"), both, [], work,
                          ["scale_shift_x", "scale_shift_y"], ["KERNELBLASTER_LAUNCHER_MASK=0x1ull"])

    # A header the build finds with -I that harness init was not given: the
    # type it declares reads as int, and the draft says so instead of
    # claiming it compiles as it is; with the -I, nothing to say.
    inc = os.path.join(work, "inc")
    os.makedirs(inc, exist_ok=True)
    with open(os.path.join(inc, "mytypes.h"), "w") as f:
        f.write("typedef float scale_t;\n")
    typed = os.path.join(work, "typed.cu")
    with open(typed, "w") as f:
        f.write('#include "mytypes.h"\n'
                "__global__ void k(float* y, scale_t s, int n) { int i = threadIdx.x; if (i < n) y[i] *= s; }\n"
                "void run_typed(float* y, scale_t s, int n) { k<<<1, 256>>>(y, s, n); }\n")
    r = init(typed, os.path.join(work, "typed"))
    text = open(os.path.join(work, "typed", "typed_harness.cu")).read() if r.returncode == 0 else ""
    check("'mytypes.h' file not found" in r.stdout and "reads as int" in r.stdout and text and
          "It compiles as it is" not in text, f"a header not found is not said: {r.stdout} {r.stderr}")
    r = init(typed, os.path.join(work, "typed_i"), "-I", inc)
    check(r.returncode == 0 and "libclang could not read" not in r.stdout,
          f"with the -I there is still something unread: {r.stdout} {r.stderr}")

    # An existing harness is kept unless --force.
    r = init(scale, os.path.join(work, "scale"))
    check(r.returncode == 0 and r.stdout.startswith("kept "), f"an existing harness was not kept: {r.stdout}")

    # harness synth: harnesses from recorded calls (as `kernelblaster capture`
    # writes them), linked with the source and described.
    n = lambda v: {"value": str(v)}
    buf = lambda e, w=False: {"elements": e, "written": w}
    cap = os.path.join(work, "scale.capture.json")
    capture(cap, "scale.cu", "scale_shift",
            [param("x", "const float *", "buffer", False, "f32"), param("y", "float *", "buffer", True, "f32"),
             param("a", "float", "real"), param("b", "float", "real"), param("n", "unsigned long", "dim")],
            [[buf(1000), buf(1000, True), n(2.5), n(-1), n(1000)],
             [buf(1 << 20), buf(1 << 20, True), n(2.5), n(-1), n(1 << 20)],
             [buf(4096), buf(4096, True), n(2.5), n(-1), n(4096)],
             [buf(1 << 20), buf(1 << 20, True), n(2.5), n(-1), n(1 << 20)]])
    r = synth(cap, os.path.join(work, "synth"))
    check(r.returncode == 0 and "0 things to confirm" in r.stdout, f"synth scale: {r.returncode} {r.stdout} {r.stderr}")
    d = link_and_describe(os.path.join(work, "synth", "scale_harness.cu"), scale, [], work, ["x", "y"])
    if d:
        sizes = [(z["label"], z["dims"], z.get("validation_only", False)) for z in d["sizes"]]
        check(sizes == [("call1", {"n": 1 << 20}, False), ("call2", {"n": 4096}, False), ("call0", {"n": 1000}, True)],
              f"synth scale: sizes {sizes}")
        roles = {b["name"]: b["role"] for b in d["buffers"]}
        # A written buffer is inout: it starts from seeded values (a launcher may read it first).
        check(roles == {"x": "input", "y": "inout"}, f"synth scale: roles {roles}")
    rms_src = os.path.join(examples, "src", "rmsnorm.cu")
    cap = os.path.join(work, "rmsnorm.capture.json")
    capture(cap, rms_src, "rmsnorm",
            [param("x", "const __half *", "buffer", False, "f16"), param("weight", "const __half *", "buffer", False, "f16"),
             param("y", "__half *", "buffer", True, "f16"), param("rows", "int", "dim"), param("cols", "int", "dim"),
             param("eps", "float", "real")],
            [[buf(64 * 4096), buf(4096), buf(64 * 4096, True), n(64), n(4096), n(1e-6)],
             [buf(8 * 1000), buf(1000), buf(8 * 1000, True), n(8), n(1000), n(1e-6)]])
    r = synth(cap, os.path.join(work, "synth"))
    check(r.returncode == 0, f"synth rmsnorm: {r.returncode} {r.stdout} {r.stderr}")
    h = os.path.join(work, "synth", "rmsnorm_harness.cu")
    text = open(h).read() if os.path.exists(h) else ""
    check('.input("weight", DType::f16, {"cols"}' in text and '.input("x", DType::f16, {"rows", "cols"}' in text,
          f"synth rmsnorm: shapes from the recorded extents: {text}")
    link_and_describe(h, rms_src, [os.path.join(examples, "include")], work, ["x", "weight", "y"])
    r = synth(os.path.join(work, "scale.cu"), work)
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "not JSON" in r.stderr,
          f"synth on a non-capture: rc {r.returncode} {r.stderr!r}")

    # capture shim: the recording shim of each example compiles (with the
    # runtime header) in place of its source.
    for stem in sorted(expected):
        src = os.path.join(examples, "src", stem + ".cu")
        out = os.path.join(work, "shims")
        r = subprocess.run([TOOL, "capture", "shim", src, "--out", out, "-I", os.path.join(examples, "include")],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"capture shim {stem}: rc {r.returncode} {r.stderr}")
        shim = os.path.join(out, stem + ".capture.cu")
        if os.path.exists(shim):
            c = subprocess.run([NVCC, "-std=c++17", "-c", "-I" + os.path.join(ROOT, "tool", "include"),
                                "-I" + os.path.join(examples, "include"), shim, "-o", shim + ".o"],
                               capture_output=True, text=True, timeout=300)
            check(c.returncode == 0, f"{shim} does not compile: {c.stderr[-600:]}")

    # capture -- COMMAND: a stand-in program writes the lines a shim would;
    # they are gathered per launcher, and harness synth reads the result.
    launcher = {"name": "scale_shift", "return_type": "void",
                "params": [param("x", "const float *", "buffer", False, "f32"),
                           param("y", "float *", "buffer", True, "f32"), param("a", "float", "real"),
                           param("b", "float", "real"), param("n", "unsigned long", "dim")]}
    lines = [{"source": scale, "launcher": launcher, "args": [buf(e), buf(e, True), n(2.5), n(-1), n(e)]}
             for e in (1000, 1 << 20, 4096)]
    lines.append({"source": scale, "launcher": launcher, "args": [{}, buf(8, True), n(2.5), n(-1), n(8)]})
    recorder = os.path.join(work, "recorder.py")
    with open(recorder, "w") as f:
        f.write("import json, os\nwith open(os.environ['KERNELBLASTER_CAPTURE_FILE'], 'a') as f:\n")
        for line in lines:
            f.write(f"    f.write({json.dumps(json.dumps(line))} + '\\n')\n")
        f.write("    f.write('not json\\n')\n")
    cap_dir = os.path.join(work, "captured")
    r = subprocess.run([TOOL, "capture", "--out", cap_dir, "--", sys.executable, recorder], capture_output=True,
                       text=True, timeout=120)
    captured = os.path.join(cap_dir, "scale.scale_shift.capture.json")
    check(r.returncode == 0 and "captured 3 calls" in r.stdout and "1 call left out" in r.stdout
          and "1 recorded line unreadable" in r.stdout and os.path.exists(captured),
          f"capture -- recorder: rc {r.returncode} {r.stdout} {r.stderr}")
    if os.path.exists(captured):
        r = synth(captured, os.path.join(work, "synth2"))
        check(r.returncode == 0 and os.path.exists(os.path.join(work, "synth2", "scale_harness.cu")),
              f"synth from a gathered capture: {r.returncode} {r.stdout} {r.stderr}")
    r = subprocess.run([TOOL, "capture", "--out", os.path.join(work, "nothing"), "--", "true"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "no launcher call was recorded" in r.stderr,
          f"capture of a program that records nothing: rc {r.returncode} {r.stderr!r}")
    r = subprocess.run([TOOL, "capture", "--out", os.path.join(work, "failing"), "--", "false"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 1 and "exited with 1" in r.stderr, f"capture of a failing command: rc {r.returncode} {r.stderr!r}")
    r = subprocess.run([TOOL, "capture", "true"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and r.stderr.count("\n") == 1, f"capture without '--': rc {r.returncode} {r.stderr!r}")

    # Errors: one line each.
    none = os.path.join(work, "none.cu")
    with open(none, "w") as f:
        f.write("__global__ void k(float* p) { p[0] = 1; }\nstatic void helper(float* p) {}\n")
    r = init(none, os.path.join(work, "none"))
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "no host launcher" in r.stderr,
          f"no launcher: rc {r.returncode} {r.stderr!r}")
    r = init(os.path.join(work, "missing.cu"), work)
    check(r.returncode == 2 and "no such file" in r.stderr, f"missing source: rc {r.returncode} {r.stderr!r}")
    r = subprocess.run([TOOL, "harness", "make", scale], capture_output=True, text=True)
    check(r.returncode == 2 and "unknown subcommand 'make': one of init" in r.stderr, f"unknown subcommand: rc {r.returncode} {r.stderr!r}")

    # The published dataset, where present: every 23rd init.cu, compiled.
    data = ""
    for d in (os.environ.get("KERNELBLASTER_KERNELBENCH_DATA", ""),
              os.path.join(os.path.dirname(ROOT), "shared", "kernelbench-cuda"),
              os.path.join(ROOT, ".kb-data", "kernelbench-cuda")):
        if d and os.path.isdir(os.path.join(d, "level1")):
            data = d
            break
    if data:
        problems = sorted(os.path.join(dp, "init.cu") for dp, _, files in os.walk(data) if "init.cu" in files)
        check(len(problems) == 184, f"{len(problems)} init.cu files in {data}")
        for i, src in enumerate(problems[::23]):
            out = os.path.join(work, f"kb{i}")
            r = init(src, out)
            check(r.returncode == 0, f"harness init {src}: rc {r.returncode} {r.stderr}")
            for h in sorted(os.listdir(out)) if os.path.isdir(out) else []:
                obj = os.path.join(out, h + ".o")
                c = subprocess.run([NVCC, "-std=c++17", "-c", "-I" + os.path.join(ROOT, "tool", "include"),
                                    os.path.join(out, h), "-o", obj], capture_output=True, text=True, timeout=300)
                check(c.returncode == 0, f"{src}: {h} does not compile: {c.stderr[-600:]}")
            # Its recording shim compiles too (the source included with the launcher renamed).
            shims = os.path.join(work, f"kbshim{i}")
            r = subprocess.run([TOOL, "capture", "shim", src, "--out", shims], capture_output=True, text=True,
                               timeout=120)
            check(r.returncode == 0, f"capture shim {src}: rc {r.returncode} {r.stderr}")
            shim = os.path.join(shims, "init.capture.cu")
            if os.path.exists(shim):
                c = subprocess.run([NVCC, "-std=c++17", "-c", "-I" + os.path.join(ROOT, "tool", "include"), shim,
                                    "-o", shim + ".o"], capture_output=True, text=True, timeout=300)
                check(c.returncode == 0, f"{src}: its capture shim does not compile: {c.stderr[-600:]}")
    else:
        print("the KernelBench-CUDA dataset is not here: its sample was not run")

print(f"{checks - len(failures)} of {checks} checks passed")
sys.exit(1 if failures else 0)
