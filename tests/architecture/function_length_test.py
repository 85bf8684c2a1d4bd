#!/usr/bin/env python3
"""Function length in tool/src (C++, 80 lines) and in the CMake module
(100 lines), checked on the source text (ARCHITECTURE.md, issue 28).

    python3 function_length_test.py REPO [--list]

A function is counted from the line its body opens on to the line it
closes on; a lambda counts in the function that holds it. The functions
that were longer when this check came are listed in long_functions.txt with
their length then: they may shrink, never grow, and an entry whose function
is now within the limit (or gone) must be taken out, so the list only
shrinks. Anything else over the limit fails, one line each. --list prints
every function over the limit.
"""
import os
import re
import sys

CPP_LIMIT = 80
CMAKE_LIMIT = 100
HERE = os.path.dirname(os.path.abspath(__file__))


def mask(text):
    """The text with comments, string and character literals blanked (line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


NOT_A_FUNCTION = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;{}()]*$|=\s*$|\b(extern\s+\"C\")\s*$")
FUNCTION_END = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->[^{;]*|\s)*$")


def cpp_functions(text):
    """(name, first line, last line) of every function body at namespace or class scope."""
    code = mask(text)
    found, stack = [], []  # stack: (kind, start offset, name)
    for i, c in enumerate(code):
        if c == "{":
            inside_function = any(kind == "function" for kind, _, _ in stack)
            head = code[max(0, code.rfind(";", 0, i), code.rfind("}", 0, i), code.rfind("{", 0, i)) + 1:i]
            head_flat = " ".join(head.split())
            kind = "block"
            name = ""
            if not inside_function and not NOT_A_FUNCTION.search(head_flat) and FUNCTION_END.search(head_flat):
                # The constructor's initializer list ends in ")" or "}" too: take the name before the first "(".
                m = re.search(r"([~\w:]+(?:operator\s*\S+)?)\s*\(", head_flat)
                if m:
                    kind, name = "function", m.group(1)
            stack.append((kind, i, name))
        elif c == "}" and stack:
            kind, start, name = stack.pop()
            if kind == "function":
                found.append((name, code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1))
    return found


def cmake_functions(text):
    found, current = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*(function|macro)\(\s*([\w]+)", line)
        if m:
            current = (m.group(2), n)
        elif re.match(r"\s*end(function|macro)\(", line) and current:
            found.append((current[0], current[1], n))
            current = None
    return found


def measure(repo):
    """{"path:name": lines} of every function over its limit."""
    long = {}
    src = os.path.join(repo, "tool", "src")
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith((".cc", ".h", ".cu", ".cuh")):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for name, first, last in cpp_functions(text):
                    lines = last - first + 1
                    if lines > CPP_LIMIT:
                        long[f"{os.path.relpath(path, repo)}:{name}"] = max(lines, long.get(f"{os.path.relpath(path, repo)}:{name}", 0))
    module = os.path.join(repo, "cmake", "KernelBlaster.cmake")
    with open(module, encoding="utf-8") as fh:
        for name, first, last in cmake_functions(fh.read()):
            if last - first + 1 > CMAKE_LIMIT:
                long[f"cmake/KernelBlaster.cmake:{name}"] = last - first + 1
    return long


def read_allowed(path):
    allowed = {}
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                where, lines = line.rsplit(None, 1)
                allowed[where] = int(lines)
    return allowed


def problems(long, allowed):
    out = []
    for where, lines in sorted(long.items()):
        if where not in allowed:
            out.append(f"{where}: {lines} lines, over the limit (split it into named steps)")
        elif lines > allowed[where]:
            out.append(f"{where}: grew to {lines} lines (it was {allowed[where]}; it may only shrink)")
    for where, lines in sorted(allowed.items()):
        if where not in long:
            out.append(f"{where}: within the limit now (or gone): take it out of long_functions.txt")
    return out


def self_test():
    """The checker finds what it must on planted text."""
    body = "\n".join("  x += %d;" % k for k in range(90))
    text = ('namespace a {\nstruct S {\n  int f() const {\n' + body + '\n  }\n};\n'
            'const char* s = "{ not a block";\n// void g() {\nint h(int v) {\n  auto l = [&] {\n    return v;\n  };\n'
            '  return l();\n}\n}  // namespace a\n')
    found = {name: (first, last) for name, first, last in cpp_functions(text)}
    assert set(found) == {"f", "h"}, found
    assert found["f"][1] - found["f"][0] + 1 == 92, found
    assert "grew to" in problems({"x:f": 95}, {"x:f": 92})[0]
    assert "within the limit" in problems({}, {"x:f": 92})[0]
    assert "over the limit" in problems({"x:g": 81}, {})[0]
    assert problems({"x:f": 90}, {"x:f": 92}) == []


def cmake_macros(repo):
    """The CMake module's macros: its steps are functions (explicit arguments,
    PARENT_SCOPE results), never macros over the caller's variables."""
    with open(os.path.join(repo, "cmake", "KernelBlaster.cmake"), encoding="utf-8") as fh:
        return [m.group(1) for m in re.finditer(r"^\s*macro\(\s*(\w+)", fh.read(), re.M)]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    self_test()
    long = measure(sys.argv[1])
    if "--list" in sys.argv:
        for where, lines in sorted(long.items(), key=lambda kv: -kv[1]):
            print(f"{lines:4d} {where}")
        return 0
    found = problems(long, read_allowed(os.path.join(HERE, "long_functions.txt")))
    found += [f"cmake/KernelBlaster.cmake: macro {m}: make it a function (explicit arguments, PARENT_SCOPE results)"
              for m in cmake_macros(sys.argv[1])]
    for p in found:
        print("FAIL " + p)
    print(f"{len(long)} functions over the limit, all listed and none grown" if not found else f"{len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
