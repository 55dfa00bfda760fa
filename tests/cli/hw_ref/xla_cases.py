"""XLA tiled-layout cases: the worked examples of openxla/xla/docs/tiled_layout.md and
layout / shape_util tests (as remembered), and random shapes and layouts;
ixa's `layout` op against xla_ref."""
import random

from hw_ref.mapeval import Map
from hw_ref.xla_ref import STAR, Shape

# (shape, index, offset, bytes); None where the source gives no number.
KNOWN = [
    (Shape("f32", [3, 5], [1, 0], [[2, 2]]), [2, 3], 17, 96),
    (Shape("bf16", [4, 8], [1, 0], [[2, 4], [2, 1]]), [1, 5], 11, 64),
    (Shape("f32", [8, 8], [1, 0], [[2, 4], [2, 1, 1, 1]]), [6, 5], 51, None),
    (Shape("f32", [2, 7, 8, 11, 10], [4, 3, 2, 1, 0], [[STAR, STAR, 2, STAR, 3]]),
     [1, 3, 5, 7, 9], 9484, 12432 * 4),
    (Shape("f32", [3, 5], [0, 1], [[2, 2]]), [2, 3], 14, None),
    (Shape("bf16", [16, 256], [1, 0], [[8, 128], [2, 1]]), [9, 130], 3077, None),
    (Shape("s8", [40, 130], [1, 0], [[32, 128], [4, 1]]), [37, 129], 12805, None),
    (Shape("f32", [5], [0], [[8, 128]]), [4], None, 4096),
    (Shape("f32", [2, 3], [1, 0], [[8, 128]]), [1, 2], None, 4096),
    (Shape("f32", [1, 128], [1, 0], [[2, 128]]), [0, 5], None, 1024),
    (Shape("bf16", [3, 300], [1, 0], [[8, 128], [2, 1]]), [2, 299], None, 6144),
    (Shape("s4", [8, 32768, 1, 256], [3, 1, 0, 2], [[64, 128], [8, 1]], esize=4,
           space=1), [7, 1000, 0, 255], None, 33554432),
    (Shape("pred", [40, 100], [1, 0], [[32, 128], [32, 1]], esize=1), [39, 99], None, 1024),
    (Shape("bf16", [2000], [0], [[1024], [128], [2, 1]]), [1999], None, 4096),
    (Shape("s4", [64, 128], [1, 0], [[64, 128], [8, 1]], esize=4), [63, 127], None, 4096),
    # No E(n): sub-byte types take a byte per element (ByteWidth).
    (Shape("s4", [64], [0]), [5], 5, 64),
    (Shape("u4", [3, 8], [1, 0], [[2, 8]]), [2, 7], None, 32),
    (Shape("s4", [64], [0], esize=4), [5], 5, 32),
    (Shape("f32", [3, 5], [1, 0], [[2, 2]], tail=16), [2, 4], 20, 128),
    (Shape("f32", [0, 5], [1, 0], [[2, 2]]), None, None, 0),
    (Shape("f32", []), [], 0, 4),
    (Shape("f32", [], [], [[8, 128]]), [], 0, 4096),
    (Shape("u8", [5, 3], [0, 1], [[4], [2]]), [4, 2], None, None),
]

TYPES = ["pred", "s4", "u4", "s8", "u8", "bf16", "f16", "s16", "f32", "s32",
         "f64", "u64", "s2", "f8e4m3fn"]


