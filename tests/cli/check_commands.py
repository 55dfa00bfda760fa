#!/usr/bin/env python3
"""`ixa emit`, `ixa draw`, `ixa devices`, `ixa report` and `ixa rules` follow
command-line conventions.

  check_commands.py IXA

Checks, running the built binary:
  - `--help` and `-h` of each command print its usage to standard output
    and exit 0; the usage names every flag and every exit code the command
    can return;
  - every flag of emit, draw and devices gives the same result as
    `--flag=value` as as `--flag value`, and its value takes effect;
  - usage errors (unknown flag, missing value, bad value, flags that do not
    go together, missing or extra arguments) exit 64 with a one-line message
    naming the flag, then the usage, and nothing on standard output;
  - errors in the input print as compilers print them,
    `FILE:LINE:COL: error: MESSAGE` (`<stdin>` for standard input, no
    LINE:COL for an error without a place), and the exit code says what
    failed: 1 bad input, 66 unreadable input, 73 unwritable output.
"""
import os
import re
import subprocess
import sys
import tempfile

HLO = """HloModule m

fused {
  p = f32[64,32] parameter(0)
  ROOT t = f32[64,32] tanh(p)
}

ENTRY e {
  a = f32[64,32] parameter(0)
  ROOT f = f32[64,32] fusion(a), kind=kLoop, calls=fused
}
"""

# `exponentail` at line 5, column 19.
BAD_HLO = """HloModule m

ENTRY e {
  p0 = f32[8] parameter(0)
  ROOT e = f32[8] exponentail(p0)
}
"""

PTO = ["--target", "pto", "--arch", "a2a3", "--conversion", "nchw_to_nc1hwc0",
       "--dtype", "f16", "--shape", "2,20,3,4"]
PTO_3D = ["--target", "pto", "--arch", "a5", "--conversion",
          "ncdhw_to_fractal_z_3d", "--dtype", "f16", "--shape", "2,20,3,4,5"]

# Every flag of each command, and the exit codes its usage must list.
FLAGS = {
    "emit": ["--target", "--fusion", "--device", "--devices", "--kernel",
             "--stages",
             "--host", "--arch", "--conversion", "--dtype", "--shape",
             "--order", "-o", "--output", "-h", "--help"],
    "draw": ["--shape", "--thread-tile", "--subgroup-tile", "--batch-tile",
             "--outer-tile", "--element-tile", "--subgroup-strides",
             "--thread-strides", "--subgroup-size", "--num-subgroups",
             "--cell", "--no-memory", "--tile", "--dtype", "--write",
             "--read", "--write-vector", "--read-vector", "--access",
             "--title", "-o", "--output", "-h", "--help"],
    "devices": ["--json", "--devices", "-h", "--help"],
    "report": ["--device", "--model", "--devices", "-o", "--output", "-h",
               "--help"],
    "rules": ["--json", "-h", "--help"],
}
EXIT_CODES = {
    "emit": [0, 1, 64, 66, 70, 73],
    "draw": [0, 1, 64, 70, 73],
    "devices": [0, 1, 64, 66, 70, 73],
    "report": [0, 1, 64, 66, 70, 73],
    "rules": [0, 64, 70, 73],
}

failures = 0


def fail(what, message):
    global failures
    failures += 1
    print("FAIL %s: %s" % (what, message))


def run(ixa, args, stdin=b""):
    return subprocess.run([ixa] + args, input=stdin, capture_output=True,
                          timeout=120)


def describe(proc):
    return "exit %d, stdout %r, stderr %r" % (
        proc.returncode, (proc.stdout or b"")[:200], (proc.stderr or b"")[:300])


def expect_exit(what, proc, code):
    if proc.returncode != code:
        fail(what, "expected exit %d; %s" % (code, describe(proc)))
        return False
    return True


