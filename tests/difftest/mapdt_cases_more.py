"""More cases of difftest.py: stretched maps, equivalence, compose,
interval arithmetic, text and raw lines."""

import random

from mapdt_model import (
    FULL, I64_MAX, I64_MIN, fits, hull, points, sample_values, subst)
from mapdt_gen import map_valid, shrink_map
from mapdt_cases import (
    ACCEPTABLE_DECIDE_ERRORS, Case, _show, check_decide_followups,
    domain_points, err_code, map_text, ok, parsed_or_problem, protocol_problem,
    reparse_followups)


def stretch_plan(maps, K, seed):
    """Per variable: None (kept), ('plain', None), ('mod', r) or ('tight',
    r); a variable is stretched only where every map bounds it finitely."""
    rng = random.Random(seed)
    plan = []
    for i in range(len(maps[0].vars())):
        mode = rng.choice(['plain', 'mod', 'tight'])
        r = rng.randrange(K)
        ok = True
        for m in maps:
            lo, hi = m.vars()[i][1], m.vars()[i][2]
            if lo > hi or (lo, hi) == FULL or \
                    K * (max(abs(lo), abs(hi)) + 2) >= (1 << 62):
                ok = False
        plan.append((mode, r if mode != 'plain' else None) if ok else None)
    return plan


def stretch(m, K, seed, plan=None):
    """M' = m with each bounded variable v replaced by v' with bounds about
    K times larger, read as v' floordiv K, and sometimes with `v' mod K in
    [r, r]` (then v' = K * v + r). Returns (M', plan)."""
    if plan is None:
        plan = stretch_plan([m], K, seed)
    m2 = m.copy()
    for v, pl in zip(m2.vars(), plan):
        if pl is None:
            continue
        lo, hi = v[1], v[2]
        if pl[0] == 'tight':
            v[1], v[2] = K * lo + pl[1], K * hi + pl[1]
        else:
            v[1], v[2] = K * lo, K * hi + K - 1
    nd = m.nd

    def leaf(x):
        i = x[1] if x[0] == 'd' else nd + x[1]
        if x[0] in ('d', 's') and plan[i] is not None:
            return ('fd', x, ('c', K))
        return None
    m2.results = [subst(e, leaf) for e in m2.results]
    m2.cons = [(subst(c, leaf), lo, hi) for c, lo, hi in m2.cons]
    for i, pl in enumerate(plan):
        if pl is not None and pl[0] in ('mod', 'tight'):
            x = ('d', i) if i < nd else ('s', i - nd)
            m2.cons.append((('mod', x, ('c', K)), pl[1], pl[1]))
    return m2, plan


def stretched_point(p, plan, K, rng):
    out = []
    for x, pl in zip(p, plan):
        if pl is None:
            out.append(x)
        elif pl[0] != 'plain':
            out.append(K * x + pl[1])
        else:
            out.append(K * x + rng.choice([0, K - 1, rng.randrange(K)]))
    return tuple(out)


