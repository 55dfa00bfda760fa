"""Case generation for difftest.py."""

import json

from mapdt_model import I64_MAX, I64_MIN, Map, points
from mapdt_gen import Gen, clamp_map, map_valid
from mapdt_cases import MapCase, map_text
from mapdt_cases_more import (
    ComposeCase, EquivCase, RawCase, StretchCase, StretchEquivCase, TextCase,
    gen_interval)


# ---------------------------------------------------------------------------
# Case generation.
# ---------------------------------------------------------------------------

MAP_OPS = ['parse', 'parse', 'simplify', 'simplify', 'simplify', 'is_empty',
           'bounds', 'evaluate', 'evaluate', 'remove_unused_symbols',
           'remove_unused_vars', 'rescale_symbols', 'convert_symbols_to_dims']


def gen_case(rng):
    r = rng.random()
    profile = rng.choice(['small', 'small', 'small', 'small', 'big', 'wild',
                          'deep'])
    g = Gen(rng, profile)
    if r < 0.04:
        return gen_interval(rng)
    if r < 0.07:
        op = rng.choice(['parse', 'simplify'])
        syntax = rng.choice([None, 'symbolic'])
        if rng.random() < 0.5:
            return TextCase(op, hostile_map(rng), syntax)
        m = clamp_map(Gen(rng, profile).gen_map())
        return TextCase(op, mutate_text(map_text(m, rng.random()), rng),
                        syntax)
    if r < 0.12:
        return gen_garbage(rng)
    if r < 0.2:
        return gen_compose(rng, g)
    if r < 0.26:
        return gen_layout_chain(rng)
    if r < 0.34:
        return gen_equiv(rng, g)
    m = clamp_map(g.gen_map())
    if profile in ('small', 'deep') and rng.random() < 0.2:
        K = rng.choice([10 ** 6, 1 << 31, 10 ** 9 + 7, 3 * 10 ** 12, 1 << 40,
                        97, 1024])
        return StretchCase(rng, m, rng.choice(['is_empty', 'bounds',
                                               'simplify', 'simplify']), K,
                           rng.choice([None, None, 'symbolic']))
    op = rng.choice(MAP_OPS)
    extra = {}
    syntax = None
    if op in ('parse', 'simplify') and rng.random() < 0.25:
        syntax = rng.choice(['symbolic', 'affine'])
    if op == 'simplify' and rng.random() < 0.1:
        extra['explain'] = True
    case = MapCase(rng, m, op, extra, syntax)
    if op == 'evaluate':
        pts, _ = points(m.box(), rng, limit=0, samples=4)
        p = rng.choice(pts) if pts and rng.random() < 0.8 else None
        if p is None:
            p = [rng.choice([0, 1, -1, 7, I64_MAX, I64_MIN, 10 ** 12])
                 for _ in range(m.nd + m.ns)]
        extra['dims'] = list(p[:m.nd])
        if m.ns or rng.random() < 0.5:
            extra['symbols'] = list(p[m.nd:])
    if op == 'bounds' and rng.random() < 0.4:
        g.nd, g.ns = m.nd, m.ns
        e = g.expr(2)
        if map_valid(Map([], [], [], [e], [])):
            case.extra_expr = e
    if op == 'convert_symbols_to_dims' and m.rngs and rng.random() < 0.5:
        extra['symbols'] = sorted(rng.sample(range(len(m.rngs)),
                                             rng.randint(0, len(m.rngs))))
    if op == 'rescale_symbols' and m.ns and rng.random() < 0.7:
        # Give it something to rescale.
        i = rng.randrange(m.ns)
        c = rng.choice([2, 3, 4, -2])
        k = rng.randint(0, abs(c) - 1) if c > 0 else rng.randint(c + 1, 0)
        m.cons.append((('mod', ('s', i), ('c', c)), k, k))
    return case


def gen_compose(rng, g):
    n = rng.choice([2, 2, 2, 3])
    maps = []
    nd = None
    for k in range(n):
        nres = rng.choice([0, 1, 1, 2, 2, 3])
        if g.profile == 'small':
            # Keep the composed box enumerable: few symbols.
            m = g.gen_map(nd=nd, ns_range=rng.choice([0, 0, 1]), nres=nres,
                          allow_rt=rng.random() < 0.3)
        else:
            m = g.gen_map(nd=nd, nres=nres)
        maps.append(clamp_map(m))
        nd = nres
    if rng.random() < 0.05:
        # Sizes that do not match.
        maps[-1] = clamp_map(g.gen_map(nd=(nd or 0) + 1))
    syntax = rng.choice([None, None, None, 'symbolic'])
    return ComposeCase(rng, maps, syntax)


