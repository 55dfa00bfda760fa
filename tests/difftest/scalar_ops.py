"""XLA's elementwise semantics on single elements, written from the HLO
operation semantics and XLA's elemental IR emitter behaviour.

Values: ints in their type's range, pred 0/1, floats as bit patterns.
Each function returns the result value; `APPROX` names the float ops
whose result is only within a few ulp (transcendentals).
"""
import math

import numerics as N

APPROX = {'exponential', 'exponential-minus-one', 'log', 'log-plus-one',
          'rsqrt', 'cbrt', 'tanh', 'logistic', 'sine', 'cosine', 'tan', 'erf',
          'atan2', 'power', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh',
          'cosh', 'sinh'}
# Float ops whose result moves continuously with the inputs (so that an
# input known only within a tolerance gives an output within one).
CONTINUOUS = APPROX | {'add', 'subtract', 'multiply', 'divide', 'maximum',
                       'minimum', 'clamp', 'abs', 'negate', 'sqrt', 'convert',
                       'copy'}
FLOAT_UNARY = ['abs', 'negate', 'sign', 'exponential', 'exponential-minus-one',
               'log', 'log-plus-one', 'sqrt', 'rsqrt', 'cbrt', 'tanh',
               'logistic', 'sine', 'cosine', 'tan', 'erf', 'floor', 'ceil',
               'round-nearest-afz', 'round-nearest-even', 'acos', 'acosh',
               'asin', 'asinh', 'atan', 'atanh', 'cosh', 'sinh']
INT_UNARY = ['abs', 'negate', 'sign', 'not', 'popcnt', 'count-leading-zeros']
FLOAT_BINARY = ['add', 'subtract', 'multiply', 'divide', 'remainder',
                'maximum', 'minimum', 'power', 'atan2']
INT_BINARY = ['add', 'subtract', 'multiply', 'divide', 'remainder', 'maximum',
              'minimum', 'power', 'and', 'or', 'xor', 'shift-left',
              'shift-right-logical', 'shift-right-arithmetic']
# pred arithmetic as XLA's HloEvaluator computes it: on 0 / 1, the result
# nonzero (add is or, subtract xor, multiply and).
PRED_BINARY = ['and', 'or', 'xor', 'maximum', 'minimum', 'add', 'subtract',
               'multiply']

NAN = math.nan
INF = math.inf


def _is_zero(x):
    return x == 0


def _signbit(x):
    return math.copysign(1.0, x) < 0


def store(x, t):
    """A float computed in f32 (f16, bf16: then rounded to t), as XLA
    computes the narrow types; f64 stays a double."""
    if t == 'f64':
        return N.encode(x, 'f64')
    if t == 'f32':
        return N.encode(x, 'f32')
    return N.encode(N.round_float(x, 'f32'), t)


# --------------------------------------------------------------- floats
def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _expm1(x):
    try:
        return math.expm1(x)
    except OverflowError:
        return INF


def _log(x):
    if x != x:
        return NAN
    if x < 0:
        return NAN
    if x == 0:
        return -INF
    return math.log(x)


def _log1p(x):
    if x != x or x < -1:
        return NAN
    if x == -1:
        return -INF
    return math.log1p(x)


def _sqrt(x):
    if x != x or x < 0:
        return NAN
    return math.sqrt(x)  # sqrt(-0) = -0


def _rsqrt(x):
    if x != x or x < 0:
        return NAN
    if x == 0:
        return -INF if _signbit(x) else INF
    return 1.0 / math.sqrt(x)


def _trig(f):
    def g(x):
        if x != x or x in (INF, -INF):
            return NAN
        return f(x)
    return g


def _domain(f, lo, hi):
    """f inside [lo, hi] (NaN outside, and for NaN)."""
    def g(x):
        if x != x or x < lo or x > hi:
            return NAN
        return f(x)
    return g


def _atanh(x):
    if x != x or abs(x) > 1:
        return NAN
    if abs(x) == 1:
        return math.copysign(INF, x)
    return math.atanh(x)


def _hyperbolic(f):
    """cosh / sinh: past the double range the result is an infinity."""
    def g(x):
        try:
            return f(x)
        except OverflowError:
            return INF if f is math.cosh else math.copysign(INF, x)
    return g


def _logistic(x):
    if x != x:
        return NAN
    if x < -745:
        return 0.0
    return 1.0 / (1.0 + _exp(-x))


def _zero_sign(r, x):
    return math.copysign(0.0, x) if r == 0 else r


def _floor(x):
    if x != x or x in (INF, -INF):
        return x
    return _zero_sign(float(math.floor(x)), x)


def _ceil(x):
    if x != x or x in (INF, -INF):
        return x
    return _zero_sign(float(math.ceil(x)), x)


def _round_afz(x):
    if x != x or x in (INF, -INF):
        return x
    a = abs(x)
    q = math.floor(a)
    if a - q >= 0.5:
        q += 1
    return _zero_sign(math.copysign(float(q), x), x)


