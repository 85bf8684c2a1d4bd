#!/usr/bin/env python3
"""The exhaustive run's scripts without a GPU: space.py on a small listing,
the driver compiled against a stand-in kernel header (where nvcc is), and
exhaustive.py's screen (a hang, a crash, a resume), time and summary against
a stand-in program, then to_replay.py and, where given, `policy replay` on
its output. A GPU session's minutes should not go to a script's bug.

  selftest.py [KERNELBLASTER]     exit 0 when every check holds
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAILED: " + what)


def listing():
    """Kernel 9's launcher as `tune --list` would list it, two values a tunable."""
    names = {"BK": "16", "TM": "8", "TN": "8", "BM": "128", "BN": "128"}
    other = {"BK": "32", "TM": "4", "TN": "4", "BM": "64", "BN": "64"}
    tunables = []
    for i, (short, default) in enumerate(names.items()):
        tunables.append({"name": f"KERNELBLASTER_K9_{short}_L{300 + i}", "written_as": f"K9_{short}",
                         "values": [default, other[short]], "default": default, "technique": "parameter_tuning",
                         "group": "runSgemmAutotuned:328", "origin": f"runner.cu:{300 + i} (discovered: constant)",
                         "kind": "constant"})
    return {"groups": [{"group": "runSgemmAutotuned:328", "tunables": [t["name"] for t in tunables],
                        "combinations": 32, "valid": 0, "error": ""}],
            "tunables": tunables,
            # BM % (16 * TM) == 0 drops BM 64 with TM 8.
            "constraints": ["KERNELBLASTER_K9_BM_L303 % (16 * KERNELBLASTER_K9_TM_L301) == 0"]}


STAND_IN_KERNEL = r"""#pragma once
#include <cuda_runtime.h>
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
const int K9_NUM_THREADS = 256;
template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void sgemmAutotuned(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C) {
  const int row = blockIdx.y * BM + threadIdx.x / (BN / TN) * TM, col = blockIdx.x * BN + threadIdx.x % (BN / TN) * TN;
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      if (row + i < M && col + j < N) {
        float acc = 0;
        for (int k = 0; k < K; ++k) acc += A[(row + i) * K + k] * B[k * N + col + j];
        C[(row + i) * N + col + j] = alpha * acc + beta * C[(row + i) * N + col + j];
      }
}
"""

