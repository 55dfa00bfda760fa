"""CuTe cases: CUTLASS's own test layouts (test/python/pycute/*.py and the
C++ test/unit/cute/core tests, as remembered), the worked examples of
02_layout_algebra.md, and random layouts; ixa's `cute_layout` op against
cute_ref."""
import itertools

from hw_ref import cute_ref as C
from hw_ref.cute_ref import Layout as L
from hw_ref.mapeval import Map

# (fn, A, B or cotarget, expected layout text or None) -- expected from the
# CuTe docs where they give one.
KNOWN = [
    ("compose", "(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
    ("compose", "20:2", "(5,4):(4,1)", "(5,4):(8,2)"),
    ("compose", "(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
    ("compose", "(12,(4,8)):(59,(13,1))", "<3:4,8:2>", "(3,(2,4)):(236,(26,1))"),
    ("compose", "(12,(4,8)):(59,(13,1))", "(3,8)", "(3,(4,2)):(59,(13,1))"),
    ("compose", "(4,2):(1,4)", "(2,3):(0,1)", "(2,3):(0,1)"),
    ("compose", "(6,2):(1,7)", "4:1", None),
    ("complement", "4:1", 24, "6:4"),
    ("complement", "6:4", 24, "4:1"),
    ("complement", "(4,6):(1,4)", 24, "1:0"),
    ("complement", "4:2", 24, "(2,3):(1,8)"),
    ("complement", "(2,4):(1,6)", 24, "3:2"),
    ("complement", "(2,2):(1,6)", 24, "(3,2):(2,12)"),
    ("logical_divide", "(4,2,3):(2,1,8)", "4:2", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_divide", "(9,(4,8)):(59,(13,1))", "<3:3,(2,4):(1,8)>",
     "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"),
    ("zipped_divide", "(9,(4,8)):(59,(13,1))", "<3:3,(2,4):(1,8)>",
     "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"),
    ("logical_product", "(2,2):(4,1)", "6:1", "((2,2),(2,3)):((4,1),(2,8))"),
    ("blocked_product", "(2,5):(5,1)", "(3,4):(1,3)", "(6,(5,4)):(5,(1,30))"),
    ("raked_product", "(2,5):(5,1)", "(3,4):(1,3)", "((3,2),(4,5)):((10,5),(30,1))"),
]

# test_coalesce.py / coalesce.cpp layouts.
COALESCE = [
    "1:0", "1:1", "(2,4)", "(2,4,6)", "(2,4,6):(1,6,2)", "(2,1,6):(1,7,2)",
    "(2,1,6):(4,7,8)", "(2,(4,6))", "(2,4):(4,1)", "(2,4,6):(24,6,1)",
    "(2,1,3):(2,4,4)", "((2,2),(2,2)):((1,4),(8,32))", "(2,(1,6)):(1,(6,2))",
    "(4,(1,4)):(1,(0,4))", "(2,2):(0,0)", "(1,1):(3,5)", "(3,1,1,4):(1,0,7,3)",
]

# test_composition.py / composition.cpp pairs.
COMPOSITION = [
    ("1:0", "1:0"), ("1:1", "1:0"), ("1:0", "1:1"), ("1:1", "1:1"),
    ("4", "4"), ("4:2", "4"), ("4", "4:2"), ("4:0", "4"), ("4", "4:0"),
    ("1:0", "4"), ("4", "1:0"), ("4", "2"), ("4:2", "2"), ("4", "2:2"),
    ("4:2", "2:2"), ("(4,3)", "12"), ("12", "(4,3)"), ("12:2", "(4,3)"),
    ("12", "(4,3):(3,1)"), ("12:2", "(4,3):(3,1)"), ("12", "(2,3):(2,4)"),
    ("(4,3)", "(4,3)"), ("(4,3)", "6:2"), ("(4,3)", "(6,2):(2,1)"),
    ("(4,3):(3,1)", "(4,3)"), ("(4,3):(3,1)", "12"), ("(4,3):(3,1)", "6:2"),
    ("(4,3):(3,1)", "(6,2):(2,1)"),
    ("(8,8)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("(8,8):(8,1)", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"),
    ("((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", "8:4"),
    ("((4,2)):((1,16))", "(4,2):(2,1)"), ("(2,2):(2,1)", "(2,2):(2,1)"),
    ("(4,8,2)", "(2,2,2):(2,8,1)"), ("(4,8,2):(2,8,1)", "(2,2,2):(1,8,2)"),
    ("(4,8,2):(2,8,1)", "(4,2,2):(2,8,1)"),
    ("(4,6,8):(1,4,7)", "6:1"), ("(4,6,8,10):(2,3,5,7)", "6:12"),
    ("(4,2):(1,4)", "(2,3):(0,1)"), ("(3,(4,5)):(1,(3,12))", "(5,3):(3,1)"),
    ("(8,4):(1,8)", "(2,(2,4)):(1,(2,8))"),
]

COMPLEMENT = [
    ("1:0", None), ("1:1", None), ("1:2", None), ("4:0", None), ("4:1", None),
    ("4:2", None), ("(2,4):(1,2)", None), ("(2,3):(1,2)", None),
    ("(2,4):(1,6)", None), ("(2,4,8):(8,1,64)", None), ("(2,4,8):(8,1,0)", None),
    ("((2,2),(2,2)):((1,4),(8,32))", None), ("(2,(3,4)):(3,(1,6))", None),
    ("(4,6):(1,6)", None), ("4:1", 8), ("4:2", 16), ("(2,2):(1,6)", 24),
    ("(2,2):(1,3)", 12), ("(4,2):(1,2)", 8), ("3:4", 7), ("(3,2):(2,12)", 48),
]

LOGICAL_DIVIDE = [
    ("1:0", "1:0"), ("1:0", "1:1"), ("1:1", "1:0"), ("1:1", "1:1"),
    ("6:1", "2:1"), ("6:1", "2:3"), ("6:1", "(2,3):(3,1)"), ("6:2", "2:1"),
    ("6:2", "2:3"), ("6:2", "(2,3):(3,1)"), ("(6,6):(1,12)", "(6,3):(3,1)"),
    ("(6,6):(12,1)", "(6,3):(3,1)"), ("32", "(2,8)"), ("(4,1):(1,1)", "2:1"),
    ("(4,1):(1,1)", "2:2"), ("(8,8):(1,8)", "32:2"), ("(8,8):(8,1)", "32:2"),
    ("((4,2),(2,4)):((1,8),(4,32))", "32:2"), ("8:1", "3:1"), ("6:1", "<4:1>"),
    ("(128,96):(1,128)", "<64:1,32:1>"), ("(100,60):(1,100)", "<32:1,32:1>"),
    ("(12,10):(10,1)", "(4,(5))"), ("(8,(4,6)):(24,(1,4))", "(2,(2,3))"),
]

LOGICAL_PRODUCT = [
    ("1:0", "1:0"), ("1:1", "1:0"), ("1:0", "1:1"), ("1:1", "1:1"),
    ("3:1", "4:0"), ("3:1", "4:1"), ("3:1", "4:2"), ("3:2", "4:1"),
    ("3:2", "4:2"), ("(4,2):(1,4)", "2:1"), ("(2,4):(1,2)", "3:1"),
    ("((3,2)):((1,4))", "2:1"), ("(2,2):(1,2)", "(3,2):(1,3)"),
    ("(2,5):(5,1)", "(3,4):(1,3)"), ("(4,4):(1,4)", "(2,2):(2,1)"),
]

INVERSE = [
    "1:0", "1:1", "4:1", "4:2", "(4,2):(1,4)", "(4,2):(2,1)", "(8,4):(4,1)",
    "(2,4,6):(24,6,1)", "((2,2),(2,2)):((1,4),(2,8))", "(4,2):(1,16)",
    "(4,6):(6,1)", "3:1", "(3,4):(4,1)", "(2,4):(0,1)", "(2,(3,4)):(0,(4,1))",
]


def tiler_text(t):
    """pycute tiler (Layout, int or tuple) -> ixa's notation."""
    if isinstance(t, L):
        return C.fmt(t)
    if isinstance(t, int):
        return str(t)
    return "<" + ",".join(tiler_text(x) for x in t) + ">"


def parse_with(text):
    """ixa notation -> pycute tiler: <a,b> is a tuple of tilers; a stride-less
    tuple is a shape tiler (by mode); x or x:y a layout."""
    text = text.strip()
    if text.startswith("<"):
        parts, depth, start = [], 0, 1
        for i, ch in enumerate(text[1:-1], 1):
            if ch in "(<":
                depth += 1
            elif ch in ")>":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:-1])
        return tuple(parse_with(p) for p in parts)
    if ":" in text:
        return C.parse_layout(text)
    shape, _ = C.parse_tuple(text)
    return shape if C.is_tuple(shape) else L(shape)


