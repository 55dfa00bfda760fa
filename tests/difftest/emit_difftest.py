#!/usr/bin/env python3
"""Differential test of `ixa emit --target cpp` against an independent HLO
interpreter (tests/difftest/*.py: Python 3 standard library only).

Random fusions are generated (gen.py, recipes.py), emitted by ixa (the
`emit` op of `ixa query`, for the kernel code and its `buffers`), compiled
with g++ -std=c++17 -O2 -shared -fPIC, loaded with ctypes and run on
random inputs laid out physically; the outputs are compared with the
interpreter's (interp.py): bit-exact for data movement, integers and
comparisons, floats within the tolerance of docs/emitters.md §3.

    emit_difftest.py --ixa build/bin/ixa [--count N] [--seed S] [--jobs J]
                     [--recipe NAME] [--keep DIR] [--separate-alias]

Exit status: 0 when every emitted fusion matched, 1 on a mismatch (each
printed with its HLO), 77 when python3 or g++ is missing (CTest skip).
"""
import argparse
import collections
import concurrent.futures
import ctypes
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import inputs as I  # noqa: E402
import numerics as N  # noqa: E402
from gen import Gen, RECIPES  # noqa: E402
from hlo import leaves  # noqa: E402
from interp import Arr, Interpreter, identity_inits  # noqa: E402

SKIP = 77
# An H100 with one core and few threads per core: the loop emitter unrolls
# and vectorizes, the transpose emitter vectorizes, at test sizes.
SMALL_GPU = {'name': 'small', 'vendor': 'nvidia', 'smem_bytes_per_sm': 233472,
             'dram_gbps': 3352.32, 'peak_tflops_fp32': 67,
             'peak_tflops_bf16': 989, 'sm_count': 1,
             'threads_per_block_limit': 1024, 'threads_per_core': 256,
             'shared_memory_per_block': 49152,
             'shared_memory_per_block_optin': 232448, 'clock_ghz': 1.98,
             'l2_bytes': 52428800, 'fpus_per_core': 128}


def recipe_for(i, args):
    if args.recipe:
        return args.recipe
    names = sorted(RECIPES)
    return names[i % len(names)]


def build(seed, recipe):
    return Gen(seed, recipe).generate()


