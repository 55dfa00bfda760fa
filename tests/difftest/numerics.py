"""Element types, IEEE encodings and physical layouts, written from the XLA
and IEEE-754 definitions (no code shared with ixa).

Values of the interpreter are Python ints: two's complement integers in
their signed or unsigned range, pred 0/1, and floats as their bit patterns
(so that data movement is bit-exact, NaN payloads included).
"""
import math
import struct

# name -> (kind, bits); kind: 'pred', 's', 'u', 'f'
TYPES = {
    'pred': ('pred', 8),
    's8': ('s', 8), 's16': ('s', 16), 's32': ('s', 32), 's64': ('s', 64),
    'u8': ('u', 8), 'u16': ('u', 16), 'u32': ('u', 32), 'u64': ('u', 64),
    'f16': ('f', 16), 'bf16': ('f', 16), 'f32': ('f', 32), 'f64': ('f', 64),
    's4': ('s', 4), 'u4': ('u', 4),
}
FLOATS = ['f16', 'bf16', 'f32', 'f64']
SINTS = ['s8', 's16', 's32', 's64']
UINTS = ['u8', 'u16', 'u32', 'u64']
INTS = SINTS + UINTS

# explicit mantissa bits, exponent bits
FMT = {'f16': (10, 5), 'bf16': (7, 8), 'f32': (23, 8), 'f64': (52, 11)}


def kind(t):
    return TYPES[t][0]


def bits(t):
    return TYPES[t][1]


def is_float(t):
    return kind(t) == 'f'


def is_int(t):
    return kind(t) in ('s', 'u')


def storage_bytes(t):
    return max(1, bits(t) // 8)


# ---------------------------------------------------------------- integers
def wrap(v, t):
    """v modulo 2^bits, in t's range (pred: v != 0)."""
    k, n = TYPES[t]
    if k == 'pred':
        return 1 if v else 0
    v &= (1 << n) - 1
    if k == 's' and v >> (n - 1):
        v -= 1 << n
    return v


def int_min(t):
    return -(1 << (bits(t) - 1)) if kind(t) == 's' else 0


def int_max(t):
    n = bits(t)
    return (1 << (n - 1)) - 1 if kind(t) == 's' else (1 << n) - 1


def to_unsigned_bits(v, t):
    """The raw bit pattern of value v of type t."""
    if kind(t) == 'pred':
        return v
    return v & ((1 << bits(t)) - 1)


def from_unsigned_bits(u, t):
    if kind(t) == 'f' or kind(t) == 'pred':
        return u
    return wrap(u, t)


# ------------------------------------------------------------------ floats
def exp_bias(t):
    return (1 << (FMT[t][1] - 1)) - 1


def decode(b, t):
    """Bit pattern -> Python float (exact; NaN keeps only its sign)."""
    if t == 'f64':
        return struct.unpack('<d', struct.pack('<Q', b))[0]
    m, e = FMT[t]
    sign = -1.0 if (b >> (m + e)) & 1 else 1.0
    ex = (b >> m) & ((1 << e) - 1)
    mant = b & ((1 << m) - 1)
    bias = exp_bias(t)
    if ex == (1 << e) - 1:
        return sign * math.inf if mant == 0 else math.nan
    if ex == 0:
        return sign * math.ldexp(mant, 1 - bias - m)
    return sign * math.ldexp(mant | (1 << m), ex - bias - m)


def is_nan_bits(b, t):
    m, e = FMT[t]
    return ((b >> m) & ((1 << e) - 1)) == (1 << e) - 1 and (b & ((1 << m) - 1))


def canonical_nan(t):
    m, e = FMT[t]
    return (((1 << e) - 1) << m) | (1 << (m - 1))


def is_canonical_nan(b, t):
    """A quiet NaN with no payload (either sign): what arithmetic makes."""
    m, e = FMT[t]
    return (b & ~(1 << (m + e))) == canonical_nan(t)


def encode(x, t):
    """Python float -> bit pattern of t, rounding to nearest even
    (overflow to infinity, gradual underflow). NaN -> canonical NaN."""
    m, e = FMT[t]
    sign_bit = 1 << (m + e)
    if x != x:
        return canonical_nan(t)
    neg = math.copysign(1.0, x) < 0
    s = sign_bit if neg else 0
    a = abs(x)
    if a == math.inf:
        return s | (((1 << e) - 1) << m)
    if a == 0:
        return s
    fr, ex = math.frexp(a)  # a = fr * 2^ex, fr in [0.5, 1)
    return _encode_scaled(s, int(fr * (1 << 53)), ex - 53, t)


def encode_int(v, t):
    """An integer rounded to float type t (nearest even), exactly."""
    if v == 0:
        return 0
    m, e = FMT[t]
    s = (1 << (m + e)) if v < 0 else 0
    return _encode_scaled(s, abs(v), 0, t)


def _encode_scaled(s, big, lo_exp, t):
    """sign bit s, magnitude big * 2^lo_exp (big > 0) -> bits of t."""
    m, e = FMT[t]
    bias = exp_bias(t)
    emin = 1 - bias
    emax = bias
    unbiased = lo_exp + big.bit_length() - 1
    q_exp = max(unbiased, emin) - m  # the quantum's exponent
    shift = q_exp - lo_exp
    if shift <= 0:
        q = big << (-shift)
    else:
        q = big >> shift
        rest = big & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and (q & 1)):
            q += 1
    # q * 2^q_exp; normalize
    if q >= (1 << (m + 1)):
        q >>= 1
        q_exp += 1
    if q < (1 << m):  # subnormal (or zero)
        return s | q
    unb = q_exp + m
    if unb > emax:
        return s | (((1 << e) - 1) << m)
    return s | ((unb + bias) << m) | (q - (1 << m))