def check_help(ixa):
    for command, flags in FLAGS.items():
        for help_flag in ("--help", "-h"):
            what = "ixa %s %s" % (command, help_flag)
            # Help wins over what comes after it.
            proc = run(ixa, [command, help_flag, "--no-such-flag"])
            if not expect_exit(what, proc, 0):
                continue
            text = proc.stdout.decode()
            if proc.stderr:
                fail(what, "wrote to standard error: %r" % proc.stderr[:200])
            if not text.startswith("usage: ixa %s" % command):
                fail(what, "does not start with the usage: %r" % text[:100])
            for flag in flags:
                if not re.search(r"(^|[\s\[,])%s\b" % re.escape(flag), text):
                    fail(what, "does not name the flag %s" % flag)
            section = text.split("exit codes:", 1)
            if len(section) != 2:
                fail(what, "has no 'exit codes:' section")
                continue
            listed = [int(c) for c in
                      re.findall(r"^\s+(\d+)\s", section[1], re.M)]
            if listed != EXIT_CODES[command]:
                fail(what, "lists exit codes %s, expected %s"
                     % (listed, EXIT_CODES[command]))


def same_both_ways(ixa, what, before, pairs, after=(), code=0, stdin=b""):
    """`--flag value` and `--flag=value` for every (flag, value) of pairs:
    the same exit code (`code`) and output. Returns the output."""
    spaced = list(before)
    joined = list(before)
    for flag, value in pairs:
        spaced += [flag, value]
        joined += ["%s=%s" % (flag, value)]
    a = run(ixa, spaced + list(after), stdin)
    b = run(ixa, joined + list(after), stdin)
    if not expect_exit(what + " (--flag value)", a, code):
        return None
    if not expect_exit(what + " (--flag=value)", b, code):
        return None
    if (a.stdout, a.stderr) != (b.stdout, b.stderr):
        fail(what, "--flag=value differs from --flag value: %s vs %s"
             % (describe(b), describe(a)))
    return a.stdout.decode()


