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
    includes no eval/, search/ or other tool room, only runtime/ and common/.
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


def violations(src_root):
    out = []
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
        for room in ("runtime", "recorder", "common", "profile", "eval"):
            os.makedirs(os.path.join(d, room))
        with open(os.path.join(d, "runtime", "x.cc"), "w") as f:
            f.write('#include "common/protocol.h"\n#include "eval/result.h"\n#include <vector>\n')
        with open(os.path.join(d, "common", "y.h"), "w") as f:
            f.write('#include "kernelblaster/dtype.h"\n')
        found = violations(d)
        assert len(found) == 1 and 'runtime/x.cc:2: includes "eval/result.h"' in found[0], found


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
    print("room rules hold: runtime/, recorder/, common/ and profile/ include only what they may")
    return 0


if __name__ == "__main__":
    sys.exit(main())