def _shape_with(rng, total):
    """A random shape (2-4 dims) with `total` elements."""
    dims = []
    n = total
    for _ in range(rng.choice([1, 2, 3])):
        divs = [k for k in range(2, n + 1) if n % k == 0]
        if not divs:
            break
        k = rng.choice(divs)
        dims.append(k)
        n //= k
    dims.append(n)
    rng.shuffle(dims)
    return dims


def _strides(shape):
    out = []
    acc = 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return list(reversed(out))


def _layout_map(rng, src, op):
    """A map from an index of shape src to an index of the next shape, and
    that shape: reshape (linearize, delinearize), transpose, reverse, or a
    `d mod 2` filter."""
    nd = len(src)
    dims = [[None, 0, n - 1] for n in src]
    if op == 'reshape':
        dst = _shape_with(rng, prod(src))
        lin = None
        for i, st in enumerate(_strides(src)):
            t = ('d', i) if st == 1 else ('mul', ('d', i), ('c', st))
            lin = t if lin is None else ('add', lin, t)
        res = []
        for k, (n, st) in enumerate(zip(dst, _strides(dst))):
            e = lin if st == 1 else ('fd', lin, ('c', st))
            if k > 0 or rng.random() < 0.3:
                e = ('mod', e, ('c', n))
            res.append(e)
        return Map(dims, [], [], res, []), dst
    if op == 'transpose':
        perm = list(range(nd))
        rng.shuffle(perm)
        return Map(dims, [], [], [('d', j) for j in perm], []), \
            [src[j] for j in perm]
    if op == 'reverse':
        res = [('add', ('neg', ('d', i)), ('c', n - 1))
               if rng.random() < 0.5 else ('d', i)
               for i, n in enumerate(src)]
        return Map(dims, [], [], res, []), list(src)
    # filter: keep even indices of one dim
    i = rng.randrange(nd)
    m = Map(dims, [], [], [('d', j) for j in range(nd)],
            [(('mod', ('d', i), ('c', 2)), 0, 0)])
    return m, list(src)


def prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


def gen_layout_chain(rng):
    """A chain of reshapes, transposes, reverses and filters over one
    tensor, composed (the shapes XLA's maps take)."""
    total = rng.choice([24, 36, 48, 60, 64, 72, 96, 120, 128, 144, 180,
                        240, 256, 360, 480, 720])
    shape = _shape_with(rng, total)
    maps = []
    for _ in range(rng.choice([2, 2, 3, 3, 4])):
        m, shape = _layout_map(rng, shape, rng.choice(
            ['reshape', 'reshape', 'reshape', 'transpose', 'reverse',
             'filter']))
        maps.append(m)
    if rng.random() < 0.3:
        return MapCase(rng, maps[0], rng.choice(['simplify', 'bounds',
                                                 'is_empty']))
    return ComposeCase(rng, maps, rng.choice([None, None, 'symbolic']))


def gen_equiv(rng, g):
    a = clamp_map(g.gen_map())
    b = a.copy()
    r = rng.random()
    g.nd, g.ns = a.nd, a.ns
    if r < 0.3 and b.results:
        # An equal rewrite.
        i = rng.randrange(len(b.results))
        e = b.results[i]
        c = rng.choice([2, 3, 4, 8, -2, 5])
        b.results[i] = rng.choice([
            ('add', ('mul', ('fd', e, ('c', c)), ('c', c)), ('mod', e, ('c', c))),
            ('fd', ('mul', e, ('c', c)), ('c', c)),
            ('add', ('add', e, ('c', c)), ('c', -c)),
            ('neg', ('neg', e)),
            ('min', e, e),
        ])
    elif r < 0.5 and b.results:
        i = rng.randrange(len(b.results))
        b.results[i] = g.expr(2)
    elif r < 0.65 and b.vars():
        j = rng.randrange(len(b.vars()))
        v = b.vars()[j]
        if v[2] > v[1] and v[2] < I64_MAX:
            v[2] = v[2] - rng.choice([0, 1])
    elif r < 0.8:
        b.cons.append(g.constraint(b))
    elif r < 0.9 and b.results:
        i = rng.randrange(len(b.results))
        b.results[i] = ('add', b.results[i], ('c', rng.choice([0, 1, -1])))
    b = clamp_map(b)
    if g.profile == 'small' and rng.random() < 0.3:
        K = rng.choice([10 ** 6, 1 << 31, 3 * 10 ** 12, 97, 1 << 40])
        return StretchEquivCase(rng, a, b, K)
    return EquivCase(rng, a, b)


