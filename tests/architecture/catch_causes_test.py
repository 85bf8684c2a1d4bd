#!/usr/bin/env python3
"""Every catch in tool/src keeps its cause or says why it needs none (issue 42).

A catch block that does not use the exception it caught (`catch (...)`,
`catch (const T&)` with no name, or a name it never reads) must rethrow it
(`throw;`, or a new exception in its own words), keep it
(`std::current_exception()`), or carry a comment saying why the cause is not
needed ("// no reply stored under this key: a miss"). A cause dropped with
no word is how a corrupt cache entry became a silent miss.

Usage: catch_causes_test.py REPO
"""
import os
import re
import sys

CATCH = re.compile(r"catch\s*\(\s*(\.\.\.|(?:const\s+)?[\w:<>]+\s*&\s*(\w+)?)\s*\)\s*\{")


def block_after(text, start):
    """The text of the block whose `{` ends at `start`, without its braces."""
    depth, j = 1, start
    while depth and j < len(text):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return text[start:j - 1]


def silent_catches(text):
    """(line, first words) of each catch that drops its cause without a word."""
    found = []
    for m in CATCH.finditer(text):
        block = block_after(text, m.end())
        name = m.group(2)
        if name and re.search(r"\b" + re.escape(name) + r"\b", block):
            continue  # the cause is read
        same_line = text[m.end():text.find("\n", m.end())]
        if "throw" in block or "current_exception" in block or "//" in block or "//" in same_line:
            continue
        found.append((text.count("\n", 0, m.start()) + 1, " ".join(block.split())[:60]))
    return found


def self_test():
    assert silent_catches("try { f(); } catch (const std::exception&) {\n return 0;\n}")
    assert silent_catches("try { f(); } catch (const E& e) { return 0; }")
    assert not silent_catches("try { f(); } catch (const E& e) { say(e.what()); }")
    assert not silent_catches("try { f(); } catch (...) { cleanup(); throw; }")
    assert not silent_catches("try { f(); } catch (const E&) {\n return 0;  // absent: a miss\n}")
    assert not silent_catches("try { f(); } catch (const E&) {  // why\n return 0;\n}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    self_test()
    problems = []
    for root, _, files in os.walk(os.path.join(sys.argv[1], "tool", "src")):
        for f in sorted(files):
            if f.endswith((".cc", ".h", ".cu")):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    for line, words in silent_catches(fh.read()):
                        problems.append(f"{os.path.relpath(path, sys.argv[1])}:{line}: the cause is dropped "
                                        f"without a word ({words!r}): keep it, or say in a comment why not")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(problems)} catches drop their cause silently")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
