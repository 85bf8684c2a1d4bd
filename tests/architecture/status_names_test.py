#!/usr/bin/env python3
"""Statuses and outcomes are types inside the tool; their names are used only
at the edges, by the one table per enum that reads and writes them
(common/enum_names.h). This test fails when a file in tool/src compares a
string with one of those names (`x == "wrong_result"`, `"ok" != y`): that
file reads a status as text where it should parse it on arrival
(status_named, status_from_name, and the other tables' readers).

The names are taken from the tables themselves, so a status added later is
covered. Generic words that are also ordinary values elsewhere are left out
of the check, each with its reason, below.

  status_names_test.py TOOL_SRC_DIR
"""
import glob
import os
import re
import sys

# The enums whose names are statuses or outcomes: (file, enum type).
TABLES = [
    ("common/status.cc", "Status"),
    ("common/status.cc", "AttemptEnd"),
    ("common/protocol.cc", "HarnessErrorKind"),
    ("common/protocol.cc", "DriverVerdict"),
    ("build_step/build_step.cc", "BuildCause"),
    ("build_step/build_step.cc", "BuildAction"),
    ("llm/outcome.cc", "Outcome"),
]
# Words a table holds that mean other things elsewhere in the tool.
ORDINARY = {
    "original": "a build action, and an evaluation's tag for the original kernel",
    "cache": "a result's origin, and an LLM configuration key",
}


def names(src):
    found = set()
    for rel, enum in TABLES:
        text = open(os.path.join(src, rel)).read()
        for m in re.finditer(r"EnumName<%s>\s+\w+\[\]\s*=\s*\{(.*?)\};" % enum, text, re.S):
            found |= {n for n in re.findall(r'"([^"]*)"', m.group(1)) if n}
    return found - set(ORDINARY)


def main():
    src = sys.argv[1]
    known = names(src)
    if len(known) < 40:
        print(f"FAIL: only {len(known)} names read from the tables: the tables moved?")
        return 1
    compare = re.compile(r'(?:==|!=)\s*"([^"]+)"|"([^"]+)"\s*(?:==|!=)')
    problems = []
    for path in sorted(glob.glob(os.path.join(src, "**", "*.cc"), recursive=True) +
                       glob.glob(os.path.join(src, "**", "*.h"), recursive=True)):
        for n, line in enumerate(open(path, errors="replace"), 1):
            for m in compare.finditer(line):
                name = m.group(1) or m.group(2)
                if name in known:
                    problems.append(f"{os.path.relpath(path, src)}:{n}: compares with the name '{name}': {line.strip()}")
    for p in problems:
        print("FAIL", p)
    print(f"{len(known)} status and outcome names; {len(problems)} comparisons with them as text")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
