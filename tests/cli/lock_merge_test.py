#!/usr/bin/env python3
"""Issue 41: two runners' lockfile updates merge without hand edits.

  lock_merge_test.py TOOL

`kernelblaster lock merge` folds lockfiles and fragments together by the
stated rule and names every loser; `lock merge-driver`, set up as git's
merge driver for kernelblaster.lock.json, merges two branches that each
recorded results (another GPU, another source, a faster result for the same
key) where git's own merge would conflict. A lockfile that is not one is a
one-line error that writes nothing. No GPU needed.
"""
import json
import os
import subprocess
import sys
import tempfile

failures, passed = [], []


def expect(name, cond, detail=""):
    (passed if cond else failures).append(name)
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))


def gpu(name, sms):
    return {"name": name, "compute_capability": "9.0", "sm_count": sms, "driver_major": 580}


def entry(key, speedup, when, g, **more):
    e = {"key": key, "improved": True, "defines": [["BLOCK", "128"]], "flags": [], "config": {"BLOCK": "128"},
         "speedup": speedup, "gpu": g, "measured_at": when, "tool_version": "0.1.0"}
    e.update(more)
    return e


def lockfile(sources):
    return json.dumps({"kernelblaster_lockfile": 1, "sources": sources}, indent=2) + "\n"


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True)


def main():
    tool = os.path.abspath(sys.argv[1])  # git runs the driver in the repository
    h200, h100 = gpu("NVIDIA H200", 132), gpu("NVIDIA H100 80GB HBM3", 132)
    with tempfile.TemporaryDirectory() as d:
        # Two files with a conflict on src/a.cu for the H200 and one entry each besides.
        h200_id = None
        a = os.path.join(d, "a.json")
        b = os.path.join(d, "b.json")
        open(a, "w").write(lockfile({"src/a.cu": {"h200": entry("k1", 1.20, "2026-11-28T01:00:00Z", h200)}}))
        open(b, "w").write(lockfile({"src/a.cu": {"h200": entry("k1", 1.35, "2026-11-28T02:00:00Z", h200,
                                                                reverified=True, evaluations=40),
                                                  "h100": entry("k1", 1.10, "2026-11-28T02:00:00Z", h100)}}))
        out = os.path.join(d, "merged.json")
        p = subprocess.run([tool, "lock", "merge", a, b, "--out", out], capture_output=True, text=True)
        merged = json.load(open(out)) if p.returncode == 0 else {}
        a_cu = merged.get("sources", {}).get("src/a.cu", {})
        expect("lock merge --out keeps every GPU's entry", p.returncode == 0 and len(a_cu) == 2, p.stderr)
        h200_id = next((k for k, v in a_cu.items() if v["gpu"]["name"] == "NVIDIA H200"), None)
        expect("the re-verified result stands, and the decision names the loser",
               h200_id and a_cu[h200_id]["speedup"] == 1.35 and "re-verified" in p.stderr and
               "over the one measured 2026-11-28T01:00:00Z" in p.stderr, p.stderr)
        p2 = subprocess.run([tool, "lock", "merge", b, a, "--out", out + "2", "--quiet"], capture_output=True, text=True)
        expect("the merge is the same whichever file comes first",
               p2.returncode == 0 and open(out).read() == open(out + "2").read() and not p2.stderr, p2.stderr)
        bad = os.path.join(d, "bad.json")
        open(bad, "w").write("{ not json")
        before = open(a).read()
        p = subprocess.run([tool, "lock", "merge", a, bad], capture_output=True, text=True)
        expect("a file that is not a lockfile: one line, exit 2, nothing written",
               p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and open(a).read() == before, p.stderr)

        # Issue 74: what a merge job is given by mistake is refused, each with one line and nothing written.
        garbage = os.path.join(d, "garbage.json")
        open(garbage, "w").write(lockfile({"src/a.cu": {"gpu_sm00_0sm_drv0": {"garbage": True}}}))
        for name, args in (("a missing input (a glob that matched nothing)", [a, os.path.join(d, "fragments", "*.json")]),
                           ("an entry with no key or GPU", [a, garbage])):
            p = subprocess.run([tool, "lock", "merge"] + args, capture_output=True, text=True)
            expect(f"lock merge refuses {name}: one line, exit 2, nothing written",
                   p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and open(a).read() == before, p.stderr)
        empty = os.path.join(d, "empty.json")
        open(empty, "w").write(lockfile({}))
        p = subprocess.run([tool, "lock", "merge", a, empty, "--out", os.path.join(d, "same.json")],
                           capture_output=True, text=True)
        expect("lock merge of an input with no entry says nothing was merged",
               p.returncode == 0 and "empty.json holds no entry: nothing merged" in p.stderr, p.stderr)

        # git: two branches record results; the driver merges them.
        if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
            print("git not found: the merge driver's part is not run")
            sys.exit(1 if failures else 77)
        repo = os.path.join(d, "repo")
        os.makedirs(repo)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "ci@example.invalid")
        git(repo, "config", "user.name", "CI")
        lock = os.path.join(repo, "kernelblaster.lock.json")
        base = {"src/a.cu": {"h200": entry("k1", 1.20, "2026-11-28T01:00:00Z", h200)}}
        open(lock, "w").write(lockfile(base))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
        git(repo, "checkout", "-qb", "h100-runner")
        # This runner also measured the H200 entry again, as the other did: the same lines change on both sides.
        ours = {"src/a.cu": {"h200": entry("k1", 1.25, "2026-11-28T03:00:00Z", h200, evaluations=12),
                             "h100": entry("k1", 1.10, "2026-11-28T03:00:00Z", h100)}}
        open(lock, "w").write(lockfile(ours))
        git(repo, "commit", "-qam", "H100 runner")
        git(repo, "checkout", "-q", "main")
        theirs = {"src/a.cu": {"h200": entry("k1", 1.30, "2026-11-28T04:00:00Z", h200, reverified=True)},
                  "src/b.cu": {"h200": entry("k9", 1.05, "2026-11-28T04:00:00Z", h200)}}
        open(lock, "w").write(lockfile(theirs))
        git(repo, "commit", "-qam", "H200 runner")
        plain = git(repo, "merge", "--no-edit", "h100-runner")
        expect("without the driver, git's own merge conflicts on the lockfile", plain.returncode != 0,
               plain.stdout + plain.stderr)
        if plain.returncode != 0:
            git(repo, "merge", "--abort")
        else:
            git(repo, "reset", "-q", "--hard", "HEAD~1")
        open(os.path.join(repo, ".gitattributes"), "w").write("kernelblaster.lock.json merge=kernelblaster-lock\n")
        git(repo, "add", ".gitattributes")
        git(repo, "commit", "-qm", "the lockfile's merge driver")
        git(repo, "config", "merge.kernelblaster-lock.driver", f"{tool} lock merge-driver %O %A %B")
        m = git(repo, "merge", "--no-edit", "h100-runner")
        text = open(lock).read()
        result = json.loads(text) if "<<<<<<<" not in text else {}
        srcs = result.get("sources", {})
        expect("with the driver, git merges both runners' updates",
               m.returncode == 0 and len(srcs.get("src/a.cu", {})) == 2 and "src/b.cu" in srcs, m.stdout + m.stderr)
        kept = [v for v in srcs.get("src/a.cu", {}).values() if v["gpu"]["name"] == "NVIDIA H200"]
        expect("and the H200 runner's re-verified result stands over the other's re-measure",
               m.returncode == 0 and len(kept) == 1 and kept[0]["speedup"] == 1.30, kept)
    print(f"{len(passed)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