def _round_even(x):
    if x != x or x in (INF, -INF):
        return x
    return _zero_sign(float(round(x)), x)


def _sign(x):
    if x != x:
        return NAN
    if x == 0:
        return x
    return 1.0 if x > 0 else -1.0


def _div(a, b):
    if b == 0:
        if a == 0 or a != a:
            return NAN
        return INF if _signbit(a) == _signbit(b) else -INF
    return a / b


def _fmod(a, b):
    if a != a or b != b or b == 0 or a in (INF, -INF):
        return NAN
    if b in (INF, -INF):
        return a
    return math.fmod(a, b)


def _is_odd_int(y):
    return (y == y and y not in (INF, -INF) and y == math.floor(y) and
            abs(y) < 2.0 ** 53 and int(y) % 2 == 1)


def _pow(x, y):
    if y == 0 or x == 1:
        return 1.0
    if x != x or y != y:
        return NAN
    try:
        return math.pow(x, y)
    except OverflowError:
        return -INF if (x < 0 and _is_odd_int(y)) else INF
    except ValueError:
        if x == 0:  # a negative power of zero
            return -INF if (_signbit(x) and _is_odd_int(y)) else INF
        return NAN


def _atan2(y, x):
    if x != x or y != y:
        return NAN
    return math.atan2(y, x)


def fmax(a, b):
    """IEEE-754 2019 maximum (arith.maximumf): NaN wins, -0 < +0."""
    if a != a or b != b:
        return NAN
    if a == b == 0:
        return b if _signbit(a) else a
    return a if a > b else b


def fmin(a, b):
    if a != a or b != b:
        return NAN
    if a == b == 0:
        return a if _signbit(a) else b
    return a if a < b else b


FLOAT_FN = {
    'exponential': _exp, 'exponential-minus-one': _expm1, 'log': _log,
    'log-plus-one': _log1p, 'sqrt': _sqrt, 'rsqrt': _rsqrt, 'cbrt': math.cbrt,
    'tanh': math.tanh, 'logistic': _logistic, 'sine': _trig(math.sin),
    'cosine': _trig(math.cos), 'tan': _trig(math.tan), 'erf': math.erf,
    'floor': _floor, 'ceil': _ceil, 'round-nearest-afz': _round_afz,
    'round-nearest-even': _round_even, 'sign': _sign,
    'add': lambda a, b: a + b, 'subtract': lambda a, b: a - b,
    'multiply': lambda a, b: a * b, 'divide': _div, 'remainder': _fmod,
    'maximum': fmax, 'minimum': fmin, 'power': _pow, 'atan2': _atan2,
    'acos': _domain(math.acos, -1, 1), 'asin': _domain(math.asin, -1, 1),
    'acosh': _domain(math.acosh, 1, INF), 'asinh': math.asinh,
    'atan': math.atan, 'atanh': _atanh, 'cosh': _hyperbolic(math.cosh),
    'sinh': _hyperbolic(math.sinh),
    'clamp': lambda lo, x, hi: fmin(fmax(x, lo), hi),
}


def float_real(op, xs):
    """The exact (double) result of a float op on decoded operands."""
    return FLOAT_FN[op](*xs)


# ------------------------------------------------------------- integers
def _idiv(a, b, t):
    if b == 0:
        return N.wrap(-1, t)
    if N.kind(t) == 's' and b == -1 and a == N.int_min(t):
        return a
    q = abs(a) // abs(b)
    return N.wrap(q if (a < 0) == (b < 0) else -q, t)


def _irem(a, b, t):
    if b == 0:
        return a
    if N.kind(t) == 's' and b == -1:
        return 0
    r = abs(a) % abs(b)
    return N.wrap(-r if a < 0 else r, t)


def _shift_amount_ok(b, t):
    return N.to_unsigned_bits(b, t) < N.bits(t)


def _ipow(a, b, t):
    """None where XLA's implementations disagree (see the report)."""
    if N.kind(t) == 's' and b < 0:
        if a == 1:
            return 1
        if a == -1:
            return None  # +-1 (MLIR emitters) or 0 (HLO evaluator)
        return 0
    if b >= 64:
        return None  # XLA's emitters square only 6 bits of the exponent
    return N.wrap(pow(a, b, 1 << N.bits(t)), t)


