#!/usr/bin/env python3
"""A scripted LLM for `kernelblaster optimize --provider command`: each call
answers with the next reply of a script, whatever was asked.

  scripted_llm.py SCRIPT.json STATE_FILE

SCRIPT.json is a list of replies: {"file": "path/relative/to/the/checkout"}
(the file's text in a ```cuda fence, with a line of prose around it; an
`#include "x"` of a file beside it is replaced by that file's text, once,
as a model writes one whole source) or
{"text": "..."} (sent as is). STATE_FILE counts the calls so far. The request
arrives on stdin (read and ignored); the reply goes to stdout as JSON with
its token counts.

SCRIPT.json may instead be an object mapping a text to a list of replies:
a request is answered from the list of the longest text it contains, each
list with its own count (STATE_FILE then holds the counts as JSON), so runs
that meet the problems in any order, or in shards, get the same replies.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def inline(path, seen):
    """The file's text with its quoted includes of files beside it inlined."""
    out = []
    for line in open(path).read().splitlines(keepends=True):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        other = os.path.join(os.path.dirname(path), m.group(1)) if m else None
        if other and os.path.isfile(other):
            if os.path.realpath(other) not in seen:
                seen.add(os.path.realpath(other))
                out.append(inline(other, seen))
            continue
        if re.match(r"\s*#\s*pragma\s+once", line):
            continue
        out.append(line)
    return "".join(out)


def keyed(script, request, state_path):
    """The reply list of the longest key in the request, and its count."""
    counts = json.load(open(state_path)) if os.path.exists(state_path) else {}
    key = next((k for k in sorted(script, key=len, reverse=True) if k in request), None)
    if key is None:
        return [], 0
    n = counts.get(key, 0)
    counts[key] = n + 1
    with open(state_path, "w") as f:
        json.dump(counts, f)
    return script[key], n


def main():
    script_path, state_path = sys.argv[1], sys.argv[2]
    request = sys.stdin.read()
    script = json.load(open(script_path))
    if isinstance(script, dict):
        script, n = keyed(script, request, state_path)
    else:
        n = int(open(state_path).read()) if os.path.exists(state_path) else 0
        with open(state_path, "w") as f:
            f.write(str(n + 1))
    if n >= len(script):
        text = "I have nothing more to suggest."
    elif "file" in script[n]:
        code = inline(os.path.join(ROOT, script[n]["file"]), set())
        text = "Here is the rewritten kernel.\n\n```cuda\n" + code + "```\n\nIt applies the technique."
    else:
        text = script[n]["text"]
    print(json.dumps({"text": text, "finish": "stop", "usage": {"input": 3000, "output": len(text) // 4}}))


if __name__ == "__main__":
    main()
