#!/usr/bin/env python3
"""Scripted model replies for a rewrite one kernel at a time on a project
nobody here wrote (issue 40's SGEMM_CUDA target), made at run time from the
project's own kernels so that none of its code is kept here.

  unit_replies.py script LIST.json SCRIPT.json
      LIST.json: `kernelblaster optimize --list --json` of the source.
      SCRIPT.json: a keyed script for tests/gpu/scripted_llm.py: each kernel's
      name maps to two replies, a wrong rewrite of that kernel's definition
      (its first `alpha *` halved, so every result is off) and then an honest
      one (the definition as written, with `#pragma unroll` before each loop
      that has none), keyed by the definition's line that names the kernel. The loop's first attempt at a kernel gets the wrong one,
      its fix the honest one.
  unit_replies.py summary RUN_DIR
      The run's trajectory: per step the kernel, each attempt's status, and
      the size of what the model was shown (prompts/<tag>.json).
"""
import json
import os
import re
import sys


def definition(path, line):
    """The kernel's definition from its first line (the template's) to its
    closing brace."""
    lines = open(path).read().splitlines(keepends=True)
    text = "".join(lines[line - 1:])
    depth, opened = 0, False
    for i, ch in enumerate(text):
        if ch == "{":
            depth, opened = depth + 1, True
        elif ch == "}":
            depth -= 1
            if opened and depth == 0:
                return text[:i + 1] + "\n"
    raise ValueError(f"{path}:{line}: no closing brace")


def wrong(code):
    if "alpha *" in code:
        return code.replace("alpha *", "0.5f * alpha *", 1)
    return code.replace("+=", "-=", 1)


def honest(code):
    out, before = [], ""
    for line in code.splitlines(keepends=True):
        if re.match(r"\s*for\s*\(", line) and "#pragma unroll" not in before:
            out.append(re.match(r"\s*", line).group(0) + "#pragma unroll\n")
        out.append(line)
        if line.strip():
            before = line
    return "".join(out)


def reply(code, what):
    return {"text": f"{what}\n\n```cuda\n{code}```\n"}


def script(list_path, out_path):
    listing = json.load(open(list_path))
    keyed = {}
    for k in listing["kernels"]:
        code = definition(k["file"], k["line"])
        # The key is the definition's line that names the kernel: only the
        # prompt for that kernel shows it (another kernel's prompt may name
        # this one, in its harness's shapes or launching code).
        key = next(l.strip() for l in code.splitlines() if re.search(r"\b" + re.escape(k["kernel"]) + r"\s*\(", l))
        keyed[key] = [reply(wrong(code), "Here is the kernel with the scaling folded in."),
                              reply(honest(code), "Here is the kernel with its loops unrolled.")]
    json.dump(keyed, open(out_path, "w"), indent=1)
    print(f"{len(keyed)} kernels scripted: {', '.join(keyed)}")


def prompt_bytes(path):
    d = json.load(open(path))
    msgs = (d.get("request") or {}).get("messages") or []
    return sum(len(m.get("content") or "") for m in msgs)


def summary(run_dir):
    t = json.load(open(os.path.join(run_dir, "trajectory.json")))
    print("| step | kernel | technique | attempt | status | prompt bytes |")
    print("|---|---|---|---|---|---|")
    for s in t["steps"]:
        for a in s["attempts"]:
            p = os.path.join(run_dir, "prompts", a["tag"] + ".json")
            size = prompt_bytes(p) if os.path.isfile(p) else "?"
            print(f"| {s.get('index', '')} | {s.get('kernel', '')} | {s.get('technique', '')} | {a['tag']} | "
                  f"{a.get('status') or a.get('end')} | {size} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["script"]:
        script(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["summary"]:
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
