#!/usr/bin/env python3
"""`kernelblaster optimize` end to end on a GPU with scripted replies that
hold real rewrites: honest ones from tests/adversarial/good and hostile ones
from tests/adversarial and tests/kernelbench/hostile. Each attempt must end
with the status that names what its code does (the static checks before the
engine, the engine after), every step must reach the KB, and a kept kernel
must be the honest rewrite.

  optimize_scripted_test.py TOOL [PARTS]

PARTS (comma-separated, default all): examples, kernelbench, transfer,
hostile (issue 26: replies of the published hack classes, for the matmul
example and level1/001; issue 39: replies whose host code reaches for the
verdict, for the vector_add example and level1/019; none may be kept, each
step a KB failure). One
command on the device may run 10 minutes and the whole test takes longer,
so bench/gpu_session.sh runs it in parts; KERNELBLASTER_OPTIMIZE_KB names
the KB file the parts share (default: a temporary one, so `transfer` alone
then needs it set to the file the first parts wrote).
The first run: two examples (softmax, transpose) and three problems of the
published dataset (ReLU, RMSNorm, Softmax), one KB through all of them. The
second: two other problems (L2Norm, L1Norm), each with an empty KB and with
the first run's, the same policy seed: the learned KB must choose RMSNorm's
winning technique first, the empty one something else.

KERNELBLASTER_OPTIMIZE_ARTIFACTS=DIR keeps each run's artifacts there.
Exits 77 where the tool says there is no GPU (or, for the KernelBench part,
where the dataset or libtorch is missing, as long as nothing was counted).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
failures, passed = [], []


def check(name, cond, detail=""):
    (passed if cond else failures).append(name)
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))


def optimize(tool, work, script, args, name, kb=None):
    """One optimize run in `work` with the scripted replies; `kb`: the KB file
    (default: a fresh one in `work`)."""
    script_path = os.path.join(work, "script.json")
    json.dump(script, open(script_path, "w"))
    state = os.path.join(work, "calls")
    if os.path.exists(state):
        os.remove(state)
    out = os.path.join(work, "run")
    cmd = [tool, "optimize", "--out", out, "--kb", kb or os.path.join(work, "kb.json"), "--trajectories", "1",
           "--review-every", "0", "--provider", "command",
           "--command", f"python3 {HERE}/scripted_llm.py {script_path} {state}", "--model", "scripted"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3000)
    keep = os.environ.get("KERNELBLASTER_OPTIMIZE_ARTIFACTS")
    if keep and os.path.isdir(out):  # the run's artifacts, for bench/results
        shutil.copytree(out, os.path.join(keep, name), dirs_exist_ok=True)
    return proc, out


def attempts_of(out):
    log = json.load(open(os.path.join(out, "trajectory.json")))
    return log, [(a["end"], a.get("status")) for s in log["steps"] for a in s["attempts"]]


def softmax_example(tool, kb):
    with tempfile.TemporaryDirectory() as work:
        script = [{"file": "tests/adversarial/all_zero_softmax.cu"},      # step 0: wrong_result
                  {"file": "tests/adversarial/good/softmax_online_warp.cu"},  # its fix: honest
                  {"file": "tests/adversarial/other_stream.cu"},          # step 1: untimed_work
                  {"file": "tests/adversarial/partial_output.cu"},        # its fix: unwritten_output
                  {"text": "I cannot improve it further."}]               # last fix: no code
        proc, out = optimize(tool, work, script, [
            "--source", f"{ROOT}/examples/kernels/src/softmax.cu",
            "--harness", f"{ROOT}/examples/kernels/harness/softmax_harness.cu",
            "-I", f"{ROOT}/examples/kernels/include", "--launcher", "softmax_rows", "--steps", "2"], "softmax", kb)
        if proc.returncode == 77:
            print("skipped: " + proc.stderr.strip())
            sys.exit(77)
        print(proc.stderr[-3000:])
        check("softmax: the run ends with 0 or 1", proc.returncode in (0, 1), proc.stderr[-500:])
        if proc.returncode not in (0, 1):
            return
        log, attempts = attempts_of(out)
        want = [("rejected", "wrong_result"), ("verified", "ok"), ("rejected", "untimed_work"),
                ("rejected", "unwritten_output"), ("no_code", None)]
        check("softmax: every attempt ends with the status naming it", attempts == want, attempts)
        check("softmax: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])
        summary = json.load(open(os.path.join(out, "summary.json")))
        if summary["improved"]:
            best = open(os.path.join(out, "best.cu")).read()
            honest = open(f"{ROOT}/tests/adversarial/good/softmax_online_warp.cu").read()
            check("softmax: the kept kernel is the honest rewrite", best.strip() == honest.strip())
        print(f"softmax: search {summary['search_speedup']:.3f}x, improved {summary['improved']}")


def dataset():
    data = os.environ.get("KERNELBLASTER_KERNELBENCH_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "kernelbench-cuda")
    if not os.path.isdir(os.path.join(data, "level1")):
        print("KernelBench part skipped: the dataset is not here (set KERNELBLASTER_KERNELBENCH_DATA)")
        return None
    return data


def kernelbench_relu(tool, kb):
    data = dataset()
    if not data:
        return
    problem = os.path.join(data, "level1", "019_ReLU")
    with tempfile.TemporaryDirectory() as work:
        hostile = "tests/kernelbench/hostile/"
        script = [{"file": hostile + "relu_deferred_thread.cu"},    # std::thread: the static checks stop it
                  {"file": hostile + "relu_side_stream.cu"},        # untimed_work
                  {"file": hostile + "relu_pointer_cache.cu"},      # #include <set>: the static checks stop it
                  {"file": hostile + "relu_own_stream_synced.cu"}]  # step 1: honest
        proc, out = optimize(tool, work, script, ["--kernelbench", problem, "--steps", "2"], "level1_019_ReLU", kb)
        print(proc.stderr[-3000:])
        if proc.returncode not in (0, 1):
            check("ReLU: the run ends with 0 or 1", False, proc.stderr[-500:])
            return
        log, attempts = attempts_of(out)
        want = [("static_check", None), ("rejected", "untimed_work"), ("static_check", None),
                ("verified", "ok")]
        check("ReLU: every attempt ends with the status naming it", attempts == want, attempts)
        check("ReLU: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])


def kept(out, honest_path, name, at_least):
    """The run kept the honest rewrite with at least `at_least` over the original."""
    summary = json.load(open(os.path.join(out, "summary.json")))
    check(f"{name}: a faster kernel was kept", summary["improved"], summary)
    if not summary["improved"]:
        return
    best = open(os.path.join(out, "best.cu")).read()
    honest = open(os.path.join(ROOT, honest_path)).read()
    check(f"{name}: the kept kernel is the honest rewrite", best.strip() == honest.strip())
    check(f"{name}: its gain is real (at least {at_least}x)", summary["search_speedup"] >= at_least,
          summary["search_speedup"])
    page = os.path.join(out, "report.html")
    check(f"{name}: the run wrote its report", os.path.exists(page) and "data-chart=\"speedup-by-step\"" in open(page).read()
          and "original.cu" in open(page).read())
    print(f"{name}: search {summary['search_speedup']:.3f}x")


def transpose_example(tool, kb):
    with tempfile.TemporaryDirectory() as work:
        rw = "tests/gpu/rewrites/"
        script = [{"file": rw + "transpose_copies.cu"},                 # step 0: wrong_result
                  {"file": "tests/adversarial/good/transpose_tiled.cu"},  # its fix: honest and faster
                  {"file": rw + "transpose_half_tile.cu"},               # step 1: wrong_result (fp16 tile)
                  {"file": "tests/adversarial/good/transpose_tiled.cu"}]  # its fix: verified, no faster than its base
        proc, out = optimize(tool, work, script, [
            "--source", f"{ROOT}/examples/kernels/src/transpose.cu",
            "--harness", f"{ROOT}/examples/kernels/harness/transpose_harness.cu",
            "-I", f"{ROOT}/examples/kernels/include", "--launcher", "transpose", "--steps", "2"], "transpose", kb)
        print(proc.stderr[-3000:])
        if proc.returncode not in (0, 1):
            check("transpose: the run ends with 0 or 1", False, proc.stderr[-500:])
            return
        log, attempts = attempts_of(out)
        want = [("rejected", "wrong_result"), ("verified", "ok"), ("rejected", "wrong_result"), ("verified", "ok")]
        check("transpose: every attempt ends with the status naming it", attempts == want, attempts)
        check("transpose: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])
        kept(out, "tests/adversarial/good/transpose_tiled.cu", "transpose", 1.2)


def kernelbench_rmsnorm(tool, kb):
    data = dataset()
    if not data:
        return None
    with tempfile.TemporaryDirectory() as work:
        rw = "tests/gpu/rewrites/"
        script = [{"file": rw + "rmsnorm_half_features.cu"},  # step 0: wrong_result
                  {"file": rw + "rmsnorm_coalesced.cu"},      # its fix: honest, many times faster
                  {"file": rw + "rmsnorm_first_batches.cu"},  # step 1: unwritten_output
                  {"file": rw + "rmsnorm_coalesced.cu"}]      # its fix: verified, no faster than its base
        proc, out = optimize(tool, work, script, ["--kernelbench", os.path.join(data, "level1", "036_RMSNorm"),
                                                  "--steps", "2"], "level1_036_RMSNorm", kb)
        print(proc.stderr[-3000:])
        if proc.returncode not in (0, 1):
            check("RMSNorm: the run ends with 0 or 1", False, proc.stderr[-500:])
            return None
        log, attempts = attempts_of(out)
        want = [("rejected", "wrong_result"), ("verified", "ok"), ("rejected", "unwritten_output"), ("verified", "ok")]
        check("RMSNorm: every attempt ends with the status naming it", attempts == want, attempts)
        check("RMSNorm: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])
        kept(out, rw + "rmsnorm_coalesced.cu", "RMSNorm", 3.0)
        # The original is profiled in its driver process (the full metric
        # set): the state is read from counters, not the fallback a run
        # without a profile gets.
        state = log["steps"][0].get("state")
        print(f"RMSNorm: the original's state: {state}")
        check("RMSNorm: the original's state is classified from its profile", state not in (None, "", "unclassified"),
              state)
        with open(kb + ".rmsnorm_winner", "w") as f:
            json.dump({"technique": log["steps"][0]["technique"], "state": state}, f)
        return log["steps"][0]["technique"]


def kernelbench_softmax(tool, kb):
    data = dataset()
    if not data:
        return
    with tempfile.TemporaryDirectory() as work:
        hostile = "tests/kernelbench/hostile/"
        problem = os.path.join(data, "level1", "023_Softmax")
        script = [{"file": hostile + "softmax_zeros.cu"},          # step 0: wrong_result
                  {"file": hostile + "softmax_bf16.cu"},           # inaccurate
                  {"file": hostile + "softmax_partial_rows.cu"},   # unwritten_output
                  {"file": hostile + "softmax_modifies_input.cu"},  # step 1: input_modified
                  {"file": hostile + "softmax_constant.cu"},       # wrong_result
                  {"file": os.path.join(problem, "init.cu")}]      # the original itself: verified
        proc, out = optimize(tool, work, script, ["--kernelbench", problem, "--steps", "2"], "level1_023_Softmax", kb)
        print(proc.stderr[-3000:])
        if proc.returncode not in (0, 1):
            check("Softmax: the run ends with 0 or 1", False, proc.stderr[-500:])
            return
        log, attempts = attempts_of(out)
        want = [("rejected", "wrong_result"), ("rejected", "inaccurate"), ("rejected", "unwritten_output"),
                ("rejected", "input_modified"), ("rejected", "wrong_result"), ("verified", "ok")]
        check("Softmax: every attempt ends with the status naming it", attempts == want, attempts)
        check("Softmax: every step reached the KB", len(log["kb_outcomes"]) == 2, log["kb_outcomes"])
        summary = json.load(open(os.path.join(out, "summary.json")))
        check("Softmax: no hostile reply was kept", not summary["improved"] or
              open(os.path.join(out, "best.cu")).read().strip() == open(os.path.join(problem, "init.cu")).read().strip())


def hostile_run(tool, name, script, want, args, kb):
    """Issue 26: replies of the published hack classes only. Each attempt must
    end with a status in its allowed set, no reply may be kept, and the KB
    must record every step as a failure with its status."""
    with tempfile.TemporaryDirectory() as work:
        proc, out = optimize(tool, work, script, args + ["--steps", str(len(want) // 3), "--fix-attempts", "2"], name, kb)
        print(proc.stderr[-4000:])
        if proc.returncode == 77:
            print("skipped: " + proc.stderr.strip())
            sys.exit(77)
        if proc.returncode not in (0, 1):
            check(f"{name}: the run ends with 0 or 1", False, proc.stderr[-500:])
            return
        log, attempts = attempts_of(out)
        ok = len(attempts) == len(want) and all(
            end == w_end and (status in w_status if w_status else status is None)
            for (end, status), (w_end, w_status) in zip(attempts, want))
        check(f"{name}: every hostile reply ends with the status naming it", ok, list(zip(attempts, want)))
        summary = json.load(open(os.path.join(out, "summary.json")))
        check(f"{name}: no hostile reply was kept", not summary["improved"], summary)
        outcomes = log["kb_outcomes"]
        check(f"{name}: every step reached the KB as a failure", len(outcomes) == len(want) // 3 and
              all(not o["verified"] and o["speedup"] == 0 for o in outcomes), outcomes)
        for o in outcomes:
            print(f"{name}: KB outcome {o['technique']}: {o['note'][:160]}")


def replies(folder, *names):
    """The scripted replies: each file of `folder` in turn."""
    return [{"file": folder + n} for n in names]


def hostile_kernelbench(tool, kb):
    data = dataset()
    if not data:
        return
    script = replies("tests/kernelbench/hostile/", "matmul_cache_sample_64.cu", "matmul_copy_neighbour.cu",
                     "matmul_first_calls.cu", "matmul_seen_inputs.cu", "matmul_cache_checksum_64.cu",
                     "matmul_copy_neighbour.cu", "matmul_cache_pointer_64.cu", "matmul_copy_same_size.cu",
                     "matmul_l2_persisting.cu")
    rej = "rejected"
    # The neighbour copies find torch's answer through cudaPointerGetAttributes:
    # since issue 39 a model's code is held to the object bound first.
    want = [(rej, {"cached_result"}), (rej, {"forbidden_code"}), (rej, {"wrong_result"}),
            (rej, {"wrong_result", "cached_result"}), (rej, {"cached_result"}), (rej, {"forbidden_code"}),
            (rej, {"cached_result"}), (rej, {"forbidden_code"}), ("static_check", None)]
    hostile_run(tool, "hostile level1/001", script, want,
                ["--kernelbench", os.path.join(data, "level1", "001_Square_matrix_multiplication")], kb)


def hostile_examples(tool, kb):
    script = replies("tests/adversarial/", "matmul_cache_sample_4.cu", "matmul_first_calls.cu", "matmul_seen_inputs.cu",
                     "matmul_cache_checksum_64.cu", "matmul_cache_pointer_1.cu", "matmul_l2_persisting.cu")
    rej = "rejected"
    want = [(rej, {"cached_result"}), (rej, {"wrong_result"}), (rej, {"wrong_result", "cached_result"}),
            (rej, {"cached_result"}), (rej, {"cached_result"}), ("static_check", None)]
    hostile_run(tool, "hostile matmul example", script, want, [
        "--source", f"{ROOT}/examples/kernels/src/matmul.cu",
        "--harness", f"{ROOT}/examples/kernels/harness/matmul_harness.cu",
        "-I", f"{ROOT}/examples/kernels/include", "--launcher", "matmul"], kb)


def hostile_trust(tool, kb):
    """Issue 39: replies whose host code reaches for the verdict (a redefined
    CUDA call, the runtime's seed by its mangled name, system calls written
    as assembly or declared by hand, a copy of torch's answer found through
    the pointer API) pass the loop's text checks and are refused by the
    object bound with the symbol named; the ones the text checks know stop
    there. None kept, each step a KB failure."""
    rej, static = "rejected", ("static_check", None)
    script = replies("tests/adversarial/", "interposes_sync.cu", "mangled_runtime_seed.cu", "inline_syscall.cu",
                     "reads_reference_dumps.cu", "tampers_environment.cu", "links_runtime_seed.cu")
    want = [(rej, {"forbidden_code"})] * 3 + [static] * 3
    hostile_run(tool, "hostile vector_add example (issue 39)", script, want, [
        "--source", f"{ROOT}/examples/kernels/src/vector_add.cu",
        "--harness", f"{ROOT}/examples/kernels/harness/vector_add_harness.cu",
        "-I", f"{ROOT}/examples/kernels/include", "--launcher", "vector_add"], kb)
    data = dataset()
    if not data:
        return
    script = replies("tests/kernelbench/hostile/", "relu_interposes_sync.cu", "relu_raw_syscall.cu",
                     "relu_copy_neighbour.cu", "relu_reads_oracle.cu", "relu_allocator_off.cu",
                     "relu_forges_report_at_exit.cu")
    hostile_run(tool, "hostile level1/019 (issue 39)", script, want,
                ["--kernelbench", os.path.join(data, "level1", "019_ReLU")], kb)


def learned_weight(stats):
    """The built-in policy's weight of a technique at a run's first step
    (policy/default_policy.h): an empty KB gives every technique 0.1."""
    w = (stats.get("predicted", 1.0) - 1.0) + 0.1
    tries = max(0, stats.get("tries", 0))
    verified = min(max(stats.get("measured", 0), 0), tries)
    if w > 0:
        w *= (verified + 1.0) / (tries + 1.0)
    return max(0.02, w)


def second_run(tool, learned_kb, winner, winner_state=None):
    """Other problems, once with an empty KB and once with the first run's,
    one step each with the same policy seed: the policy's whole order of
    the techniques (the step's `ranking`) must differ where the first run's
    KB has statistics for the problem's state. Each technique the first run
    weighed down there (a loss, or failures) must rank no higher than with
    the empty KB, each it weighed up no lower, and in the state where the
    first run's winner won, the winner comes first. The state is read from
    each original's profile, so a problem whose state the first run never
    met has nothing to learn from: the same order is then right, and said."""
    data = dataset()
    if not data or not winner:
        return
    try:
        learned_stats = json.load(open(learned_kb)).get("stats", [])
    except (OSError, ValueError):
        learned_stats = []
    known_states = {s.get("state") for s in learned_stats}
    for problem in ("level1/039_L2Norm", "level1/038_L1Norm"):
        rankings, states = {}, {}
        for label in ("empty", "learned"):
            with tempfile.TemporaryDirectory() as work:
                kb = os.path.join(work, "kb.json")
                if label == "learned":
                    shutil.copy(learned_kb, kb)
                script = [{"file": os.path.join(data, problem, "init.cu")}]
                proc, out = optimize(tool, work, script, ["--kernelbench", os.path.join(data, problem), "--steps", "1",
                                                          "--seed", "7"], f"second_{label}_{problem.replace('/', '_')}", kb)
                if proc.returncode not in (0, 1):
                    check(f"second run {problem} ({label} KB): ends with 0 or 1", False, proc.stderr[-500:])
                    continue
                log, _ = attempts_of(out)
                step = log["steps"][0]
                rankings[label] = step.get("ranking") or [step["technique"]]
                states[label] = step.get("state")
        if len(rankings) < 2:
            continue
        state = states.get("learned")
        print(f"second run {problem} (state {state}; the first run's winner: {winner}, in state {winner_state}; "
              f"the first run's KB has statistics for {sorted(x for x in known_states if x)})")
        for label in ("empty", "learned"):
            print(f"  order with the {label} KB: {' > '.join(rankings[label][:8])} ...")
        if state not in known_states:
            print(f"second run {problem}: the first run never met state {state}: nothing to transfer, not checked")
            continue
        check(f"second run {problem}: the learned KB selects differently (another order)",
              rankings["empty"] != rankings["learned"], rankings)
        if winner_state is None or state == winner_state:
            check(f"second run {problem}: the learned KB chooses the first run's winner first",
                  rankings["learned"][0] == winner, rankings["learned"][:3])
        if sorted(rankings["empty"]) != sorted(rankings["learned"]):
            print(f"second run {problem}: the KBs offer different techniques; ranks not compared")
            continue
        # The built-in policy draws the order by weighted keys, one fixed
        # draw per technique and seed: a technique weighed down falls behind
        # every technique whose weight the KB left alone, but may gain a
        # place where another weighed-down one falls past it (measured on an
        # H200, 2026-11-29: 18th to 17th). So each is compared with the
        # techniques the KB did not touch.
        weights = {}
        for st in learned_stats:
            if st.get("state") == state and st.get("arch") == "sm_90" and not st.get("setting"):
                weights[st["technique"]] = learned_weight(st)
        untouched = [t for t in rankings["empty"] if abs(weights.get(t, 0.1) - 0.1) < 1e-12]
        moved = []
        for t, w in sorted(weights.items()):
            if t not in rankings["empty"] or abs(w - 0.1) < 1e-12:
                continue
            before, after = rankings["empty"].index(t), rankings["learned"].index(t)
            moved.append((t, round(w, 3), before, after))
            down = w < 0.1
            # The untouched techniques t was behind (down) or ahead of (up) with the empty KB.
            side = [u for u in untouched if (rankings["empty"].index(u) < before) == down]
            overtaken = [u for u in side if (rankings["learned"].index(u) < after) != down]
            check(f"second run {problem}: {t} (weight 0.1 -> {w:.4f}) moves {'down' if down else 'up'} or stays "
                  f"against the {len(side)} techniques the KB left alone", not overtaken, (before, after, overtaken))
        print(f"second run {problem}: technique, learned weight, rank with the empty KB, with the learned KB: {moved}")


def rmsnorm_winner(kb):
    """The technique RMSNorm's first step chose and the state it chose it
    in, as the first run recorded them beside the KB (the transfer part may
    run in a later command)."""
    try:
        w = json.load(open(kb + ".rmsnorm_winner"))
        return w.get("technique"), w.get("state")
    except (OSError, ValueError):
        return None, None


def main():
    tool = sys.argv[1]
    parts = sys.argv[2].split(",") if len(sys.argv) > 2 else ["examples", "kernelbench", "transfer", "hostile"]
    with tempfile.TemporaryDirectory() as keep:
        kb = os.environ.get("KERNELBLASTER_OPTIMIZE_KB") or os.path.join(keep, "kb.json")  # one KB through the first run
        winner = None
        if "examples" in parts:
            softmax_example(tool, kb)
            transpose_example(tool, kb)
        if "kernelbench" in parts:
            kernelbench_relu(tool, kb)
            winner = kernelbench_rmsnorm(tool, kb)
            kernelbench_softmax(tool, kb)
        artifacts = os.environ.get("KERNELBLASTER_OPTIMIZE_ARTIFACTS")
        if artifacts and os.path.exists(kb):
            shutil.copy(kb, os.path.join(artifacts, "kb_after_first_run.json"))
        if "transfer" in parts and os.path.exists(kb):
            recorded, state = rmsnorm_winner(kb)
            second_run(tool, kb, winner or recorded, state)
        if "hostile" in parts:  # a KB of their own: their failures must not depend on the others
            hostile_examples(tool, os.path.join(keep, "kb-hostile.json"))
            hostile_kernelbench(tool, os.path.join(keep, "kb-hostile.json"))
            hostile_trust(tool, os.path.join(keep, "kb-hostile.json"))
    print(f"{len(passed)} passed, {len(failures)} failed")
    if not passed and not failures:
        print("skipped: nothing was checked (no dataset, or `transfer` without a first run's KB)")
        sys.exit(77)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