def round_float(x, t):
    """x rounded to t, as a Python float."""
    return decode(encode(x, t), t)


def ulp(x, t):
    """The spacing of t's values at magnitude |x|."""
    m, e = FMT[t]
    bias = exp_bias(t)
    a = abs(x)
    if a == 0 or a != a or a == math.inf:
        return math.ldexp(1.0, 1 - bias - m)
    _, ex = math.frexp(a)
    return math.ldexp(1.0, max(ex - 1, 1 - bias) - m)


def max_finite(t):
    m, e = FMT[t]
    return decode((((1 << e) - 2) << m) | ((1 << m) - 1), t)


# --------------------------------------------------------------- layouts
class Layout:
    """minor_to_major plus tiles (each a tuple; -1 is '*')."""

    def __init__(self, minor_to_major, tiles=()):
        self.minor_to_major = list(minor_to_major)
        self.tiles = [tuple(t) for t in tiles]

    def text(self):
        s = ','.join(str(d) for d in self.minor_to_major)
        if self.tiles:
            s += ':T' + ''.join(
                '(' + ','.join('*' if v == -1 else str(v) for v in t) + ')'
                for t in self.tiles)
        return '{' + s + '}'

    def is_default(self, rank):
        return (not self.tiles and
                self.minor_to_major == list(range(rank - 1, -1, -1)))


def default_layout(rank):
    return Layout(range(rank - 1, -1, -1))


class Physical:
    """The map logical index -> element offset of a layout (XLA tiling
    semantics: pad, split each tiled dim into (ceil(d/t), t), move the t's
    minor; repeated tiles apply to the result's minor dims)."""

    def __init__(self, dims, layout):
        self.dims = list(dims)
        rank = len(dims)
        layout = layout or default_layout(rank)
        order = list(reversed(layout.minor_to_major))  # major -> minor
        self.order = order
        pdims = [dims[d] for d in order]
        # Each step: a function from an index of the previous shape to an
        # index of the next; and the next shape.
        self.steps = []
        shape = pdims
        for tile in layout.tiles:
            shape = self._add_tile(shape, tile)
        self.shape = shape
        self.size = 1
        for d in shape:
            self.size *= d
        self.strides = []
        acc = 1
        for d in reversed(shape):
            self.strides.insert(0, acc)
            acc *= d

    def _add_tile(self, shape, tile):
        tile = list(tile)
        # '*' folds a dim into the next more minor one (only where the
        # tile covers it).
        k = len(tile)
        if k > len(shape):
            pad = k - len(shape)
            shape = [1] * pad + shape
            self.steps.append(('prepend', pad))
        # combine dims marked '*'
        n = len(shape)
        off = n - k
        combined_shape = list(shape[:off])
        groups = []  # list of lists of dims (relative to shape) per new dim
        pending = []
        new_tile = []
        for i in range(k):
            pending.append(off + i)
            if tile[i] == -1:
                continue
            groups.append(pending)
            new_tile.append(tile[i])
            pending = []
        if pending:  # a trailing '*' has nothing to fold into
            groups.append(pending)
            new_tile.append(1)
        if any(len(g) > 1 for g in groups):
            sizes = []
            for g in groups:
                p = 1
                for d in g:
                    p *= shape[d]
                sizes.append(p)
            self.steps.append(('combine', off, [[shape[d] for d in g]
                                                 for g in groups]))
            shape = combined_shape + sizes
        k = len(new_tile)
        off = len(shape) - k
        outer = [-(-shape[off + i] // new_tile[i]) for i in range(k)]
        self.steps.append(('tile', off, new_tile))
        return list(shape[:off]) + outer + new_tile

    def offset(self, idx):
        p = [idx[d] for d in self.order]
        for st in self.steps:
            if st[0] == 'prepend':
                p = [0] * st[1] + p
            elif st[0] == 'combine':
                off, groups = st[1], st[2]
                q = list(p[:off])
                pos = off
                for g in groups:
                    v = 0
                    for size in g:
                        v = v * size + p[pos]
                        pos += 1
                    q.append(v)
                p = q
            else:
                off, tile = st[1], st[2]
                head = list(p[:off])
                outer = [p[off + i] // tile[i] for i in range(len(tile))]
                inner = [p[off + i] % tile[i] for i in range(len(tile))]
                p = head + outer + inner
        return sum(a * b for a, b in zip(p, self.strides))


def all_indices(dims):
    """Every index of `dims` in row-major order."""
    n = 1
    for d in dims:
        n *= d
    if n == 0:
        return []
    out = [()]
    for d in dims:
        out = [i + (j,) for i in out for j in range(d)]
    return out


def row_major_strides(dims):
    st = []
    acc = 1
    for d in reversed(dims):
        st.insert(0, acc)
        acc *= d
    return st


def pack(values, t):
    """Bytes of a list of element values (ints as described above)."""
    k, n = TYPES[t]
    fmt = {8: 'B', 16: 'H', 32: 'I', 64: 'Q'}[n]
    return struct.pack('<%d%s' % (len(values), fmt),
                       *[to_unsigned_bits(v, t) for v in values])


def unpack(data, t, count):
    k, n = TYPES[t]
    fmt = {8: 'B', 16: 'H', 32: 'I', 64: 'Q'}[n]
    raw = struct.unpack('<%d%s' % (count, fmt), data[:count * (n // 8)])
    return [from_unsigned_bits(u, t) for u in raw]