def check_flag_forms(ixa, tmp):
    hlo = os.path.join(tmp, "fusion.hlo")
    with open(hlo, "w") as f:
        f.write(HLO)
    cpp = ["emit", "--target", "cpp"]
    plain = run(ixa, cpp + [hlo]).stdout.decode()
    # emit, GPU targets.
    out = same_both_ways(ixa, "emit --target", ["emit"], [("--target", "cuda")],
                         [hlo])
    if out is not None and "__global__" not in out:
        fail("emit --target=cuda", "no CUDA kernel: %r" % out[:200])
    # By default the kernel is named after the entry's root fusion; with
    # --fusion, after the fusion asked for (here its computation's name).
    if "void f(" not in plain:
        fail("emit (no --fusion)", "the kernel is not named f: %r"
             % plain[:300])
    out = same_both_ways(ixa, "emit --fusion", cpp, [("--fusion", "fused")],
                         [hlo])
    if out is not None and "void fused(" not in out:
        fail("emit --fusion=fused", "the kernel is not named fused")
    same_both_ways(ixa, "emit --fusion (unknown)", cpp,
                   [("--fusion", "nosuch")], [hlo], code=1)
    same_both_ways(ixa, "emit --device", cpp, [("--device", "mi300")], [hlo])
    out = same_both_ways(ixa, "emit --kernel", cpp, [("--kernel", "my_k")],
                         [hlo])
    if out is not None and "my_k(" not in out:
        fail("emit --kernel=my_k", "the kernel is not named my_k")
    for switch, target, marker in (("--stages", "cpp", "// ---- stage: "),
                                   ("--host", "mlir", "host")):
        base = ["emit", "--target", target]
        on = run(ixa, base + [switch, hlo])
        on_eq = run(ixa, base + [switch + "=true", hlo])
        off_eq = run(ixa, base + [switch + "=false", hlo])
        off = run(ixa, base + [hlo])
        what = "emit %s" % switch
        if all(expect_exit(what, p, 0) for p in (on, on_eq, off_eq, off)):
            if on.stdout != on_eq.stdout or off.stdout != off_eq.stdout:
                fail(what, "=true / =false differ from given / not given")
            if marker not in on.stdout.decode() or on.stdout == off.stdout:
                fail(what, "has no effect")
    path = os.path.join(tmp, "out.c")
    # -o=FILE would be a file named "=FILE", as with any short option.
    for args in (["-o", path], ["--output", path], ["--output=" + path]):
        if os.path.exists(path):
            os.remove(path)
        proc = run(ixa, cpp + args + [hlo])
        if expect_exit("emit %s" % args, proc, 0) and (
                proc.stdout or open(path).read() != plain):
            fail("emit %s" % args, "the code did not go to the file")
    # emit, target pto.
    pairs = list(zip(PTO[::2], PTO[1::2]))
    out = same_both_ways(ixa, "emit pto flags", ["emit"], pairs)
    if out is not None and "nchw_to_nc1hwc0" not in out:
        fail("emit pto flags", "not the conversion asked for: %r" % out[:200])
    pairs = list(zip(PTO_3D[::2], PTO_3D[1::2]))
    default_order = same_both_ways(ixa, "emit pto 3d", ["emit"], pairs)
    c1 = same_both_ways(ixa, "emit --order", ["emit"],
                        pairs + [("--order", "c1_major")])
    if c1 is not None and c1 == default_order:
        fail("emit --order=c1_major", "has no effect")
    out = same_both_ways(ixa, "emit pto --kernel", ["emit"],
                         list(zip(PTO[::2], PTO[1::2])) + [("--kernel", "kk")])
    if out is not None and "kk(" not in out:
        fail("emit pto --kernel=kk", "the kernel is not named kk")

    # draw, tiled form.
    shape = "f32[3,5]{1,0:T(2,2)}"
    base_svg = same_both_ways(ixa, "draw --shape", ["draw"], [("--shape", shape)])
    out = same_both_ways(ixa, "draw --cell", ["draw"],
                         [("--shape", shape), ("--cell", "17")])
    if out is not None and out == base_svg:
        fail("draw --cell=17", "has no effect")
    out = same_both_ways(ixa, "draw --title", ["draw"],
                         [("--shape", shape), ("--title", "Title_xyz")])
    if out is not None and "Title_xyz" not in out:
        fail("draw --title=Title_xyz", "the title is not drawn")
    on = run(ixa, ["draw", "--shape", shape, "--no-memory"])
    on_eq = run(ixa, ["draw", "--shape", shape, "--no-memory=true"])
    off_eq = run(ixa, ["draw", "--shape", shape, "--no-memory=false"])
    if all(expect_exit("draw --no-memory", p, 0) for p in (on, on_eq, off_eq)):
        if on.stdout != on_eq.stdout or off_eq.stdout.decode() != base_svg:
            fail("draw --no-memory", "=true / =false differ from given / not")
        if on.stdout.decode() == base_svg:
            fail("draw --no-memory", "has no effect")
    path = os.path.join(tmp, "fig.svg")
    for args in (["-o", path], ["--output", path], ["--output=" + path]):
        if os.path.exists(path):
            os.remove(path)
        proc = run(ixa, ["draw", "--shape", shape] + args)
        if expect_exit("draw %s" % args, proc, 0) and (
                proc.stdout or open(path).read() != base_svg):
            fail("draw %s" % args, "the SVG did not go to the file")
    # draw, nested form: every list flag and number flag, each against the
    # same layout without it.
    threads = [("--thread-tile", "4,8")]
    subgroups = threads + [("--subgroup-tile", "2,2")]
    for before, flag, value in (
            ([], "--thread-tile", "4,8"),
            (threads, "--subgroup-tile", "2,1"),
            (threads, "--batch-tile", "1,2"),
            (threads, "--outer-tile", "2,1"),
            (threads, "--element-tile", "1,4"),
            (subgroups, "--subgroup-strides", "1,2"),
            (threads, "--thread-strides", "1,4"),
            (threads, "--subgroup-size", "16"),
            (threads, "--num-subgroups", "2")):
        without = run(ixa, ["draw"] + [x for p in before for x in p])
        out = same_both_ways(ixa, "draw %s" % flag, ["draw"],
                             before + [(flag, value)])
        if out is not None and out.encode() == without.stdout:
            fail("draw %s=%s" % (flag, value), "has no effect")
    # draw, shared-tile form: each optional flag against the picture
    # without it.
    pairs = "(d0) -> (d0 floordiv 16, (d0 mod 16) * 2), domain: d0 in [0, 63]"
    tile = [("--tile", "32,32"), ("--dtype", "f32"), ("--write", pairs),
            ("--read", pairs)]
    without = same_both_ways(ixa, "draw --tile", ["draw"], tile)
    for flag, value in (("--access", "write"), ("--write-vector", "2"),
                        ("--read-vector", "2")):
        out = same_both_ways(ixa, "draw %s" % flag, ["draw"],
                             tile + [(flag, value)])
        if out is not None and out == without:
            fail("draw %s=%s" % (flag, value), "has no effect")
    # devices.
    table = run(ixa, ["devices"])
    json_lines = run(ixa, ["devices", "--json"])
    for args, want in ((["--json=true"], json_lines),
                       (["--json=false"], table)):
        proc = run(ixa, ["devices"] + args)
        if expect_exit("devices %s" % args, proc, 0) and \
                proc.stdout != want.stdout:
            fail("devices %s" % args, "differs")
    if table.stdout == json_lines.stdout:
        fail("devices --json", "has no effect")


