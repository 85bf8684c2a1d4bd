#!/usr/bin/env python3
"""Counters refused: `eval --profile` still succeeds (CTest, label gpu).

  profile_faults_test.py TOOL

For each fault that KERNELBLASTER_FAULT_PROFILER can stand in for (the
driver's CUPTI_ERROR_INSUFFICIENT_PRIVILEGES at cuptiRangeProfilerEnable, a
vGPU whose hypervisor keeps counters off), the vector_add example judged
against itself with --profile=cheap must be accepted with its timing, keep
its launch and compile-time facts, carry no counter metric, and say why in a
one-line profile_note. Exits 77 (CTest's skip) where there is no GPU.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples", "kernels")
FAULTS = {  # fault -> words the note must contain
    "insufficient_privileges": ["no permission", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"],
    "virtualized": ["hypervisor", "vGPU"],
}
COUNTER_METRICS = ("dram_throughput_pct", "achieved_occupancy_pct", "ipc", "elapsed_cycles")


def main():
    tool = sys.argv[1]
    failures = []
    for fault, words in FAULTS.items():
        env = dict(os.environ, KERNELBLASTER_FAULT_PROFILER=fault)
        cmd = [tool, "eval", "--json", "--source", f"{EX}/src/vector_add.cu",
               "--harness", f"{EX}/harness/vector_add_harness.cu", "-I", f"{EX}/include",
               "--profile=cheap", "--budget-ms", "50", "--timeout", "60"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if p.returncode == 77:
            print("skipped: " + p.stderr.strip())
            sys.exit(77)
        if p.returncode != 0:
            failures.append(f"{fault}: eval exited {p.returncode}: {p.stderr.strip()[-300:]}")
            continue
        r = json.loads(p.stdout)
        note = r.get("profile_note", "")
        print(f"{fault}: status {r['status']}, note: {note}")
        if r["status"] != "ok":
            failures.append(f"{fault}: status {r['status']}")
        if not r.get("timing") or not all(t.get("median_us", 0) > 0 for t in r["timing"]):
            failures.append(f"{fault}: no timing")
        if "\n" in note or not note.startswith("counters unavailable: ") or not all(w in note for w in words):
            failures.append(f"{fault}: note does not name the cause in one line: {note!r}")
        prof = r.get("profile") or []
        metrics = prof[0]["metrics"] if prof else {}
        for fact in ("registers_per_thread", "block_size", "theoretical_occupancy_pct"):
            if fact not in metrics:
                failures.append(f"{fault}: launch/compile fact {fact} missing")
        leaked = [m for m in COUNTER_METRICS if m in metrics]
        if leaked:
            failures.append(f"{fault}: counter metrics present without counters: {leaked}")
    for f in failures:
        print("FAILED: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