class StretchCase(Case):
    """A small map M sent stretched (see stretch): M' is empty iff M is,
    its results take M's values (so their bounds agree), and M's domain
    points give M''s: an exact oracle on domains far too large to
    enumerate, for is_empty, bounds and simplify."""

    def __init__(self, rng, base, op, K, syntax=None):
        self.rng_seed = rng.random()
        self.base = base
        self.op = op
        self.K = K
        self.syntax = syntax
        self.m, self.plan = stretch(base, K, self.rng_seed)

    def requests(self):
        style = 'symbolic' if self.syntax == 'symbolic' else 'wild'
        req = {'op': self.op, 'map': map_text(self.m, self.rng_seed, style)}
        self.text_sent = req['map']
        if self.syntax:
            req['syntax'] = self.syntax
        return [req]

    def followups(self, resp):
        r = resp[0]
        if self.op != 'simplify' or not ok(r) or \
                not isinstance(r.get('map'), str):
            return []
        return reparse_followups(self, r, not r.get('budget_exhausted'),
                                 map_valid(self.m))

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        base = self.base
        if not map_valid(self.m):
            return []
        if not ok(r):
            c = err_code(r)
            if c in ACCEPTABLE_DECIDE_ERRORS:
                return []
            if c == 'invalid_argument' and domain_points(
                    base, random.Random(0))[2]:
                return []
            return ['%s (stretched x%d): error %r' % (self.op, self.K,
                                                      r.get('error'))]
        rng = random.Random(self.rng_seed)
        feas, complete, undef = domain_points(base, rng)
        if undef or not complete:
            return []
        if self.op == 'is_empty':
            e = r.get('empty')
            if e != (not feas):
                return ['is_empty (stretched x%d): %s, expected %s' % (
                    self.K, e, not feas)]
            return []
        if self.op == 'bounds':
            res = r.get('results')
            if not isinstance(res, list) or len(res) != len(base.results):
                return ['bounds (stretched): malformed %r' % r]
            fails = []
            for i, iv in enumerate(res):
                vals = [x[i] for _, x in feas]
                if not vals:
                    if iv is not None and r.get('exact'):
                        fails.append('bounds (stretched x%d): %s on an empty '
                                     'domain' % (self.K, iv))
                    continue
                want = [min(vals), max(vals)]
                if not all(fits(v) for v in want):
                    continue
                if iv is None:
                    fails.append('bounds (stretched x%d): null, expected %s' %
                                 (self.K, want))
                elif r.get('exact') and iv != want:
                    fails.append('bounds (stretched x%d): exact %s, true '
                                 'range %s' % (self.K, iv, want))
                elif iv[0] > want[0] or iv[1] < want[1]:
                    fails.append('bounds (stretched x%d): %s misses %s' % (
                        self.K, iv, want))
            return fails
        # simplify
        text = r.get('map')
        fails0 = check_decide_followups(self, self.m, fresp)
        if fails0:
            return fails0
        out, prob = parsed_or_problem(text, 'simplify output')
        if prob:
            return [prob]
        if out is None:
            return []
        fails = []
        if fresp and ok(fresp[0]) and fresp[0].get('map') != text:
            fails.append('print(parse(print)) differs: %r -> %r' % (
                text, fresp[0].get('map')))
        s2 = fresp[1] if len(fresp) > 1 and getattr(
            self, '_resimplified', False) else None
        if ok(s2) and s2.get('map') != text:
            fails.append('simplify not idempotent: %r -> %r' % (
                text, s2.get('map')))
        if out.known_empty:
            if feas:
                fails.append('simplify (stretched x%d): KNOWN EMPTY for a '
                             'non-empty map' % self.K)
            return fails
        m = self.m
        if out.nd != m.nd or out.ns != m.ns:
            return fails + ['simplify (stretched): variables changed']
        pts = set()
        for p, _ in feas[:200]:
            for _ in range(2):
                pts.add(stretched_point(p, self.plan, self.K, rng))
        more, _ = points(hull(m.box(), out.box()), rng, limit=0, samples=100)
        pts.update(more)
        nd = m.nd
        for p in sorted(pts):
            a = m.sig(p[:nd], p[nd:])
            if isinstance(a, str):
                continue
            b = out.sig(p[:nd], p[nd:])
            if a is None and isinstance(b, str):
                continue
            if a != b:
                fails.append('simplify (stretched x%d): differs at dims=%s '
                             'symbols=%s: expected %s, got %s' % (
                                 self.K, list(p[:nd]), list(p[nd:]),
                                 _show(a), _show(b)))
                break
        return fails

    def shrink_candidates(self):
        for b2 in shrink_map(self.base):
            c = StretchCase(random.Random(0), b2, self.op, self.K, self.syntax)
            c.rng_seed = self.rng_seed
            c.m, c.plan = stretch(b2, self.K, self.rng_seed)
            yield c

    def weight(self):
        return self.base.size()


def _equiv_error_ok(r, a, b):
    """An `equivalent` error that is no failure: a decision limit, or maps
    that do not have the same variables and results."""
    c = err_code(r)
    return c in ACCEPTABLE_DECIDE_ERRORS or (
        c == 'invalid_argument' and (a.nd != b.nd or a.ns != b.ns or
                                     len(a.results) != len(b.results)))


def _first_difference(a, b, pts):
    """The first point where a and b differ (None if none), and whether a
    point before it was undefined for either."""
    undef = False
    for p in pts:
        x, y = a.sig(p[:a.nd], p[a.nd:]), b.sig(p[:a.nd], p[a.nd:])
        if isinstance(x, str) or isinstance(y, str):
            undef = True
            continue
        if x != y:
            return p, undef
    return None, undef


