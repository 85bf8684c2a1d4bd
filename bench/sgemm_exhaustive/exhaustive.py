#!/usr/bin/env python3
"""Runs the exhaustive run of SGEMM_CUDA's kernels 4-12 that space.py wrote.

  exhaustive.py build GEN BIN [-j N]        compile every chunk (a chunk that does not compile
                                            is split until the configurations that do not are named)
  exhaustive.py screen GEN BIN OUT.jsonl    every configuration checked at 128 and 2048 and timed
                                            at 2048, chunk by chunk; a hang (3 s) or a crash is
                                            recorded and the chunk goes on after it
  exhaustive.py time GEN BIN SCREEN.jsonl OUT.jsonl [--top N]
                                            per kernel, the N fastest verified at 2048 checked at
                                            every size of the program and timed at 4096 against the
                                            author's configuration, in the same process
  exhaustive.py summary GEN BIN SCREEN.jsonl TIME.jsonl   the table (markdown)

Nothing is thinned: every configuration of space.json is compiled and
screened. The 4096 timing is for the fastest at 2048 only; the summary says
how far the slowest of them was from the best at 2048, so a reader can see
the cut left room.
"""
import argparse
import collections
import json
import os
import re
import select
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
HANG_S = 3.0   # a screened configuration: two checks and four calls at 2048 at most
TIMING_S = 180.0  # the timing rounds print nothing until they end
START_S = 120.0


def load_space(gen):
    with open(os.path.join(gen, "space.json")) as f:
        return json.load(f)


def nvcc_command(src, out, include):
    # Machine code for the one architecture and no PTX: the same kernels run,
    # and a program is small enough to be built elsewhere and carried (pack).
    # -DNDEBUG as the project's Release build: kernel 4's device asserts cost
    # its author's configuration 17% at 4096 (8,180 against 6,960 us, an
    # H200, 2026-11-30), and without it the run crowned BK=4 TM=16 at 1.157x
    # where the Release program has it at 1.014x.
    arch = os.environ.get("SGEMM_ARCH", "90")
    return ["nvcc", "-O3", "-DNDEBUG", "-std=c++17", "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-I", include,
            "-I", HERE, src, "-o", out, "-lcublas"]


def subset_source(text, keep):
    """The chunk's source with only the configurations in `keep` (0 stays)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"static void k\d+_(\d+)\(", line) or re.match(r"  \{(\d+), \"", line)
        if m and int(m.group(1)) not in keep and int(m.group(1)) != 0:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def compile_chunk(gen, binary_dir, chunk, include, log):
    """Compiles one chunk; where it fails, halves it until each failing
    configuration is alone. Returns the binaries built and the indices that
    would not compile."""
    src = os.path.join(gen, chunk["name"] + ".cu")
    text = open(src).read()
    built, refused = [], []

    def attempt(indices, name, source):
        out = os.path.join(binary_dir, name)
        if source is None and os.path.exists(out):  # built by an earlier call
            built.append({"name": name, "indices": indices})
            return
        path = src if source is None else os.path.join(binary_dir, name + ".cu")
        if source is not None:
            with open(path, "w") as f:
                f.write(source)
        r = subprocess.run(nvcc_command(path, out, include), capture_output=True, text=True)
        if r.returncode == 0:
            built.append({"name": name, "indices": indices})
            return
        rest = [i for i in indices if i != 0]
        if len(rest) <= 1:
            refused.extend(rest or [0])
            log.write(json.dumps({"compile_failed": rest or [0], "chunk": chunk["name"],
                                  "detail": r.stderr[-400:]}) + "\n")
            return
        half = len(rest) // 2
        for k, part in enumerate((rest[:half], rest[half:])):
            attempt([0] + part, f"{name}_{k}", subset_source(text, set(part)))

    attempt(chunk["indices"], chunk["name"], None)
    return built, refused


def build(a):
    """Builds the kernels asked for (all by default); programs.json keeps
    what an earlier build of other kernels into the same folder recorded."""
    space = load_space(a.gen)
    wanted = set(a.kernels.split()) or set(space)
    os.makedirs(a.bin, exist_ok=True)
    jobs = [(k, c) for k, s in space.items() if k in wanted for c in s["chunks"]]
    start = time.time()
    with open(os.path.join(a.bin, "compile.log"), "a") as log, ThreadPoolExecutor(a.j) as pool:
        results = list(pool.map(lambda kc: (kc[0], compile_chunk(a.gen, a.bin, kc[1], a.include, log)), jobs))
    index = os.path.join(a.bin, "programs.json")
    earlier = json.load(open(index)) if os.path.exists(index) else {"programs": {}, "compile_failed": {}}
    programs = {k: v for k, v in earlier["programs"].items() if k not in wanted}
    refused = {k: v for k, v in earlier["compile_failed"].items() if k not in wanted}
    for k, (built, bad) in results:
        programs.setdefault(k, []).extend(built)
        refused.setdefault(k, []).extend(bad)
    with open(index, "w") as f:
        json.dump({"programs": programs, "compile_failed": refused, "seconds": time.time() - start}, f)
    total = sum(len(s["configs"]) for k, s in space.items() if k in wanted)
    print(f"built {sum(len(built) for _, (built, _) in results)} programs for {total} configurations in "
          f"{time.time() - start:.0f} s; {sum(len(bad) for _, (_, bad) in results)} did not compile")


def run_watched(cmd, on_line, hang_s=HANG_S):
    """Runs cmd, passing each JSON line to on_line; returns (exit code or
    None when killed, the index that was running when it ended, the reason).
    The pipe is read unbuffered so that no line waits in a buffer while the
    program hangs on the next configuration."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    fd = p.stdout.fileno()
    running, limit, last, pending = None, START_S, time.time(), b""
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            data = os.read(fd, 1 << 16)
            if not data:
                break
            last = time.time()
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    msg = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if "start" in msg:
                    running, limit = msg["start"], hang_s
                    continue
                if msg.get("status") == "crashed":
                    running = msg.get("i")  # the program exits after it
                elif msg.get("i") == running:
                    running = None
                on_line(msg)
        elif time.time() - last > limit:
            p.kill()
            p.wait()
            return None, running, f"no answer in {limit:.0f} s"
    return p.wait(), running, ""


