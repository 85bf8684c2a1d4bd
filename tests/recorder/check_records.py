#!/usr/bin/env python3
"""GPU test of the kernel recorder: runs tests/recorder/launches.cu's program
with the recorder injected (CUDA_INJECTION64_PATH), twice, and checks what it
wrote: one file per kernel, each distinct launch shape once across both runs,
the parameter layout, which buffers each launch changed, byte buffers' ranges
unsigned, and the program's own results unchanged. Exit 77 without a GPU."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    program, recorder = sys.argv[1], sys.argv[2]
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("no GPU: skipped")
        return 77
    out = tempfile.mkdtemp(prefix="kb_recorder_")
    env = dict(os.environ, CUDA_INJECTION64_PATH=recorder, KERNELBLASTER_KERNEL_CAPTURE_DIR=out)
    for run in range(2):
        r = subprocess.run([program], env=env, capture_output=True, text=True)
        print(r.stdout + r.stderr)
        assert r.returncode == 0, f"the program failed under the recorder (run {run})"
        assert "recording stops" not in r.stderr, r.stderr
    files = sorted(glob.glob(os.path.join(out, "k_*.jsonl")))
    lines = {}
    for f in files:
        recs = [json.loads(l) for l in open(f) if l.strip()]
        assert len({r["kernel"] for r in recs}) == 1, f"{f} mixes kernels"
        lines[recs[0]["name"]] = recs
    for name, recs in lines.items():
        print(name, len(recs), "shape(s)")
    # affine once, block_sums<128> twice (main + kernel_symbol launch are the same shape), block_sums<256>, invert
    affine = lines["affine(float const*, float*, Affine)"]
    assert len(affine) == 1, affine
    a = affine[0]
    assert a["grid"] == [256, 1, 1] and a["block"] == [256, 1, 1], a
    assert [p["offset"] for p in a["params"]] == [0, 8, 16], a["params"]
    assert "buffer" in a["params"][0] and a["params"][0]["buffer"]["written"] is False
    assert a["params"][1]["buffer"]["written"] is True
    assert a["params"][0]["buffer"]["extent"] == 65536 * 4
    assert "buffer" not in a["params"][2] and len(a["params"][2]["bytes"]) == 24, a["params"][2]
    assert a["params"][0]["buffer"]["min"] == 1.0 and a["params"][0]["buffer"]["max"] == 7.0
    sums = lines["void block_sums<128>(float const*, float*, int)"]
    assert len(sums) == 1, sums
    assert len(lines["void block_sums<256>(float const*, float*, int)"]) == 1
    inv = [recs for name, recs in lines.items() if "invert(unsigned char*, int)" in name]
    assert len(inv) == 1 and len(inv[0]) == 1, lines.keys()
    b = inv[0][0]["params"][0]["buffer"]
    assert b["written"] is True and b["min"] == 10 and b["max"] == 209, b
    assert len(files) == 4, files
    shutil.rmtree(out)
    print("recorder: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