def reference(fn, a, w):
    """-> Layout, or raises CuteError."""
    if fn is None:
        return a
    if fn == "coalesce":
        return C.coalesce(a)
    if fn == "complement":
        return C.complement(a, a.cosize() if w is None else w)
    if fn == "right_inverse":
        return C.right_inverse(a)
    if fn == "left_inverse":
        return C.left_inverse(a)
    w = parse_with(w)
    if fn == "compose":
        return C.composition(a, w)
    if fn in ("blocked_product", "raked_product"):
        if not isinstance(w, L):  # a shape is its compact layout
            if isinstance(w, tuple) and all(isinstance(x, L) for x in w):
                raise CuteError("single layout expected")
            w = L(w)
    f = {"logical_divide": C.logical_divide, "zipped_divide": C.zipped_divide,
         "tiled_divide": C.tiled_divide, "flat_divide": C.flat_divide,
         "logical_product": C.logical_product, "blocked_product": C.blocked_product,
         "raked_product": C.raked_product, "zipped_product": C.zipped_product,
         "tiled_product": C.tiled_product}[fn]
    return f(a, w)


CuteError = C.CuteError


def _unwrap(t):
    if C.is_tuple(t):
        t = tuple(_unwrap(x) for x in t)
        return t[0] if len(t) == 1 else t
    return t


