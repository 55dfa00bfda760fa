"""An independent model of XLA tiled layouts (xla/layout.h, layout_util,
shape_util.cc ShapeUtil::ArraySize, openxla/xla/docs/tiled_layout.md), for
differential tests of ixa's `layout` op.

A layout is minor_to_major plus tiles (lists of ints, STAR for `*`), an
optional tail padding alignment L(n), element_size_in_bits E(n) (0: unset)
and a memory space S(n) (no effect on offsets).
"""
STAR = "*"

# XLA's BitWidth per primitive type; ByteWidth = ceil(BitWidth / 8).
BITS = {"pred": 8, "s2": 2, "u2": 2, "s4": 4, "u4": 4, "s8": 8, "u8": 8,
        "s16": 16, "u16": 16, "f16": 16, "bf16": 16, "s32": 32, "u32": 32,
        "f32": 32, "s64": 64, "u64": 64, "f64": 64, "f8e4m3fn": 8,
        "f8e5m2": 8, "c64": 64, "c128": 128, "f4e2m1fn": 4}


def ceil_div(a, b):
    return -(-a // b)


class Shape:
    def __init__(self, dtype, dims, m2m=None, tiles=(), tail=1, esize=0,
                 space=0):
        self.dtype, self.dims = dtype, list(dims)
        self.m2m = list(range(len(dims) - 1, -1, -1)) if m2m is None else list(m2m)
        self.tiles = [list(t) for t in tiles]
        self.tail, self.esize, self.space = tail, esize, space

    def text(self):
        out = "%s[%s]" % (self.dtype, ",".join(map(str, self.dims)))
        attrs = ""
        if self.tiles:
            attrs += "T" + "".join("(" + ",".join(map(str, t)) + ")" for t in self.tiles)
        if self.tail != 1:
            attrs += "L(%d)" % self.tail
        if self.esize:
            attrs += "E(%d)" % self.esize
        if self.space:
            attrs += "S(%d)" % self.space
        return out + "{" + ",".join(map(str, self.m2m)) + (":" + attrs if attrs else "") + "}"

    # ------------------------------------------------------------ tiling

    def _apply(self, index):
        """-> (final shape, final index or None), the pad-reshape-transpose
        construction of tiled_layout.md, level by level."""
        r = len(self.dims)
        shape = [self.dims[self.m2m[r - 1 - j]] for j in range(r)]
        idx = None if index is None else [index[self.m2m[r - 1 - j]] for j in range(r)]
        for tile in self.tiles:
            tile = list(tile)
            if len(tile) > len(shape):  # missing major dims are size 1
                extra = len(tile) - len(shape)
                shape = [1] * extra + shape
                if idx is not None:
                    idx = [0] * extra + idx
            base = len(shape) - len(tile)
            j = 0
            while j < len(tile):  # `*`: fold into the next more minor dim
                if tile[j] != STAR:
                    j += 1
                    continue
                p = base + j
                if idx is not None:
                    idx[p + 1] = idx[p] * shape[p + 1] + idx[p + 1]
                    del idx[p]
                shape[p + 1] *= shape[p]
                del shape[p]
                del tile[j]
            k = len(tile)
            pre = len(shape) - k
            new_shape = shape[:pre] + [ceil_div(shape[pre + i], tile[i]) for i in range(k)] + tile
            if idx is not None:
                idx = idx[:pre] + [idx[pre + i] // tile[i] for i in range(k)] + \
                    [idx[pre + i] % tile[i] for i in range(k)]
            shape = new_shape
        return shape, idx

    def physical_shape(self):
        return self._apply(None)[0]

    def offset(self, index):
        shape, idx = self._apply(list(index))
        off = 0
        for s, i in zip(shape, idx):
            off = off * s + i
        return off

    def tiled_elements(self):
        n = 1
        for s in self.physical_shape():
            n *= s
        return n

    def physical_elements(self):
        return ceil_div(self.tiled_elements(), self.tail) * self.tail

    def element_bits(self):
        # E(n) when set; else 8 * ByteWidth(type): an s4 without E(4) takes
        # a byte (XLA packs sub-byte types only with element_size_in_bits).
        return self.esize if self.esize else 8 * ceil_div(BITS[self.dtype], 8)

    def array_size_elements(self):
        """ShapeUtil::ArraySize's element count: only the first tile pads
        (sub-tiles are assumed not to); None where the formula does not
        apply (a `*` in the first tile, or sub-tiles that do pad)."""
        if not self.tiles:
            n = 1
            for d in self.dims:
                n *= d
            return ceil_div(n, self.tail) * self.tail
        t0 = self.tiles[0]
        if STAR in t0:
            return None
        # Sub-tiles that pad: the formula under-counts the offsets; skip.
        if self.physical_elements() != self._first_tile_padded():
            return None
        return self._first_tile_padded()

    def _first_tile_padded(self):
        t0 = self.tiles[0]
        r = len(self.dims)
        n = 1
        for dim in range(len(t0)):
            size = self.dims[self.m2m[dim]] if dim < r else 1
            n *= ceil_div(size, t0[len(t0) - 1 - dim]) * t0[len(t0) - 1 - dim]
        for dim in range(len(t0), r):
            n *= self.dims[self.m2m[dim]]
        return ceil_div(n, self.tail) * self.tail

    def bytes(self):
        n = self.array_size_elements()
        if n is None:
            n = self.physical_elements()
        return ceil_div(n * self.element_bits(), 8)

    def logical_indices(self):
        import itertools
        return itertools.product(*[range(d) for d in self.dims])
