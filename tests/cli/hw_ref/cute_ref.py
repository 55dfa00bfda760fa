"""An independent CuTe layout algebra after CUTLASS's python/pycute
(int_tuple.py, layout.py) and cute/layout.hpp, for differential tests.

Shapes and strides are ints or nested tuples. Errors the reference rejects
raise CuteError. Where pycute and the C++ differ, the comment says which one
this follows:
  * composition checks both the stride and the shape divisibility condition
    (C++ / 02_layout_algebra.md; pycute asserts only the stride one);
  * blocked / raked products are the C++ ones (pycute has none);
  * complement rejects a stride that the running product does not divide
    (the layout is not complementable; C++ divides silently).
"""
from itertools import chain


class CuteError(Exception):
    pass


def is_tuple(x):
    return isinstance(x, tuple)


def flatten(t):
    if is_tuple(t):
        return tuple(i for a in t for i in flatten(a))
    return (t,)


def product(a):
    if is_tuple(a):
        p = 1
        for x in a:
            p *= product(x)
        return p
    return a


def prefix_product(a, init=1):
    if is_tuple(a):
        r = []
        for v in a:
            r.append(prefix_product(v, init))
            init = init * product(v)
        return tuple(r)
    return init


def crd2idx(crd, shape, stride):
    """pycute crd2idx: an int coordinate is colexicographic, the last mode
    unreduced."""
    if is_tuple(crd):
        if not is_tuple(shape) or len(crd) != len(shape):
            raise CuteError("coordinate not congruent")
        return sum(crd2idx(c, s, d) for c, s, d in zip(crd, shape, stride))
    if is_tuple(shape):
        result = 0
        for i in range(len(shape) - 1):
            result += crd2idx(crd % product(shape[i]), shape[i], stride[i])
            crd = crd // product(shape[i])
        return result + crd2idx(crd, shape[-1], stride[-1])
    return crd * stride


class Layout:
    def __init__(self, shape, stride=None):
        self.shape = shape
        self.stride = prefix_product(shape) if stride is None else stride

    def __eq__(self, other):
        return self.shape == other.shape and self.stride == other.stride

    def __len__(self):
        return len(self.shape) if is_tuple(self.shape) else 1

    def __getitem__(self, i):
        if is_tuple(self.shape):
            return Layout(self.shape[i], self.stride[i])
        if i != 0:
            raise IndexError(i)
        return self

    def __call__(self, idx):
        return crd2idx(idx, self.shape, self.stride)

    def size(self):
        return product(self.shape)

    def cosize(self):
        return self(self.size() - 1) + 1

    def __repr__(self):
        return fmt(self)


def fmt_tuple(t):
    if is_tuple(t):
        return "(" + ",".join(fmt_tuple(x) for x in t) + ")"
    return str(t)


def fmt(layout):
    return fmt_tuple(layout.shape) + ":" + fmt_tuple(layout.stride)


def make_layout(*layouts):
    if len(layouts) == 1 and not isinstance(layouts[0], Layout):
        layouts = list(layouts[0])
    shape, stride = zip(*((a.shape, a.stride) for a in layouts))
    return Layout(tuple(shape), tuple(stride))


def size(x):
    return x.size() if isinstance(x, Layout) else product(x)


def values(layout, limit=None):
    """L(i) for i in [0, size) (at most `limit` of them), by colexicographic
    digits of the flattened modes: the same as crd2idx on an int, faster."""
    shape, stride = flatten(layout.shape), flatten(layout.stride)
    n = layout.size() if limit is None else min(limit, layout.size())
    out = []
    for i in range(n):
        v, rest = 0, i
        for k, (s, d) in enumerate(zip(shape, stride)):
            if k + 1 == len(shape):
                v += rest * d
            else:
                v += (rest % s) * d
                rest //= s
        out.append(v)
    return out