class EquivCase(Case):
    op = 'equivalent'

    def __init__(self, rng, a, b):
        self.rng_seed = rng.random()
        self.a, self.b = a, b

    def sent(self):
        """The two maps whose text is sent."""
        return self.a, self.b

    def requests(self):
        a, b = self.sent()
        return [{'op': 'equivalent', 'a': map_text(a, self.rng_seed),
                 'b': map_text(b, self.rng_seed + 1)}]

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        a, b = self.a, self.b
        if not (map_valid(a) and map_valid(b)):
            return [] if not ok(r) else ['equivalent: accepted invalid maps']
        if not ok(r):
            if _equiv_error_ok(r, a, b):
                return []
            if err_code(r) == 'invalid_argument' and (a.known_empty or
                                                      b.known_empty):
                return []
            return ['equivalent: error %r' % r.get('error')]
        if a.nd != b.nd or a.ns != b.ns:
            return ['equivalent: answered for maps over different variables']
        rng = random.Random(self.rng_seed)
        box = hull(a.box(), b.box())
        if a.known_empty:
            box = b.box()
        if b.known_empty:
            box = a.box()
        pts, complete = points(box, rng)
        diff, undef = _first_difference(a, b, pts)
        eq = r.get('equivalent')
        if eq is True and diff is not None:
            return ['equivalent: true, but at dims=%s symbols=%s a=%s b=%s' % (
                list(diff[:a.nd]), list(diff[a.nd:]),
                _show(a.sig(diff[:a.nd], diff[a.nd:])),
                _show(b.sig(diff[:a.nd], diff[a.nd:])))]
        if eq is False:
            ce = r.get('counterexample')
            if ce is not None:
                d, s = ce.get('dims'), ce.get('symbols')
                if not (isinstance(d, list) and isinstance(s, list) and
                        len(d) == a.nd and len(s) == a.ns):
                    return ['equivalent: malformed counterexample %r' % ce]
                x, y = a.sig(d, s), b.sig(d, s)
                if x == y and not isinstance(x, str):
                    return ['equivalent: counterexample %r where both give %s'
                            % (ce, _show(x))]
            if diff is None and complete and not undef:
                return ['equivalent: false for equal maps']
        return []

    def shrink_candidates(self):
        for a2 in shrink_map(self.a):
            if a2.nd == self.b.nd and a2.ns == self.b.ns:
                c = EquivCase(random.Random(0), a2, self.b)
                c.rng_seed = self.rng_seed
                yield c
        for b2 in shrink_map(self.b):
            if b2.nd == self.a.nd and b2.ns == self.a.ns:
                c = EquivCase(random.Random(0), self.a, b2)
                c.rng_seed = self.rng_seed
                yield c
        # Shrink both alike (the same reduction).
        for a2, b2 in zip(shrink_map(self.a), shrink_map(self.b)):
            if a2.nd == b2.nd and a2.ns == b2.ns:
                c = EquivCase(random.Random(0), a2, b2)
                c.rng_seed = self.rng_seed
                yield c

    def weight(self):
        return self.a.size() + self.b.size()


class StretchEquivCase(EquivCase):
    """equivalent on stretched maps (one plan for both): the answer is that
    of the small maps, decided by enumeration."""

    def __init__(self, rng, a, b, K):
        EquivCase.__init__(self, rng, a, b)
        self.K = K
        self.build()

    def build(self):
        plan = stretch_plan([self.a, self.b], self.K, self.rng_seed)
        self.sa, _ = stretch(self.a, self.K, self.rng_seed, plan)
        self.sb, _ = stretch(self.b, self.K, self.rng_seed, plan)

    def sent(self):
        return self.sa, self.sb

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        a, b = self.a, self.b
        if not (map_valid(self.sa) and map_valid(self.sb)):
            return []
        if not ok(r):
            if _equiv_error_ok(r, a, b):
                return []
            return ['equivalent (stretched x%d): error %r' % (
                self.K, r.get('error'))]
        box = hull(a.box(), b.box())
        pts, complete = points(box, random.Random(self.rng_seed))
        if not complete:
            return []
        diff, undef = _first_difference(a, b, pts)
        if undef:  # an undefined point before any difference: undecidable
            return []
        eq = r.get('equivalent')
        if eq != (diff is None):
            return ['equivalent (stretched x%d): %s, expected %s%s' % (
                self.K, eq, diff is None,
                '' if diff is None else ' (differ at %s)' % list(diff))]
        if eq is False and r.get('counterexample') is not None:
            ce = r['counterexample']
            d, s = ce.get('dims'), ce.get('symbols')
            if not (isinstance(d, list) and isinstance(s, list) and
                    len(d) == a.nd and len(s) == a.ns):
                return ['equivalent: malformed counterexample %r' % ce]
            x, y = self.sa.sig(d, s), self.sb.sig(d, s)
            if x == y and not isinstance(x, str):
                return ['equivalent (stretched x%d): counterexample %r where '
                        'both give %s' % (self.K, ce, _show(x))]
        return []

    def shrink_candidates(self):
        for c in EquivCase.shrink_candidates(self):
            s2 = StretchEquivCase(random.Random(0), c.a, c.b, self.K)
            s2.rng_seed = self.rng_seed
            s2.build()
            yield s2


