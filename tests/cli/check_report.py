#!/usr/bin/env python3
"""Checks `ixa report`: the page's numbers are fusion_cost's, its SVG is
well formed, bad input exits with the documented codes, and the page renders
in headless Chromium (Debian's `chromium`; skipped, saying so, without it).

usage: check_report.py IXA EXAMPLE.hlo
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SKIP = 77
FUSED = """HloModule m
fused {
  p0 = f32[64,64] parameter(0)
  p1 = f32[64] parameter(1)
  b = f32[64,64] broadcast(p1), dimensions={0}
  ROOT m = f32[64,64] multiply(p0, b)
}
ENTRY e {
  a = f32[64,64] parameter(0)
  v = f32[64] parameter(1)
  ROOT f = f32[64,64] fusion(a, v), kind=kLoop, calls=fused
}
"""
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(ixa, args, stdin=None):
    return subprocess.run([ixa] + args, input=stdin, capture_output=True,
                          text=True, timeout=300)


def query(ixa, request):
    out = run(ixa, ["query"], json.dumps(request) + "\n")
    answer = json.loads(out.stdout)
    assert answer["ok"], answer
    return answer


def page_data(html):
    m = re.search(r'<script type="application/json" id="ixa-report-data">'
                  r'(.*?)</script>', html, re.S)
    check(m is not None, "the page embeds its data")
    return json.loads(m.group(1).replace("<\\/", "</"))


def check_svgs(html, where):
    for name in ("roofline", "graph"):
        m = re.search(r'<svg id="%s".*?</svg>' % name, html, re.S)
        check(m is not None, "%s: the %s chart is there" % (where, name))
        if m:
            try:
                ET.fromstring(m.group(0))
            except ET.ParseError as e:
                check(False, "%s: the %s SVG is well formed: %s" %
                      (where, name, e))
    check("<script src" not in html and "http://" not in
          html.replace('xmlns="http://www.w3.org/2000/svg"', ""),
          where + ": nothing is loaded from the network")


def check_costs(ixa, hlo, data, where):
    """Every kernel's numbers are fusion_cost's answer for it."""
    costed = 0
    for k in data["kernels"]:
        if "cost" not in k:
            continue
        request = {"op": "fusion_cost", "hlo": hlo, "device": data["device"],
                   "model": data["model"]}
        if k["opcode"] == "fusion":
            request["fusion"] = k["name"]
        else:
            request["instructions"] = [k["name"]]
        answer = query(ixa, request)
        for field in ("time_us", "bytes_read", "bytes_written", "flops",
                      "emitter", "launch", "active_fraction"):
            check(answer.get(field) == k["cost"].get(field),
                  "%s: %s's %s is fusion_cost's (%r, page %r)" %
                  (where, k["name"], field, answer.get(field),
                   k["cost"].get(field)))
        costed += 1
    return costed


def png_info(path):
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", blob[16:24])
    idat, pos = b"", 8
    while pos < len(blob):
        length = struct.unpack(">I", blob[pos:pos + 4])[0]
        kind = blob[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += blob[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(idat)


def main():
    ixa, example = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp()
    try:
        # An unfused module: fused by fusion_plan first.
        out_path = os.path.join(tmp, "report.html")
        r = run(ixa, ["report", example, "-o", out_path])
        check(r.returncode == 0, "report on the example exits 0: " + r.stderr)
        html = open(out_path, encoding="utf-8").read()
        data = page_data(html)
        check(data["planned"], "an unfused module is planned first")
        text = open(example).read()
        plan = query(ixa, {"op": "fusion_plan", "hlo": text})
        check(data["plan"]["kernels_after"] == plan["kernels_after"],
              "the plan's kernel count is fusion_plan's")
        check(len(data["kernels"]) == plan["kernels_after"],
              "one row per kernel of the plan")
        costed = check_costs(ixa, plan["hlo"], data, "example")
        check(costed >= 3, "the example's kernels are costed")
        total = sum(k["cost"]["time_us"] + k["cost"]["launch_overhead_us"]
                    for k in data["kernels"] if "cost" in k)
        check(abs(total - data["total_time_us"]) < 1e-9 * max(1, total),
              "the total is the sum of the kernels")
        for k in data["kernels"]:
            check(re.search(r"<td class=\"l\">%s</td>" % re.escape(k["name"]),
                            html) is not None,
                  "kernel %s has a row" % k["name"])
        check_svgs(html, "example")
        check('id="top"' in html, "the top-10 table is there")
        kinds = {f["kind"] for f in data["findings"]}
        check("unfused_chain" in kinds or "latency" in kinds,
              "the example has findings")

        # A fused module is reported as given, here with the xla model and
        # on standard output.
        r = run(ixa, ["report", "-", "--model", "xla", "--device", "a100"],
                FUSED)
        check(r.returncode == 0, "report of a fused module: " + r.stderr)
        data = page_data(r.stdout)
        check(not data["planned"], "a fused module is not planned again")
        check([k["name"] for k in data["kernels"]] == ["f"],
              "the fused module's one kernel")
        check(check_costs(ixa, FUSED, data, "fused") == 1, "f is costed")

        # A long reduction: split by XLA's pre-fusion pipeline when the
        # module is planned (two kernels, no finding); a finding when a
        # fused module reduces it in one kernel.
        long_reduce = """HloModule m
add { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[8,200000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(x, z), dimensions={1}, to_apply=add
}"""
        r = run(ixa, ["report", "-", "-o", out_path], long_reduce)
        check(r.returncode == 0, "report of a long reduction: " + r.stderr)
        data = page_data(open(out_path, encoding="utf-8").read())
        check(len(data["kernels"]) == 2 and
              all(k.get("fusion_kind") == "kInput" for k in data["kernels"]),
              "the planned long reduction is two reduction kernels")
        check(not any(f["kind"] == "long_reduction"
                      for f in data["findings"]),
              "a split reduction is no finding")
        fused_long = """HloModule m
add { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] add(a, b) }
fused_r {
  x = f32[8,200000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(x, z), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[8,200000] parameter(0)
  ROOT f = f32[8] fusion(x), kind=kInput, calls=fused_r
}"""
        r = run(ixa, ["report", "-", "-o", out_path], fused_long)
        check(r.returncode == 0, "report of a fused long reduction: " +
              r.stderr)
        data = page_data(open(out_path, encoding="utf-8").read())
        check(any(f["kind"] == "long_reduction" for f in data["findings"]),
              "a 200000-element row reduction in one kernel is a finding")

        # Bad input.
        r = run(ixa, ["report", os.path.join(tmp, "missing.hlo")])
        check(r.returncode == 66, "a missing file exits 66")
        check("cannot read" in r.stderr, "and says it cannot read it")
        bad = os.path.join(tmp, "bad.hlo")
        with open(bad, "w") as f:
            f.write("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
                    "  ROOT q = f32[4] add(p, nope)\n}\n")
        r = run(ixa, ["report", bad])
        check(r.returncode == 1, "an invalid module exits 1")
        check(re.search(r"bad\.hlo:\d+:\d+: error:", r.stderr) is not None,
              "with FILE:LINE:COL: error: " + r.stderr)
        for args in (["report"], ["report", bad, "--device", "nope"],
                     ["report", bad, "--model", "fast"],
                     ["report", bad, "--bogus"]):
            r = run(ixa, args)
            check(r.returncode == 64, "%s is a usage error (64)" % args)
        r = run(ixa, ["report", example, "-o",
                      os.path.join(tmp, "no", "such", "dir.html")])
        check(r.returncode == 73, "an unwritable output exits 73")
        r = run(ixa, ["report", "--help"])
        check(r.returncode == 0 and "usage: ixa report" in r.stdout,
              "report --help")

        if failures:
            return 1
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            print("SKIP: chromium is not installed (tools/setup.sh installs "
                  "it); the page was not rendered")
            return SKIP
        png = os.path.join(tmp, "report.png")
        # Render the example's page (the richest).
        example_page = os.path.join(tmp, "example.html")
        run(ixa, ["report", example, "-o", example_page])
        r = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--hide-scrollbars", "--window-size=1280,2000",
             "--user-data-dir=" + os.path.join(tmp, "profile"),
             "--screenshot=" + png, "file://" + example_page],
            capture_output=True, text=True, timeout=180)
        info = png_info(png) if os.path.exists(png) else None
        check(info is not None, "chromium wrote a PNG: " + r.stderr[-500:])
        if info:
            width, height, pixels = info
            check((width, height) == (1280, 2000),
                  "the PNG has the window's size (%dx%d)" % (width, height))
            check(len(set(pixels[:len(pixels) // 2])) > 16,
                  "the rendered page is not blank")
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