def check_usage_errors(ixa, tmp):
    hlo = os.path.join(tmp, "fusion.hlo")
    cpp = ["emit", "--target", "cpp"]
    cases = [
        # (args, the flag or word the message must name)
        (["emit", "--no-such-flag", hlo], "--no-such-flag"),
        (["emit", "--no-such-flag=1", hlo], "--no-such-flag"),
        (["emit", hlo, "--target"], "--target"),
        (["emit", "--target=nope", hlo], "--target"),
        (["emit", "--target", "nope", hlo], "--target"),
        (["emit", hlo], "--target"),
        (cpp, "file"),
        (cpp + [hlo, hlo], "file"),
        (cpp + ["--device=nope", hlo], "--device"),
        (cpp + ["--device=tpu_v5e", hlo], "--device"),
        (cpp + ["--kernel=1abc", hlo], "--kernel"),
        (cpp + ["--stages=maybe", hlo], "--stages"),
        (cpp + ["--host", hlo], "--host"),
        (cpp + ["--arch=a5", hlo], "--arch"),
        (cpp + [hlo, "-o"], "-o"),
        (["emit"] + PTO + [hlo], "FILE"),
        (["emit"] + PTO + ["--fusion=f"], "--fusion"),
        (["emit"] + PTO + ["--stages"], "--stages"),
        (["emit"] + PTO[:-2], "--shape"),
        (["emit"] + PTO[:-2] + ["--shape=2,x,3,4"], "--shape"),
        (["emit"] + PTO[:-2] + ["--shape=2,,3,4"], "--shape"),
        (["emit"] + PTO[:-2] + ["--shape="], "--shape"),
        (["emit"] + PTO + ["--arch=a9"], "--arch"),
        (["emit"] + PTO + ["--dtype=f33"], "--dtype"),
        (["emit"] + PTO + ["--conversion=nchw_to_x"], "--conversion"),
        (["emit"] + PTO + ["--order=z_major"], "--order"),
        (["draw"], "--shape"),
        (["draw", "--no-such-flag"], "--no-such-flag"),
        (["draw", "--shape"], "--shape"),
        (["draw", "--shape=f32[4]", "--thread-tile=4"], "--thread-tile"),
        (["draw", "--shape=f32[4]", "--batch-tile=4"], "--batch-tile"),
        (["draw", "--shape=f32[4]", "--cell=abc"], "--cell"),
        (["draw", "--shape=f32[4]", "--cell=0"], "--cell"),
        (["draw", "--shape=f32[4]", "--cell", "12px"], "--cell"),
        (["draw", "--shape=f32[4]", "--cell=201"], "--cell"),
        (["draw", "--shape=f32[4]", "--no-memory=maybe"], "--no-memory"),
        (["draw", "--shape=f32[4]", "extra.svg"], "extra.svg"),
        (["draw", "--thread-tile=4,x"], "--thread-tile"),
        (["draw", "--thread-tile=4", "--subgroup-size=0"], "--subgroup-size"),
        (["draw", "--thread-tile=4", "--num-subgroups=4097"],
         "--num-subgroups"),
        (["draw", "--thread-tile=4", "--no-memory"], "--no-memory"),
        (["devices", "--no-such-flag"], "--no-such-flag"),
        (["devices", "--json=maybe"], "--json"),
        (["devices", "extra"], "extra"),
        (["rules", "--no-such-flag"], "--no-such-flag"),
        (["rules", "--json=maybe"], "--json"),
        (["rules", "extra"], "extra"),
    ]
    for args, names in cases:
        what = "usage error %s" % args
        proc = run(ixa, args)
        if not expect_exit(what, proc, 64):
            continue
        lines = proc.stderr.decode().splitlines()
        if proc.stdout:
            fail(what, "wrote to standard output: %r" % proc.stdout[:200])
        if len(lines) < 2 or not lines[1].startswith("usage: ixa %s"
                                                     % args[0]):
            fail(what, "expected one message line, then the usage: %r"
                 % lines[:3])
            continue
        if not lines[0].startswith("ixa %s: " % args[0]) or \
                names.lower() not in lines[0].lower():
            fail(what, "the message does not name %s: %r" % (names, lines[0]))


