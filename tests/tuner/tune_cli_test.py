#!/usr/bin/env python3
"""The command line of `kernelblaster tune` and `kernelblaster policy replay`
on any machine: usage errors exit 2 with one line, no GPU exits 77 with one
line (CUDA_VISIBLE_DEVICES is emptied so this holds on a GPU machine too),
and a replay of the synthetic recording prints a report.

  tune_cli_test.py TOOL REPO_ROOT DATA_DIR
"""
import json
import os
import shutil
import subprocess
import sys

tool, root, data = sys.argv[1], sys.argv[2], sys.argv[3]
src = os.path.join(root, "examples", "kernels", "src", "softmax.cu")
harness = os.path.join(root, "examples", "kernels", "harness", "softmax_harness.cu")
failures = []


def run(args, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([tool] + args, capture_output=True, text=True, timeout=60, env=env)


def expect(name, proc, code, stderr_has=None, one_line=True):
    ok = proc.returncode == code
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if one_line and code != 0 and len(lines) != 1:
        ok = False
    if stderr_has and stderr_has not in proc.stderr:
        ok = False
    print(f"{'PASS' if ok else 'FAIL'} {name}: exit {proc.returncode} (expected {code}) {proc.stderr.strip()[:200]}")
    if not ok:
        failures.append(name)


expect("tune --help", run(["tune", "--help"]), 0, one_line=False)
expect("tune without --source", run(["tune", "--harness", harness]), 2, "--source is required")
expect("tune without --harness", run(["tune", "--source", src]), 2, "--harness is required")
expect("tune unknown option", run(["tune", "--source", src, "--harness", harness, "--bogus"]), 2, "unknown option")
expect("tune bad --devices", run(["tune", "--source", src, "--harness", harness, "--devices", "0,x"]), 2, "--devices")
expect("tune bad --budget", run(["tune", "--source", src, "--harness", harness, "--budget", "-1"]), 2, "--budget")
expect("tune bad --max-evals", run(["tune", "--source", src, "--harness", harness, "--max-evals", "1.5"]), 2,
       "--max-evals")
expect("tune bad --start-from", run(["tune", "--source", src, "--harness", harness, "--start-from", "BLOCK_SIZE"]), 2,
       "--start-from: `BLOCK_SIZE` is neither NAME=VALUE nor an nvcc flag")
expect("tune missing source", run(["tune", "--source", "/nonexistent.cu", "--harness", harness]), 2, "no such file")
no_gpu = {"CUDA_VISIBLE_DEVICES": ""}
out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kb_tune_cli_{os.getpid()}.cu")
p = run(["tune", "--source", src, "--harness", harness, "--out", out, "--json"], no_gpu)
expect("tune without a GPU", p, 77, "skipped")
if os.path.exists(out):
    print("FAIL tune without a GPU wrote --out")
    failures.append("no output without a GPU")

expect("replay --help", run(["policy", "replay", "--help"]), 0, one_line=False)
expect("replay without --results", run(["policy", "replay"]), 2, "--results is required")
expect("replay malformed results", run(["policy", "replay", "--results", harness]), 2, "malformed run log")
expect("replay missing policy", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                     "--policy", "/nonexistent.lua"]), 2, "no such policy")
expect("replay pace without builders", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                            "--build-s", "10"]), 2, "need --builders")
expect("replay negative build time", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                          "--builders", "4", "--build-s", "-1"]), 2, "must be >= 0")
expect("replay budget without builders", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                              "--budget", "30"]), 2, "--budget needs --builders")
expect("replay negative budget", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                      "--builders", "4", "--budget", "-1"]), 2, "--budget must be >= 0")
expect("replay negative first seed", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                           "--first-seed", "-1"]), 2, "--first-seed needs")
expect("replay noise out of range", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                         "--noise", "3"]), 2, "--noise must be in")
expect("replay at a pace", run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"),
                                "--builders", "2", "--build-s", "10", "--measure-s", "1", "--noise", "0.01",
                                "--budget", "40"]), 0,
       one_line=False)
p = run(["policy", "replay", "--results", os.path.join(data, "synthetic_recording.json"), "--policy-seeds", "3", "--json"])
expect("replay synthetic", p, 0, one_line=False)
if p.returncode == 0:
    report = json.loads(p.stdout)
    good = len(report["seeds"]) == 3 and report["space_size"] == 9 and abs(report["recorded_best"] - 1.269) < 1e-9
    print(f"{'PASS' if good else 'FAIL'} replay report fields")
    if not good:
        failures.append("replay report")

# tune --list with a harness: a launcher whose `else` launch no size of the
# harness reaches keeps that launch's tile as written.
tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kb_tune_list_{os.getpid()}")
os.makedirs(tmp, exist_ok=True)
with open(os.path.join(tmp, "run.cu"), "w") as f:
    f.write("template <int BM> __global__ void k(int M, float *C) { C[blockIdx.x * BM + threadIdx.x] = 0; }\n"
            "void run(int M, float *C) {\n"
            "  if (M >= 128) {\n    const int BM = 128;\n    k<BM><<<M / BM, BM>>>(M, C);\n"
            "  } else {\n    const int BM = 32;\n    k<BM><<<M / BM, BM>>>(M, C);\n  }\n}\n")
with open(os.path.join(tmp, "run_harness.cu"), "w") as f:
    f.write('#include <kernelblaster/harness.h>\nvoid run(int M, float * C);\n'
            'int main(int argc, char** argv) {\n  kernelblaster::Harness h("run");\n'
            '  h.size("size0", {{"M", 4096}, {"C_elements", 4096}})\n'
            '      .launch([](kernelblaster::Call& c) {\n'
            '        run(static_cast<int>(c.dim("M")), c.out<float>("C"));\n      });\n'
            '  return h.main(argc, argv);\n}\n')
p = run(["tune", "--list", "--json", "--source", os.path.join(tmp, "run.cu"), "--harness", os.path.join(tmp, "run_harness.cu")])
expect("tune --list --harness", p, 0, one_line=False)
if p.returncode == 0:
    listing = json.loads(p.stdout)
    good = ([t["name"] for t in listing["tunables"]] == ["KERNELBLASTER_BM_L4"] and
            listing["left_as_written"] == ["KERNELBLASTER_BM_L7"] and
            "runs for no size of the harness (!(M >= 128))" in listing["harness"][0])
    print(f"{'PASS' if good else 'FAIL'} tune --list --harness leaves the unreached tile: {p.stdout[-400:]}")
    if not good:
        failures.append("tune --list --harness")
    # The branch's edge the harness's one size (4096) never touches: 128
    # and 127, where a winner is checked against the original.
    edges = [(e["label"], e["dims"]["M"], e["why"]) for e in listing.get("edges", [])]
    good = edges == [("edge-M-128", 128, "M >= 128 in run"), ("edge-M-127", 127, "M >= 128 in run")]
    print(f"{'PASS' if good else 'FAIL'} tune --list --harness names the branch's edges: {edges}")
    if not good:
        failures.append("tune --list edges")
shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
