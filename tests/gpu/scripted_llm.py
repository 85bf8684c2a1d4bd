#!/usr/bin/env python3
"""A scripted LLM for `kernelblaster optimize --provider command`: each call
answers with the next reply of a script, whatever was asked.

  scripted_llm.py SCRIPT.json STATE_FILE

SCRIPT.json is a list of replies: {"file": "path/relative/to/the/checkout"}
(the file's text in a ```cuda fence, with a line of prose around it) or
{"text": "..."} (sent as is). STATE_FILE counts the calls so far. The request
arrives on stdin (read and ignored); the reply goes to stdout as JSON with
its token counts.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    script_path, state_path = sys.argv[1], sys.argv[2]
    sys.stdin.read()
    script = json.load(open(script_path))
    n = int(open(state_path).read()) if os.path.exists(state_path) else 0
    with open(state_path, "w") as f:
        f.write(str(n + 1))
    if n >= len(script):
        text = "I have nothing more to suggest."
    elif "file" in script[n]:
        code = open(os.path.join(ROOT, script[n]["file"])).read()
        text = "Here is the rewritten kernel.\n\n```cuda\n" + code + "```\n\nIt applies the technique."
    else:
        text = script[n]["text"]
    print(json.dumps({"text": text, "finish": "stop", "usage": {"input": 3000, "output": len(text) // 4}}))


if __name__ == "__main__":
    main()
