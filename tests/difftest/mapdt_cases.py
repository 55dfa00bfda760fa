"""The cases of difftest.py (requests, follow-ups, checks): the Case
base, the checks they share and the single-map ops (MapCase)."""

import json
import random

from mapdt_model import (
    ERROR_CODES, I64_MAX, I64_MIN, ParseError, Renderer, Undefined, box_size,
    compile_expr, count_divmod, ev, fits, hull, parse_map, points, render_map,
    trivially_empty)
from mapdt_gen import map_valid, shrink_int, shrink_map


# ---------------------------------------------------------------------------
# Cases: requests, follow-ups, checks.
# ---------------------------------------------------------------------------

def ok(r):
    return isinstance(r, dict) and r.get('ok') is True


def err_code(r):
    if isinstance(r, dict) and r.get('ok') is False:
        e = r.get('error')
        if isinstance(e, dict):
            return e.get('code')
    return None


def protocol_problem(req, r):
    """Shape of any response."""
    if not isinstance(r, dict):
        return 'no response object'
    if isinstance(req, dict) and 'id' in req and r.get('id') != req['id']:
        return 'id not echoed: %r vs %r' % (req.get('id'), r.get('id'))
    if r.get('ok') is True:
        return None
    if r.get('ok') is not False:
        return 'response has no boolean ok: %r' % r
    e = r.get('error')
    if not isinstance(e, dict) or e.get('code') not in ERROR_CODES or \
            not isinstance(e.get('message'), str):
        return 'malformed error: %r' % r
    if e['code'] == 'internal':
        return 'internal error: %s' % e.get('message')
    if e['code'] == 'parse_error' and not (
            isinstance(e.get('line'), int) and isinstance(e.get('column'), int)):
        return 'parse_error without line/column: %r' % r
    return None


ACCEPTABLE_DECIDE_ERRORS = {'limit_exceeded', 'unsupported'}


class Case:
    """A property check: requests (first round), follow-ups, check."""
    op = '?'

    def __init__(self, rng):
        self.seed = rng.random()

    def requests(self):
        return []

    def followups(self, resp):
        return []

    def check(self, reqs, resp, freqs, fresp):
        return []

    def shrink_candidates(self):
        return []

    def weight(self):
        return 0

    def repro(self):
        return self.requests()


def map_text(m, seed, style='wild'):
    return render_map(m, random.Random(seed), style)


def parsed_or_problem(text, what):
    try:
        return parse_map(text), None
    except ParseError as e:
        return None, '%s does not parse (%s): %r' % (what, e, text)
    except RecursionError:
        return None, None


def same_function(ref, out, rng, what, allow_undef_out_of_domain=True):
    """ref and out over the same variables: same domain, same results."""
    if not out.known_empty and (out.nd != ref.nd or out.ns != ref.ns):
        return '%s: variables changed (%d dims, %d symbols -> %d, %d)' % (
            what, ref.nd, ref.ns, out.nd, out.ns)
    if len(out.results) != len(ref.results) and not out.known_empty:
        return '%s: result count changed' % what
    box = ref.box() if out.known_empty else hull(ref.box(), out.box())
    pts, complete = points(box, rng)
    nd = ref.nd
    for p in pts:
        d, s = p[:nd], p[nd:]
        a = ref.sig(d, s)
        if isinstance(a, str):
            continue
        b = out.sig(d, s)
        if a is None and isinstance(b, str) and allow_undef_out_of_domain:
            continue
        if a != b:
            return '%s: differs at dims=%s symbols=%s: expected %s, got %s' % (
                what, list(d), list(s), _show(a), _show(b))
    return None


def _show(sig):
    if sig is None:
        return 'outside the domain'
    if isinstance(sig, str):
        return 'undefined (%s)' % sig
    return list(sig)


def domain_points(m, rng):
    pts, complete = points(m.box(), rng)
    nd = m.nd
    feas = []
    undef = False
    for p in pts:
        x = m.sig(p[:nd], p[nd:])
        if isinstance(x, str):
            undef = True
        elif x is not None:
            feas.append((p, x))
    return feas, complete, undef


def decide_followups(case, input_text, r):
    """After simplify: the input and the answer must be `equivalent` (the
    decision procedures against the simplifier, on any domain size), and a
    KNOWN EMPTY answer needs an empty input (`is_empty`)."""
    text = r.get('map')
    if text == 'KNOWN EMPTY':
        case._fu_kinds.append('is_empty')
        return [{'op': 'is_empty', 'map': input_text}]
    case._fu_kinds.append('equivalent')
    return [{'op': 'equivalent', 'a': input_text, 'b': text}]