class ComposeCase(Case):
    op = 'compose'

    def __init__(self, rng, maps, syntax=None):
        self.rng_seed = rng.random()
        self.maps = maps
        self.syntax = syntax

    def requests(self):
        req = {'op': 'compose', 'maps': [
            map_text(m, self.rng_seed + i) for i, m in enumerate(self.maps)]}
        if self.syntax:
            req['syntax'] = self.syntax
        return [req]

    def followups(self, resp):
        r = resp[0]
        if ok(r) and isinstance(r.get('map'), str):
            q = {'op': 'parse', 'map': r['map']}
            if self.syntax:
                q['syntax'] = self.syntax
            return [q]
        return []

    def composable(self):
        for a, b in zip(self.maps, self.maps[1:]):
            if len(a.results) != b.nd:
                return False
        return True

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        maps = self.maps
        valid = all(map_valid(m) for m in maps)
        if not ok(r):
            c = err_code(r)
            if not valid or c in ('limit_exceeded',):
                return []
            if c == 'invalid_argument' and not self.composable():
                return []
            if c == 'invalid_argument' and 'divisor' in str(r):
                return []
            if c == 'unsupported':
                return []
            return ['compose: error %r' % r.get('error')]
        if not valid:
            return ['compose: accepted invalid maps']
        if not self.composable():
            return ['compose: composed maps whose sizes do not match']
        text = r.get('map')
        out, prob = parsed_or_problem(text, 'compose output')
        if prob:
            return [prob]
        if out is None:
            return []
        fails = []
        if fresp:
            f = fresp[0]
            if not ok(f):
                fails.append('compose output not re-parsed by ixa: %r -> %r'
                             % (text, f))
            elif f.get('map') != text:
                fails.append('print(parse(print)) differs: %r -> %r' % (
                    text, f.get('map')))
        if any(m.known_empty for m in maps):
            if not out.known_empty:
                fails.append('compose: a KNOWN EMPTY input gave %r' % text)
            return fails
        # Symbols: [range(last)..range(first), rt(last)..rt(first)].
        order = []  # (map index, symbol index in that map)
        for k in reversed(range(len(maps))):
            order += [(k, i) for i in range(len(maps[k].rngs))]
        for k in reversed(range(len(maps))):
            nr = len(maps[k].rngs)
            order += [(k, nr + i) for i in range(len(maps[k].rts))]
        first = maps[0]
        rng = random.Random(self.rng_seed)
        box = first.box()[:first.nd] + [maps[k].syms()[i][1:3]
                                        for k, i in order]
        box = [tuple(x) for x in box]
        if out.known_empty:
            pass
        elif out.nd != first.nd or out.ns != len(order):
            return fails + ['compose: expected %d dims %d symbols, got %d, %d'
                            % (first.nd, len(order), out.nd, out.ns)]
        else:
            box = hull(box, out.box())
        pts, complete = points(box, rng)
        nd = first.nd
        for p in pts:
            d = p[:nd]
            syms = p[nd:]
            per = [[0] * m.ns for m in maps]
            for (k, i), v in zip(order, syms):
                per[k][i] = v
            want = None
            x = tuple(d)
            undef = False
            for k, m in enumerate(maps):
                y = m.sig(x, tuple(per[k]))
                if isinstance(y, str):
                    undef = True
                    break
                if y is None:
                    want = None
                    break
                x = y
            else:
                want = x
            if undef:
                continue
            got = out.sig(d, syms)
            if want is None and isinstance(got, str):
                continue
            if want != got:
                fails.append('compose: differs at dims=%s symbols=%s: '
                             'expected %s, got %s' % (list(d), list(syms),
                                                      _show(want), _show(got)))
                break
        return fails

    def shrink_candidates(self):
        for k, m in enumerate(self.maps):
            for m2 in shrink_map(m):
                maps = list(self.maps)
                maps[k] = m2
                c = ComposeCase(random.Random(0), maps, self.syntax)
                c.rng_seed = self.rng_seed
                yield c
        if len(self.maps) > 2:
            for k in range(len(self.maps)):
                maps = self.maps[:k] + self.maps[k + 1:]
                c = ComposeCase(random.Random(0), maps, self.syntax)
                c.rng_seed = self.rng_seed
                yield c

    def weight(self):
        return sum(m.size() for m in self.maps)


