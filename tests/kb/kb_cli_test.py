#!/usr/bin/env python3
"""`kernelblaster kb` from the outside: exit codes, one-line reasons, and
files left untouched. Usage: kb_cli_test.py KERNELBLASTER SEED_JSON"""
import json
import os
import subprocess
import sys
import tempfile

TOOL, SEED = sys.argv[1], sys.argv[2]
failures = []


def run(*args, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([TOOL, "kb", *args], capture_output=True, text=True, env=full_env, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def snapshot(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return f.read(), st.st_mtime_ns, st.st_ino


def stats_doc(entries):
    return {"schema_version": 1, "stats": entries}


def entry(tech, tries, measured, mean, m2):
    return {"state": "memory_bandwidth_bound", "technique": tech, "arch": "sm_90", "tries": tries,
            "successes": measured, "measured": measured, "mean": mean, "m2": m2}


with tempfile.TemporaryDirectory() as tmp:
    env = {"KERNELBLASTER_KB": os.path.join(tmp, "user", "kb.json"), "KERNELBLASTER_SEED_KB": SEED}

    # validate: 0 valid, 1 invalid with one line naming file and key, 2 usage.
    rc, out, err = run("validate", SEED)
    check(rc == 0 and "valid" in out, f"validate seed: rc={rc} {out} {err}")
    rc, out, _ = run("validate", SEED, "--json")
    check(rc == 0 and json.loads(out)["valid"] is True, "validate --json on the seed")

    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema_version": 1, "states": [{"id": "a", "rule": [{"metric": "m", "op": "=>", "value": 1}]}]}')
    before = snapshot(bad)
    rc, out, err = run("validate", bad)
    check(rc == 1, f"validate bad: rc={rc}")
    lines = err.strip().splitlines()
    check(len(lines) == 1 and bad in lines[0] and "/states/0/rule/0/op" in lines[0] and "=>" in lines[0],
          f"validate bad: one line with file, key, reason: {err!r}")
    rc, out, err = run("validate", bad, "--json")
    doc = json.loads(out) if rc == 1 else {}
    check(doc.get("valid") is False and doc.get("key") == "/states/0/rule/0/op", f"validate --json bad: {out!r}")
    check(snapshot(bad) == before, "validate left the invalid file unchanged")

    torn = os.path.join(tmp, "torn.json")
    with open(torn, "w") as f:
        f.write('{"schema_version": 1, "stats": [')
    rc, _, err = run("validate", torn)
    check(rc == 1 and "not valid JSON" in err, f"validate torn: rc={rc} {err!r}")

    for args in (["validate"], ["validate", SEED, SEED], ["validate", "--frobnicate", SEED],
                 ["validate", os.path.join(tmp, "missing.json")], ["nonsense"], []):
        rc, _, err = run(*args)
        check(rc == 2 and len(err.strip().splitlines()) == 1, f"usage {args}: rc={rc} {err!r}")
    rc, out, _ = run("--help")
    check(rc == 0 and "validate FILE" in out, "kb --help")

    # merge: in place under A's lock, or to --output; a malformed A is refused untouched.
    a, b, out_path = (os.path.join(tmp, n) for n in ("a.json", "b.json", "out.json"))
    with open(a, "w") as f:
        json.dump(stats_doc([entry("fast_math", 3, 2, 1.5, 0.5)]), f)
    with open(b, "w") as f:
        json.dump(stats_doc([entry("fast_math", 2, 2, 2.0, 0.0), entry("loop_unrolling", 1, 1, 1.2, 0.0)]), f)
    a_before = snapshot(a)
    rc, out, err = run("merge", a, b, "--output", out_path, "--json")
    check(rc == 0 and json.loads(out) == {"output": out_path, "added": 1, "combined": 1}, f"merge --output: {out} {err}")
    check(snapshot(a) == a_before, "merge --output left A unchanged")
    # --out, as every other command names it, is the same (issue 42).
    rc, out, err = run("merge", a, b, "--out", out_path + ".2", "--json")
    check(rc == 0 and json.loads(out)["output"] == out_path + ".2" and snapshot(a) == a_before and
          json.load(open(out_path + ".2"))["stats"] == json.load(open(out_path))["stats"], f"merge --out: {out} {err}")
    rc, out, err = run("merge", a, b)
    check(rc == 0, f"merge in place: {err}")
    with open(a) as f:
        merged = {e["technique"]: e for e in json.load(f)["stats"]}
    fm = merged.get("fast_math", {})
    check(fm.get("tries") == 5 and fm.get("measured") == 4 and abs(fm.get("mean", 0) - 1.75) < 1e-12
          and abs(fm.get("m2", 0) - 0.75) < 1e-12, f"merged statistics: {fm}")
    check("loop_unrolling" in merged, "merged entry from B")
    with open(out_path) as f:
        check(json.load(f)["stats"] == json.load(open(a))["stats"], "--output equals the in-place merge")

    bad_before = snapshot(bad)
    rc, _, err = run("merge", bad, b)
    check(rc == 2 and len(err.strip().splitlines()) == 1 and "/states/0/rule/0/op" in err, f"merge into bad A: {err!r}")
    check(snapshot(bad) == bad_before, "merge left the malformed A byte-identical")

    # show / stats / classify / path.
    rc, out, _ = run("show", SEED, "--json")
    doc = json.loads(out) if rc == 0 else {}
    check(len(doc.get("states", [])) >= 12 and len(doc.get("techniques", [])) >= 20, "show --json")
    rc, out, _ = run("show", "--technique", "fast_math", env=env)
    check(rc == 0 and "fast_math" in out and "how:" in out, f"show --technique (layered): rc={rc}")
    rc, _, err = run("show", SEED, "--state", "no_such_state")
    check(rc == 2 and "no_such_state" in err, f"show unknown state: {err!r}")
    rc, out, _ = run("stats", a, "--json")
    doc = json.loads(out) if rc == 0 else {}
    check(doc.get("tries") == 6 and doc.get("best", [{}])[0].get("top", [{}])[0].get("technique") == "fast_math",
          f"stats --json: {out}")

    metrics = os.path.join(tmp, "metrics.json")
    with open(metrics, "w") as f:
        json.dump({"metrics": {"dram_throughput_pct": 88.0, "sm_throughput_pct": 12.0, "gpu_busy_pct": 99.0}}, f)
    rc, out, _ = run("classify", "--metrics", metrics, "--kb", SEED, "--json")
    check(rc == 0 and json.loads(out)["state"] == "memory_bandwidth_bound", f"classify: {out}")
    rc, out, _ = run("classify", "--metrics", metrics, env=env)
    check(rc == 0 and out.startswith("state: memory_bandwidth_bound"), f"classify text (layered): {out}")
    rc, _, _ = run("classify", "--kb", SEED)
    check(rc == 2, "classify without --metrics")

    rc, out, _ = run("path", env=env)
    check(rc == 0 and out.strip() == env["KERNELBLASTER_KB"], f"path: {out!r}")
    rc, out, _ = run("path", "--json", env=env)
    check(rc == 0 and json.loads(out) == {"user": env["KERNELBLASTER_KB"], "seed": SEED}, f"path --json: {out!r}")

print("kb cli:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
