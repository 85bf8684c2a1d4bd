#!/usr/bin/env python3
"""The search's early look on a GPU (judge/early_look.h): the examples'
vector_add with one tunable, BIAS, whose value 1 adds one to every
element, tuned with `kernelblaster tune`. Checked:

- BIAS=1 is a wrong result, found in its correctness runs and stopped
  before its timing (the detail says so), so the harness wrote its report
  so far and the judge stopped the process on it;
- nothing is kept: the original is what the tune writes.

  early_look_test.py KERNELBLASTER SOURCE_DIR WORK

Exit 77 (skipped) where the tool finds no GPU.
"""
import json
import os
import shutil
import subprocess
import sys


def wrong_source(text):
    """vector_add.cu with BIAS the only tunable, no flags, no discovery."""
    keep = [line for line in text.splitlines() if not line.startswith("// kernelblaster: tunable")
            and not line.startswith("// kernelblaster: flags")]
    out = "\n".join(keep) + "\n"
    out = out.replace("#include <cstddef>\n",
                      "#include <cstddef>\n\n// kernelblaster: discover off\n// kernelblaster: flags none\n"
                      "// kernelblaster: tunable BIAS 0 1\n#ifndef BIAS\n#define BIAS 0\n#endif\n", 1)
    line = "z.v[k] = x.v[k] + y.v[k];"
    if line not in out:
        sys.exit("vector_add.cu no longer has the line this test changes: " + line)
    return out.replace(line, "z.v[k] = x.v[k] + y.v[k] + BIAS;", 1)


def main():
    tool, src_dir, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ex = os.path.join(src_dir, "examples", "kernels")
    source = os.path.join(work, "vector_add.cu")
    with open(os.path.join(ex, "src", "vector_add.cu")) as f:
        text = wrong_source(f.read())
    with open(source, "w") as f:
        f.write(text)
    log = os.path.join(work, "log.json")
    proc = subprocess.run([tool, "tune", "--source", source, "--harness",
                           os.path.join(ex, "harness", "vector_add_harness.cu"), "-I", os.path.join(ex, "include"),
                           "--json", "--budget", "60", "--kb", os.path.join(work, "kb.json"), "--log", log,
                           "--out", os.path.join(work, "tuned.cu")], capture_output=True, text=True)
    if proc.returncode == 77:
        print("no GPU: skipped")
        return 77
    failures = []

    def check(what, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + str(detail)[:600]))
        if not ok:
            failures.append(what)

    # Exit 1 is "not tuned" (nothing beat the original), the expected end here.
    check("tune ran", proc.returncode in (0, 1) and proc.stdout.strip(), proc.stderr[-600:])
    evals = json.load(open(log))["evaluations"] if os.path.exists(log) else []
    wrong = [e for e in evals if e.get("settings", {}).get("BIAS") == "1"]
    check("BIAS=1 was tried", bool(wrong), [e.get("id") for e in evals])
    for e in wrong:
        check("BIAS=1 is a wrong result", e["status"] == "wrong_result", e["status"] + ": " + e["detail"])
        check("found in its correctness runs, stopped before its timing",
              "stopped before its timing" in e["detail"], e["detail"])
    result = json.loads(proc.stdout) if proc.stdout.strip() else {}
    kept = result.get("best_config") or result.get("config") or {}
    check("nothing wrong is kept", bool(result) and str(kept.get("BIAS", "0")) == "0", result)
    print("early look: " + ("all checks hold" if not failures else f"{len(failures)} failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