HLO_SEEDS = [
    'HloModule m\nENTRY e {\n  p0 = f32[10, 20] parameter(0)\n'
    '  ROOT t = f32[20, 10] transpose(p0), dimensions={1, 0}\n}',
    'HloModule m\nENTRY e {\n  p0 = f32[20] parameter(0)\n'
    '  ROOT b = f32[10, 20, 30] broadcast(p0), dimensions={1}\n}',
    'HloModule m\nENTRY e {\n  p0 = f32[4, 8] parameter(0)\n'
    '  ROOT r = f32[2, 4, 4] reshape(p0)\n}',
    'HloModule m\nENTRY e {\n  p0 = f32[4, 4] parameter(0)\n'
    '  p1 = f32[] parameter(1)\n'
    '  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0\n}',
]


def mutate_bytes(s, rng):
    s = bytearray(s)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if not s:
            s += b'{'
        i = rng.randrange(len(s) + 1)
        if r < 0.3 and len(s) > 1:
            j = min(len(s), i + rng.randint(1, 8))
            del s[i:j]
        elif r < 0.6:
            s[i:i] = rng.choice([b'(', b')', b'[', b']', b'{', b'}', b'-', b',',
                                 b'"', b'\\', b'0', b'9223372036854775808',
                                 b'-9223372036854775809', b'1e999', b'd0',
                                 b' mod ', b' floordiv 0', b'\\u0000',
                                 b'\xff', b'\xc3\xa9', b'null', b'in',
                                 b'domain:', b'KNOWN EMPTY', b'->', b':',
                                 b'99999999999999999999999'])
        elif r < 0.8 and len(s) > 2:
            j = rng.randrange(len(s))
            k = min(len(s), j + rng.randint(1, 30))
            s[i:i] = s[j:k]
        elif len(s):
            s[rng.randrange(len(s))] = rng.randrange(32, 127)
    out = bytes(s).replace(b'\n', b' ').replace(b'\r', b' ')
    return out if out.strip() else b'x'


def mutate_text(t, rng):
    return mutate_bytes(t.encode(), rng).decode('utf-8', 'replace')


NEST_WRAPPERS = ['(%s)', '-%s', '-(%s)', '(%s) floordiv 2', '%s * -1',
                 'min(%s, 1)', '(%s + 1)', '2 - %s', '(%s) mod -3', '--%s',
                 'max(-%s, d0)', '(%s) ceildiv -2', '-(%s) * 3',
                 '((%s))', '%s - -1', '(%s) / 4', '(%s) %% 5']


def nested_map(rng):
    """Random wrappers around d0, about as deep as the parser's limit."""
    n = rng.choice([60, 120, 126, 127, 128, 129, 200, 254, 255, 256, 257,
                    300])
    e = 'd0'
    for _ in range(n):
        e = rng.choice(NEST_WRAPPERS) % e
    return '(d0) -> (%s)' % e


def hostile_map(rng):
    if rng.random() < 0.4:
        return nested_map(rng)
    r = rng.random()
    n = rng.choice([100, 255, 256, 257, 300, 1000, 5000, 30000])
    if r < 0.15:
        return '(d0) -> (' + '(' * n + 'd0' + ')' * n + ')'
    if r < 0.3:
        return '(d0) -> (' + '-' * n + 'd0)'
    if r < 0.4:
        return '(d0) -> (' + '-' * n + '5)'
    if r < 0.5:
        return '(d0) -> (' + ' + '.join(['d0'] * n) + ')'
    if r < 0.6:
        return '(d0) -> (d0' + ' * 2' * n + ')'
    if r < 0.7:
        return '(d0) -> (' + 'min(' * n + 'd0' + ', 1)' * n + ')'
    if r < 0.75:
        return '(' + ', '.join('d%d' % i for i in range(n)) + ') -> ()'
    if r < 0.8:
        return '(d0) -> (d0 floordiv ' + 'd0 floordiv ' * n + '2)'
    if r < 0.85:
        return '(d0) -> ((d0' + ' mod 3) mod 3' * min(n, 200) + ')'
    if r < 0.9:
        return '(d0)[s0] -> (' + '(d0 * s0' + ' + s0) * d0' * min(n, 300) + ')'
    return '(d0) -> (d0), domain: d0 in [0, 9]' + ', d0 in [0, 9]' * n