def unwrap(layout):
    return L(_unwrap(layout.shape), _unwrap(layout.stride))


def modes(layout):
    return [layout[i] for i in range(len(layout))]


def judge_factory(fn, a_text, w, swz, expected_text=None, props=None):
    a = C.parse_layout(a_text)
    try:
        # ixa's notation has no rank-1 tuples ("(x)" is x): compare with
        # CuTe's result with them unwrapped (the same function and order).
        ref = unwrap(reference(fn, a, w))
        ref_err = None
    except (C.CuteError, AssertionError, ZeroDivisionError) as e:
        ref, ref_err = None, str(e) or type(e).__name__

    def judge(resp):
        if ref_err is not None:
            if resp.get("ok"):
                return "reference rejects (%s) but ixa answers %s" % (ref_err, resp.get("layout"))
            if resp["error"]["code"] != "invalid_argument":
                return "reference rejects; ixa's error code is %s" % resp["error"]["code"]
            return None
        if not resp.get("ok"):
            return "reference answers %s but ixa fails" % C.fmt(ref)
        want = C.fmt(ref)
        if resp["layout"] != want:
            return "layout %s, reference %s" % (resp["layout"], want)
        if expected_text and want != expected_text:
            return "reference %s disagrees with the documented %s" % (want, expected_text)
        if ref.size() <= 4096:
            vals = C.values(ref)
            if swz:
                vals = [C.swizzle(*swz, v) for v in vals]
            if resp.get("values") != vals:
                return "values differ: %s vs %s" % (resp.get("values"), vals)
        elif "values" in resp:
            return "values given for a layout of size %d" % ref.size()
        m = Map(resp["map"])
        # Coordinates: one per top-level mode; the first 4096 in colex order
        # (the first mode fastest).
        ms = modes(ref)
        tables = [C.values(x, 4096) for x in ms]
        for n, crd in enumerate(itertools.product(*[range(len(t)) for t in reversed(tables)])):
            if n >= 4096:
                break
            crd = crd[::-1]
            v = sum(t[c] for t, c in zip(tables, crd))
            if swz:
                v = C.swizzle(*swz, v)
            got = m(list(crd))
            if got != [v] or not m.in_domain(list(crd)):
                return "map at %s gives %s, reference %d" % (list(crd), got, v)
        if props:
            return props(ref)
        return None

    return judge