# A stand-in for a compiled chunk: index 2 hangs, index 5 crashes; the
# others verify, faster the higher their index.
STAND_IN_PROGRAM = r"""#!/usr/bin/env python3
import json, sys, time
ORDER = ORDER_HERE
def say(m): print(json.dumps(m), flush=True)
if sys.argv[1] == "screen":
    for i in ORDER[int(sys.argv[2]):]:
        say({"start": i})
        if i == 2: time.sleep(60)
        if i == 5:
            say({"i": i, "values": "v", "status": "crashed", "detail": "an illegal memory access was encountered"})
            sys.exit(3)
        say({"i": i, "values": "v", "status": "ok", "detail": "", "us2048": 100.0 - i})
else:
    wanted = [0] + [int(x) for x in sys.argv[2].split(",")]
    for i in wanted: say({"start": i})
    for i in wanted: say({"i": i, "values": "v", "status": "ok", "detail": "", "us4096": 1000.0 - 10 * i})
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else ""
    work = tempfile.mkdtemp(prefix="sgemm-exhaustive-selftest-")
    try:
        with open(os.path.join(work, "listing.json"), "w") as f:
            json.dump(listing(), f)
        gen = os.path.join(work, "gen")
        r = run([sys.executable, os.path.join(HERE, "space.py"), os.path.join(work, "listing.json"), gen,
                 "--kernels", "9", "--chunk", "4"])
        check(r.returncode == 0, "space.py runs: " + r.stderr[-300:])
        space = json.load(open(os.path.join(gen, "space.json")))["9"]
        check(len(space["configs"]) == 24, f"24 of 32 combinations hold BM % (16 TM) == 0, got {len(space['configs'])}")
        check(space["configs"][0] == [128, 128, 16, 8, 8], "the author's configuration is index 0 (BM BN BK TM TN)")
        check([c["indices"][0] for c in space["chunks"]] == [0] * len(space["chunks"]), "every chunk opens with it")
        first = open(os.path.join(gen, "k9_c000.cu")).read()
        check("sgemmAutotuned<128, 128, 16, 8, 8><<<dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), dim3(256)>>>" in first,
              "the launch mirrors the launcher's grid and block")

        if shutil.which("nvcc"):
            inc = os.path.join(work, "include")
            os.makedirs(inc)
            with open(os.path.join(inc, "kernels.cuh"), "w") as f:
                f.write(STAND_IN_KERNEL)
            r = run(["nvcc", "-O1", "-std=c++17", "-arch=sm_90", "-I", inc, "-I", HERE, os.path.join(gen, "k9_c000.cu"),
                     "-o", os.path.join(work, "k9_c000"), "-lcublas"])
            check(r.returncode == 0, "a chunk compiles with driver.cuh: " + r.stderr[-600:])
        else:
            print("nvcc not found: the driver's compile is not checked")

        # The stand-in program for one chunk, and the stages around it.
        bin_dir = os.path.join(work, "bin")
        os.makedirs(bin_dir)
        order = [0, 1, 2, 3, 4, 5, 6]
        prog = os.path.join(bin_dir, "k9_c000")
        with open(prog, "w") as f:
            f.write(STAND_IN_PROGRAM.replace("ORDER_HERE", json.dumps(order)))
        os.chmod(prog, 0o755)
        with open(os.path.join(bin_dir, "programs.json"), "w") as f:
            json.dump({"programs": {"9": [{"name": "k9_c000", "indices": order}]}, "compile_failed": {}}, f)
        script = os.path.join(HERE, "exhaustive.py")
        screen = os.path.join(work, "screen.jsonl")
        r = run([sys.executable, script, "screen", gen, bin_dir, screen])
        check(r.returncode == 0, "screen runs: " + r.stderr[-300:])
        rows = [json.loads(line) for line in open(screen) if line.strip()]
        status = {m["i"]: m["status"] for m in rows if "i" in m}
        check(status == {0: "ok", 1: "ok", 2: "hang", 3: "ok", 4: "ok", 5: "crashed", 6: "ok"},
              f"each configuration screened once, the hang and the crash named: {status}")
        r = run([sys.executable, script, "screen", gen, bin_dir, screen])
        check(len([line for line in open(screen) if line.strip()]) == len(rows), "a second screen resumes: nothing again")
        timed = os.path.join(work, "time.jsonl")
        r = run([sys.executable, script, "time", gen, bin_dir, screen, timed, "--top", "2"])
        check(r.returncode == 0, "time runs: " + r.stderr[-300:])
        r = run([sys.executable, script, "summary", gen, bin_dir, screen, timed])
        check("1.064x" in r.stdout, "the summary's best is index 6 at 1000/940 = 1.064x: " + r.stdout[-400:])

        # Built here, carried there: pack, then unpack into another folder.
        env = dict(os.environ, EXH=work, PACK_DIR=os.path.join(work, "pack"), KERNELS="9", STRIP="true",
                   OUT=os.path.join(work, "out"))
        r = run(["bash", os.path.join(HERE, "run.sh"), "pack"], env=env)
        check(r.returncode == 0, "pack runs: " + r.stderr[-300:])
        env["EXH"] = os.path.join(work, "there")
        r = run(["bash", os.path.join(HERE, "run.sh"), "unpack"], env=env)
        there = os.path.join(work, "there")
        unpacked = json.load(open(os.path.join(there, "bin", "programs.json"))) if r.returncode == 0 else {}
        check(unpacked.get("programs") == {"9": [{"name": "k9_c000", "indices": order}]}
              and os.access(os.path.join(there, "bin", "k9_c000"), os.X_OK)
              and os.path.exists(os.path.join(there, "gen", "space.json")),
              "unpack lays out the program, its index and the space: " + r.stderr[-300:])

        out = os.path.join(work, "replay.json")
        r = run([sys.executable, os.path.join(HERE, "to_replay.py"), os.path.join(gen, "space.json"),
                 os.path.join(work, "listing.json"), screen, "9", out])
        check(r.returncode != 0 and "not screened" in r.stderr + r.stdout,
              "to_replay refuses a kernel screened in part (7 of 24 here)")
        # Screen the rest by hand as verified, then convert.
        with open(screen, "a") as f:
            for i in range(7, len(space["configs"])):
                f.write(json.dumps({"kernel": 9, "i": i, "values": "v", "status": "ok", "detail": "", "us2048": 99.0})
                        + "\n")
        r = run([sys.executable, os.path.join(HERE, "to_replay.py"), os.path.join(gen, "space.json"),
                 os.path.join(work, "listing.json"), screen, "9", out])
        check(r.returncode == 0, "to_replay converts: " + r.stderr[-300:])
        log = json.load(open(out))
        check(len(log["evaluations"]) == 23 and abs(log["best_speedup"] - 100.0 / 94.0) < 1e-9,
              "23 evaluations, the best index 6 at 100/94")
        # Timed at 4096: the geometric mean with the screen's 2048, a
        # configuration that failed there failed.
        times = os.path.join(work, "time.jsonl")
        with open(times, "w") as f:
            for i, us in ((0, 100.0), (0, 104.0), (0, 96.0), (6, 50.0)):
                f.write(json.dumps({"kernel": 9, "i": i, "status": "ok", "us4096": us}) + "\n")
            f.write(json.dumps({"kernel": 9, "i": 8, "status": "timing_failed", "detail": "exit 3"}) + "\n")
        out4096 = os.path.join(work, "replay4096.json")
        r = run([sys.executable, os.path.join(HERE, "to_replay.py"), os.path.join(gen, "space.json"),
                 os.path.join(work, "listing.json"), screen, "9", out4096, "--times=" + times])
        timed = {e["n"]: e for e in json.load(open(out4096))["evaluations"]} if r.returncode == 0 else {}
        check(r.returncode == 0 and abs(timed[6]["speedup"] - (100.0 / 94.0 * 2.0) ** 0.5) < 1e-9
              and timed[8]["status"] == "crashed" and timed[8]["speedup"] == 0
              and abs(timed[7]["speedup"] - 100.0 / 99.0) < 1e-9,
              "to_replay --times: 2048 and 4096 combined, a failure at 4096 kept: " + r.stderr[-300:])
        # A run's own figures where it measured: gzip read, verified ones only.
        run_log = os.path.join(work, "run.log.json.gz")
        with gzip.open(run_log, "wt") as f:
            json.dump({"evaluations": [
                {"settings": timed[7]["settings"], "status": "ok", "speedup": 1.5, "median_us": 66.0,
                 "reference_median_us": 99.0},
                {"settings": timed[10]["settings"], "status": "wrong_result", "speedup": 0, "median_us": 0,
                 "reference_median_us": 99.0}]}, f)
        r = run([sys.executable, os.path.join(HERE, "to_replay.py"), os.path.join(gen, "space.json"),
                 os.path.join(work, "listing.json"), screen, "9", out4096, "--measured=" + run_log])
        mine = {e["n"]: e for e in json.load(open(out4096))["evaluations"]} if r.returncode == 0 else {}
        check(r.returncode == 0 and mine[7]["speedup"] == 1.5 and mine[10]["status"] == "ok"
              and abs(mine[10]["speedup"] - 100.0 / 99.0) < 1e-12,
              "to_replay --measured: a run's verified figure taken, its failures not: " + r.stderr[-300:])
        if tool:
            r = run([tool, "policy", "replay", "--results", out, "--policy", "default", "--policy-seeds", "2",
                     "--max-evals", "10", "--json"])
            check(r.returncode == 0 and json.loads(r.stdout)["space_size"] == 23, "policy replay reads it: " + r.stderr[-300:])
        # Two kernels joined as one source's two groups: the same landscape
        # under other names, replayed part by part.
        other = dict(log, kernel="the other", tunables=[dict(t, name="X_" + t["name"]) for t in log["tunables"]],
                     evaluations=[dict(e, id="X_" + e["id"].replace(",", ",X_"),
                                       settings={"X_" + k: v for k, v in e["settings"].items()})
                                  for e in log["evaluations"]])
        other_path, joined = os.path.join(work, "other.json"), os.path.join(work, "joined.json")
        json.dump(other, open(other_path, "w"))
        combine = os.path.join(HERE, "combine_replay.py")
        r = run([sys.executable, combine, joined, out, out])
        check(r.returncode != 0 and "two of the logs" in r.stderr, "combine_replay refuses a tunable named twice")
        r = run([sys.executable, combine, joined, out, other_path])
        check(r.returncode == 0 and len(json.load(open(joined))["evaluations"]) == 46,
              "combine_replay joins the two: " + r.stderr[-300:])
        if tool:
            r = run([tool, "policy", "replay", "--results", joined, "--policy", "default", "--policy-seeds", "2",
                     "--max-evals", "46", "--json"])
            rep = json.loads(r.stdout) if r.returncode == 0 else {}
            check(len(rep.get("recorded_best_by_part", {})) == 2 and rep.get("seeds_reaching_band_in_every_part") == 2,
                  "policy replay searches the two groups and reaches each one's best: " + r.stderr[-300:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("sgemm_exhaustive selftest: " + ("all checks hold" if not FAILURES else f"{len(FAILURES)} failed"))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
