"""The map model of difftest.py: expressions and their exact evaluator,
maps, the parser of the text form and the renderer."""

import itertools
import re

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
    "unbounded" sentinel (docs/xla-reference.md: "the min/max values act as
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
# Parser of the text form (docs/indexing.md §2), written from that page.
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
