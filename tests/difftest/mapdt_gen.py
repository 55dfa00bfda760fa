"""Random maps for difftest.py (the generator) and their shrinking."""

from mapdt_model import (
    ENUM_LIMIT, FULL, I64_MAX, I64_MIN, Map, Undefined, box_size, compile_expr,
    fits, points, subst, uses)


# ---------------------------------------------------------------------------
# Generator.
# ---------------------------------------------------------------------------

CUSTOM_NAMES = ['x', 'y', 'z', 'th_x', 'bl_x', 'i', 'j', 'k', 'vector_index',
                'min', 'max', 'KNOWN', 'EMPTY', 'is_simplified', 'domainx',
                'mod_', 'd0', 'd1', 'd2', 'd3', 's0', 's1', 's2', 'rt0', 'rt1',
                'S0', '_', '_0', 'a1b2', 'chunk_id', 'unroll_id', 'true',
                'inx', 'floordivx', 'ceil', 'dd0', 's00', 'd01']
SMALL_DIVISORS = [1, -1, 2, -2, 3, -3, 4, -4, 5, 7, -7, 8, 16, -16, 32, 64,
                  100, 6, 12, 9]
BIG_DIVISORS = [1 << 31, (1 << 32) + 1, 1 << 62, I64_MAX, I64_MIN, -(1 << 62),
                10 ** 18, -(10 ** 18), I64_MAX - 1, I64_MIN + 1, 1 << 40]
