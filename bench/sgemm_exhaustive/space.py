#!/usr/bin/env python3
"""Enumerates SGEMM_CUDA's kernels 4-12 as the one line sees them and writes
the sources of an exhaustive run.

  space.py LISTING.json OUT_DIR [--kernels "4 5 ... 12"] [--chunk 150]

LISTING.json is `kernelblaster tune --list --json --source src/runner.cu -I
src` on the project: the tunables the tool found in each launcher, their
values and the constraints it derived (static_asserts, vector alignment,
block and shared-memory limits). Each kernel's space here is that launcher's
space at the launch site `./sgemm K` reaches at 4096 (the `M >= 128` branch
where a launcher has two): every combination of the tunables' listed values
that the listed constraints allow. The author's configuration is index 0.

The launches mirror the launchers in src/runner.cu: the grid is
CEIL_DIV(N, BN) x CEIL_DIV(M, BM) everywhere; the block is (BM*BN)/TM for
kernel 4, (BM*BN)/(TM*TN) for 5-8, 256 for 9 (K9_NUM_THREADS in its header)
and NUM_THREADS for 10-12. OUT_DIR gets one source per chunk of configurations
(each a table the driver walks) and space.json (per kernel: the tunables,
each configuration's values, and which chunk holds it).
"""
import argparse
import itertools
import json
import os
import re

# Per kernel: the launcher, the kernel, the template arguments in order (as
# the launcher writes them, prefix stripped) and the block it launches with.
KERNELS = {
    4: ("runSgemm1DBlocktiling", "sgemm1DBlocktiling", ["BM", "BN", "BK", "TM"], "(BM * BN) / TM"),
    5: ("runSgemm2DBlocktiling", "sgemm2DBlocktiling", ["BM", "BN", "BK", "TM", "TN"], "(BM * BN) / (TM * TN)"),
    6: ("runSgemmVectorize", "sgemmVectorize", ["BM", "BN", "BK", "TM", "TN"], "(BM * BN) / (TM * TN)"),
    7: ("runSgemmResolveBankConflicts", "sgemmResolveBankConflicts", ["BM", "BN", "BK", "TM", "TN"],
        "(BM * BN) / (TM * TN)"),
    8: ("runSgemmResolveBankExtraCol", "sgemmResolveBankExtraCol", ["BM", "BN", "BK", "TM", "TN"],
        "(BM * BN) / (TM * TN)"),
    9: ("runSgemmAutotuned", "sgemmAutotuned", ["BM", "BN", "BK", "TM", "TN"], "256"),
    10: ("runSgemmWarptiling", "sgemmWarptiling", ["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN", "NUM_THREADS"],
         "NUM_THREADS"),
    11: ("runSgemmDoubleBuffering", "sgemmDoubleBuffering",
         ["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN", "NUM_THREADS"], "NUM_THREADS"),
    12: ("runSgemmDoubleBuffering2", "runSgemmDoubleBuffering2",
         ["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN", "NUM_THREADS"], "NUM_THREADS"),
}


def c_to_python(expr):
    """A constraint as the listing writes it (C over unsigned integers) as Python."""
    e = expr.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"(?<![/])/(?![/])", "//", e)


def line_of(tunable):
    return int(re.search(r":(\d+) ", tunable["origin"]).group(1))


def kernel_space(listing, number):
    launcher, kernel, order, block = KERNELS[number]
    group = next(g for g in listing["groups"] if g["group"].startswith(launcher + ":"))
    tunables = [t for t in listing["tunables"] if t["name"] in group["tunables"]]
    # Where a launcher has two branches, the first one written is M >= 128.
    chosen = {}
    for t in sorted(tunables, key=line_of):
        short = re.sub(r"^K\d+_", "", t["written_as"])
        chosen.setdefault(short, t)
    missing = [p for p in order if p not in chosen]
    if missing:
        raise SystemExit(f"kernel {number}: the listing has no tunable for {missing}")
    names = [chosen[p]["name"] for p in order]
    dropped = {t["name"] for t in tunables} - set(names)
    constraints = [c for c in listing["constraints"]
                   if any(n in c for n in names) and not any(d in c for d in dropped)]
    compiled = [compile(c_to_python(c), c, "eval") for c in constraints]
    values = [[int(v) for v in chosen[p]["values"]] for p in order]
    original = [int(chosen[p]["default"]) for p in order]
    configs = [original]
    for combo in itertools.product(*values):
        if list(combo) == original:
            continue
        env = dict(zip(names, combo))
        try:
            if all(eval(c, {}, env) for c in compiled):
                configs.append(list(combo))
        except ZeroDivisionError:
            continue
    return {"kernel": kernel, "launcher": launcher, "parameters": order, "names": names,
            "values": values, "constraints": constraints, "block": block, "configs": configs}


def launch_line(number, index, space, config):
    env = dict(zip(space["parameters"], config))
    block = eval(c_to_python(space["block"]), {}, env)
    args = ", ".join(str(v) for v in config)
    return (f"static void k{number}_{index}(int M, int N, int K, float alpha, float *A, float *B, float beta, "
            f"float *C) {{ {space['kernel']}<{args}><<<dim3(CEIL_DIV(N, {env['BN']}), CEIL_DIV(M, {env['BM']})), "
            f"dim3({block})>>>(M, N, K, alpha, A, B, beta, C); }}")


def write_chunk(path, number, space, indices):
    lines = ["// generated by bench/sgemm_exhaustive/space.py; one chunk of kernel " + str(number),
             '#include "kernels.cuh"', '#include "driver.cuh"']
    for i in indices:
        lines.append(launch_line(number, i, space, space["configs"][i]))
    lines.append("static const exhaustive::Config kTable[] = {")
    for i in indices:
        lines.append(f'  {{{i}, "{",".join(str(v) for v in space["configs"][i])}", k{number}_{i}}},')
    lines.append("};")
    lines.append(f"int main(int argc, char **argv) {{ return exhaustive::run(argc, argv, {number}, kTable, "
                 f"sizeof(kTable) / sizeof(kTable[0])); }}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("listing")
    ap.add_argument("out")
    ap.add_argument("--kernels", default="4 5 6 7 8 9 10 11 12")
    ap.add_argument("--chunk", type=int, default=150)
    a = ap.parse_args()
    listing = json.load(open(a.listing))
    os.makedirs(a.out, exist_ok=True)
    spaces = {}
    for number in (int(k) for k in a.kernels.split()):
        space = kernel_space(listing, number)
        configs = space["configs"]
        space["chunks"] = []
        # Every chunk starts with the original, so each process times
        # its configurations against it.
        rest = list(range(1, len(configs)))
        for c, start in enumerate(range(0, max(1, len(rest)), a.chunk)):
            indices = [0] + rest[start:start + a.chunk]
            name = f"k{number}_c{c:03d}"
            write_chunk(os.path.join(a.out, name + ".cu"), number, space, indices)
            space["chunks"].append({"name": name, "indices": indices})
        spaces[str(number)] = space
        print(f"kernel {number} ({space['kernel']}): {len(configs)} configurations in {len(space['chunks'])} chunks")
    with open(os.path.join(a.out, "space.json"), "w") as f:
        json.dump(spaces, f)


if __name__ == "__main__":
    main()
