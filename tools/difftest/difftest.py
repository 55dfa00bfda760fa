#!/usr/bin/env python3
"""An independent differential tester of `ixa query` (stdlib only).

  difftest.py IXA [--seed S] [--cases N | --seconds T] [--shrink] [--out F]

It shares no code and no assumptions with the C++ sources or their tests
(tests/simplifier/fuzz_lib.cc, tests/fuzz/): maps are generated here, printed
by this file's own renderer (random spacing, parentheses, operator
spellings, `16d0` shorthand, custom names, optional commas, symbolic `/` and
`%`), and every answer is checked against this file's own parser and
evaluator of spec/indexing.md, in exact (Python) integer arithmetic:

  floordiv rounds toward -inf, ceildiv toward +inf, mod takes the sign of
  the divisor (a == (a floordiv c) * c + a mod c), a zero divisor is
  undefined; a value that does not fit in int64 must be an error, never a
  wrong number.

Checks, per op (spec/cli.md):
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
               error code from the spec, never `internal`, a crash, a hang or
               exit code 70

Failures are shrunk (--shrink, on by default in manual mode) to a minimal
request and printed as JSON Lines. Exit status: 0 when no failure, 1 when
some, 77 when IXA cannot be run (CTest skips).
"""

import argparse
import itertools
import json
import os
import random
import re
import subprocess
import sys
import time

I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
FULL = (I64_MIN, I64_MAX)
ERROR_CODES = {"bad_json", "bad_request", "parse_error", "invalid_argument",
               "unsupported", "limit_exceeded", "internal"}
# Enumerate domains up to this many points; sample above.
ENUM_LIMIT = 1500
SAMPLES = 160


def fits(v):
    return I64_MIN <= v <= I64_MAX


# ---------------------------------------------------------------------------
# Expressions: tuples. ('c', v) ('d', i) ('s', i) ('neg', a) and
# (op, a, b) for op in add mul fd cd mod min max. Symbols are numbered over
# range then runtime variables.
# ---------------------------------------------------------------------------

class Undefined(Exception):
    """A zero divisor at a point."""


def _fd(a, b):
    if b == 0:
        raise Undefined()
    return a // b