def judge_factory(shape, index, expected_offset, expected_bytes, offsets):
    count = 1
    for d in shape.dims:
        count *= d
    step = max(1, min(count, 4096) // 300)  # the map at about 300 points

    def judge(resp):
        if not resp.get("ok"):
            return "ixa rejects a valid layout: %s" % resp["error"]
        want_shape = shape.physical_shape()
        if resp["physical_shape"] != want_shape:
            return "physical_shape %s, reference %s" % (resp["physical_shape"], want_shape)
        if resp["physical_elements"] != shape.physical_elements():
            return "physical_elements %d, reference %d" % (
                resp["physical_elements"], shape.physical_elements())
        if resp["bytes"] != shape.bytes():
            return "bytes %d, reference %d" % (resp["bytes"], shape.bytes())
        if expected_bytes is not None and shape.bytes() != expected_bytes:
            return "reference bytes %d, documented %d" % (shape.bytes(), expected_bytes)
        if resp["map"] == "KNOWN EMPTY":
            if all(shape.dims):
                return "map is KNOWN EMPTY for a non-empty shape"
            m = None
        else:
            m = Map(resp["map"])
        inverse = {}
        if count <= 4096:
            points = list(shape.logical_indices())
        else:  # a large known case: a fixed sample
            rng = random.Random(shape.text())
            points = [[rng.randrange(d) for d in shape.dims] for _ in range(300)]
        for n, idx in enumerate(points):
            off = shape.offset(idx)
            if offsets is not None:
                inverse[off] = list(idx)
            if n % step == 0:
                got = m(list(idx))
                if got != [off] or not m.in_domain(list(idx)):
                    return "map at %s gives %s, reference %d" % (list(idx), got, off)
        if index is not None:
            off = shape.offset(index)
            if expected_offset is not None and off != expected_offset:
                return "reference offset %d, documented %d" % (off, expected_offset)
            if resp.get("offset") != off:
                return "offset of %s: %s, reference %d" % (index, resp.get("offset"), off)
        if offsets is not None:
            want = [inverse.get(o) for o in offsets]
            if resp.get("logical") != want:
                bad = [(o, g, w) for o, g, w in zip(offsets, resp.get("logical") or [], want)
                       if g != w]
                return "logical differs (offset, ixa, reference): %s" % bad[:4]
        return None
    return judge


def request(shape, index=None, offsets=None):
    req = {"op": "layout", "shape": shape.text()}
    if index is not None:
        req["index"] = list(index)
    if offsets is not None:
        req["offsets"] = offsets
    return req


def rand_tile(rng, rank, first):
    k = rng.randint(1, rank + (1 if rng.random() < 0.15 else 0)) if rank else rng.randint(1, 2)
    tile = [rng.choice([1, 2, 2, 3, 4, 8, 16]) for _ in range(k)]
    if k >= 2 and rng.random() < (0.2 if first else 0.08):
        for j in range(k - 1):
            if rng.random() < 0.4:
                tile[j] = STAR
    return tile


def rand_shape(rng):
    while True:
        rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
        hi = rng.choice([9, 9, 40])
        dims = [rng.randint(1, hi) if rng.random() > 0.03 else 0 for _ in range(rank)]
        m2m = list(range(rank))
        rng.shuffle(m2m)
        tiles = []
        cur = rank
        for level in range(rng.choice([0, 1, 1, 2, 2, 3])):
            t = rand_tile(rng, max(cur, 1), level == 0)
            tiles.append(t)
            cur = max(cur, len(t)) + len([x for x in t if x != STAR])
        dtype = rng.choice(TYPES)
        esize = rng.choice([0, 0, 0, 1, 2, 4, 8, 32]) if rng.random() < 0.3 else 0
        tail = rng.choice([1, 1, 1, 4, 16]) if tiles else 1
        s = Shape(dtype, dims, m2m, tiles, tail=tail, esize=esize,
                  space=rng.choice([0, 0, 1]))
        if s.physical_elements() <= 4096:
            return s


def build(rng, count):
    cases = []
    for shape, index, off, nbytes in KNOWN:
        n = shape.physical_elements()
        offsets = list(range(n)) if n <= 64 else None
        cases.append((request(shape, index, offsets),
                      judge_factory(shape, index, off, nbytes, offsets)))
    for _ in range(count):
        s = rand_shape(rng)
        index = [rng.randrange(d) for d in s.dims] if all(s.dims) else None
        n = s.physical_elements()
        offsets = sorted(rng.sample(range(n), min(n, 24))) if n else None
        cases.append((request(s, index, offsets), judge_factory(s, index, None, None, offsets)))
    # Out-of-range offsets and indices are invalid_argument.
    s = Shape("f32", [3, 5], [1, 0], [[2, 2]])
    for req in (request(s, offsets=[24]), request(s, offsets=[-1]), request(s, index=[3, 0]),
                request(s, index=[0])):
        cases.append((req, lambda r: None if not r.get("ok") and
                      r["error"]["code"] == "invalid_argument" else "expected invalid_argument"))
    return cases
