#!/usr/bin/env python3
"""Issue 40 item 4 on a GPU: a project whose kernels are in a header, launched
from two library functions and from main (tests/cmake/projects/headerkernels),
built with the one line and an LLM: the loopback server of tests/llm speaks
the OpenAI protocol, streamed, and replays three rewrites of the kernel the
time goes to (transpose_tiles): a wrong one, a hostile one, an honest one
(tests/gpu/rewrites/headerkernels). Checked:

- the rewrite was of that one kernel: the prompt shows its definition and
  the function that launches it, not the other kernel's body nor main;
- the wrong and hostile rewrites were rejected by the judge's status, the
  honest one kept, and the build compiles it from the build tree;
- the project's own test and the KernelBlaster gates pass;
- no file of the user's project changed.

  header_rewrite_test.py --tool KERNELBLASTER --prefix INSTALL_PREFIX --source-dir CHECKOUT --work DIR

Exit 77 (skipped) on a machine without a GPU.
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "llm"))
from fake_llm_server import FakeLlmServer, openai_stream  # noqa: E402

failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else ": " + str(detail)[:800]))
    if not ok:
        failures.append(what)


def tree_hashes(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def reply(path):
    with open(path) as f:
        code = f.read()
    return openai_stream("Here is the kernel.\n\n```cuda\n" + code + "```\n", model="test-model")


def main():
    ap = argparse.ArgumentParser()
    for a in ("--tool", "--prefix", "--source-dir", "--work"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    if subprocess.run([args.tool, "gpu", "info"], capture_output=True).returncode != 0:
        print("skipped: no CUDA GPU on this machine")
        sys.exit(77)
    shutil.rmtree(args.work, ignore_errors=True)
    project = os.path.join(args.work, "project")
    build = os.path.join(args.work, "build")
    shutil.copytree(os.path.join(args.source_dir, "tests", "cmake", "projects", "headerkernels"), project)
    before = tree_hashes(project)
    rewrites = os.path.join(HERE, "rewrites", "headerkernels")
    # The honest rewrite comes third: the first attempt and its two fixes.
    # Whatever else the loop asks (later steps, the other trajectory, the
    # KB's review) gets a reply with no code.
    script = [{"stream": reply(os.path.join(rewrites, n + ".cu"))} for n in ("wrong", "hostile", "honest")]
    script += [{"stream": openai_stream("I have nothing more to suggest.", model="test-model")} for _ in range(40)]
    env = dict(os.environ, OPENAI_API_KEY="sk-test-header-rewrite", KERNELBLASTER_CACHE_DIR=os.path.join(args.work, "cache"))
    with FakeLlmServer() as server:
        server.set_script(script)
        p = subprocess.run(["cmake", "-S", project, "-B", build, "-G", "Ninja", "-DCMAKE_PREFIX_PATH=" + args.prefix,
                            "-DKERNELBLASTER_MODE=TUNE", "-DKERNELBLASTER_LLM_PROVIDER=openai",
                            "-DKERNELBLASTER_LLM_BASE_URL=" + server.base_url(), "-DKERNELBLASTER_LLM_MODEL=test-model"],
                           capture_output=True, text=True, env=env)
        check("the project configures", p.returncode == 0, p.stdout + p.stderr)
        p = subprocess.run(["cmake", "--build", build], capture_output=True, text=True, env=env)
        out = p.stdout + p.stderr
        print("\n".join(l for l in out.splitlines() if "kernelblaster:" in l))
        check("the project builds", p.returncode == 0, out[-3000:])
        requests = list(server.requests)

    line = next((l for l in out.splitlines() if "kernelblaster: ops.cu:" in l), "")
    check("the build line names the rewrite by the model", "rewrite by openai/test-model" in line, line)
    prompt = json.loads(requests[0]["body"])["messages"][-1]["content"] if requests else ""
    print("first prompt: %d bytes" % len(prompt))
    check("the prompt is of transpose_tiles, in its header",
          "## The kernel to rewrite: transpose_tiles (kernels.cuh:" in prompt, prompt[:1500])
    check("the prompt shows the function that launches it", "void ops_transpose(" in prompt, prompt[:3000])
    check("the prompt leaves out the other kernel's body and main",
          "out[i] = in[i] + bias" not in prompt and "int main()" not in prompt, prompt[:3000])
    check("the request was streamed", bool(requests) and json.loads(requests[0]["body"]).get("stream") is True)

    summaries = glob.glob(os.path.join(build, "kernelblaster_generated", "**", "*.optimize", "summary.json"), recursive=True)
    summary = json.load(open(summaries[0])) if summaries else {}
    check("the rewrite kept a kernel", summary.get("improved") is True, summary)
    unit = summary.get("unit", {})
    check("the unit is transpose_tiles in include/ops/kernels.cuh",
          unit.get("kernel") == "transpose_tiles" and unit.get("file", "").endswith("include/ops/kernels.cuh"), unit)
    trajectory = os.path.join(os.path.dirname(summaries[0]), "trajectory.json") if summaries else ""
    attempts = json.load(open(trajectory))["steps"][0]["attempts"] if trajectory and os.path.exists(trajectory) else []
    statuses = [(a.get("end"), a.get("status")) for a in attempts]
    print("the first step's attempts:", statuses)
    check("the wrong rewrite was rejected as a wrong result", bool(statuses) and statuses[0] == ("rejected", "wrong_result"),
          statuses)
    check("the hostile rewrite was rejected", len(statuses) > 1 and statuses[1][0] in ("rejected", "static_check")
          and statuses[1][1] != "ok", statuses)
    check("the honest rewrite was verified", len(statuses) > 2 and statuses[2] == ("verified", "ok"), statuses)

    compiled = glob.glob(os.path.join(build, "kernelblaster_generated", "ops", "src", "ops.cu"))
    text = open(compiled[0]).read() if compiled else ""
    check("the build compiles the honest kernel from the build tree", "HONEST_TILED" in text and "add_bias" in text)
    check("the hostile and wrong kernels are not in it", "kb_calls_seen" not in text)

    p = subprocess.run(["ctest", "--test-dir", build, "--output-on-failure"], capture_output=True, text=True, env=env)
    print(p.stdout[-2500:])
    check("the project's own test and the gates pass", p.returncode == 0, p.stdout[-2000:])
    check("no file of the user's project changed", tree_hashes(project) == before)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