def gen_garbage(rng):
    r = rng.random()
    g = Gen(rng, rng.choice(['small', 'big', 'wild']))
    if r < 0.35:
        m = clamp_map(g.gen_map())
        req = {'op': rng.choice(MAP_OPS + ['equivalent', 'compose']),
               'map': mutate_text(map_text(m, rng.random()), rng)}
        if req['op'] == 'equivalent':
            req['a'] = req.pop('map')
            req['b'] = mutate_text(map_text(m, rng.random()), rng)
        if req['op'] == 'compose':
            req['maps'] = [req.pop('map'), mutate_text(map_text(m, 1), rng)]
        if req['op'] == 'evaluate':
            req['dims'] = [rng.choice([0, 1, -5, I64_MAX]) for _ in range(m.nd)]
        return RawCase(json.dumps(req).encode())
    if r < 0.55:
        m = clamp_map(g.gen_map())
        line = json.dumps({'id': rng.randint(0, 9), 'op': rng.choice(
            MAP_OPS), 'map': map_text(m, rng.random()), 'dims': [0] * m.nd})
        return RawCase(mutate_bytes(line.encode(), rng))
    if r < 0.7:
        op = rng.choice(MAP_OPS + ['equivalent', 'compose', 'interval'])
        req = {'op': op, 'id': rng.choice([1, 'x', None, [1], {'a': 1}, 1.5])}
        if op == 'compose':
            req['maps'] = [hostile_map(rng), hostile_map(rng)]
        elif op == 'equivalent':
            req['a'] = hostile_map(rng)
            req['b'] = hostile_map(rng)
        elif op == 'interval':
            req['fn'] = rng.choice(['add', 'mul', 'floordiv', 'mod', 'min',
                                    'max', 'union', 'intersect', 'gt', 'lt',
                                    'ge', 'le', 'eq', 'ne', 'bogus'])
            vals = [I64_MIN, I64_MAX, 0, -1, 1, 5, -7, 1 << 62, I64_MIN + 1]
            req['args'] = [sorted([rng.choice(vals), rng.choice(vals)])
                           if rng.random() < 0.9 else
                           [rng.choice(vals), rng.choice(vals)]
                           for _ in range(2)]
        else:
            req['map'] = hostile_map(rng)
            if op == 'evaluate':
                req['dims'] = [1]
            if op == 'bounds' and rng.random() < 0.5:
                req['expr'] = hostile_map(rng).split('-> (', 1)[1][:-1]
        return RawCase(json.dumps(req).encode())
    if r < 0.8:
        op = rng.choice(['indexing', 'fusion_indexing', 'utilization',
                         'coalescing', 'thread_indexing', 'partition', 'tile'])
        hlo = mutate_text(rng.choice(HLO_SEEDS), rng) if rng.random() < 0.8 \
            else rng.choice(HLO_SEEDS)
        req = {'op': op, 'hlo': hlo}
        if op == 'tile':
            req['tile'] = {'sizes': [rng.choice([1, 2, 0, -1, 3])] * 2}
        return RawCase(json.dumps(req).encode())
    # Type confusion and odd JSON.
    base = {'op': rng.choice(MAP_OPS + ['equivalent', 'compose', 'interval',
                                         'layout', 'cute_layout']),
            'map': '(d0) -> (d0), domain: d0 in [0, 3]'}
    key = rng.choice(['map', 'dims', 'symbols', 'expr', 'explain', 'maps',
                      'a', 'b', 'syntax', 'id', 'op', 'fn', 'args', 'layout',
                      'shape'])
    base[key] = rng.choice([None, 1, -1, 1.5, 'x', [], [1, 2], {'k': 'v'},
                            [None], [1.5], [I64_MAX + 1], True,
                            '(d0) -> (d0)', ['(d0) -> (d0)'] * 3, '',
                            [-(1 << 63) - 1], 1e308, 'symbolic'])
    line = json.dumps(base)
    if rng.random() < 0.3:
        line = line.replace('{', '{"dup": 1, "dup": 2, ', 1)
    return RawCase(line.encode())