def check_input_errors(ixa, tmp):
    bad = os.path.join(tmp, "bad.hlo")
    with open(bad, "w") as f:
        f.write(BAD_HLO)
    good = os.path.join(tmp, "fusion.hlo")

    def expect_error(what, proc, code, prefix, message):
        if not expect_exit(what, proc, code):
            return
        err = proc.stderr.decode()
        line = err.splitlines()[0] if err else ""
        if not line.startswith(prefix + ": " + message):
            fail(what, "expected %r on standard error, got %r"
                 % (prefix + ": " + message, err[:300]))
        if proc.stdout:
            fail(what, "wrote to standard output: %r" % proc.stdout[:200])

    msg = "error: unknown opcode 'exponentail'; did you mean 'exponential'?"
    expect_error("emit FILE with a bad opcode",
                 run(ixa, ["emit", "--target", "cpp", bad]), 1,
                 bad + ":5:19", msg)
    expect_error("emit - with a bad opcode",
                 run(ixa, ["emit", "--target=cuda", "-"],
                     BAD_HLO.encode()), 1, "<stdin>:5:19", msg)
    expect_error("emit: an error without a place",
                 run(ixa, ["emit", "--target", "cpp", "--fusion", "nosuch",
                           good]), 1, good, "error: ")
    expect_error("emit: pto conversion refused",
                 run(ixa, ["emit"] + PTO[:-1] + ["2,20,3"]), 1,
                 "ixa emit", "error: ")
    missing = os.path.join(tmp, "missing.hlo")
    expect_exit("emit: FILE missing",
                run(ixa, ["emit", "--target", "cpp", missing]), 66)
    expect_exit("emit: FILE a directory",
                run(ixa, ["emit", "--target", "cpp", tmp]), 66)
    unwritable = os.path.join(tmp, "no", "such", "dir", "out.c")
    expect_exit("emit: output cannot be written",
                run(ixa, ["emit", "--target", "cpp", "-o", unwritable, good]),
                73)
    if os.path.exists(unwritable):
        fail("emit: output cannot be written", "the file exists")
    expect_exit("draw: output cannot be written",
                run(ixa, ["draw", "--shape=f32[4]", "--output", unwritable]),
                73)
    expect_error("draw: a bad --shape",
                 run(ixa, ["draw", "--shape", "f32[3,5"]), 1, "<--shape>:1:8",
                 "error: ")
    expect_error("draw: an invalid nested layout",
                 run(ixa, ["draw", "--thread-tile=4,8", "--batch-tile=2"]), 1,
                 "ixa draw", "error: ")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            for args in (["devices"], ["emit", "--target", "cpp", good],
                         ["draw", "--shape=f32[4]"]):
                proc = subprocess.run([ixa] + args, stdout=full,
                                      stderr=subprocess.PIPE, timeout=120)
                expect_exit("%s > /dev/full" % args, proc, 73)