def int_op(op, xs, t, in_t):
    """An integer (or pred) op; None for an implementation-defined result."""
    n = N.bits(t)
    if op == 'add':
        return N.wrap(xs[0] + xs[1], t)
    if op == 'subtract':
        return N.wrap(xs[0] - xs[1], t)
    if op == 'multiply':
        return N.wrap(xs[0] * xs[1], t)
    if op == 'divide':
        return _idiv(xs[0], xs[1], t)
    if op == 'remainder':
        return _irem(xs[0], xs[1], t)
    if op == 'maximum':
        return max(xs)
    if op == 'minimum':
        return min(xs)
    if op == 'power':
        return _ipow(xs[0], xs[1], t)
    if op == 'and':
        return N.wrap(xs[0] & xs[1], t)
    if op == 'or':
        return N.wrap(xs[0] | xs[1], t)
    if op == 'xor':
        return N.wrap(xs[0] ^ xs[1], t)
    if op == 'not':
        return 1 - xs[0] if t == 'pred' else N.wrap(~xs[0], t)
    if op == 'shift-left':
        if not _shift_amount_ok(xs[1], t):
            return 0
        return N.wrap(xs[0] << N.to_unsigned_bits(xs[1], t), t)
    if op == 'shift-right-logical':
        if not _shift_amount_ok(xs[1], t):
            return 0
        return N.wrap(N.to_unsigned_bits(xs[0], t) >>
                      N.to_unsigned_bits(xs[1], t), t)
    if op == 'shift-right-arithmetic':
        s = N.wrap(xs[0], 's%d' % n)
        if not _shift_amount_ok(xs[1], t):
            return N.wrap(-1 if s < 0 else 0, t)
        return N.wrap(s >> N.to_unsigned_bits(xs[1], t), t)
    if op == 'abs':
        return N.wrap(abs(xs[0]), t)
    if op == 'negate':
        return N.wrap(-xs[0], t)
    if op == 'sign':
        return (xs[0] > 0) - (xs[0] < 0)
    if op == 'popcnt':
        return bin(N.to_unsigned_bits(xs[0], t)).count('1')
    if op == 'count-leading-zeros':
        return n - N.to_unsigned_bits(xs[0], t).bit_length()
    if op == 'clamp':
        lo, x, hi = xs
        return min(max(x, lo), hi)
    raise ValueError('int op ' + op)


# -------------------------------------------------------------- compare
def total_order_key(b, t):
    n = N.bits(t)
    s = N.wrap(b, 's%d' % n) if n > 4 else b
    return s ^ ((1 << (n - 1)) - 1) if s < 0 else s


def compare(direction, ctype, a, b, t):
    if N.is_float(t):
        if ctype == 'TOTALORDER':
            x, y = total_order_key(a, t), total_order_key(b, t)
        else:
            x, y = N.decode(a, t), N.decode(b, t)
            if x != x or y != y:
                return 1 if direction == 'NE' else 0
    else:
        x, y = a, b
    return int({'EQ': x == y, 'NE': x != y, 'LT': x < y, 'LE': x <= y,
                'GT': x > y, 'GE': x >= y}[direction])


# -------------------------------------------------------------- convert
def convert(v, frm, to):
    """Returns (value, ambiguous): ambiguous where XLA's paths round twice
    (f64 or wide ints to f16/bf16 go through f32 in XLA's emitters)."""
    fk, tk = N.kind(frm), N.kind(to)
    if frm == to:
        return v, False
    if fk == 'f':
        x = N.decode(v, frm)
        if tk == 'f':
            if x != x:
                return N.canonical_nan(to), False
            direct = N.encode(x, to)
            twice = N.encode(N.round_float(x, 'f32'), to)
            return direct, direct != twice
        if tk == 'pred':
            return int(x != 0), False  # NaN != 0
        if x != x:
            return 0, False
        if x == INF:
            return N.int_max(to), False
        if x == -INF:
            return N.int_min(to), False
        i = math.trunc(x)
        return min(max(i, N.int_min(to)), N.int_max(to)), False
    # integer or pred source
    if tk == 'f':
        direct = N.encode_int(v, to)
        if to in ('f16', 'bf16'):
            twice = N.encode(N.decode(N.encode_int(v, 'f32'), 'f32'), to)
            return direct, direct != twice
        return direct, False
    if tk == 'pred':
        return int(v != 0), False
    return N.wrap(v, to), False


def bitcast_convert(v, frm, to):
    u = N.to_unsigned_bits(v, frm)
    return N.from_unsigned_bits(u, to)


def reduce_precision(b, t, eb, mb):
    """XLA's reduce-precision on the bits of t: round the mantissa to mb
    bits (nearest even), then flush what the exponent range of eb bits
    cannot hold (overflow to infinity, underflow to signed zero; no
    denormals); NaN stays as it is."""
    m, e = N.FMT[t]
    n = 1 + m + e
    if N.is_nan_bits(b, t):
        return b
    x = b
    if mb < m:
        shift = m - mb
        last = 1 << shift
        bias = (last >> 1) - 1
        x = (x + ((x & last) >> shift) + bias) & ~(last - 1) & ((1 << n) - 1)
    if eb < e:
        sign = x & (1 << (n - 1))
        exp_mask = ((1 << e) - 1) << m
        src_bias = (1 << (e - 1)) - 1
        red_bias = (1 << (eb - 1)) - 1
        xe = x & exp_mask
        if xe > (src_bias + red_bias) << m:
            x = sign | exp_mask
        elif xe <= (src_bias - red_bias) << m:
            x = sign
    return x
