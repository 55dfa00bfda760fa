"""Random input values (random bit patterns mixed with the values that
matter: NaN with payloads, infinities, -0, denormals, integer extremes)
and their physical buffers."""
import struct

import numerics as N


def float_value(r, t):
    m, e = N.FMT[t]
    x = r.random()
    if x < 0.35:
        return N.encode(r.uniform(-8, 8), t)
    if x < 0.5:
        return N.encode(float(r.randint(-4, 4)) + r.choice([0, 0, 0.5]), t)
    if x < 0.6:
        top = (1 << e) - 1
        sign = r.randint(0, 1) << (m + e)
        pick = r.randint(0, 6)
        if pick == 0:  # NaN, quiet or signalling, random payload
            return sign | (top << m) | r.randint(1, (1 << m) - 1)
        if pick == 1:
            return sign | (top << m)  # infinity
        if pick == 2:
            return sign  # +-0
        if pick == 3:  # denormal
            return sign | r.randint(1, (1 << m) - 1)
        if pick == 4:  # largest finite
            return sign | ((top - 1) << m) | ((1 << m) - 1)
        if pick == 5:  # smallest normal
            return sign | (1 << m)
        return N.canonical_nan(t) | sign
    return r.getrandbits(N.bits(t))


def int_value(r, t):
    x = r.random()
    n = N.bits(t)
    if x < 0.3:
        return N.wrap(r.randint(-4, 4), t)
    if x < 0.5:
        return N.wrap(r.choice([N.int_min(t), N.int_max(t), -1, 0, 1, n - 1, n,
                                n + 1, 2 * n, N.int_min(t) + 1]), t)
    return N.wrap(r.getrandbits(n), t)


def values(r, t, count, dist):
    kind = dist[0]
    out = []
    for _ in range(count):
        if t == 'pred':
            out.append(r.randint(0, 1))
        elif kind == 'index':
            lo, hi = dist[1], dist[2]
            x = r.random()
            if x < 0.85:
                v = r.randint(lo, hi)
            elif x < 0.95:
                v = r.choice([N.int_min(t), N.int_max(t), -1])
            else:
                v = r.getrandbits(N.bits(t))
            out.append(N.wrap(v, t))
        elif kind == 'small':
            v = r.randint(-3, 3)
            out.append(N.encode_int(v, t) if N.is_float(t) else N.wrap(v, t))
        elif N.is_float(t):
            out.append(float_value(r, t))
        else:
            out.append(int_value(r, t))
    return out


def to_buffer(r, shape, vals, pad_byte=None):
    """The physical bytes of `vals` (row-major logical order) in shape's
    layout; padding is random (inputs) or `pad_byte`."""
    phys = shape.physical()
    nb = N.storage_bytes(shape.t)
    size = phys.size * nb
    if pad_byte is None:
        buf = bytearray(r.getrandbits(8) for _ in range(size))
    else:
        buf = bytearray([pad_byte]) * size
    fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[nb]
    for idx, v in zip(N.all_indices(shape.dims) if shape.dims else [()], vals):
        off = phys.offset(idx) if shape.dims else 0
        struct.pack_into(fmt, buf, off * nb, N.to_unsigned_bits(v, shape.t))
    return buf


def from_buffer(shape, buf):
    """(logical values, padding offsets that are not zero)."""
    phys = shape.physical()
    nb = N.storage_bytes(shape.t)
    fmt = {1: '<B', 2: '<H', 4: '<I', 8: '<Q'}[nb]
    vals = []
    used = set()
    for idx in N.all_indices(shape.dims) if shape.dims else [()]:
        off = phys.offset(idx) if shape.dims else 0
        used.add(off)
        vals.append(N.from_unsigned_bits(
            struct.unpack_from(fmt, buf, off * nb)[0], shape.t))
    bad_pad = [o for o in range(phys.size) if o not in used and
               any(buf[o * nb:(o + 1) * nb])]
    return vals, bad_pad


def buffer_size(shape):
    return shape.physical().size * N.storage_bytes(shape.t)