def check_help_and_query_flags(ixa, tmp):
    """`ixa help COMMAND` is the command's --help; `ixa version --help`
    prints its usage; ixa query's flag errors name the flag without the
    top-level usage; unreadable files are reported with the system's
    reason."""
    # (`ixa help emit` is the op emit's help: an op wins over a command.)
    for command in ("query", "draw", "devices"):
        what = "ixa help %s" % command
        proc = run(ixa, ["help", command])
        if expect_exit(what, proc, 0):
            own = run(ixa, [command, "--help"])
            if proc.stdout != own.stdout:
                fail(what, "differs from `ixa %s --help`: %r" % (
                    command, proc.stdout[:200]))
    for args in (["version", "--help"], ["version", "-h"], ["help", "version"]):
        proc = run(ixa, args)
        if expect_exit(" ".join(args), proc, 0) and \
                not proc.stdout.startswith(b"usage: ixa version"):
            fail(" ".join(args), "does not print the usage: %r"
                 % proc.stdout[:200])
    proc = run(ixa, ["version"])
    if expect_exit("version", proc, 0) and not proc.stdout.startswith(b"ixa "):
        fail("version", "prints %r" % proc.stdout[:100])
    expect_exit("version extra", run(ixa, ["version", "extra"]), 64)
    for args, flag in ((["--jobs=0"], "--jobs"), (["--jobs", "x"], "--jobs"),
                       (["--jobs=257"], "--jobs"),
                       (["--budget-ms=0"], "--budget-ms"),
                       (["--syntax"], "--syntax"),
                       (["--syntax=xla"], "--syntax")):
        what = "query %s" % args
        proc = run(ixa, ["query"] + args)
        if not expect_exit(what, proc, 64):
            continue
        err = proc.stderr.decode()
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("ixa query: ") or \
                flag not in lines[0]:
            fail(what, "expected one line naming %s, got %r" % (flag, err[:300]))
    missing = os.path.join(tmp, "no-such-file.jsonl")
    for args, reason in (
            (["query", missing], "No such file or directory"),
            (["query", tmp], "Is a directory"),
            (["emit", "--target", "cpp", missing], "No such file or directory"),
            (["emit", "--target", "cpp", tmp], "Is a directory")):
        what = "%s: the reason" % args
        proc = run(ixa, args)
        if expect_exit(what, proc, 66) and reason not in proc.stderr.decode():
            fail(what, "does not say %r: %r" % (reason, proc.stderr[:300]))


def check_compile_tf32(ixa, tmp):
    """`ixa compile --tf32` puts an f32 dot on TF32 tensor cores (cuda
    only: another target is an error, exit 1); without it the kernel has
    no TF32 fragment."""
    path = os.path.join(tmp, "matmul.hlo")
    with open(path, "w") as f:
        f.write("HloModule m\nENTRY e {\n p = f32[64,64] parameter(0)\n"
                " q = f32[64,64] parameter(1)\n ROOT d = f32[64,64] dot(p, q),"
                " lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n")
    proc = run(ixa, ["compile", "--target", "cuda", "--tf32", path])
    if expect_exit("compile --tf32", proc, 0) and \
            b"precision::tf32" not in proc.stdout:
        fail("compile --tf32", "no TF32 fragment in the program")
    proc = run(ixa, ["compile", "--target", "cuda", path])
    if expect_exit("compile without --tf32", proc, 0) and \
            b"precision::tf32" in proc.stdout:
        fail("compile without --tf32", "a TF32 fragment in the program")
    proc = run(ixa, ["compile", "--target", "cpp", "--tf32", path])
    if expect_exit("compile --target cpp --tf32", proc, 1) and \
            b"'tf32' applies to target cuda only" not in proc.stderr:
        fail("compile --target cpp --tf32", "says %r" % proc.stderr[:300])


def query(ixa, requests, args=()):
    """Runs `ixa query` over the request objects; the response objects."""
    import json
    stdin = "".join(json.dumps(r) + "\n" for r in requests).encode()
    proc = run(ixa, ["query"] + list(args), stdin)
    return proc, [json.loads(l) for l in proc.stdout.decode().splitlines()]