BIG_CONSTANTS = [I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1, 1 << 62,
                 -(1 << 62), 10 ** 18, -(10 ** 18), (1 << 32), 1 << 40,
                 3 * 10 ** 12, (1 << 63) // 3, -((1 << 63) // 3), 4611686018427387905]


class Gen:
    def __init__(self, rng, profile):
        self.rng = rng
        self.profile = profile  # 'small', 'big', 'wild'
        self.nd = self.ns = 0
        self.sym_nonzero = []  # symbols whose bounds exclude 0
        self.var_nonzero = []

    def chance(self, p):
        return self.rng.random() < p

    def const(self, kind='add'):
        r = self.rng.random()
        if self.profile not in ('small', 'deep') and r < (0.3 if self.profile == 'big' else 0.15):
            return self.rng.choice(BIG_CONSTANTS)
        if kind == 'coef':
            return self.rng.choice([1, -1, 2, -2, 3, 4, -3, 5, 8, 16, -8, 10,
                                    100, 128, -64, 0])
        if r < 0.6:
            return self.rng.randint(-10, 20)
        return self.rng.randint(-300, 300)

    def divisor(self):
        if self.profile not in ('small', 'deep') and self.chance(0.2):
            return self.rng.choice(BIG_DIVISORS)
        return self.rng.choice(SMALL_DIVISORS)

    def var(self):
        n = self.nd + self.ns
        if n == 0:
            return ('c', self.const())
        i = self.rng.randrange(n)
        return ('d', i) if i < self.nd else ('s', i - self.nd)

    def leaf(self):
        if self.chance(0.78):
            return self.var()
        return ('c', self.const())

    def linear(self):
        e = None
        for _ in range(self.rng.randint(1, 3)):
            t = self.var()
            c = self.const('coef')
            if c != 1 or self.chance(0.2):
                t = ('mul', t, ('c', c))
            e = t if e is None else ('add', e, t)
        if self.chance(0.5):
            e = ('add', e, ('c', self.const()))
        return e

    def expr(self, depth):
        if depth <= 0 or self.chance(0.2):
            return self.leaf() if self.chance(0.6) else self.linear()
        w = self.rng.random()
        sub = lambda: self.expr(depth - 1)
        if w < 0.22:
            return ('add', sub(), sub())
        if w < 0.30:
            return ('add', sub(), ('neg', sub()))
        if w < 0.42:
            return ('mul', sub(), ('c', self.const('coef')))
        if w < 0.56:
            return ('fd', sub(), ('c', self.divisor()))
        if w < 0.64:
            return ('cd', sub(), ('c', self.divisor()))
        if w < 0.78:
            return ('mod', sub(), ('c', self.divisor()))
        if w < 0.82:
            return ('neg', sub())
        if w < 0.89:
            return (self.rng.choice(['min', 'max']), sub(), sub())
        if w < 0.93:
            # An identity in disguise: (e * c) floordiv c, e + c - c, ...
            e = sub()
            c = self.divisor()
            return self.rng.choice([
                ('fd', ('mul', e, ('c', c)), ('c', c)),
                ('add', ('fd', e, ('c', c)), ('c', 0)),
                ('add', ('mul', ('fd', e, ('c', c)), ('c', c)),
                 ('mod', e, ('c', c))),
                ('mod', ('add', e, ('mul', self.var(), ('c', c))), ('c', c)),
            ])
        # Semi-affine: a variable multiplier or divisor.
        if self.profile in ('small', 'deep') and not self.var_nonzero:
            return ('mul', sub(), ('c', self.const('coef')))
        if self.chance(0.4):
            return ('mul', sub(), self.var())
        if self.var_nonzero and (self.profile in ('small', 'deep') or self.chance(0.7)):
            dv = self.rng.choice(self.var_nonzero)
        else:
            dv = self.var()
        return (self.rng.choice(['fd', 'cd', 'mod']), sub(), dv)

    def name_list(self, n, prefix, used):
        out = []
        custom = self.chance(0.35)
        for i in range(n):
            if custom and self.chance(0.6):
                for _ in range(10):
                    nm = self.rng.choice(CUSTOM_NAMES)
                    if nm not in used:
                        break
                else:
                    nm = None
            else:
                nm = None
            if nm is None:
                d = '%s%d' % (prefix, i)
                if d in used:
                    d = '%s_%d_%d' % (prefix, i, self.rng.randint(0, 999))
                nm = d
            used.add(nm)
            out.append(None if nm == '%s%d' % (prefix, i) else nm)
        return out

    def bounds(self, n):
        """n intervals; the small profile keeps the box enumerable."""
        out = []
        for _ in range(n):
            r = self.rng.random()
            if self.profile in ('small', 'deep'):
                lo = self.rng.choice([0, 0, 0, 1, -3, 2, -1, 5, -8])
                w = self.rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 15])
                if r < 0.02:
                    out.append((lo + 2, lo))  # inverted: empty
                else:
                    out.append((lo, lo + w))
            else:
                if r < 0.15:
                    out.append(FULL)
                elif r < 0.3:
                    out.append((0, self.rng.choice([10 ** 6, 10 ** 12, 1 << 40,
                                                    I64_MAX])))
                elif r < 0.4:
                    out.append((self.rng.choice([I64_MIN, -(1 << 62), -(10 ** 9)]),
                                self.rng.choice([-1, 0, 10 ** 9, I64_MAX])))
                elif r < 0.45:
                    v = self.rng.choice([I64_MAX, I64_MIN, 1 << 62])
                    out.append((v, v))
                elif r < 0.48:
                    out.append((5, 2))
                else:
                    lo = self.rng.randint(-20, 20)
                    out.append((lo, lo + self.rng.choice([0, 3, 10, 100, 1000])))
        if self.profile in ('small', 'deep'):
            while box_size(out) > ENUM_LIMIT:
                i = max(range(n), key=lambda j: out[j][1] - out[j][0])
                lo, hi = out[i]
                out[i] = (lo, lo + (hi - lo) // 2)
        return out

    def gen_map(self, nd=None, ns_range=None, nres=None, allow_rt=True):
        rng = self.rng
        if self.profile == 'deep' and nd is None:
            nd = rng.choice([3, 4, 5])
        nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if nd is None else nd
        nr = rng.choice([0, 0, 0, 1, 1, 2]) if ns_range is None else ns_range
        nt = rng.choice([0, 0, 0, 0, 1, 2]) if allow_rt else 0
        used = set()
        dn = self.name_list(nd, 'd', used)
        rn = self.name_list(nr, 's', used)
        tn = self.name_list(nt, 'rt', used)
        bs = self.bounds(nd + nr + nt)
        dims = [[n, lo, hi] for n, (lo, hi) in zip(dn, bs[:nd])]
        rngs = [[n, lo, hi] for n, (lo, hi) in zip(rn, bs[nd:nd + nr])]
        rts = [[n, lo, hi] for n, (lo, hi) in zip(tn, bs[nd + nr:])]
        self.nd, self.ns = nd, nr + nt
        self.var_nonzero = []
        for i, v in enumerate(dims):
            if v[1] > 0 or v[2] < 0:
                self.var_nonzero.append(('d', i))
        for i, v in enumerate(rngs + rts):
            if v[1] > 0 or v[2] < 0:
                self.var_nonzero.append(('s', i))
        depth = rng.choice([1, 2, 2, 3, 3, 4])
        ncons = rng.choice([0, 0, 1, 1, 2, 3])
        if self.profile == 'deep':
            depth = rng.choice([4, 5, 6])
            ncons = rng.choice([2, 3, 4, 5])
        if nres is None:
            nres = rng.choice([0, 1, 1, 2, 2, 3])
        results = [self.expr(depth) for _ in range(nres)]
        m = Map(dims, rngs, rts, results, [])
        for _ in range(ncons):
            m.cons.append(self.constraint(m))
        if self.chance(0.01):
            m.known_empty = True
        return m

    def constraint(self, m):
        r = self.rng.random()
        if r < 0.05:
            c = self.const()
            lo, hi = sorted([self.const(), self.const()])
            if self.chance(0.5):
                lo, hi = c - 1, c + 1
            return (('c', c), lo, hi)
        if r < 0.15 and m.nd + m.ns:
            v = self.var()
            c = abs(self.divisor()) if self.profile in ('small', 'deep') else \
                self.rng.choice([2, 3, 4, 8])
            c = max(c, 2)
            k = self.rng.randint(0, c - 1)
            return (('mod', v, ('c', c)), k, k)
        if r < 0.22 and m.nd + m.ns:
            v = self.var()
            lo = self.rng.randint(-5, 5)
            return (v, lo, lo + self.rng.randint(-1, 6))
        e = self.expr(self.rng.choice([1, 2, 2, 3]))
        vals = []
        pts, _ = points(m.box(), self.rng, limit=300, samples=30)
        f = compile_expr(e)
        for p in pts[:300]:
            try:
                vals.append(f(p[:m.nd], p[m.nd:]))
            except Undefined:
                pass
        if not vals:
            lo = self.rng.randint(-10, 10)
            return (e, lo, lo + self.rng.randint(0, 10))
        vals.sort()
        r = self.rng.random()
        if r < 0.1:  # infeasible
            return (e, vals[-1] + 1, vals[-1] + 1 + self.rng.randint(0, 5))
        if r < 0.25:
            v = self.rng.choice(vals)
            return (e, v, v)
        a, b = sorted([self.rng.choice(vals), self.rng.choice(vals)])
        lo = max(I64_MIN, a - self.rng.randint(0, 2))
        hi = min(I64_MAX, b + self.rng.randint(0, 2))
        return (e, lo, hi)


def clamp_map(m):
    """Clamps interval ends to int64 (the text form's limit)."""
    for v in m.vars():
        v[1] = max(I64_MIN, min(I64_MAX, v[1]))
        v[2] = max(I64_MIN, min(I64_MAX, v[2]))
    m.cons = [(c, max(I64_MIN, min(I64_MAX, lo)), max(I64_MIN, min(I64_MAX, hi)))
              for c, lo, hi in m.cons]
    return m


def has_bad_literal(e):
    """Constants outside int64 cannot be written."""
    if e[0] == 'c':
        return not fits(e[1])
    if e[0] in ('d', 's'):
        return False
    return any(has_bad_literal(x) for x in e[1:])


def has_zero_divisor_literal(e):
    if e[0] in ('c', 'd', 's'):
        return False
    if e[0] in ('fd', 'cd', 'mod') and e[2] == ('c', 0):
        return True
    return any(has_zero_divisor_literal(x) for x in e[1:])


def map_valid(m):
    for e in m.results + [c for c, _, _ in m.cons]:
        if has_bad_literal(e) or has_zero_divisor_literal(e):
            return False
    for v in m.vars():
        if not (fits(v[1]) and fits(v[2])):
            return False
    return True


# ---------------------------------------------------------------------------
# Shrinking of maps.
# ---------------------------------------------------------------------------

def shrink_int(v):
    out = []
    for c in (0, 1, -1, v // 2, v - (1 if v > 0 else -1), -v if v < 0 else v):
        if c != v and abs(c) <= abs(v) and c not in out:
            out.append(c)
    return out


def shrink_expr(e):
    """Smaller expressions, most reducing first."""
    k = e[0]
    if k == 'c':
        for c in shrink_int(e[1]):
            yield ('c', c)
        return
    if k in ('d', 's'):
        yield ('c', 0)
        return
    if k == 'neg':
        yield e[1]
    else:
        yield e[1]
        if k not in ('fd', 'cd', 'mod', 'mul') or e[2][0] != 'c':
            yield e[2]
    yield ('c', 0)
    for i in range(1, len(e)):
        for sub in shrink_expr(e[i]):
            if k in ('fd', 'cd', 'mod') and i == 2 and sub == ('c', 0):
                continue
            yield e[:i] + (sub,) + e[i + 1:]


def shrink_map(m):
    # Drop results / constraints.
    for i in range(len(m.results)):
        m2 = m.copy()
        del m2.results[i]
        yield m2
    for i in range(len(m.cons)):
        m2 = m.copy()
        del m2.cons[i]
        yield m2
    # Drop unused variables.
    used = set()
    for e in m.results + [c for c, _, _ in m.cons]:
        uses(e, used)
    for i in range(m.nd):
        if ('d', i) not in used:
            m2 = m.copy()
            del m2.dims[i]
            ren = lambda x, i=i: ('d', x[1] - 1) if x[0] == 'd' and x[1] > i else None
            m2.results = [subst(e, ren) for e in m2.results]
            m2.cons = [(subst(c, ren), lo, hi) for c, lo, hi in m2.cons]
            yield m2
    for i in range(m.ns):
        if ('s', i) not in used:
            m2 = m.copy()
            if i < len(m.rngs):
                del m2.rngs[i]
            else:
                del m2.rts[i - len(m.rngs)]
            ren = lambda x, i=i: ('s', x[1] - 1) if x[0] == 's' and x[1] > i else None
            m2.results = [subst(e, ren) for e in m2.results]
            m2.cons = [(subst(c, ren), lo, hi) for c, lo, hi in m2.cons]
            yield m2
    # Runtime variables become range variables.
    if m.rts:
        m2 = m.copy()
        m2.rngs = m2.rngs + m2.rts
        m2.rts = []
        for v in m2.rngs:
            if v[0] and v[0].startswith('rt'):
                v[0] = None
        yield m2
    # Names become default.
    for j, v in enumerate(m.vars()):
        if v[0] is not None:
            m2 = m.copy()
            m2.vars()[j][0] = None
            if len(set(m2.names())) == len(m2.names()):
                yield m2
    # Expressions.
    for i, e in enumerate(m.results):
        for e2 in shrink_expr(e):
            m2 = m.copy()
            m2.results[i] = e2
            yield m2
    for i, (c, lo, hi) in enumerate(m.cons):
        for c2 in shrink_expr(c):
            m2 = m.copy()
            m2.cons[i] = (c2, lo, hi)
            yield m2
        for lo2 in shrink_int(lo):
            m2 = m.copy()
            m2.cons[i] = (c, lo2, hi)
            yield m2
        for hi2 in shrink_int(hi):
            m2 = m.copy()
            m2.cons[i] = (c, lo, hi2)
            yield m2
    # Bounds.
    for j, v in enumerate(m.vars()):
        lo, hi = v[1], v[2]
        cands = []
        if (lo, hi) != FULL:
            cands.append(FULL)
        if lo < hi:
            cands += [(lo, lo + (hi - lo) // 2), (lo + (hi - lo + 1) // 2, hi)]
        for lo2 in shrink_int(lo):
            cands.append((lo2, hi))
        for hi2 in shrink_int(hi):
            cands.append((lo, hi2))
        for lo2, hi2 in cands:
            m2 = m.copy()
            m2.vars()[j][1:3] = [lo2, hi2]
            yield m2
    if m.known_empty:
        m2 = m.copy()
        m2.known_empty = False
        yield m2