def screen(a):
    """Resumes where an earlier screen into the same file stopped, and stops
    itself between programs after --until seconds."""
    programs = json.load(open(os.path.join(a.bin, "programs.json")))
    start = time.time()
    done = set()
    if os.path.exists(a.out):
        done = {(m["kernel"], m["i"]) for m in read_jsonl(a.out) if "i" in m}
    wanted = {int(k) for k in a.kernels.split()} if a.kernels else None
    with open(a.out, "a") as out:
        for k, progs in sorted(programs["programs"].items(), key=lambda kv: int(kv[0])):
            if wanted is not None and int(k) not in wanted:
                continue
            for prog in progs:
                if a.until and time.time() - start > a.until:
                    print(f"stopped after {time.time() - start:.0f} s; run again to go on", flush=True)
                    return
                order = prog["indices"]
                # The author's configuration opens every program; it is
                # screened again only where none of the program's others was.
                started = any((int(k), i) in done for i in order[1:])
                pos = next((p for p, i in enumerate(order) if p > 0 and (int(k), i) not in done), len(order))
                if not started:
                    pos = 0
                while pos < len(order):
                    seen = []

                    def take(msg, k=k):
                        msg["kernel"] = int(k)
                        seen.append(msg)
                        out.write(json.dumps(msg) + "\n")

                    code, running, why = run_watched([os.path.join(a.bin, prog["name"]), "screen", str(pos)], take)
                    out.flush()
                    if code == 0:
                        break
                    if any("fatal" in m for m in seen):
                        print(f"{prog['name']}: {seen[-1]}", file=sys.stderr)
                        break
                    if running is not None and code is None:
                        out.write(json.dumps({"kernel": int(k), "i": running, "status": "hang", "detail": why}) + "\n")
                    stopped = running if running is not None else order[pos]
                    pos = order.index(stopped) + 1 if stopped in order else len(order)
            print(f"kernel {k}: screened, {time.time() - start:.0f} s so far", flush=True)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def time_top(a):
    programs = json.load(open(os.path.join(a.bin, "programs.json")))["programs"]
    screened = [m for m in read_jsonl(a.screen) if "i" in m]
    with open(a.out, "a") as out:
        for k, progs in sorted(programs.items(), key=lambda kv: int(kv[0])):
            ok = sorted((m for m in screened if m["kernel"] == int(k) and m["status"] == "ok" and m["i"] != 0),
                        key=lambda m: m["us2048"])
            top = {m["i"] for m in ok[:a.top]}
            for prog in progs:
                wanted = [i for i in prog["indices"] if i in top]
                if not wanted:
                    continue

                def take(msg, k=k, prog=prog):
                    msg["kernel"] = int(k)
                    msg["program"] = prog["name"]
                    out.write(json.dumps(msg) + "\n")

                # A configuration that crashes at a size the screen did not
                # check is recorded and the others are timed without it.
                while wanted:
                    code, running, why = run_watched(
                        [os.path.join(a.bin, prog["name"]), "time", ",".join(str(i) for i in wanted)], take, TIMING_S)
                    out.flush()
                    if code == 0:
                        break
                    if running is None or running not in wanted:
                        out.write(json.dumps({"kernel": int(k), "program": prog["name"], "i": running,
                                              "status": "timing_failed", "detail": why or f"exit {code}"}) + "\n")
                        break
                    if code is None:
                        out.write(json.dumps({"kernel": int(k), "program": prog["name"], "i": running,
                                              "status": "hang", "detail": why}) + "\n")
                    wanted.remove(running)
            print(f"kernel {k}: {len(top)} timed at 4096", flush=True)