def reparse_followups(case, r, resimplify, decide):
    """The follow-ups of an answered map: parse it (its print must read back
    as itself), simplify it again when `resimplify` (a fixpoint: nothing
    changes), and with `decide` the decision procedures against the
    simplifier (decide_followups), all in the case's syntax."""
    fu = [{'op': 'parse', 'map': r['map']}]
    case._resimplified = resimplify
    if resimplify:
        fu.append({'op': 'simplify', 'map': r['map']})
    if case.syntax:
        for q in fu:
            q['syntax'] = case.syntax
    case._fu_kinds = []
    if decide:
        fu += decide_followups(case, case.text_sent, r)
    return fu


def check_decide_followups(case, m, fresp):
    """The answers to decide_followups; m is the input map (as sent)."""
    fails = []
    kinds = getattr(case, '_fu_kinds', [])
    for kind, r in zip(kinds, fresp[len(fresp) - len(kinds):]):
        if not isinstance(r, dict):
            continue
        if not ok(r):
            c = err_code(r)
            if c in ACCEPTABLE_DECIDE_ERRORS or c == 'invalid_argument':
                continue
            fails.append('%s(input, simplified): error %r' % (kind,
                                                             r.get('error')))
            continue
        if kind == 'is_empty' and r.get('empty') is not True:
            fails.append('simplify says KNOWN EMPTY, is_empty says %r' %
                         r.get('empty'))
        if kind == 'equivalent' and r.get('equivalent') is not True:
            ce = r.get('counterexample') or {}
            d, sy = ce.get('dims'), ce.get('symbols')
            where = ''
            if isinstance(d, list) and isinstance(sy, list) and \
                    len(d) == m.nd and len(sy) == m.ns:
                where = ' at %s (input: %s)' % (ce, _show(m.sig(d, sy)))
            fails.append('equivalent(input, simplified) is %r%s' % (
                r.get('equivalent'), where))
    return fails


