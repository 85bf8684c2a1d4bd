#!/usr/bin/env python3
"""The dependency rules between the rooms of tool/src (ARCHITECTURE.md,
"Rooms and what they may include"), checked on the source text.

    python3 room_dependencies_test.py TOOL_SRC

Rules:
  - runtime/ and recorder/ run inside a user's or a driver's process: they
    include nothing of the tool's other rooms but common/ (and the public
    headers, kernelblaster/...); recorder/ also its own files.
  - common/ includes only common/ and the public headers.
  - profile/ (metric names, roofline, ceilings) sits below the judges: it
    includes no judge/, tuner/ or other tool room, only runtime/ and common/.
  - Every room is on a floor (FLOORS): a room includes only rooms on lower
    floors, never one on its own floor or above. So the tuner in tuner/ and
    the optimize loop's optimize/ stand side by side on one floor, both on
    the judge in judge/, and neither includes the other.
A quoted #include of a file in another room breaks a rule; a rule broken is
one line naming the file, the line and the include.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# room -> the rooms (first path component of a quoted include) it may use
ALLOWED = {
    "runtime": {"runtime", "common", "kernelblaster"},
    "recorder": {"recorder", "common", "kernelblaster"},
    "common": {"common", "kernelblaster"},
    "profile": {"profile", "runtime", "common", "kernelblaster"},
}
SOURCES = (".cc", ".h", ".cu", ".cuh", ".in")

# The floors of tool/src, lowest first (ARCHITECTURE.md, "Rooms").
FLOORS = [
    {"kernelblaster"},                                        # the public headers
    {"common"},                                               # plumbing
    {"runtime", "recorder", "llm", "policy", "kb", "build_step"},  # alone on common/
    {"profile", "rewrite", "harness", "report"},
    {"judge"},                                                 # the one judge
    {"kernelbench"},                                          # KernelBench input on the judge
    {"tuner", "optimize"},                                   # the two loops, side by side
    {"cli"},                                                  # the commands
]


def floor_of(room):
    for i, rooms in enumerate(FLOORS):
        if room in rooms:
            return i
    return None


def source_files(base):
    for dirpath, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith(SOURCES):
                yield os.path.join(dirpath, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m and "/" in m.group(1):
                yield no, m.group(1), m.group(1).split("/")[0]


def floor_violations(src_root):
    out = []
    rooms = {r for r in os.listdir(src_root) if os.path.isdir(os.path.join(src_root, r))}
    for room in sorted(rooms):
        mine = floor_of(room)
        if mine is None:
            out.append(f"{room}/: the room is on no floor (add it to FLOORS and ARCHITECTURE.md)")
            continue
        for path in source_files(os.path.join(src_root, room)):
            for no, target, first in includes(path):
                if first == room or first not in rooms and first != "kernelblaster":
                    continue
                theirs = floor_of(first)
                if theirs is not None and theirs < mine:
                    continue
                rel = os.path.relpath(path, src_root)
                where = "the same floor as" if theirs == mine else "a higher floor than"
                out.append(f'{rel}:{no}: includes "{target}" ({first}/ is on {where} {room}/)')
    return out


def violations(src_root):
    out = floor_violations(src_root)
    rooms = set(os.listdir(src_root))
    for room, allowed in ALLOWED.items():
        base = os.path.join(src_root, room)
        if not os.path.isdir(base):
            out.append(f"{room}/: the room is missing")
            continue
        for dirpath, _, names in os.walk(base):
            for name in sorted(names):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        first = target.split("/")[0] if "/" in target else None
                        if first is None:
                            continue  # a file beside it
                        if first in allowed:
                            continue
                        if first in rooms:
                            rel = os.path.relpath(path, src_root)
                            out.append(f'{rel}:{no}: includes "{target}" ({room}/ may include only '
                                       f'{", ".join(sorted(allowed))})')
    return out


def self_test():
    """The checker finds a planted violation (a test that cannot fail is none)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for room in ("runtime", "recorder", "common", "profile", "judge"):
            os.makedirs(os.path.join(d, room))
        with open(os.path.join(d, "runtime", "x.cc"), "w") as f:
            f.write('#include "common/protocol.h"\n#include "judge/result.h"\n#include <vector>\n')
        with open(os.path.join(d, "common", "y.h"), "w") as f:
            f.write('#include "kernelblaster/dtype.h"\n')
        found = [v for v in violations(d) if "on no floor" not in v]
        assert len(found) == 2 and all('runtime/x.cc:2: includes "judge/result.h"' in v for v in found), found
    with tempfile.TemporaryDirectory() as d:
        for room in ("common", "judge", "tuner", "optimize", "extra"):
            os.makedirs(os.path.join(d, room))
        with open(os.path.join(d, "optimize", "judge.h"), "w") as f:
            f.write('#include "judge/engine_target.h"\n#include "tuner/engine_measurer.h"\n')
        with open(os.path.join(d, "judge", "x.cc"), "w") as f:
            f.write('#include "common/status.h"\n#include "optimize/loop.h"\n')
        found = floor_violations(d)
        assert sorted(found) == sorted([
            'judge/x.cc:2: includes "optimize/loop.h" (optimize/ is on a higher floor than judge/)',
            'extra/: the room is on no floor (add it to FLOORS and ARCHITECTURE.md)',
            'optimize/judge.h:2: includes "tuner/engine_measurer.h" (tuner/ is on the same floor as optimize/)',
        ]), found


def main():
    if len(sys.argv) != 2:
        print("usage: room_dependencies_test.py TOOL_SRC", file=sys.stderr)
        return 2
    self_test()
    found = violations(sys.argv[1])
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} include(s) break the room rules (ARCHITECTURE.md)")
        return 1
    print("room rules hold: every room includes only rooms on lower floors; runtime/, recorder/, common/ "
          "and profile/ only what they may")
    return 0


if __name__ == "__main__":
    sys.exit(main())