def request(fn, a, w, swz=None):
    req = {"op": "cute_layout", "layout": a}
    if fn:
        req["fn"] = fn
    if fn == "complement":
        if w is not None:
            req["cotarget"] = w
    elif w is not None:
        req["with"] = w
    if swz:
        req["swizzle"] = list(swz)
    return req


def compose_property(a_text, b_text):
    a, b = C.parse_layout(a_text), parse_with(b_text)
    # Only for a one-mode B: CuTe composes by B's modes, which is function
    # composition only where B's modes do not carry into each other in A
    # (pycute and the C++ do not check it).
    if not isinstance(b, L) or C.is_tuple(b.shape):
        return None

    def prop(r):
        # CuTe's composition is A(B(i)) where B(i) is in A's domain; beyond
        # it, A is extended through its coalesced last mode.
        bv, rv, av = C.values(b, 4096), C.values(r, 4096), C.values(a, 4096)
        for i, (x, y) in enumerate(zip(bv, rv)):
            if 0 <= x < len(av) and y != av[x]:
                return "R(%d) = %d but A(B(%d)) = %d" % (i, y, i, av[x])
        return None
    return prop


def inverse_property(fn, a_text):
    a = C.parse_layout(a_text)

    def prop(r):
        if fn == "right_inverse":  # L(R(i)) == i
            bad = [i for i in range(r.size()) if a(r(i)) != i]
        else:  # R(L(i)) == i, for an injective L
            if len(set(C.values(a))) != a.size():
                return None
            bad = [i for i in range(a.size()) if r(a(i)) != i]
        return "inverse fails at %s" % bad[:4] if bad else None
    return prop


# ------------------------------------------------------------- random

SHAPES = [1, 2, 2, 3, 4, 4, 6, 8]


def rand_shape(rng, depth=0):
    if depth < 2 and rng.random() < 0.3:
        return tuple(rand_shape(rng, depth + 1) for _ in range(rng.randint(2, 3)))
    return rng.choice(SHAPES)


def rand_layout(rng, max_modes=3):
    n = rng.randint(1, max_modes)
    shape = rand_shape(rng, 1) if n == 1 else tuple(rand_shape(rng, 1) for _ in range(n))
    leaves = C.flatten(shape)
    kind = rng.random()
    if kind < 0.5:  # compact in a random order, maybe with gaps
        order = list(range(len(leaves)))
        rng.shuffle(order)
        strides = [0] * len(leaves)
        cur = 1
        for k in order:
            strides[k] = cur
            cur *= leaves[k] * (rng.choice([1, 1, 1, 2, 3]) if kind < 0.25 else 1)
    else:
        strides = [rng.choice([0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 32]) for _ in leaves]
    it = iter(strides)

    def rebuild(s):
        if C.is_tuple(s):
            return tuple(rebuild(x) for x in s)
        return next(it)
    return L(shape, rebuild(shape))


