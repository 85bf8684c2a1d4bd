#!/usr/bin/env python3
"""Every report kind rendered in a real browser (headless Chromium), from
real run files (fixtures/): the DOM Chromium builds has every chart with all
its data points, every strip with all its cells, no reference to anything
outside the page, and a screenshot that is not blank. Scripts are off: the
page's Content-Security-Policy allows none (Chromium's scriptEnabled=false
setting also stops --dump-dom, so the page's own policy is what is tested):
a copy of each page with a script that would empty it renders unchanged.

    browser_test.py KERNELBLASTER FIXTURES [--keep DIR]

Needs Debian's `chromium` (the README's test command installs it). Where
KERNELBLASTER_NO_BROWSER is set, exits 77 (skipped) instead of failing.
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, args, timeout=120):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


class Dom(html.parser.HTMLParser):
    """The charts, strips and outside references of a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.charts = {}   # id -> [declared points, circles with data]
        self.strips = {}   # id -> [declared cells, spans]
        self.outside = []  # attributes that point outside the page
        self.scripts = 0
        self._chart = None
        self._strip = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href", "data", "poster", "action"):
            v = a.get(key)
            if v is not None and not v.startswith("#"):
                self.outside.append(f"<{tag} {key}={v}>")
        if tag == "link" or tag == "iframe" or tag == "img" or tag == "object":
            self.outside.append(f"<{tag}>")
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and "data-chart" in a:
            self._chart = a["data-chart"]
            self.charts[self._chart] = [int(a.get("data-points", "-1")), 0]
        elif tag == "circle" and self._chart and "data-x" in a and "data-y" in a:
            float(a["data-x"]), float(a["data-y"])
            self.charts[self._chart][1] += 1
        elif tag == "div" and "data-strip" in a:
            self._strip = a["data-strip"]
            self.strips[self._strip] = [int(a.get("data-cells", "-1")), 0]
        elif tag == "span" and self._strip:
            self.strips[self._strip][1] += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self._chart = None
        if tag == "div":
            self._strip = None


def png_pixels(path):
    """(width, height, rows of pixel tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"unexpected PNG format {depth}/{color}"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            ul = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + left) & 255
            elif ftype == 2:
                line[i] = (line[i] + up) & 255
            elif ftype == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif ftype == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def not_blank(path):
    width, height, rows, bpp = png_pixels(path)
    colours, counts = set(), {}
    for row in rows[::4]:
        for x in range(0, width * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    background = max(counts.values()) / total
    return len(colours) >= 8 and background < 0.97, f"{len(colours)} colours, background {100 * background:.1f}%"


CASES = [
    # (name, path under fixtures, kind, charts that must be there, strips)
    ("tuning run", "tune/rmsnorm-h200.log.json", "tune_log", ["best-by-evaluation", "best-by-seconds"], ["candidates"]),
    ("tuning run, nothing beats the original", "tune/transpose-h200-nothing-beats.log.json", "tune_log",
     ["best-by-evaluation", "best-by-seconds"], ["candidates"]),
    ("optimize run", "optimize-dir/036_RMSNorm", "optimize_run", ["speedup-by-step"], []),
    ("KernelBench directory run", "optimize-dir", "directory_run", ["fast-p"], []),
    ("build tree", "build-tree/build", "build_tree", [], ["sources"]),
]


def place(fixtures, rel, tmp, n):
    """The fixture's copy to report on. The build tree's records name absolute
    paths (its cache, its lockfile, its compiled sources): @TREE@ in them
    becomes the copy's own folder."""
    top = rel.split("/")[0]
    src = os.path.join(fixtures, top)
    dst = os.path.join(tmp, "case%d" % n, top)
    os.makedirs(os.path.dirname(dst))
    (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
    for root, _, files in os.walk(dst):
        for f in files:
            if f.endswith(".stamp"):
                p = os.path.join(root, f)
                with open(p) as fh:
                    text = fh.read()
                with open(p, "w") as fh:
                    fh.write(text.replace("@TREE@", dst))
    return os.path.join(tmp, "case%d" % n, rel)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tool, fixtures = sys.argv[1], sys.argv[2]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    exe = browser()
    if not exe:
        if os.environ.get("KERNELBLASTER_NO_BROWSER"):
            print("skipped: no Chromium (KERNELBLASTER_NO_BROWSER is set)")
            return 77
        print("FAIL: no Chromium here (apt-get install chromium; the README's test command does)")
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, rel, kind, charts, strips) in enumerate(CASES):
            dst = place(fixtures, rel, tmp, n)
            r = subprocess.run([tool, "report", dst, "--json"], capture_output=True, text=True)
            problems = []
            if r.returncode != 0:
                print(f"FAIL {name}: kernelblaster report exited {r.returncode}: {r.stderr.strip()}")
                failures += 1
                continue
            out = json.loads(r.stdout)
            if out["kind"] != kind:
                problems.append(f"kind {out['kind']}, expected {kind}")
            page = "file://" + os.path.abspath(out["html"])
            dom_run = chromium(exe, ["--dump-dom", page])
            dom = Dom()
            dom.feed(dom_run.stdout)
            if "<h1>" not in dom_run.stdout:
                problems.append("Chromium's DOM has no <h1>: the page did not render")
            for c in charts:
                if c not in dom.charts:
                    problems.append(f"chart {c} missing")
                elif dom.charts[c][0] <= 0 or dom.charts[c][0] != dom.charts[c][1]:
                    problems.append(f"chart {c}: {dom.charts[c][1]} points with data, {dom.charts[c][0]} declared")
            for s in strips:
                if s not in dom.strips or dom.strips[s][0] != dom.strips[s][1] or dom.strips[s][0] <= 0:
                    problems.append(f"strip {s}: {dom.strips.get(s)}")
            if dom.outside:
                problems.append("references outside the page: " + ", ".join(dom.outside[:3]))
            if dom.scripts:
                problems.append(f"{dom.scripts} script elements")
            if "Content-Security-Policy" not in dom_run.stdout:
                problems.append("no Content-Security-Policy in the page")
            # A script added to the page must not run (the page's policy).
            hostile = out["html"][:-5] + ".with-script.html"
            with open(out["html"]) as f, open(hostile, "w") as g:
                g.write(f.read().replace("</body>", "<script>document.body.innerHTML='';</script></body>"))
            blocked = Dom()
            blocked.feed(chromium(exe, ["--dump-dom", "file://" + os.path.abspath(hostile)]).stdout)
            if set(blocked.charts) != set(dom.charts) or set(blocked.strips) != set(dom.strips):
                problems.append("a script in the page ran (its Content-Security-Policy did not hold)")
            shot = os.path.join(tmp, kind + ".png")
            chromium(exe, ["--window-size=1100,1400", f"--screenshot={shot}", page])
            if not os.path.exists(shot):
                problems.append("no screenshot")
            else:
                ok, why = not_blank(shot)
                if not ok:
                    problems.append("blank screenshot: " + why)
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(shot, os.path.join(keep, rel.replace("/", "_") + ".png"))
            md = open(out["markdown"]).read()
            if not md.startswith("# "):
                problems.append("Markdown does not start with its title")
            points = sum(v[1] for v in dom.charts.values())
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"PASS {name}: {len(dom.charts)} charts ({points} points), {len(dom.strips)} strips, "
                      f"screenshot {why}")
    print(f"{len(CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