class MapCase(Case):
    """One map, one op."""

    def __init__(self, rng, m, op, extra=None, syntax=None):
        self.rng_seed = rng.random()
        self.m = m
        self.op = op
        self.extra = extra if extra is not None else {}
        self.syntax = syntax

    def text(self):
        style = 'symbolic' if self.syntax == 'symbolic' else 'wild'
        return map_text(self.m, self.rng_seed, style)

    def requests(self):
        req = {'op': self.op, 'map': self.text()}
        self.text_sent = req['map']
        if self.syntax:
            req['syntax'] = self.syntax
        req.update(self.extra)
        if getattr(self, 'extra_expr', None) is not None:
            names = self.m.names()
            req['expr'] = Renderer(random.Random(self.rng_seed),
                                   (names[:self.m.nd], names[self.m.nd:]),
                                   'wild').expr(self.extra_expr)
        out = [req]
        if self.op == 'simplify':
            # For the `changed: false` check: parse's canonical print.
            p = {'op': 'parse', 'map': req['map']}
            if self.syntax:
                p['syntax'] = self.syntax
            out.append(p)
        return out

    def followups(self, resp):
        r = resp[0]
        if not ok(r) or not isinstance(r.get('map'), str):
            return []
        simplify = self.op == 'simplify'
        return reparse_followups(
            self, r, simplify and not r.get('budget_exhausted'),
            simplify and map_valid(self.m))

    def check(self, reqs, resp, freqs, fresp):
        fails = []
        rng = random.Random(self.rng_seed)
        if self.op == 'simplify' and ok(resp[0]):
            fails += check_decide_followups(self, self.m, fresp)
        r = resp[0]
        m = self.m
        valid = map_valid(m)
        code = err_code(r)
        if not ok(r):
            if code == 'internal' or code is None:
                return ['%s: %r' % (self.op, r)]
            if not valid:
                return []
            if code == 'parse_error':
                return ['%s: a valid map was refused: %s' % (
                    self.op, r['error'].get('message'))]
            if self.op == 'evaluate':
                return self.check_evaluate_error(r)
            if code in ACCEPTABLE_DECIDE_ERRORS:
                return []
            if code == 'invalid_argument' and domain_points(m, rng)[2]:
                return []  # a zero divisor in the box
            if code == 'invalid_argument' and \
                    getattr(self, 'extra_expr', None) is not None:
                f = compile_expr(self.extra_expr)
                for p, _ in domain_points(m, rng)[0]:
                    try:
                        f(p[:m.nd], p[m.nd:])
                    except Undefined:
                        return []  # the expression divides by zero
            if code == 'invalid_argument' and self.op in (
                    'convert_symbols_to_dims',):
                return []
            return ['%s: unexpected error %s: %s' % (
                self.op, code, r['error'].get('message'))]
        if not valid:
            return ['%s: an invalid map was accepted: %r' % (self.op,
                                                            reqs[0]['map'])]
        if self.op == 'evaluate':
            return self.check_evaluate(r)
        if self.op == 'is_empty':
            return self.check_is_empty(r, rng)
        if self.op == 'bounds':
            return self.check_bounds(r, rng)
        # Ops that return a map.
        text = r.get('map')
        if not isinstance(text, str):
            return ['%s: no map in %r' % (self.op, r)]
        out, prob = parsed_or_problem(text, '%s output' % self.op)
        if prob:
            return [prob]
        if out is None:
            return []
        # ixa must read its own print back to the same print.
        if fresp:
            f = fresp[0]
            if not ok(f):
                fails.append('%s output not re-parsed by ixa: %r -> %r' % (
                    self.op, text, f))
            elif f.get('map') != text:
                fails.append('print(parse(print)) differs: %r -> %r' % (
                    text, f.get('map')))
        if self.op == 'parse':
            fails += self.check_parse(out, rng)
        elif self.op == 'simplify':
            fails += self.check_simplify(r, out, resp, fresp, rng)
        elif self.op in ('remove_unused_symbols', 'rescale_symbols'):
            fails += check_relation(m, out, rng, self.op)
        elif self.op == 'remove_unused_vars':
            fails += check_image(m, out, rng, self.op)
        elif self.op == 'convert_symbols_to_dims':
            fails += self.check_convert(out, rng)
        return fails

    def check_parse(self, out, rng):
        m = self.m
        if out.known_empty:
            feas, complete, _ = domain_points(m, rng)
            if feas:
                return ['parse: KNOWN EMPTY, but dims=%s symbols=%s is in '
                        'the domain' % (list(feas[0][0][:m.nd]),
                                        list(feas[0][0][m.nd:]))]
            return []
        fails = []
        if out.names() != m.names():
            fails.append('parse: names changed %s -> %s' % (m.names(),
                                                          out.names()))
        p = same_function(m, out, rng, 'parse')
        if p:
            fails.append(p)
        return fails

    def check_simplify(self, r, out, resp, fresp, rng):
        m = self.m
        fails = []
        if out.known_empty:
            feas, _, _ = domain_points(m, rng)
            if feas:
                p = feas[0][0]
                fails.append('simplify: KNOWN EMPTY, but dims=%s symbols=%s '
                             'is in the domain' % (list(p[:m.nd]),
                                                   list(p[m.nd:])))
            return fails
        p = same_function(m, out, rng, 'simplify')
        if p:
            fails.append(p)
        if out.names() != m.names():
            fails.append('simplify: names changed %s -> %s' % (m.names(),
                                                             out.names()))
        before = sum(count_divmod(e) for e in m.results)
        after = sum(count_divmod(e) for e in out.results)
        if after > before:
            fails.append('simplify: more div/mod in the results (%d -> %d)' %
                         (before, after))
        pr = resp[1] if len(resp) > 1 else None
        if r.get('changed') is False and ok(pr) and pr.get('map') != r['map']:
            fails.append('simplify: changed=false but the print differs from '
                         "parse's: %r vs %r" % (pr.get('map'), r['map']))
        s2 = fresp[1] if len(fresp) > 1 and getattr(
            self, '_resimplified', False) else None
        if ok(s2):
            if s2.get('map') != r['map']:
                fails.append('simplify not idempotent: %r -> %r' % (
                    r['map'], s2.get('map')))
        return fails

    def check_convert(self, out, rng):
        m = self.m
        which = self.extra.get('symbols')
        nr = len(m.rngs)
        if which is None:
            conv = list(range(m.ns))
        else:
            conv = list(which)
        if out.known_empty:
            feas, _, _ = domain_points(m, rng)
            return ['convert: KNOWN EMPTY for a non-empty map'] if feas else []
        keep = [i for i in range(m.ns) if i not in conv]
        if out.nd != m.nd + len(conv) or out.ns != len(keep):
            return ['convert_symbols_to_dims: expected %d dims %d symbols, '
                    'got %d, %d' % (m.nd + len(conv), len(keep), out.nd,
                                    out.ns)]
        pts, _ = points(m.box(), rng)
        nd = m.nd
        for p in pts:
            d, s = p[:nd], p[nd:]
            a = m.sig(d, s)
            if isinstance(a, str):
                continue
            d2 = tuple(d) + tuple(s[i] for i in conv)
            s2 = tuple(s[i] for i in keep)
            b = out.sig(d2, s2)
            if a != b and not (a is None and isinstance(b, str)):
                return ['convert_symbols_to_dims: differs at dims=%s '
                        'symbols=%s: %s vs %s' % (list(d), list(s), _show(a),
                                                  _show(b))]
        # Points of out's box outside m's box must be outside out's domain.
        pts, _ = points(out.box(), rng)
        for p in pts:
            b = out.sig(p[:out.nd], p[out.nd:])
            if b is None or isinstance(b, str):
                continue
            d = p[:nd]
            s = [0] * m.ns
            for j, i in enumerate(conv):
                s[i] = p[nd + j]
            for j, i in enumerate(keep):
                s[i] = p[out.nd + j]
            a = m.sig(d, tuple(s))
            if isinstance(a, str):
                continue
            if a != b:
                return ['convert_symbols_to_dims: differs at %s: %s vs %s' % (
                    list(p), _show(a), _show(b))]
        return []

    def check_evaluate(self, r):
        m = self.m
        d = self.extra['dims']
        s = self.extra.get('symbols', [])
        if len(d) != m.nd or len(s) != m.ns:
            return ['evaluate: answered for a point of the wrong size']
        if m.known_empty or trivially_empty(m):
            # Parsed as KNOWN EMPTY: its results are gone.
            return [] if r.get('in_domain') is False else [
                'evaluate: in_domain for KNOWN EMPTY']
        try:
            want = [ev(e, d, s) for e in m.results]
        except Undefined:
            return ['evaluate: answered %r at a zero divisor' % r]
        if not all(fits(v) for v in want):
            return ['evaluate: answered %r, but the results %s do not fit in '
                    'int64' % (r.get('results'), want)]
        fails = []
        if r.get('results') != want:
            fails.append('evaluate: results %r, expected %r' % (
                r.get('results'), want))
        sig = m.sig(d, s)
        if not isinstance(sig, str) and r.get('in_domain') != (sig is not None):
            fails.append('evaluate: in_domain %r, expected %r' % (
                r.get('in_domain'), sig is not None))
        return fails

    def check_evaluate_error(self, r):
        m = self.m
        d = self.extra['dims']
        s = self.extra.get('symbols', [])
        if len(d) != m.nd or len(s) != m.ns:
            return []
        if not all(fits(v) for v in list(d) + list(s)):
            return []
        try:
            want = [ev(e, d, s) for e in m.results]
        except Undefined:
            return []
        if not all(fits(v) for v in want):
            return []
        # The results fit; an error is still acceptable when a constraint
        # is undefined or overflows (in_domain has no exact int64 answer),
        # not otherwise.
        res, cons = m.compiled()
        try:
            cv = [f(d, s) for f, _, _ in cons]
        except Undefined:
            return []
        return ['evaluate: error %s (%s) where the answer is %s' % (
            err_code(r), r['error'].get('message'), want)]

    def check_is_empty(self, r, rng):
        m = self.m
        feas, complete, undef = domain_points(m, rng)
        e = r.get('empty')
        if not isinstance(e, bool):
            return ['is_empty: no boolean in %r' % r]
        if e and feas:
            p = feas[0][0]
            return ['is_empty: true, but dims=%s symbols=%s is in the domain' %
                    (list(p[:m.nd]), list(p[m.nd:]))]
        if not e and complete and not feas and not undef:
            return ['is_empty: false, but no point of the box (%d points) is '
                    'in the domain' % box_size(m.box())]
        return []

    def check_bounds(self, r, rng):
        m = self.m
        exprs = m.results
        if getattr(self, 'extra_expr', None) is not None:
            exprs = [self.extra_expr]
        res = r.get('results')
        if not isinstance(res, list) or len(res) != len(exprs):
            return ['bounds: %d intervals expected: %r' % (len(exprs), r)]
        exact = r.get('exact')
        feas, complete, undef = domain_points(m, rng)
        if undef:
            return []
        fails = []
        for i, (e, iv) in enumerate(zip(exprs, res)):
            f = compile_expr(e)
            vals = []
            for p, _ in feas:
                try:
                    vals.append(f(p[:m.nd], p[m.nd:]))
                except Undefined:
                    vals = None
                    break
            if vals is None:
                continue
            if iv is None:
                if vals:
                    fails.append('bounds: null (empty domain) for result %d, '
                                 'which takes %s' % (i, [min(vals),
                                                         max(vals)]))
                continue
            if not (isinstance(iv, list) and len(iv) == 2):
                fails.append('bounds: malformed interval %r' % (iv,))
                continue
            lo, hi = iv
            if vals and not all(fits(v) for v in (min(vals), max(vals))) and \
                    exact:
                fails.append('bounds: exact, but result %d reaches %s past '
                             'int64' % (i, [min(vals), max(vals)]))
                continue
            if vals and (min(vals) < lo or max(vals) > hi):
                if not (min(vals) < I64_MIN or max(vals) > I64_MAX):
                    fails.append('bounds: result %d takes %s, outside %s' %
                                 (i, [min(vals), max(vals)], iv))
            if exact and complete and vals and [lo, hi] != [min(vals),
                                                            max(vals)]:
                fails.append('bounds: exact %s for result %d, true range %s' %
                             (iv, i, [min(vals), max(vals)]))
            if exact and complete and not vals and lo <= hi:
                fails.append('bounds: exact non-empty %s on an empty domain' %
                             (iv,))
        return fails

    def shrink_candidates(self):
        for m2 in shrink_map(self.m):
            c = MapCase(random.Random(0), m2, self.op, dict(self.extra),
                        self.syntax)
            c.rng_seed = self.rng_seed
            if getattr(self, 'extra_expr', None) is not None:
                if (m2.nd, m2.ns) != (self.m.nd, self.m.ns):
                    continue
                c.extra_expr = self.extra_expr
            if self.op == 'evaluate':
                c.extra['dims'] = list(self.extra['dims'])[:m2.nd] + \
                    [0] * max(0, m2.nd - len(self.extra['dims']))
                s = list(self.extra.get('symbols', []))
                c.extra['symbols'] = s[:m2.ns] + [0] * max(0, m2.ns - len(s))
            if self.op == 'convert_symbols_to_dims' and 'symbols' in self.extra:
                c.extra['symbols'] = [i for i in self.extra['symbols']
                                      if i < len(m2.rngs)]
            yield c
        if self.op == 'evaluate':
            for key in ('dims', 'symbols'):
                vs = self.extra.get(key, [])
                for i, v in enumerate(vs):
                    for nv in shrink_int(v):
                        c = MapCase(random.Random(0), self.m, self.op,
                                    json.loads(json.dumps(self.extra)),
                                    self.syntax)
                        c.rng_seed = self.rng_seed
                        c.extra[key][i] = nv
                        yield c
        if self.syntax:
            c = MapCase(random.Random(0), self.m, self.op, dict(self.extra),
                        None)
            c.rng_seed = self.rng_seed
            yield c

    def weight(self):
        return self.m.size() + (1 if self.syntax else 0)