INTERVAL_FNS = ['add', 'mul', 'floordiv', 'mod', 'min', 'max', 'union',
                'intersect', 'gt', 'lt', 'ge', 'le', 'eq', 'ne']


class IntervalCase(Case):
    """The `interval` op: sound (every exact value, clamped to int64, lies
    in the result), exact hulls on small intervals away from the int64
    limits, exact tri-state comparisons there."""
    op = 'interval'

    def __init__(self, fn, a, b):
        self.fn, self.a, self.b = fn, a, b

    def requests(self):
        return [{'op': 'interval', 'fn': self.fn,
                 'args': [list(self.a), list(self.b)]}]

    def values(self, iv, small):
        lo, hi = iv
        if small:
            return list(range(lo, hi + 1))
        return sample_values(lo, hi, random.Random(lo ^ hi), 4)

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        a, b, fn = self.a, self.b, self.fn
        if a[0] > a[1] or b[0] > b[1]:
            return []  # empty operands: any answer
        if not ok(r):
            if fn in ('floordiv', 'mod') and tuple(b) == (0, 0) and \
                    err_code(r) == 'invalid_argument':
                return []
            return ['interval %s: error %r' % (fn, r.get('error'))]
        res = r.get('result')
        inside = all(I64_MIN < x < I64_MAX for x in a + b)
        small = inside and a[1] - a[0] <= 40 and b[1] - b[0] <= 40
        xs, ys = self.values(a, small), self.values(b, small)
        if fn in ('gt', 'lt', 'ge', 'le', 'eq', 'ne'):
            if not inside:
                return []
            op = {'gt': lambda x, y: x > y, 'lt': lambda x, y: x < y,
                  'ge': lambda x, y: x >= y, 'le': lambda x, y: x <= y,
                  'eq': lambda x, y: x == y, 'ne': lambda x, y: x != y}[fn]
            # The extremes decide: check at the corners and a few points.
            pts = [(x, y) for x in {a[0], a[1]} | set(xs[:5])
                   for y in {b[0], b[1]} | set(ys[:5])]
            if fn in ('eq', 'ne'):
                overlap = max(a[0], b[0]) <= min(a[1], b[1])
                single = a[0] == a[1] == b[0] == b[1]
                want_eq = True if single else (None if overlap else False)
                want = want_eq if fn == 'eq' else (
                    None if want_eq is None else not want_eq)
            else:
                vals = set(op(x, y) for x, y in pts)
                want = vals.pop() if len(vals) == 1 else None
            if res != want:
                return ['interval %s(%s, %s): %r, expected %r' % (
                    fn, a, b, res, want)]
            return []
        if not (isinstance(res, list) and len(res) == 2):
            return ['interval %s: malformed result %r' % (fn, res)]
        if fn == 'union':
            want = [min(a[0], b[0]), max(a[1], b[1])]
            return [] if res == want else [
                'interval union(%s, %s): %s, expected %s' % (a, b, res, want)]
        if fn == 'intersect':
            want = [max(a[0], b[0]), min(a[1], b[1])]
            if want[0] > want[1]:
                return [] if res[0] > res[1] else [
                    'interval intersect(%s, %s): %s, expected empty' % (
                        a, b, res)]
            return [] if res == want else [
                'interval intersect(%s, %s): %s, expected %s' % (
                    a, b, res, want)]
        f = {'add': lambda x, y: x + y, 'mul': lambda x, y: x * y,
             'floordiv': lambda x, y: x // y, 'mod': lambda x, y: x % y,
             'min': min, 'max': max}[fn]
        vals = [f(x, y) for x in xs for y in ys
                if not (fn in ('floordiv', 'mod') and y == 0)]
        if not vals:
            return []
        clamp = lambda v: max(I64_MIN, min(I64_MAX, v))
        lo, hi = clamp(min(vals)), clamp(max(vals))
        if res[0] > lo or res[1] < hi:
            return ['interval %s(%s, %s): %s misses %s' % (fn, a, b, res,
                                                            [lo, hi])]
        # Exact hulls, except mod by a non-point divisor (core/interval.h:
        # a sound over-approximation there).
        if fn == 'mod' and b[0] != b[1]:
            return []
        if small and all(I64_MIN < v < I64_MAX for v in (min(vals),
                                                          max(vals))):
            if res != [lo, hi]:
                return ['interval %s(%s, %s): %s, exact hull %s' % (
                    fn, a, b, res, [lo, hi])]
        return []

    def weight(self):
        return 0