def coalesce(layout, profile=None):
    if is_tuple(profile):
        if len(layout) < len(profile):
            raise CuteError("profile longer than layout")
        return make_layout(chain(
            (coalesce(layout[i], profile[i]) for i in range(len(profile))),
            (layout[i] for i in range(len(profile), len(layout)))))
    rs, rd = [1], [0]
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if s == 1:
            continue
        if rs[-1] == 1:
            rs[-1], rd[-1] = s, d
        elif rs[-1] * rd[-1] == d:
            rs[-1] = rs[-1] * s
        else:
            rs.append(s)
            rd.append(d)
    if len(rs) == 1:
        return Layout(rs[0], rd[0])
    return Layout(tuple(rs), tuple(rd))


def coalesce_by_mode(layout):
    if not is_tuple(layout.shape):
        return coalesce(layout)
    return make_layout(coalesce(layout[i]) for i in range(len(layout)))


def filter_layout(layout):
    rs, rd = [], []
    for s, d in zip(flatten(layout.shape), flatten(layout.stride)):
        if not (s == 1 or d == 0):
            rs.append(s)
            rd.append(d)
    if not rs:
        return Layout(1, 0)
    return coalesce(Layout(tuple(rs), tuple(rd)))


def _compose_leaf(a, s, d):
    if d == 0:
        return Layout(s, 0)
    flat = coalesce(a)
    fs, fd = flatten(flat.shape), flatten(flat.stride)
    rs, rd = [], []
    rest_shape, rest_stride = s, d
    for cs, cd in zip(fs[:-1], fd[:-1]):
        if not (cs % rest_stride == 0 or rest_stride % cs == 0):
            raise CuteError("stride divisibility: %d vs %d" % (cs, rest_stride))
        next_shape = max(1, cs // rest_stride)
        if next_shape != 1 and rest_shape != 1 and \
                next_shape % rest_shape != 0 and rest_shape % next_shape != 0:
            raise CuteError("shape divisibility: %d vs %d" % (next_shape, rest_shape))
        new_shape = min(next_shape, rest_shape)
        if new_shape != 1:
            rs.append(new_shape)
            rd.append(rest_stride * cd)
        rest_shape = rest_shape // new_shape
        rest_stride = -(-rest_stride // cs)
    if rest_shape != 1 or not rs:
        rs.append(rest_shape)
        rd.append(rest_stride * fd[-1])
    if len(rs) == 1:
        return Layout(rs[0], rd[0])
    return Layout(tuple(rs), tuple(rd))


def composition(a, b):
    """b: Layout, int, or a tuple tiler (by mode; A's extra modes kept, as
    pycute does)."""
    if b is None:
        return a
    if isinstance(b, int):
        return composition(a, Layout(b))
    if is_tuple(b):
        if len(a) < len(b):
            raise CuteError("tiler longer than layout")
        return make_layout(chain((composition(a[i], b[i]) for i in range(len(b))),
                                 (a[i] for i in range(len(b), len(a)))))
    if is_tuple(b.shape):
        return make_layout(composition(a, b[i]) for i in range(len(b)))
    return _compose_leaf(a, b.shape, b.stride)


def complement(layout, cotarget=1):
    if isinstance(layout, int):
        layout = Layout(layout)
    rs, rd = [], []
    cur = 1
    for d, s in sorted(zip(flatten(layout.stride), flatten(layout.shape))):
        if d == 0 or s == 1:
            continue
        if d < 0:
            raise CuteError("negative stride")
        if d % cur != 0:
            raise CuteError("not complementable: stride %d, running %d" % (d, cur))
        rs.append(d // cur)
        rd.append(cur)
        cur = s * d
    rs.append((cotarget + cur - 1) // cur)
    rd.append(cur)
    return coalesce(Layout(tuple(rs), tuple(rd)))


def right_inverse(layout):
    rs, rd = [], []
    cur = 1
    fs, fd = flatten(layout.shape), flatten(layout.stride)
    for d, s, r in sorted(zip(fd, fs, prefix_product(fs))):
        # Stride-0 modes are skipped as in the C++ right_inverse (which
        # looks for each next stride); pycute stops at them with 1:0.
        if s == 1 or d == 0:
            continue
        if cur != d:
            break
        rs.append(s)
        rd.append(r)
        cur = s * d
    return coalesce(Layout(tuple(rs), tuple(rd)))


def left_inverse(layout):
    return right_inverse(make_layout(layout, complement(layout)))


def logical_divide(a, b):
    if b is None:
        return a
    if isinstance(b, int):
        return logical_divide(a, Layout(b))
    if is_tuple(b):
        if len(a) < len(b):
            raise CuteError("tiler longer than layout")
        return make_layout(chain((logical_divide(a[i], b[i]) for i in range(len(b))),
                                 (a[i] for i in range(len(b), len(a)))))
    return composition(a, make_layout(b, complement(b, size(a))))


def logical_product(a, b):
    if b is None:
        return a
    if isinstance(b, int):
        return logical_product(a, Layout(b))  # pycute calls logical_divide here
    if is_tuple(b):
        if len(a) < len(b):
            raise CuteError("tiler longer than layout")
        return make_layout(chain((logical_product(a[i], b[i]) for i in range(len(b))),
                                 (a[i] for i in range(len(b), len(a)))))
    return make_layout(a, composition(complement(a, size(a) * b.cosize()), b))


def hier_unzip(splitter, a, b):
    if b is None:
        return make_layout(Layout(1, 0), a)
    if is_tuple(b):
        if len(a) < len(b):
            raise CuteError("tiler longer than layout")
        split = make_layout(hier_unzip(splitter, a[i], b[i]) for i in range(len(b)))
        return make_layout(
            make_layout(split[i][0] for i in range(len(b))),
            make_layout(chain((split[i][1] for i in range(len(b))),
                              (a[i] for i in range(len(b), len(a))))))
    return splitter(a, b)


def zipped_divide(a, b):
    return hier_unzip(logical_divide, a, b)


def tiled_divide(a, b):
    r = zipped_divide(a, b)
    return make_layout([r[0]] + [r[1][i] for i in range(len(r[1]))])


def flat_divide(a, b):
    r = zipped_divide(a, b)
    return make_layout([r[0][i] for i in range(len(r[0]))] +
                       [r[1][i] for i in range(len(r[1]))])


def zipped_product(a, b):
    return hier_unzip(logical_product, a, b)


def tiled_product(a, b):
    r = zipped_product(a, b)
    return make_layout([r[0]] + [r[1][i] for i in range(len(r[1]))])


def _append(layout, r):
    modes = [layout[i] for i in range(len(layout))]
    while len(modes) < r:
        modes.append(Layout(1, 0))
    return make_layout(modes)


def _zip_product(block, tiler, blocked):
    r = max(len(block), len(tiler))
    res = logical_product(_append(block, r), _append(tiler, r))
    a, x = res[0], res[1]
    modes = []
    for i in range(r):
        pair = make_layout(a[i], x[i]) if blocked else make_layout(x[i], a[i])
        modes.append(coalesce(pair))
    return make_layout(modes)


def blocked_product(block, tiler):
    return _zip_product(block, tiler, True)


def raked_product(block, tiler):
    return _zip_product(block, tiler, False)


def swizzle(b, m, s, offset):
    yyy = ((1 << b) - 1) << (m + max(0, s))
    return offset ^ ((offset & yyy) >> s) if s >= 0 else offset ^ ((offset & yyy) << -s)


# ----------------------------------------------------------- notation

def parse_tuple(text, pos=0):
    """-> (value, pos). Ints or parenthesized tuples; "(x)" is x."""
    while text[pos] == " ":
        pos += 1
    if text[pos] == "(":
        items = []
        pos += 1
        while True:
            v, pos = parse_tuple(text, pos)
            items.append(v)
            if text[pos] == ")":
                pos += 1
                break
            assert text[pos] == ","
            pos += 1
        return (items[0] if len(items) == 1 else tuple(items)), pos
    end = pos + 1 if text[pos] == "-" else pos
    while end < len(text) and text[end].isdigit():
        end += 1
    return int(text[pos:end]), end


def parse_layout(text):
    shape, pos = parse_tuple(text)
    if pos < len(text) and text[pos] == ":":
        stride, pos = parse_tuple(text, pos + 1)
        return Layout(shape, stride)
    return Layout(shape)