def check_relation(m, out, rng, what):
    """Same dims; the relation dims -> results over the domain is kept."""
    if out.known_empty:
        feas, _, _ = domain_points(m, rng)
        return ['%s: KNOWN EMPTY for a non-empty map' % what] if feas else []
    if out.nd != m.nd or len(out.results) != len(m.results):
        return ['%s: dims or results changed' % what]
    ra = relation(m, rng)
    rb = relation(out, rng)
    if ra is None or rb is None:
        return []
    if ra[1] and rb[1]:  # both enumerated completely
        if ra[0] != rb[0]:
            diff = sorted(ra[0] ^ rb[0])[:1]
            return ['%s: the relation dims -> results changed, e.g. %s in '
                    'only %s' % (what, diff, 'the input' if diff[0] in ra[0]
                                 else 'the output')]
    elif rb[1]:
        extra = [x for x in ra[0] if x not in rb[0]]
        if extra:
            return ['%s: lost %s' % (what, extra[0])]
    elif ra[1]:
        extra = [x for x in rb[0] if x not in ra[0]]
        if extra:
            return ['%s: gained %s' % (what, extra[0])]
    return []


def relation(m, rng, image=False):
    feas, complete, undef = domain_points(m, rng)
    if undef:
        return None
    if image:
        return set(x for _, x in feas), complete
    return set((tuple(p[:m.nd]), x) for p, x in feas), complete


def check_image(m, out, rng, what):
    if out.known_empty:
        feas, _, _ = domain_points(m, rng)
        return ['%s: KNOWN EMPTY for a non-empty map' % what] if feas else []
    ra = relation(m, rng, image=True)
    rb = relation(out, rng, image=True)
    if ra is None or rb is None:
        return []
    if ra[1] and rb[1] and ra[0] != rb[0]:
        return ['%s: the image changed: %s' % (
            what, sorted(ra[0] ^ rb[0])[:2])]
    return []