def rand_cases(rng, count):
    out = []
    fns = ["compose", "compose", "compose_tiler", "complement", "coalesce",
           "logical_divide", "logical_divide_tiler", "zipped_divide",
           "logical_product", "blocked_product", "raked_product", "swizzle",
           "compose_shape", "tiled_divide", "flat_divide", "zipped_product",
           "tiled_product", "logical_product_tiler", "right_inverse",
           "left_inverse"]
    for _ in range(count):
        fn = rng.choice(fns)
        a = rand_layout(rng)
        a_text = C.fmt(a)
        swz = None
        if fn == "swizzle":
            b = rng.randint(0, 3)
            s = rng.choice([1, -1]) * rng.randint(b, 4)
            swz = (b, rng.randint(0, 3), s)
            out.append((None, a_text, None, swz))
            continue
        if fn in ("coalesce", "right_inverse", "left_inverse"):
            out.append((fn, a_text, None, None))
            continue
        if fn == "complement":
            out.append((fn, a_text, rng.choice([None, rng.randint(1, 64)]), None))
            continue
        if fn.endswith("_tiler") or fn in ("zipped_divide", "tiled_divide",
                                           "flat_divide", "zipped_product",
                                           "tiled_product"):
            k = rng.randint(1, len(a))
            w = "<" + ",".join(C.fmt(rand_layout(rng, 1)) for _ in range(k)) + ">"
            out.append((fn.replace("_tiler", ""), a_text, w, None))
            continue
        if fn == "compose_shape":
            k = rng.randint(1, len(a))
            parts = [C.fmt_tuple(rand_shape(rng, 1)) for _ in range(k)]
            w = "(" + ",".join(parts) + ")" if k > 1 else "<" + parts[0] + ">"
            out.append((rng.choice(["compose", "logical_divide"]), a_text, w, None))
            continue
        b = rand_layout(rng, 2)
        out.append((fn, a_text, C.fmt(b), None))
    return out


def build(rng, count):
    cases = []
    for fn, a, w, expected in KNOWN:
        cases.append((request(fn, a, w), judge_factory(fn, a, w, None, expected)))
    for a in COALESCE:
        cases.append((request("coalesce", a, None), judge_factory("coalesce", a, None, None)))
        cases.append((request(None, a, None), judge_factory(None, a, None, None)))
    for a, b in COMPOSITION:
        cases.append((request("compose", a, b),
                      judge_factory("compose", a, b, None, props=compose_property(a, b))))
    for a, m in COMPLEMENT:
        cases.append((request("complement", a, m), judge_factory("complement", a, m, None)))
    for a, b in LOGICAL_DIVIDE:
        for fn in ("logical_divide", "zipped_divide"):
            cases.append((request(fn, a, b), judge_factory(fn, a, b, None)))
    for a, b in LOGICAL_PRODUCT:
        for fn in ("logical_product", "blocked_product", "raked_product"):
            cases.append((request(fn, a, b), judge_factory(fn, a, b, None)))
    for a in INVERSE:
        for fn in ("right_inverse", "left_inverse"):
            cases.append((request(fn, a, None),
                          judge_factory(fn, a, None, None, props=inverse_property(fn, a))))
    for a, b in LOGICAL_DIVIDE[:12]:
        for fn in ("tiled_divide", "flat_divide"):
            cases.append((request(fn, a, b), judge_factory(fn, a, b, None)))
    for swz in [(3, 3, 3), (2, 0, 3), (5, 0, 5), (1, 2, -2), (0, 4, 1)]:
        for a in ["(8,64):(64,1)", "(32,32):(32,1)", "(8,8)", "(16,4):(1,16)"]:
            cases.append((request(None, a, None, swz), judge_factory(None, a, None, swz)))
    for fn, a, w, swz in rand_cases(rng, count):
        props = compose_property(a, w) if fn == "compose" else None
        if fn in ("right_inverse", "left_inverse"):
            props = inverse_property(fn, a)
        cases.append((request(fn, a, w, swz), judge_factory(fn, a, w, swz, props=props)))
    return cases