def check_devices(ixa, tmp):
    """Every line of `ixa devices --json` reads back, as a `device` object,
    as the device it describes; `--devices FILE` adds a user's table to
    query, emit and devices."""
    import json
    cost = {"op": "fusion_cost", "hlo": HLO}
    lines = run(ixa, ["devices", "--json"]).stdout.decode().splitlines()
    if len(lines) < 5:
        fail("devices --json", "only %d devices" % len(lines))
    for line in lines:
        device = json.loads(line)
        what = "device %s round trip" % device.get("name")
        for model in ("ixa", "xla"):
            _, responses = query(ixa, [
                dict(cost, id=1, device=device["name"], model=model),
                dict(cost, id=1, device=device, model=model)])
            if len(responses) != 2 or responses[0] != responses[1]:
                fail(what, "as a name and as its JSON they answer %s"
                     % [json.dumps(r)[:200] for r in responses])
    # A user's table: JSON Lines (the second entry starts from the first),
    # and the same as a JSON list.
    mine = {"name": "mine", "base": "h100", "dram_gbps": 2000}
    faster = {"name": "mine_faster", "base": "mine", "sm_count": 264}
    for form, text in (("lines", "%s\n\n%s\n" % (json.dumps(mine),
                                                  json.dumps(faster))),
                       ("list", json.dumps([mine, faster]))):
        path = os.path.join(tmp, "devices-%s.json" % form)
        with open(path, "w") as f:
            f.write(text)
        what = "--devices (%s)" % form
        proc, responses = query(ixa, [
            dict(cost, id=1, device="mine"), dict(cost, id=2, device="mine_faster"),
            dict(cost, id=3, device={"base": "mine_faster", "clock_ghz": 1.0})],
            ["--devices", path])
        if not expect_exit(what, proc, 0):
            continue
        names = [r.get("device") for r in responses]
        if names != ["mine", "mine_faster", "mine_faster-custom"]:
            fail(what, "answers for devices %s" % names)
        listed = run(ixa, ["devices", "--json", "--devices=" + path])
        if expect_exit(what + " devices", listed, 0):
            first = [json.loads(l)["name"]
                     for l in listed.stdout.decode().splitlines()[:2]]
            if first != ["mine", "mine_faster"]:
                fail(what + " devices", "lists %s first" % first)
        emitted = run(ixa, ["emit", "--target", "cuda", "--devices", path,
                            "--device", "mine_faster", "-"], HLO.encode())
        expect_exit(what + " emit --device mine_faster", emitted, 0)
    # Without the table the name is unknown.
    _, responses = query(ixa, [dict(cost, id=1, device="mine")])
    if responses[0].get("error", {}).get("code") != "invalid_argument":
        fail("unknown user device", "answers %s" % json.dumps(responses[0])[:200])
    # Bad tables: exit 1 with FILE:LINE:COL: error naming the entry, 66
    # when the file cannot be read.
    bad_tables = [
        ('{"name": "h100", "dram_gbps": 1}\n', ":1:1: error: ", "'h100' is taken"),
        ('{"name": "a"}\n{"name": "a"}\n', ":2:1: error: ", "'a' is taken"),
        ('\n{"name": "a", "sm_count": -4}\n', ":2:1: error: ", "'sm_count'"),
        ('{"base": "h100"}\n', ":1:1: error: ", "\"name\""),
        ('{"name": "a", "base": "nope"}\n', ":1:1: error: ", "'nope'"),
        ('not json\n', ":1:1: error: ", "not JSON"),
        ('[{"name": "a", "warp_size": "x"}]', ": error: ", "'warp_size'"),
    ]
    for k, (text, where, says) in enumerate(bad_tables):
        path = os.path.join(tmp, "bad-devices-%d.json" % k)
        with open(path, "w") as f:
            f.write(text)
        for args in (["query", "--devices", path],
                     ["devices", "--devices", path],
                     ["emit", "--target", "cpp", "--devices", path, "-"]):
            what = "%s with a bad table %r" % (args[0], text)
            proc = run(ixa, args, HLO.encode() if args[0] == "emit" else b"")
            if not expect_exit(what, proc, 1):
                continue
            err = proc.stderr.decode()
            if not err.startswith(path + where) or says not in err:
                fail(what, "expected %r and %r, got %r"
                     % (path + where, says, err[:300]))
    missing = os.path.join(tmp, "no-devices.json")
    for args in (["query", "--devices", missing],
                 ["devices", "--devices", missing]):
        proc = run(ixa, args)
        if expect_exit("%s: missing table" % args, proc, 66) and \
                "No such file or directory" not in proc.stderr.decode():
            fail("%s: missing table" % args, "no reason: %r" % proc.stderr[:200])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ixa = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        check_help(ixa)
        check_flag_forms(ixa, tmp)
        check_usage_errors(ixa, tmp)
        check_input_errors(ixa, tmp)
        check_help_and_query_flags(ixa, tmp)
        check_devices(ixa, tmp)
        check_compile_tf32(ixa, tmp)
    print("check_commands: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