# ------------------------------------------------------------ kernel run
def run_kernel(so_path, kernel, bufs, alias_of, timeout):
    """Runs the kernel in a child process (a crash stays there); returns
    (status, output buffers)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            signal.alarm(timeout)
            lib = ctypes.CDLL(so_path)
            fn = getattr(lib, kernel)
            mem = []
            for i, b in enumerate(bufs):
                if alias_of[i] is not None:
                    mem.append(mem[alias_of[i]])
                else:
                    mem.append((ctypes.c_char * max(len(b), 1)).from_buffer(
                        bytearray(b) if b else bytearray(1)))
            ptrs = (ctypes.c_void_p * len(mem))(
                *[ctypes.addressof(m) for m in mem])
            fn(ptrs)
            out = b''
            for m, b in zip(mem, bufs):
                out += bytes(m)[:len(b)]
            view = memoryview(out)
            while view:
                n = os.write(w, view[:65536])
                view = view[n:]
            os._exit(0)
        except BaseException:  # noqa: B902
            os._exit(3)
    os.close(w)
    chunks = []
    while True:
        c = os.read(r, 1 << 20)
        if not c:
            break
        chunks.append(c)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return ('timeout' if sig == signal.SIGALRM else 'crash (signal %d)' %
                sig), None
    if os.WEXITSTATUS(status) != 0:
        return 'crash (exit %d)' % os.WEXITSTATUS(status), None
    data = b''.join(chunks)
    outs, off = [], 0
    for b in bufs:
        outs.append(data[off:off + len(b)])
        off += len(b)
    return 'ok', outs


# ------------------------------------------------------------- compare
def element_ok(t, ev, gv, err):
    if err == math.inf:
        return True
    if err == 0:
        if ev == gv:
            return True
        return (N.is_float(t) and N.is_nan_bits(ev, t) and
                N.is_canonical_nan(ev, t) and bool(N.is_nan_bits(gv, t)))
    x, y = N.decode(ev, t), N.decode(gv, t)
    if x != x:
        return y != y
    if abs(x) == math.inf:
        return x == y
    return y == y and abs(x - y) <= err


def describe(t, v):
    if N.is_float(t):
        return '%s (0x%x)' % (N.decode(v, t), v)
    return str(v)


def shape_text(shape):
    s = shape.text()
    if shape.layout is None and shape.rank > 0:
        s += N.default_layout(shape.rank).text()
    return s


def check_one(task):
    try:
        return check_one_inner(task)
    except Exception as e:  # a bug of this tool: report, do not stop
        import traceback
        return {'i': task[0], 'seed': task[1], 'recipe': task[2],
                'emitter': '?', 'status': 'harness error',
                'details': [traceback.format_exc(limit=4)]}


def check_one_inner(task):
    """Compiles, runs and compares one emitted fusion."""
    i, seed, recipe, response, workdir, opts = task
    module = build(seed, recipe)
    comp = module.fusion
    res = {'i': i, 'seed': seed, 'recipe': recipe,
           'unroll': response.get('launch', {}).get('unroll', 1),
           'vector_size': response.get('launch', {}).get('vector_size', 1),
           'emitter': response.get('emitter', '?') +
           ('/' + response['reduction_kind'] if 'reduction_kind' in response
            else ''), 'status': 'pass', 'details': []}
    outs = leaves(comp.root.shape)
    bufs_json = response['buffers']
    ours = [p.shape for p in comp.params] + outs
    if len(bufs_json) != len(ours) or any(
            b['shape'].replace(' ', '') != shape_text(s).replace(' ', '')
            for b, s in zip(bufs_json, ours)):
        res['status'] = 'buffers'
        res['details'].append('ixa buffers %s, expected %s' % (
            [b['shape'] for b in bufs_json], [shape_text(s) for s in ours]))
        return res
    if any(N.bits(s.t) < 8 for s in ours):
        res['status'] = 'skipped'  # sub-byte packing is not modelled here
        res['details'].append('sub-byte buffers emitted: not checked')
        return res
    src = os.path.join(workdir, 'k%d.cc' % i)
    so = os.path.join(workdir, 'k%d.so' % i)
    with open(src, 'w') as f:
        f.write(response['code'])
    cmd = ['g++', '-std=c++17', '-O2', '-shared', '-fPIC', '-o', so, src]
    if opts.get('ubsan'):
        cmd[3:3] = ['-fsanitize=undefined,float-cast-overflow',
                      '-fno-sanitize-recover=all']
    cc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if cc.returncode != 0:
        res['status'] = 'compile'
        res['details'].append(cc.stderr[:2000])
        return res
    rng = random.Random(seed * 7919 + 17)
    args, bufs = [], []
    inits = identity_inits(comp)
    for p in comp.params:
        n = p.shape.count()
        vals = I.values(rng, p.shape.t, n, module_dist(module, p))
        if p.a['number'] in inits:
            vals = [inits[p.a['number']]] * n
        args.append(Arr(p.shape, vals))
        bufs.append(I.to_buffer(rng, p.shape, vals))
    alias_of = [None] * len(bufs)
    for k, s in enumerate(outs):
        b = bufs_json[len(comp.params) + k]
        if 'aliases' in b and not opts.get('separate_alias'):
            if I.buffer_size(s) != len(bufs[b['aliases']]) or \
                    shape_text(s) != shape_text(comp.params[b['aliases']].shape):
                res['status'] = 'alias'
                res['details'].append(
                    'output %d is in place in input %d of another shape/layout'
                    ' (%s vs %s)' % (k, b['aliases'], shape_text(s), shape_text(
                        comp.params[b['aliases']].shape)))
                return res
            alias_of.append(b['aliases'])
            bufs.append(bytes(bufs[b['aliases']]))
        else:
            alias_of.append(None)
            bufs.append(bytes([0xCD]) * I.buffer_size(s))
    t0 = time.time()
    try:
        expected = Interpreter().run(comp, args)
    except RecursionError:
        res['status'] = 'skipped'
        return res
    res['interp_s'] = time.time() - t0
    expected = expected if isinstance(expected, list) else [expected]
    expected = flatten(expected)
    status, got = run_kernel(so, response['kernel'], bufs, alias_of,
                             opts.get('timeout', 60))
    if status != 'ok':
        res['status'] = status
        return res
    for k, (s, e) in enumerate(zip(outs, expected)):
        g, bad_pad = I.from_buffer(s, got[len(comp.params) + k])
        if bad_pad:
            res['status'] = 'mismatch'
            res['details'].append('output %d: padding not zero at %s' %
                                  (k, bad_pad[:5]))
        idx = N.all_indices(s.dims) if s.dims else [()]
        nbad = 0
        for j, (ev, gv, er) in enumerate(zip(e.vals, g, e.err)):
            if not element_ok(s.t, ev, gv, er):
                nbad += 1
                if nbad <= 4:
                    res['details'].append(
                        'output %d %s%s: expected %s got %s (tol %g)' % (
                            k, s.t, list(idx[j]), describe(s.t, ev),
                            describe(s.t, gv), er))
        if nbad:
            res['status'] = 'mismatch'
            res['details'].append('output %d: %d of %d elements differ' %
                                  (k, nbad, len(g)))
        res.setdefault('skipped_elems', 0)
        res['skipped_elems'] += sum(1 for x in e.err if x == math.inf)
        res.setdefault('elems', 0)
        res['elems'] += len(g)
    if res['status'] == 'pass' and not opts.get('keep'):
        for f in (src, so):
            os.remove(f)
    return res


def flatten(vals):
    out = []
    for v in vals:
        out += flatten(v) if isinstance(v, list) else [v]
    return out


def module_dist(module, p):
    return module.dists[p.a['number']]


# ---------------------------------------------------------------- main
def refusal_kind(msg):
    import re
    m = re.search(r"no code generation for '([^']+)'(?: \('[^']*'\))?(: .*)?",
                  msg)
    if m:
        return "no codegen for '%s'%s" % (m.group(1), (m.group(2) or '')[:70])
    return msg[:110]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ixa', required=True)
    ap.add_argument('--count', type=int, default=40)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--recipe', choices=sorted(RECIPES))
    ap.add_argument('--keep', help='keep every kernel and HLO here')
    ap.add_argument('--separate-alias', action='store_true',
                    help='in-place outputs get their own (garbage) buffer')
    ap.add_argument('--ubsan', action='store_true')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--show-hlo', action='store_true')
    ap.add_argument('--show-refused', action='store_true')
    args = ap.parse_args()
    if shutil.which('g++') is None:
        print('emit_difftest: g++ not found; skipped')
        return SKIP
    workdir = args.keep or tempfile.mkdtemp(prefix='emit_difftest_')
    os.makedirs(workdir, exist_ok=True)
    t0 = time.time()
    seeds = [(i, args.seed * 100003 + i, recipe_for(i, args))
             for i in range(args.count)]
    modules = {}
    lines = []
    for i, seed, recipe in seeds:
        m = build(seed, recipe)
        modules[i] = m
        text = m.text()
        with open(os.path.join(workdir, 'k%d.hlo' % i), 'w') as f:
            f.write(text)
        req = {'id': i, 'op': 'emit', 'target': 'cpp', 'hlo': text,
               'kernel': 'k%d' % i}
        if seed % 2:
            req['device'] = SMALL_GPU
        lines.append(json.dumps(req))
    q = subprocess.run([args.ixa, 'query', '-'], input='\n'.join(lines) + '\n',
                       capture_output=True, text=True, timeout=600)
    if q.returncode not in (0, 1):
        print('ixa query failed (%d): %s' % (q.returncode, q.stderr[:2000]))
        return 1
    responses = [json.loads(x) for x in q.stdout.splitlines() if x.strip()]
    refusals = collections.Counter()
    tasks, failures = [], []
    opts = {'keep': bool(args.keep), 'ubsan': args.ubsan,
            'separate_alias': args.separate_alias}
    for resp in responses:
        i = resp['id']
        if not resp.get('ok'):
            err = resp['error']
            kind = err['code'] + ': ' + refusal_kind(err['message'])
            refusals[kind] += 1
            if args.show_refused:
                print('REFUSED #%d: %s\n%s' % (i, err['message'],
                                               modules[i].text()))
            if err['code'] not in ('unsupported',):
                failures.append({'i': i, 'seed': seeds[i][1],
                                 'recipe': seeds[i][2], 'status': 'error',
                                 'details': [err['code'] + ': ' +
                                             err['message']]})
            continue
        tasks.append((i, seeds[i][1], seeds[i][2], resp, workdir, opts))
    results = []
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as ex:
        for res in ex.map(check_one, tasks):
            results.append(res)
            if res['status'] not in ('pass', 'skipped'):
                failures.append(res)
            if args.verbose:
                print('%4d %-16s %-22s %s' % (res['i'], res['recipe'],
                                             res['emitter'], res['status']))
    by_emitter = collections.Counter(r['emitter'] for r in results)
    elems = sum(r.get('elems', 0) for r in results)
    skipped = sum(r.get('skipped_elems', 0) for r in results)
    for f in failures:
        print('FAIL #%d (seed %d, recipe %s, %s): %s' % (
            f['i'], f['seed'], f['recipe'], f.get('emitter', '-'),
            f['status']))
        for d in f['details']:
            print('    ' + d.replace('\n', '\n    '))
        if args.show_hlo:
            print(modules[f['i']].text())
    unrolled = sum(1 for r in results if r.get('unroll', 1) > 1)
    vectors = sum(1 for r in results if r.get('vector_size', 1) > 1)
    print('emit_difftest: %d unrolled, %d vectorized' % (unrolled, vectors))
    print('emit_difftest: %d fusions, %d emitted and run (%s), %d refused, '
          '%d failed; %d output elements compared (%d not comparable); '
          '%.1fs' % (len(seeds), len(results), ', '.join(
              '%s %d' % kv for kv in sorted(by_emitter.items())),
              sum(refusals.values()), len(failures), elems - skipped, skipped,
              time.time() - t0))
    for kind, n in sorted(refusals.items()):
        print('  refused %3d: %s' % (n, kind))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
