#!/usr/bin/env python3
"""An independent differential tester of `ixa query` (stdlib only).

  difftest.py IXA [--seed S] [--cases N | --seconds T] [--shrink] [--out F]

It shares no code and no assumptions with the C++ sources or their tests
(tests/simplifier/fuzz_lib.cc, tests/fuzz/): maps are generated here, printed
by this file's own renderer (random spacing, parentheses, operator
spellings, `16d0` shorthand, custom names, optional commas, symbolic `/` and
`%`), and every answer is checked against this file's own parser and
evaluator of docs/indexing.md, in exact (Python) integer arithmetic:

  floordiv rounds toward -inf, ceildiv toward +inf, mod takes the sign of
  the divisor (a == (a floordiv c) * c + a mod c), a zero divisor is
  undefined; a value that does not fit in int64 must be an error, never a
  wrong number.

Checks, per op (docs/protocol.md):
  parse        the print re-parses (here and in ixa) to the same function,
               the same names, and print(parse(print(m))) == print(m)
  simplify     equal to the input at every point of the (hull of the) boxes,
               same domain, idempotent, no more div/mod nodes in the results,
               `changed: false` only when the print equals parse's
  compose      equal to the pointwise composition (symbols ordered
               [range(last)..range(first), rt(last)..rt(first)])
  is_empty, equivalent, bounds, evaluate
               exact against enumeration (small boxes) or consistent with
               sampled points (large boxes, int64 limits)
  remove_unused_symbols / remove_unused_vars / rescale_symbols /
  convert_symbols_to_dims
               preserve the function (the relation dims -> results, or the
               image for remove_unused_vars)
  garbage      mutated and hostile lines: one JSON response per line, an
               error code of docs/protocol.md, never `internal`, a crash, a hang or
               exit code 70

Failures are shrunk (--shrink, on by default in manual mode) to a minimal
request and printed as JSON Lines. Exit status: 0 when no failure, 1 when
some, 77 when IXA cannot be run (CTest skips).
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

# The modules next to this file (mapdt_*.py), from any current directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mapdt_cases import err_code, protocol_problem  # noqa: E402
from mapdt_cases_more import RawCase  # noqa: E402
from mapdt_casegen import gen_case  # noqa: E402


# ---------------------------------------------------------------------------
# Running ixa.
# ---------------------------------------------------------------------------

class Runner:
    def __init__(self, ixa, timeout_per_line=5.0, log=None):
        self.ixa = ixa
        self.timeout_per_line = timeout_per_line
        self.requests = 0
        self.processes = 0
        self.log = log

    def run_raw(self, lines, timeout, env=None, args=()):
        data = b''.join(l + b'\n' for l in lines)
        self.processes += 1
        self.requests += len(lines)
        e = dict(os.environ)
        if env:
            e.update(env)
        try:
            p = subprocess.run([self.ixa, 'query'] + list(args) + ['-'],
                               input=data, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout, env=e)
        except subprocess.TimeoutExpired:
            return None, None, b''
        return p.returncode, p.stdout.split(b'\n')[:-1] if p.stdout else [], \
            p.stderr

    def run(self, lines, env=None, args=()):
        """Runs lines; returns (responses, problems): one response per line
        (a dict, or None where the line crashed / hung) and a list of
        (line index, problem) for crashes, hangs, exit codes, non-JSON."""
        problems = []
        out = [None] * len(lines)
        self._run_into(lines, 0, out, problems, env, args)
        return out, problems

    def _run_into(self, lines, base, out, problems, env, args):
        if not lines:
            return
        timeout = 10 + self.timeout_per_line * min(len(lines), 4) + \
            0.05 * len(lines)
        t0 = time.time()
        rc, resp, err = self.run_raw(lines, timeout, env, args)
        elapsed = time.time() - t0
        if rc is None:
            if len(lines) == 1:
                problems.append((base, 'hang: no answer within %.0f s' %
                                 elapsed))
                return
            h = len(lines) // 2
            self._run_into(lines[:h], base, out, problems, env, args)
            self._run_into(lines[h:], base + h, out, problems, env, args)
            return
        if len(lines) == 1 and elapsed > self.timeout_per_line:
            problems.append((base, 'slow: %.1f s for one request' % elapsed))
        elif len(lines) > 1 and elapsed > self.timeout_per_line + \
                0.02 * len(lines) and rc is not None and rc >= 0:
            # Slower than a batch of small maps should be: find the slow
            # request(s) by halves (each answers again).
            h = len(lines) // 2
            self._run_into(lines[:h], base, out, problems, env, args)
            self._run_into(lines[h:], base + h, out, problems, env, args)
            return
        n = min(len(resp), len(lines))
        for i in range(n):
            try:
                out[base + i] = json.loads(resp[i])
            except ValueError:
                problems.append((base + i, 'response is not JSON: %r' %
                                 resp[i][:200]))
        if len(resp) > len(lines):
            problems.append((base, 'more responses than requests'))
        crashed = rc < 0 or rc not in (0, 1, 70)
        if len(resp) < len(lines) or crashed:
            if len(lines) == 1:
                problems.append((base, 'crash: exit %s, stderr %r' %
                                 (rc, err[-300:])))
            elif len(resp) >= len(lines):
                problems.append((base, 'exit code %s, stderr %r' %
                                 (rc, err[-300:])))
            else:
                # The line after the last answer (or one after it, when
                # answers were lost in a buffer) crashed the process.
                self._run_into(lines[n:n + 1], base + n, out, problems, env,
                               args)
                self._run_into(lines[n + 1:], base + n + 1, out, problems,
                               env, args)
            return
        if rc == 70:
            internal = [i for i in range(n) if isinstance(out[base + i], dict)
                        and err_code(out[base + i]) == 'internal']
            if not internal:
                problems.append((base, 'exit code 70 without an internal '
                                 'error response'))


# ---------------------------------------------------------------------------
# Driver.
# ---------------------------------------------------------------------------

def case_lines(case, reqs):
    if isinstance(case, RawCase):
        return [case.line]
    return [json.dumps(q).encode() for q in reqs]


def run_cases(runner, cases, extra_env=None):
    """Runs the cases' requests and follow-ups in two batches; returns a
    list of (case, failure) pairs."""
    lines = []
    owners = []
    reqs_of = []
    for ci, case in enumerate(cases):
        reqs = case.requests() if not isinstance(case, RawCase) else [None]
        for j, q in enumerate(reqs):
            if q is not None:
                q = dict(q)
                q['id'] = len(lines)
            reqs[j] = q
        reqs_of.append(reqs)
        for q in reqs:
            lines.append(case.line if q is None else json.dumps(q).encode())
            owners.append(ci)
    resp, problems = runner.run(lines, env=extra_env)
    fails = []
    for idx, p in problems:
        if idx < len(owners):
            fails.append((cases[owners[idx]], p))
    bad = set(owners[idx] for idx, _ in problems if idx < len(owners))
    per_case = [[] for _ in cases]
    for idx, r in enumerate(resp):
        per_case[owners[idx]].append(r)
    # Protocol shape of every response.
    seen = [0] * len(cases)
    for idx, r in enumerate(resp):
        ci = owners[idx]
        k = seen[ci]
        seen[ci] += 1
        if ci in bad or r is None:
            continue
        q = None if isinstance(cases[ci], RawCase) else reqs_of[ci][k]
        p = protocol_problem(q, r)
        if p:
            fails.append((cases[ci], p))
            bad.add(ci)
    # Follow-ups.
    flines, fowners, freqs_of = [], [], [[] for _ in cases]
    for ci, case in enumerate(cases):
        if ci in bad:
            continue
        for q in case.followups(per_case[ci]):
            q = dict(q)
            q['id'] = 'f%d' % len(flines)
            freqs_of[ci].append(q)
            flines.append(json.dumps(q).encode())
            fowners.append(ci)
    fresp_of = [[] for _ in cases]
    if flines:
        fresp, fproblems = runner.run(flines, env=extra_env)
        for idx, p in fproblems:
            fails.append((cases[fowners[idx]], 'follow-up: ' + p))
            bad.add(fowners[idx])
        for idx, r in enumerate(fresp):
            fresp_of[fowners[idx]].append(r)
            if r is not None and fowners[idx] not in bad:
                p = protocol_problem(freqs_of[fowners[idx]][
                    len(fresp_of[fowners[idx]]) - 1], r)
                if p:
                    fails.append((cases[fowners[idx]], 'follow-up: ' + p))
                    bad.add(fowners[idx])
    for ci, case in enumerate(cases):
        if ci in bad:
            continue
        try:
            for f in case.check(reqs_of[ci], per_case[ci], freqs_of[ci],
                                fresp_of[ci]):
                fails.append((case, f))
        except RecursionError:
            pass
    return fails


def failure_kind(msg):
    """The part of a failure message that a shrunk case must keep."""
    m = re.match(r'[^:]*:\s*[^:0-9\[]*', msg)
    return m.group(0) if m else msg[:40]


def shrink(runner, case, msg, budget):
    kind = failure_kind(msg)
    best, best_msg = case, msg
    calls = 0
    improved = True
    while improved and calls < budget:
        improved = False
        w = best.weight()
        for cand in best.shrink_candidates():
            if calls >= budget:
                break
            if cand.weight() >= w:
                continue
            calls += 1
            fs = run_cases(runner, [cand])
            hit = [f for _, f in fs if failure_kind(f) == kind]
            if hit:
                best, best_msg = cand, hit[0]
                improved = True
                break
    return best, best_msg


def repro_lines(case):
    if isinstance(case, RawCase):
        return [case.line.decode('utf-8', 'replace')]
    return [json.dumps(q) for q in case.requests()[:1]]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('ixa', nargs='?', default='build/bin/ixa')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--cases', type=int, default=None,
                    help='number of cases (default 400, or unlimited with '
                    '--seconds)')
    ap.add_argument('--seconds', type=float, default=None,
                    help='keep generating batches for this long')
    ap.add_argument('--batch', type=int, default=150)
    ap.add_argument('--shrink', dest='shrink', action='store_true',
                    default=None)
    ap.add_argument('--no-shrink', dest='shrink', action='store_false')
    ap.add_argument('--shrink-budget', type=int, default=400)
    ap.add_argument('--max-failures', type=int, default=20)
    ap.add_argument('--out', default=None,
                    help='append the minimal reproducers (JSON Lines) here')
    ap.add_argument('--no-path-compare', action='store_true',
                    help='skip the fast-path / --jobs byte comparisons')
    ap.add_argument('--slow', type=float, default=5.0,
                    help='a request slower than this many seconds is a '
                    'failure (default 5)')
    ap.add_argument('--verbose', '-v', action='store_true')
    args = ap.parse_args(argv)
    if not (os.path.isfile(args.ixa) and os.access(args.ixa, os.X_OK)):
        print('difftest: cannot run %s: skipped' % args.ixa)
        return 77
    sys.setrecursionlimit(10000)
    shrink_on = args.shrink if args.shrink is not None else \
        args.seconds is not None
    total = args.cases if args.cases is not None else (
        None if args.seconds else 400)
    runner = Runner(args.ixa, timeout_per_line=args.slow)
    rng = random.Random(args.seed)
    t0 = time.time()
    ncases = 0
    batches = 0
    failures = []
    seen_kinds = set()
    compared = 0
    while True:
        if total is not None and ncases >= total:
            break
        if args.seconds is not None and time.time() - t0 > args.seconds:
            break
        n = args.batch if total is None else min(args.batch, total - ncases)
        cases = [gen_case(rng) for _ in range(n)]
        ncases += n
        batches += 1
        fails = run_cases(runner, cases)
        if not args.no_path_compare and batches % 4 == 1:
            compared += compare_paths(runner, cases, fails)
        for case, msg in fails:
            kind = (case.op, failure_kind(msg))
            if kind in seen_kinds:
                continue
            seen_kinds.add(kind)
            if shrink_on:
                case, msg = shrink(runner, case, msg, args.shrink_budget)
            failures.append((case, msg))
            print('FAIL [%s] %s' % (case.op, msg))
            for line in repro_lines(case):
                print('  repro: %s' % line)
            sys.stdout.flush()
            if args.out:
                with open(args.out, 'a') as f:
                    for line in repro_lines(case):
                        f.write(line + '\n')
        if len(failures) >= args.max_failures:
            break
        if args.verbose:
            print('.. %d cases, %d requests, %.1f s' % (
                ncases, runner.requests, time.time() - t0))
    print('difftest: seed %d, %d cases, %d requests in %d processes, '
          '%d path comparisons, %.1f s: %d distinct failure(s)' % (
              args.seed, ncases, runner.requests, runner.processes, compared,
              time.time() - t0, len(failures)))
    return 1 if failures else 0


def compare_paths(runner, cases, fails):
    """The fast JSON path, the general path and --jobs 2 answer alike."""
    lines = []
    for case in cases:
        if isinstance(case, RawCase):
            lines.append(case.line)
        else:
            for q in case.requests():
                lines.append(json.dumps(q).encode())
    timeout = 60 + 0.2 * len(lines)
    a = runner.run_raw(lines, timeout)
    b = runner.run_raw(lines, timeout, env={'IXA_QUERY_FAST_JSON': '0'})
    c = runner.run_raw(lines, timeout, args=['--jobs', '2'])
    if a[0] is None or b[0] is None or c[0] is None:
        return 0
    for other, what in ((b, 'IXA_QUERY_FAST_JSON=0'), (c, '--jobs 2')):
        if other[1] != a[1] or other[0] != a[0]:
            for i, (x, y) in enumerate(zip(a[1], other[1])):
                if x != y:
                    fails.append((RawCase(lines[i]),
                                  'answer differs with %s: %r vs %r' % (
                                      what, x[:300], y[:300])))
                    break
            else:
                fails.append((RawCase(lines[0]), 'exit code or response '
                              'count differs with %s' % what))
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