def summary(a):
    space = load_space(a.gen)
    screened = [m for m in read_jsonl(a.screen) if "i" in m]
    timed = [m for m in read_jsonl(a.time) if "i" in m]
    programs = json.load(open(os.path.join(a.bin, "programs.json")))
    print("| kernel | configurations | verified at 128 and 2048 | wrong result | out of bounds | crashed or hung | "
          "launch refused, not compiled | author's at 4096 (us) | best at 4096 | its speedup | "
          "timed at 4096 (their 2048 spread) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k, s in sorted(space.items(), key=lambda kv: int(kv[0])):
        mine = [m for m in screened if m["kernel"] == int(k)]
        last = {}
        for m in mine:
            last[m["i"]] = m
        count = collections.Counter(m["status"] for m in last.values())
        ok2048 = sorted(m["us2048"] for m in last.values() if m["status"] == "ok" and m["i"] != 0)
        per_program = collections.defaultdict(dict)
        for m in timed:
            if m["kernel"] == int(k) and m["status"] == "ok":
                per_program[m["program"]][m["i"]] = m["us4096"]
        ratios = []
        for prog, t in per_program.items():
            if 0 in t:
                ratios.extend((t[0] / us, i, us, t[0]) for i, us in t.items() if i != 0)
        originals = [t[0] for t in per_program.values() if 0 in t]
        n_timed = len(ratios)
        spread = f"{n_timed} ({ok2048[min(n_timed, len(ok2048)) - 1] / ok2048[0]:.2f}x)" if ok2048 and n_timed else "0"
        if ratios:
            best = max(ratios)
            values = dict(zip(s["parameters"], s["configs"][best[1]]))
            best_text = " ".join(f"{p}={v}" for p, v in values.items())
            speed = f"{best[0]:.3f}x"
        else:
            best_text, speed = "-", "-"
        orig = f"{sorted(originals)[len(originals) // 2]:.0f}" if originals else "-"
        never = len(s.get("never_ends", []))  # only the first run's space.json, before the tool read loop steps
        hung = f"{count['crashed'] + count['hang']}" + (f" (+{never} never end, not run)" if never else "")
        refused = f"{count['launch_failed']}, {len(programs['compile_failed'].get(k, []))}"
        print(f"| {k} ({s['kernel']}) | {len(s['configs']) + never} | {count['ok']} | {count['wrong_result']} | "
              f"{count['out_of_bounds']} | {hung} | {refused} | {orig} | {best_text} | {speed} | {spread} |")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="stage", required=True)
    # Each stage's positional arguments, then its options.
    stages = {"build": ["gen", "bin"], "screen": ["gen", "bin", "out"], "time": ["gen", "bin", "screen", "out"],
              "summary": ["gen", "bin", "screen", "time"]}
    parsers = {}
    for stage, positional in stages.items():
        parsers[stage] = sub.add_parser(stage)
        for name in positional:
            parsers[stage].add_argument(name)
    parsers["build"].add_argument("-j", type=int, default=os.cpu_count())
    parsers["build"].add_argument("--include", default=os.environ.get("SGEMM_SRC", "oss/SGEMM_CUDA/src"))
    parsers["build"].add_argument("--kernels", default="")
    parsers["screen"].add_argument("--kernels", default="")
    parsers["screen"].add_argument("--until", type=float, default=0)
    parsers["time"].add_argument("--top", type=int, default=24)
    a = ap.parse_args()
    {"build": build, "screen": screen, "time": time_top, "summary": summary}[a.stage](a)


if __name__ == "__main__":
    main()