def gen_interval(rng):
    def iv():
        r = rng.random()
        if r < 0.7:
            lo = rng.randint(-20, 20)
            return [lo, lo + rng.randint(0, 12)]
        if r < 0.75:
            lo = rng.randint(-5, 5)
            return [lo + 3, lo]  # empty
        vals = [I64_MIN, I64_MIN + 1, -(1 << 62), -1, 0, 1, 7, 1 << 62,
                I64_MAX - 1, I64_MAX, 3037000499, -3037000500]
        x, y = rng.choice(vals), rng.choice(vals)
        return sorted([x, y])
    return IntervalCase(rng.choice(INTERVAL_FNS), iv(), iv())


def chunk_deletions(seq):
    """`seq` (str or bytes) with one chunk cut out, halving the chunk size
    from half the length down to 1; candidates that are only blanks are
    left out."""
    n = len(seq)
    chunk = max(1, n // 2)
    while chunk >= 1:
        for i in range(0, n, chunk):
            cand = seq[:i] + seq[i + chunk:]
            if cand.strip():
                yield cand
        chunk //= 2


class TextCase(Case):
    """A map text without an oracle (hostile or mutated): whatever ixa
    accepts must print to text it reads back to the same print, in the
    request's syntax, and simplify must answer."""

    def __init__(self, op, text, syntax=None):
        self.op, self.text, self.syntax = op, text, syntax

    def requests(self):
        q = {'op': self.op, 'map': self.text}
        if self.syntax:
            q['syntax'] = self.syntax
        return [q]

    def followups(self, resp):
        r = resp[0]
        if not ok(r) or not isinstance(r.get('map'), str):
            return []
        q = {'op': 'parse', 'map': r['map']}
        if self.syntax:
            q['syntax'] = self.syntax
        return [q]

    def check(self, reqs, resp, freqs, fresp):
        if not ok(resp[0]) or not fresp:
            return []
        text = resp[0]['map']
        f = fresp[0]
        if not ok(f):
            return ['%s output not re-parsed by ixa: %r -> %r' % (
                self.op, text[:300], f.get('error'))]
        if f.get('map') != text:
            return ['print(parse(print)) differs: %r -> %r' % (
                text[:300], f.get('map', '')[:300])]
        return []

    def shrink_candidates(self):
        for cand in chunk_deletions(self.text):
            yield TextCase(self.op, cand, self.syntax)

    def weight(self):
        return len(self.text)


class RawCase(Case):
    """A line (bytes) that must get one well-formed response."""
    op = 'garbage'

    def __init__(self, line):
        self.line = line

    def raw_lines(self):
        return [self.line]

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        if not isinstance(r, dict):
            return ['garbage: no JSON response']
        p = protocol_problem(None, r)
        return [p] if p else []

    def shrink_candidates(self):
        line = self.line
        n = len(line)
        for cand in chunk_deletions(line):
            yield RawCase(cand)
        # Simplify characters.
        for i in range(n):
            if line[i:i + 1] not in (b'0', b' ', b'a'):
                for rep in (b'0', b'a'):
                    yield RawCase(line[:i] + rep + line[i + 1:])

    def weight(self):
        return len(self.line)

    def repro(self):
        return [self.line]