def _cd(a, b):
    if b == 0:
        raise Undefined()
    return -((-a) // b)


def _md(a, b):
    if b == 0:
        raise Undefined()
    return a % b


def ev(e, d, s):
    k = e[0]
    if k == 'c':
        return e[1]
    if k == 'd':
        return d[e[1]]
    if k == 's':
        return s[e[1]]
    if k == 'neg':
        return -ev(e[1], d, s)
    if k == 'mul' and (folded_constant(e[1]) == 0 or
                       folded_constant(e[2]) == 0):
        return 0
    a = ev(e[1], d, s)
    b = ev(e[2], d, s)
    if k == 'add':
        return a + b
    if k == 'mul':
        return a * b
    if k == 'min':
        return min(a, b)
    if k == 'max':
        return max(a, b)
    if k == 'fd':
        return _fd(a, b)
    if k == 'cd':
        return _cd(a, b)
    if k == 'mod':
        return _md(a, b)
    raise ValueError(k)


def _src(e):
    k = e[0]
    if k == 'mul' and (folded_constant(e[1]) == 0 or
                       folded_constant(e[2]) == 0):
        return '(0)'  # construction folds x * 0, even where x is undefined
    if k == 'c':
        return '(%d)' % e[1]
    if k == 'd':
        return 'd[%d]' % e[1]
    if k == 's':
        return 's[%d]' % e[1]
    if k == 'neg':
        return '(-%s)' % _src(e[1])
    a, b = _src(e[1]), _src(e[2])
    return {'add': '(%s + %s)', 'mul': '(%s * %s)', 'min': 'min(%s, %s)',
            'max': 'max(%s, %s)', 'fd': '_fd(%s, %s)', 'cd': '_cd(%s, %s)',
            'mod': '_md(%s, %s)'}[k] % (a, b)


_compiled = {}


def compile_expr(e):
    """A fast evaluator f(d, s) (Python source, cached)."""
    f = _compiled.get(e)
    if f is None:
        try:
            f = eval('lambda d, s: ' + _src(e),
                     {'_fd': _fd, '_cd': _cd, '_md': _md})
        except (RecursionError, SyntaxError, MemoryError):
            f = lambda d, s, e=e: ev(e, d, s)
        if len(_compiled) > 200000:
            _compiled.clear()
        _compiled[e] = f
    return f


def size(e):
    if e[0] in ('c', 'd', 's'):
        return 1
    return 1 + sum(size(x) for x in e[1:])


def count_divmod(e):
    if e[0] in ('c', 'd', 's'):
        return 0
    return (1 if e[0] in ('fd', 'cd', 'mod') else 0) + sum(
        count_divmod(x) for x in e[1:])


def uses(e, acc):
    if e[0] in ('d', 's'):
        acc.add((e[0], e[1]))
    elif e[0] != 'c':
        for x in e[1:]:
            uses(x, acc)
    return acc


def subst(e, f):
    """Bottom-up rewrite of leaves: f(leaf) -> expr or None (keep)."""
    if e[0] in ('c', 'd', 's'):
        r = f(e)
        return e if r is None else r
    return (e[0],) + tuple(subst(x, f) for x in e[1:])


def is_semi_affine(e):
    k = e[0]
    if k in ('c', 'd', 's'):
        return False
    if k in ('min', 'max'):
        return True
    if k == 'mul':
        if not (constant_valued(e[1]) or constant_valued(e[2])):
            return True
    if k in ('fd', 'cd', 'mod') and not constant_valued(e[2]):
        return True
    return any(is_semi_affine(x) for x in e[1:])


def constant_valued(e):
    return not uses(e, set())


# ---------------------------------------------------------------------------
# Maps.
# ---------------------------------------------------------------------------

class Map:
    """dims / rngs / rts: lists of [name or None, lo, hi]."""

    def __init__(self, dims, rngs, rts, results, cons, known_empty=False):
        self.dims = dims
        self.rngs = rngs
        self.rts = rts
        self.results = results
        self.cons = cons  # list of (expr, lo, hi)
        self.known_empty = known_empty
        self._c = None

    def copy(self):
        return Map([list(v) for v in self.dims], [list(v) for v in self.rngs],
                   [list(v) for v in self.rts], list(self.results),
                   list(self.cons), self.known_empty)

    @property
    def nd(self):
        return len(self.dims)

    @property
    def ns(self):
        return len(self.rngs) + len(self.rts)

    def syms(self):
        return self.rngs + self.rts

    def vars(self):
        return self.dims + self.rngs + self.rts

    def names(self):
        out = []
        for i, v in enumerate(self.dims):
            out.append(v[0] or 'd%d' % i)
        for i, v in enumerate(self.rngs):
            out.append(v[0] or 's%d' % i)
        for i, v in enumerate(self.rts):
            out.append(v[0] or 'rt%d' % i)
        return out

    def compiled(self):
        if self._c is None:
            self._c = ([compile_expr(r) for r in self.results],
                       [(compile_expr(c), lo, hi) for c, lo, hi in self.cons])
        return self._c

    def box(self):
        """Bounds, narrowed by bare-variable constraints (`1d0 in [..]`
        folds to a bound once parsed), so that sampling meets the domain."""
        b = [(v[1], v[2]) for v in self.vars()]
        for c, lo, hi in self.cons:
            x = bare_variable(c)
            if x is not None:
                i = x[1] if x[0] == 'd' else self.nd + x[1]
                if i < len(b):
                    b[i] = (max(b[i][0], lo), min(b[i][1], hi))
        return b

    def box_empty(self):
        return self.known_empty or any(lo > hi for lo, hi in self.box())

    def sig(self, d, s):
        """None outside the domain, else the results; 'undef' markers."""
        if self.known_empty:
            return None
        # Bounds with sentinel ends too: a composed map's intermediate
        # value may lie past int64 (points given here are int64).
        for v, x in zip(self.dims, d):
            if not holds(x, v[1], v[2]):
                return None
        for v, x in zip(self.syms(), s):
            if not holds(x, v[1], v[2]):
                return None
        res, cons = self.compiled()
        try:
            for f, lo, hi in cons:
                if not holds(f(d, s), lo, hi):
                    return None
        except Undefined:
            return 'undef-c'
        try:
            return tuple(f(d, s) for f in res)
        except Undefined:
            return 'undef-r'

    def size(self):
        n = sum(size(r) for r in self.results)
        n += sum(size(c) + 1 for c, _, _ in self.cons)
        n += 2 * len(self.vars())
        for v in self.vars():
            if (v[1], v[2]) != FULL:
                n += (abs(v[1]).bit_length() + abs(v[2]).bit_length()) / 8.0
                n += max(0, v[2] - v[1]).bit_length() / 4.0
            if v[0]:
                n += 0.5
        for e in self.results + [c for c, _, _ in self.cons]:
            n += const_weight(e)
        return n


def holds(v, lo, hi):
    """`v in [lo, hi]` for a constraint: an end at an int64 limit is the
    "unbounded" sentinel (spec/xla-reference.md: "the min/max values act as
    sentinels"), so a value past int64 meets it; otherwise exact."""
    if lo > hi:
        return False
    return (lo == I64_MIN or v >= lo) and (hi == I64_MAX or v <= hi)


def folded_constant(e):
    """e's value when construction folding makes it a constant (constant
    operands, x * 0), else None."""
    k = e[0]
    if k == 'c':
        return e[1]
    if k in ('d', 's'):
        return None
    if k == 'neg':
        v = folded_constant(e[1])
        return None if v is None else -v
    a, b = folded_constant(e[1]), folded_constant(e[2])
    if k == 'mul' and (a == 0 or b == 0):
        return 0
    if a is None or b is None:
        return None
    try:
        return ev((k, ('c', a), ('c', b)), (), ())
    except Undefined:
        return None


def bare_variable(e):
    """The variable e is once construction folds `x * 1` and `x + 0`."""
    while True:
        if e[0] in ('d', 's'):
            return e
        if e[0] == 'mul' and folded_constant(e[2]) == 1:
            e = e[1]
        elif e[0] == 'mul' and folded_constant(e[1]) == 1:
            e = e[2]
        elif e[0] == 'add' and folded_constant(e[2]) == 0:
            e = e[1]
        elif e[0] == 'add' and folded_constant(e[1]) == 0:
            e = e[2]
        else:
            return None


def trivially_empty(m):
    """Empty by its bounds or by a constant constraint (KNOWN EMPTY once
    parsed)."""
    if m.box_empty():
        return True
    box = {}
    for c, lo, hi in m.cons:
        if lo > hi:
            return True
        x = bare_variable(c)
        if x is not None:
            v = (m.dims if x[0] == 'd' else m.syms())[x[1]]
            a, b = box.get(x, (v[1], v[2]))
            a, b = max(a, lo), min(b, hi)
            if a > b:
                return True
            box[x] = (a, b)
            continue
        v = folded_constant(c)
        if v is not None and not holds(v, lo, hi):
            return True
        # A repeated expression intersects its intervals.
        a, b = box.get(c, (I64_MIN, I64_MAX))
        a, b = max(a, lo), min(b, hi)
        if a > b:
            return True
        box[c] = (a, b)
    return False


def const_weight(e):
    if e[0] == 'c':
        return abs(e[1]).bit_length() / 16.0 + (0.01 if e[1] < 0 else 0)
    if e[0] in ('d', 's'):
        return 0
    return sum(const_weight(x) for x in e[1:])


def box_size(box):
    n = 1
    for lo, hi in box:
        if lo > hi:
            return 0
        n *= hi - lo + 1
    return n


def sample_values(lo, hi, rng, k):
    if lo > hi:
        return []
    vals = {lo, hi}
    for x in (lo + 1, hi - 1, 0, 1, -1, (lo + hi) // 2):
        if lo <= x <= hi:
            vals.add(x)
    for _ in range(k):
        vals.add(rng.randint(lo, hi))
        w = min(hi - lo, 64)
        vals.add(lo + rng.randint(0, w))
        vals.add(hi - rng.randint(0, w))
    return sorted(vals)


def points(box, rng, limit=ENUM_LIMIT, samples=SAMPLES):
    """(points, complete): every point of the box, or a sample."""
    n = box_size(box)
    if n == 0:
        return [], True
    if n <= limit:
        return list(itertools.product(*[range(lo, hi + 1) for lo, hi in box])), True
    per = [sample_values(lo, hi, rng, 3) for lo, hi in box]
    pts = set()
    for _ in range(samples):
        pts.add(tuple(rng.choice(vs) for vs in per))
    for i in range(min(samples, 16)):  # corners
        pts.add(tuple(vs[0] if (i >> j) & 1 else vs[-1]
                      for j, vs in enumerate(per)))
    return sorted(pts), False


def hull(a, b):
    out = []
    for (l1, h1), (l2, h2) in zip(a, b):
        if l1 > h1:
            out.append((l2, h2))
        elif l2 > h2:
            out.append((l1, h1))
        else:
            out.append((min(l1, l2), max(h1, h2)))
    return out


# ---------------------------------------------------------------------------
# Parser of the text form (spec/indexing.md §2), written from the spec.
# ---------------------------------------------------------------------------

class ParseError(Exception):
    pass


_TOKEN = re.compile(r'\s*(?:(->)|([A-Za-z_][A-Za-z0-9_]*)|([0-9]+)|(.))',
                    re.S)
_MULOPS = {'*': 'mul', 'floordiv': 'fd', 'floorDiv': 'fd', '/': 'fd',
           'ceildiv': 'cd', 'ceilDiv': 'cd', 'mod': 'mod', '%': 'mod'}


class TextParser:
    def __init__(self, text):
        self.toks = []  # (kind, value, glued_to_previous)
        pos = 0
        prev_end = -1
        while True:
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos and m.group(0) == '':
                break
            if m.group(0).strip() == '':
                break
            start = m.start(m.lastindex)
            glued = start == prev_end
            if m.group(1):
                self.toks.append(('p', '->', glued))
            elif m.group(2):
                self.toks.append(('id', m.group(2), glued))
            elif m.group(3):
                self.toks.append(('int', int(m.group(3)), glued))
            else:
                self.toks.append(('p', m.group(4), glued))
            pos = m.end()
            prev_end = pos
        if text[pos:].strip():
            raise ParseError('junk')
        self.i = 0
        self.names = {}

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ('eof', None, False)

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, v):
        t = self.take()
        if t[1] != v:
            raise ParseError('expected %r, found %r' % (v, t[1]))

    def at(self, v):
        return self.peek()[1] == v and self.peek()[0] in ('p', 'id')

    def name_list(self, close):
        out = []
        if self.at(close):
            self.take()
            return out
        while True:
            t = self.take()
            if t[0] != 'id':
                raise ParseError('name expected')
            if t[1] in ('domain', 'in', 'mod', 'floordiv', 'ceildiv',
                        'floorDiv', 'ceilDiv'):
                raise ParseError('keyword as name')
            out.append(t[1])
            t = self.take()
            if t[1] == close:
                return out
            if t[1] != ',':
                raise ParseError('bad name list')

    def parse_map(self):
        if self.at('KNOWN'):
            self.take()
            self.expect('EMPTY')
            if self.peek()[0] != 'eof':
                raise ParseError('junk after KNOWN EMPTY')
            return Map([], [], [], [], [], known_empty=True)
        self.expect('(')
        dn = self.name_list(')')
        rn, tn = [], []
        if self.at('['):
            self.take()
            rn = self.name_list(']')
        if self.at('{'):
            self.take()
            tn = self.name_list('}')
        allnames = dn + rn + tn
        if len(set(allnames)) != len(allnames):
            raise ParseError('variable named twice')
        for i, n in enumerate(dn):
            self.names[n] = ('d', i)
        for i, n in enumerate(rn + tn):
            self.names[n] = ('s', i)
        self.expect('->')
        self.expect('(')
        results = []
        if self.at(')'):
            self.take()
        else:
            while True:
                results.append(self.expr())
                t = self.take()
                if t[1] == ')':
                    break
                if t[1] != ',':
                    raise ParseError('bad result list')
        dims = [[None if n == 'd%d' % i else n, I64_MIN, I64_MAX]
                for i, n in enumerate(dn)]
        rngs = [[None if n == 's%d' % i else n, I64_MIN, I64_MAX]
                for i, n in enumerate(rn)]
        rts = [[None if n == 'rt%d' % i else n, I64_MIN, I64_MAX]
               for i, n in enumerate(tn)]
        m = Map(dims, rngs, rts, results, [])
        had_comma = False
        if self.at(','):
            self.take()
            had_comma = True
        if had_comma or self.at('domain'):
            self.expect('domain')
            self.expect(':')
            if self.at('KNOWN') and self.peek(1)[1] == 'EMPTY':
                self.take()
                self.take()
                m.known_empty = True
            else:
                while True:
                    if (self.at('is_simplified') and self.peek(1)[1] == ':'):
                        self.take()
                        self.take()
                        t = self.take()
                        if t[1] not in ('true', 'false'):
                            raise ParseError('bad is_simplified')
                    else:
                        e = self.expr()
                        self.expect('in')
                        self.expect('[')
                        lo = self.signed()
                        self.expect(',')
                        hi = self.signed()
                        self.expect(']')
                        self.add_item(m, e, lo, hi)
                    if self.at(','):
                        self.take()
                        continue
                    if self.peek()[0] == 'eof':
                        break
        if self.peek()[0] != 'eof':
            raise ParseError('junk at end: %r' % (self.peek(),))
        return m

    @staticmethod
    def add_item(m, e, lo, hi):
        if e[0] == 'd':
            v = m.dims[e[1]]
            v[1], v[2] = max(v[1], lo), min(v[2], hi)
        elif e[0] == 's':
            v = m.syms()[e[1]]
            v[1], v[2] = max(v[1], lo), min(v[2], hi)
        else:
            m.cons.append((e, lo, hi))

    def signed(self):
        neg = False
        if self.at('-'):
            self.take()
            neg = True
        elif self.at('+'):
            self.take()
        t = self.take()
        if t[0] != 'int':
            raise ParseError('integer expected')
        v = -t[1] if neg else t[1]
        if not fits(v):
            raise ParseError('integer out of int64')
        return v

    def expr(self):
        acc = self.term()
        while True:
            if self.at('+'):
                self.take()
                acc = ('add', acc, self.term())
            elif self.at('-'):
                self.take()
                acc = ('add', acc, ('neg', self.term()))
            else:
                return acc

    def term(self):
        acc = self.unary()
        while True:
            t = self.peek()
            if t[0] in ('p', 'id') and t[1] in _MULOPS:
                self.take()
                acc = (_MULOPS[t[1]], acc, self.unary())
            else:
                return acc

    def unary(self):
        if self.at('-'):
            self.take()
            t = self.peek()
            if t[0] == 'int':
                # A negative literal (INT64_MIN allowed), maybe `-2d0`.
                self.take()
                v = -t[1]
                if not fits(v):
                    raise ParseError('literal out of int64')
                if self.peek()[0] == 'id' and self.peek()[2]:
                    return ('mul', self.primary(), ('c', v))
                return ('c', v)
            return ('neg', self.unary())
        return self.primary()

    def primary(self):
        t = self.take()
        if t[0] == 'int':
            if t[1] > I64_MAX:
                raise ParseError('literal out of int64')
            if self.peek()[0] == 'id' and self.peek()[2]:
                return ('mul', self.primary(), ('c', t[1]))
            return ('c', t[1])
        if t[0] == 'id':
            if t[1] in ('min', 'max') and self.at('('):
                self.take()
                acc = self.expr()
                self.expect(',')
                acc = (t[1], acc, self.expr())
                while self.at(','):
                    self.take()
                    acc = (t[1], acc, self.expr())
                self.expect(')')
                return acc
            if t[1] in self.names:
                return self.names[t[1]]
            raise ParseError('unknown name %r' % t[1])
        if t[1] == '(':
            e = self.expr()
            self.expect(')')
            return e
        raise ParseError('unexpected %r' % (t[1],))


def parse_map(text):
    return TextParser(text).parse_map()


# ---------------------------------------------------------------------------
# Renderer: this file's own choices of spelling and layout.
# ---------------------------------------------------------------------------

class Renderer:
    def __init__(self, rng, names, style):
        self.rng = rng
        self.names = names  # (dim names, symbol names)
        self.style = style  # 'plain', 'wild', 'symbolic'

    def ws(self):
        if self.style == 'plain':
            return ' '
        r = self.rng.random()
        if r < 0.55:
            return ' '
        if r < 0.75:
            return ''
        return self.rng.choice(['  ', '\n', '\t', ' \n  ', '\r\n', '\n\n'])

    def join(self, toks):
        """Joins tokens with random space, keeping word tokens apart."""
        out = []
        prev = ''
        for t in toks:
            if t == '':
                continue
            sep = self.ws()
            if prev and (_word_end(prev) and _word_start(t)):
                sep = sep or ' '
            if prev and prev[-1] == '-' and t[0] in '0123456789':
                # `- 5` and `-5` read alike, but keep a binary minus
                # readable
                pass
            out.append(sep if prev else '')
            out.append(t)
            prev = t
        return ''.join(out)

    def op(self, k):
        r = self.rng.random()
        if k == 'fd':
            if self.style == 'symbolic' and r < 0.7:
                return '/'
            return self.rng.choice(['floordiv', 'floordiv', 'floorDiv', '/'])
        if k == 'cd':
            return self.rng.choice(['ceildiv', 'ceildiv', 'ceilDiv'])
        if k == 'mod':
            if self.style == 'symbolic' and r < 0.7:
                return '%'
            return self.rng.choice(['mod', 'mod', '%'])
        return '*'

    def leaf_name(self, e):
        return self.names[0][e[1]] if e[0] == 'd' else self.names[1][e[1]]

    def tokens(self, e, strong):
        """Tokens of e; strong: e is the operand of a multiplicative op or of
        a unary minus and must be a primary."""
        k = e[0]
        r = self.rng.random() if self.style != 'plain' else 1.0
        if k == 'c':
            if e[1] < 0 and strong and r < 0.3:
                return ['(', str(e[1]), ')']
            return [str(e[1])]
        if k in ('d', 's'):
            if r < 0.05:
                return ['(', self.leaf_name(e), ')']
            return [self.leaf_name(e)]
        if k in ('min', 'max'):
            # Left-nested chains may print as one call.
            args = [e[2]]
            x = e[1]
            while x[0] == k and self.rng.random() < 0.5:
                args.append(x[2])
                x = x[1]
            args.append(x)
            args.reverse()
            toks = [k, '(']
            for i, a in enumerate(args):
                if i:
                    toks.append(',')
                toks += self.tokens(a, False)
            toks.append(')')
            return toks
        if k == 'neg':
            x = e[1]
            if x[0] == 'c' and x[1] >= 0:
                # `-(5)` is the negation of a literal; `-5` the literal.
                inner = ['(', str(x[1]), ')'] if r < 0.5 else [str(x[1])]
                toks = ['-'] + inner
            else:
                toks = ['-'] + self.tokens(x, True)
            if strong and x[0] != 'c':
                return toks  # unary minus binds tighter than any operator
            if strong:
                return ['('] + toks + [')']
            return toks
        if k == 'add':
            toks = self.tokens(e[1], False)
            b = e[2]
            if b[0] == 'neg' and self.rng.random() < 0.8:
                toks += ['-'] + self.tokens(b[1], _needs_strong_sub(b[1]))
            else:
                toks += ['+'] + self.tokens(b, b[0] == 'add')
            if strong or r < 0.05:
                return ['('] + toks + [')']
            return toks
        # mul, fd, cd, mod
        a, b = e[1], e[2]
        if (k == 'mul' and b[0] == 'c' and b[1] >= 0 and a[0] in ('d', 's')
                and self.style != 'plain' and r < 0.25):
            toks = [str(b[1]) + self.leaf_name(a)]  # the `16d0` shorthand
        elif (k == 'mul' and b[0] == 'c' and self.style != 'plain'
              and r < 0.45):
            toks = self.tokens(b, True) + ['*'] + self.tokens(a, True)
        else:
            toks = self.tokens(a, True) + [self.op(k)] + self.tokens(b, True)
        if strong or (r > 0.97):
            return ['('] + toks + [')']
        return toks

    def expr(self, e):
        return self.join(self.tokens(e, False))


def _needs_strong_sub(e):
    # `a - b` negates the whole term b: a sum must be parenthesised.
    return e[0] == 'add'


def _word_end(t):
    return t[-1].isalnum() or t[-1] == '_'


def _word_start(t):
    return t[0].isalnum() or t[0] == '_'


def render_map(m, rng, style='wild'):
    names = m.names()
    dn, sn = names[:m.nd], names[m.nd:]
    rd = Renderer(rng, (dn, sn), style)
    if m.known_empty and not m.vars() and not m.results and \
            style != 'plain' and rng.random() < 0.5:
        return rd.join(['KNOWN', 'EMPTY'])
    toks = ['('] + _comma_list(dn) + [')']
    nr = len(m.rngs)
    if nr or (style != 'plain' and rng.random() < 0.1):
        toks += ['['] + _comma_list(sn[:nr]) + [']']
    if m.rts or (style != 'plain' and rng.random() < 0.05):
        toks += ['{'] + _comma_list(sn[nr:]) + ['}']
    toks += ['->', '(']
    for i, r in enumerate(m.results):
        if i:
            toks.append(',')
        toks += rd.tokens(r, False)
    toks.append(')')
    items = []
    for v, n in zip(m.vars(), names):
        if (v[1], v[2]) == FULL and (style == 'plain' or rng.random() < 0.7):
            continue
        items.append([n, 'in'] + _interval(v[1], v[2], rng, style))
    for c, lo, hi in m.cons:
        items.append(rd.tokens(c, False) + ['in'] + _interval(lo, hi, rng,
                                                              style))
    if style != 'plain':
        rng.shuffle(items)
        if rng.random() < 0.05:
            items.insert(rng.randint(0, len(items)),
                         ['is_simplified', ':', rng.choice(['true', 'false'])])
    if m.known_empty:
        items = [['KNOWN', 'EMPTY']]
    if items:
        if style == 'plain' or rng.random() < 0.85:
            toks += [',', 'domain', ':']
        else:
            toks += ['domain', ':']
        for i, it in enumerate(items):
            if i:
                if style == 'plain' or rng.random() < 0.85:
                    toks.append(',')
            toks += it
    elif style != 'plain' and rng.random() < 0.05:
        toks += [',', 'domain', ':']  # an empty domain list is an error:
        toks += ['KNOWN', 'EMPTY'] if m.known_empty else []
        if not m.known_empty:
            toks = toks[:-3]
    return rd.join(toks)


def _comma_list(xs):
    out = []
    for i, x in enumerate(xs):
        if i:
            out.append(',')
        out.append(x)
    return out


def _interval(lo, hi, rng, style):
    def num(v):
        if style != 'plain' and v >= 0 and rng.random() < 0.05:
            return ['+', str(v)]
        if style != 'plain' and v < 0 and rng.random() < 0.1:
            return ['-', str(-v)]
        return [str(v)]
    return ['['] + num(lo) + [','] + num(hi) + [']']


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
        fu = [{'op': 'parse', 'map': r['map']}]
        self._resimplified = self.op == 'simplify' and \
            not r.get('budget_exhausted')
        if self._resimplified:
            fu.append({'op': 'simplify', 'map': r['map']})
        if self.syntax:
            for q in fu:
                q['syntax'] = self.syntax
        self._fu_kinds = []
        if self.op == 'simplify' and map_valid(self.m):
            fu += decide_followups(self, self.text_sent, r)
        return fu

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
        fu = [{'op': 'parse', 'map': r['map']}]
        self._resimplified = not r.get('budget_exhausted')
        if self._resimplified:
            fu.append({'op': 'simplify', 'map': r['map']})
        if self.syntax:
            for q in fu:
                q['syntax'] = self.syntax
        self._fu_kinds = []
        if map_valid(self.m):
            fu += decide_followups(self, self.text_sent, r)
        return fu

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


class EquivCase(Case):
    op = 'equivalent'

    def __init__(self, rng, a, b):
        self.rng_seed = rng.random()
        self.a, self.b = a, b

    def requests(self):
        return [{'op': 'equivalent', 'a': map_text(self.a, self.rng_seed),
                 'b': map_text(self.b, self.rng_seed + 1)}]

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        a, b = self.a, self.b
        if not (map_valid(a) and map_valid(b)):
            return [] if not ok(r) else ['equivalent: accepted invalid maps']
        if not ok(r):
            c = err_code(r)
            if c in ACCEPTABLE_DECIDE_ERRORS:
                return []
            if c == 'invalid_argument' and (a.nd != b.nd or a.ns != b.ns or
                                            len(a.results) != len(b.results)):
                return []
            if c == 'invalid_argument' and (a.known_empty or b.known_empty):
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
        diff = None
        undef = False
        for p in pts:
            x, y = a.sig(p[:a.nd], p[a.nd:]), b.sig(p[:a.nd], p[a.nd:])
            if isinstance(x, str) or isinstance(y, str):
                undef = True
                continue
            if x != y:
                diff = p
                break
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

    def requests(self):
        return [{'op': 'equivalent', 'a': map_text(self.sa, self.rng_seed),
                 'b': map_text(self.sb, self.rng_seed + 1)}]

    def check(self, reqs, resp, freqs, fresp):
        r = resp[0]
        a, b = self.a, self.b
        if not (map_valid(self.sa) and map_valid(self.sb)):
            return []
        if not ok(r):
            c = err_code(r)
            if c in ACCEPTABLE_DECIDE_ERRORS:
                return []
            if c == 'invalid_argument' and (a.nd != b.nd or a.ns != b.ns or
                                            len(a.results) != len(b.results)):
                return []
            return ['equivalent (stretched x%d): error %r' % (
                self.K, r.get('error'))]
        box = hull(a.box(), b.box())
        pts, complete = points(box, random.Random(self.rng_seed))
        if not complete:
            return []
        diff = None
        for p in pts:
            x, y = a.sig(p[:a.nd], p[a.nd:]), b.sig(p[:a.nd], p[a.nd:])
            if isinstance(x, str) or isinstance(y, str):
                return []
            if x != y:
                diff = p
                break
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
