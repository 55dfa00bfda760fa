"""One recipe per emitter kind (and the loop emitter's data movement):
each builds the fusion body with a Gen and returns its roots."""
import numerics as N

ROW_DIMS = [[7, 1000], [3, 257], [1, 2048], [5, 64], [2, 3, 300], [1000],
            [4, 33], [2, 1100], [9, 700], [2, 17000], [1, 33000], [3, 8193]]
MULTIROW_DIMS = [[300, 8], [100, 4], [64, 16], [50, 2], [33, 32]]
COLUMN_DIMS = [[100, 65], [3, 300, 130], [64, 33], [257, 7], [40, 40, 3],
               [200, 2], [5000, 3], [4100, 5], [33, 1025]]


def loop_elementwise(g):
    r = g.r
    dims = g.pick_dims(zero=True)
    n = r.randint(1, 3)
    leaves = [g.param(g.pick_type(), dims) for _ in range(n)]
    roots = [g.expr(leaves, g.pick_type(), r.randint(1, 4))]
    if r.random() < 0.3:
        roots.append(g.expr(leaves, g.pick_type(), r.randint(1, 3)))
    return roots


def loop_movement(g):
    r = g.r
    t = g.pick_type()
    x = g.param(t, g.pick_dims(max_elems=600))
    for _ in range(r.randint(1, 4)):
        x = g.move(x)
        if r.random() < 0.4:
            other = g.param(g.pick_type(), x.shape.dims)
            x = g.expr([x, other], t, 2)
    roots = [x]
    if r.random() < 0.2:
        roots.append(g.b.unary('negate', x) if N.is_float(t) else
                     g.b.unary('not', x))
    return roots


def transpose(g):
    r = g.r
    b = g.b
    t = g.pick_type()
    form = r.choice(['021', '210', '2d', 'copy', 'tiled', '3d_perm'])
    a = r.choice([16, 17, 31, 32, 33, 64, 65])
    c = r.choice([16, 17, 32, 33, 40, 65])
    if form in ('2d', 'copy', 'tiled'):
        dims = [a, c]
        perm = [1, 0]
    elif form == '021':
        dims = [r.choice([1, 2, 3]), a, c]
        perm = [0, 2, 1]
    elif form == '210':
        dims = [a, r.choice([1, 2, 5]), c]
        perm = [2, 1, 0]
    else:
        dims = [r.choice([2, 16, 17]), r.choice([3, 32]), r.choice([17, 33])]
        perm = [1, 2, 0]
    p = g.param(t, dims, None)
    x = g.expr([p], t, r.randint(0, 2))
    if form == 'copy':
        y = b.copy(x, N.Layout([0, 1]))
    elif form == 'tiled':
        y = b.transpose(x, perm, N.Layout([1, 0], [(8, 128)] if
                                          r.random() < 0.5 else [(2, 2)]))
    else:
        y = b.transpose(x, perm)
    roots = []
    if r.random() < 0.5 and form != 'tiled':
        q = g.param(g.pick_type(), y.shape.dims, None)
        y = g.expr([y, q], g.pick_type(), r.randint(1, 2))
    roots.append(y)
    if r.random() < 0.3:
        roots.append(g.expr([x], g.pick_type(), 1))
    return roots


def _reduce_input(g, dims, t):
    p = g.param(t, dims, None if g.r.random() < 0.7 else 'random')
    if g.r.random() < 0.6:
        return p, g.expr([p], t, g.r.randint(1, 2))
    return p, p


def reduction(g):
    r = g.r
    b = g.b
    g.safe = r.random() < 0.7
    form = r.choice(['row', 'row', 'multirow', 'column', 'column', 'scalar',
                     'random', 'argmax', 'two'])
    if form == 'row':
        dims = r.choice(ROW_DIMS)
        rd = [len(dims) - 1] if r.random() < 0.7 else \
            list(range(len(dims)))[::2]
    elif form == 'multirow':
        dims = r.choice(MULTIROW_DIMS)
        rd = [1]
    elif form == 'column':
        dims = r.choice(COLUMN_DIMS)
        rd = [len(dims) - 2] if len(dims) == 3 else [0]
    elif form == 'scalar':
        dims = r.choice([[1000], [33, 64], [4097]])
        rd = list(range(len(dims)))
    else:
        dims = g.pick_dims(r.randint(1, 4), 20000)
        rd = sorted(r.sample(range(len(dims)), r.randint(1, len(dims))))
    if form == 'argmax':
        t = g.pick_type('fi')
        it = r.choice(['s32', 's64', 'u32'])
        dims = r.choice(ROW_DIMS + COLUMN_DIMS)
        rd = [len(dims) - 1] if r.random() < 0.5 else [0]
        if N.is_float(t):
            t = r.choice(['f32', 'f16'])
        p = g.param(t, dims, None, ('small',))
        io = b.iota(it, dims, rd[0])
        kind = r.choice(['argmax', 'argmin'])
        comp = g.argmax(t, it, kind)
        init = b.scalar(t, g.identity('max' if kind == 'argmax' else 'min', t))
        red = b.reduce([p, io], [init, b.scalar(it, 0)], rd, comp)
        return [b.get_tuple_element(red, 0), b.get_tuple_element(red, 1)] \
            if r.random() < 0.5 else [red]
    t = g.pick_type('fip' if r.random() < 0.2 else 'fi')
    p, x = _reduce_input(g, dims, t)
    kind = g.reducer_kind(t)
    comp = g.reducer(kind, t)
    if kind in ('max', 'min', 'and', 'or') and r.random() < 0.4:
        init = b.scalar(t, g.special(t))  # idempotent: any init is sound
    elif r.random() < 0.2:
        # A parameter init: both the kernel and the interpreter get the
        # reducer's identity (interp.identity_inits), as in XLA's tests.
        init = g.param(t, [], None)
    else:
        init = b.scalar(t, g.identity(kind, t))
    red = b.reduce([x], [init], rd, comp)
    roots = [red]
    if r.random() < 0.4:
        q = g.param(g.pick_type(), red.shape.dims, None)
        roots = [g.expr([red, q], g.pick_type(), r.randint(1, 2))]
    if form == 'two':
        k2 = g.reducer_kind(t)
        y = g.expr([p], t, 1)
        roots.append(b.reduce([y], [b.scalar(t, g.identity(k2, t))], rd,
                              g.reducer(k2, t)))
    if r.random() < 0.3:
        roots.append(g.expr([x], g.pick_type(), 1))
    return roots


def concatenate(g):
    r = g.r
    b = g.b
    t = g.pick_type()
    dims = g.pick_dims(r.randint(1, 3), 800)
    d = r.randrange(len(dims))
    xs = []
    for _ in range(r.randint(2, 5)):
        od = list(dims)
        od[d] = r.choice([1, 2, 3, 7, 8, 16, 33])
        p = g.param(t, od)
        xs.append(g.expr([p], t, r.randint(0, 2)))
    y = b.concatenate(xs, d)
    if r.random() < 0.4:
        y = g.expr([y], g.pick_type(), 1)
    return [y]


def dus(g):
    r = g.r
    b = g.b
    t = g.pick_type()
    dims = g.pick_dims(r.randint(1, 3), 2000)
    sizes = [r.randint(1, d) for d in dims]
    base = g.param(t, dims)
    up = g.param(g.pick_type(), sizes)
    u = g.expr([up], t, r.randint(0, 2))
    it = r.choice(['s32', 's64', 'u32', 'u64', 's16', 'u8'])
    starts = [g.index_param(d - s, it) for d, s in zip(dims, sizes)]
    operand = base
    if r.random() < 0.2:  # not in place: the operand is computed
        operand = g.expr([base], t, 1)
    y = b.dynamic_update_slice(operand, u, starts)
    if r.random() < 0.2:
        y = b.bitcast(y, y.shape.dims + [1])
    return [y]


def input_slices(g):
    r = g.r
    b = g.b
    t = g.pick_type()
    dims = g.pick_dims(r.randint(1, 3), 2000)
    p = g.param(t, dims)
    x = g.expr([p], t, r.randint(0, 2))
    roots = []
    for _ in range(r.randint(2, 3)):
        st = [r.randint(0, d - 1) for d in dims]
        li = [r.randint(s + 1, d) for s, d in zip(st, dims)]
        roots.append(b.slice(x, st, li, [1] * len(dims)))
    return roots


def scatter(g):
    r = g.r
    b = g.b
    t = g.pick_type('fi')
    kind = r.choice(['sum', 'max', 'min', 'assign'])
    form = r.choice(['rows', 'points', 'implicit', 'window', 'dim1'])
    n, m, k = r.choice([5, 20, 33]), r.choice([1, 3, 6, 32]), \
        r.choice([1, 4, 30])
    it = r.choice(['s32', 's64', 'u32', 's8'])
    if form == 'rows':
        od, idd, ud = [n, m], [k, 1], [k, m]
        uwd, ins, s2o, ivd = [1], [0], [0], 1
    elif form == 'points':
        od, idd, ud = [n, m], [k, 2], [k]
        uwd, ins, s2o, ivd = [], [0, 1], [0, 1], 1
    elif form == 'implicit':
        od, idd, ud = [n, m], [k], [k, m]
        uwd, ins, s2o, ivd = [1], [0], [0], 1
    elif form == 'window':
        a = r.randint(1, n)
        od, idd, ud = [n, m], [k, 1], [k, a, m]
        uwd, ins, s2o, ivd = [1, 2], [], [0], 1
    else:
        od, idd, ud = [n, m], [k, 1], [k, n]
        uwd, ins, s2o, ivd = [1], [1], [1], 1
    base = g.param(t, od, None if r.random() < 0.8 else 'random')
    hi = max(od)
    ind = b.param(it, idd, None, ('index', -2, hi + 1))
    up = g.param(t, ud)
    u = g.expr([up], t, r.randint(0, 1))
    comp = g.reducer(kind, t)
    return [b.scatter(base, ind, u, uwd, ins, s2o, ivd, comp)]


def gather_loop(g):
    r = g.r
    t = g.pick_type()
    x = g.param(t, g.pick_dims(r.randint(1, 3), 500))
    y = g.gather(x)
    if r.random() < 0.5:
        y = g.expr([y], g.pick_type(), 1)
    return [y]


def reduce_window(g):
    r = g.r
    t = g.pick_type('fi')
    x = g.param(t, g.pick_dims(r.randint(1, 3), 800))
    y = g.reduce_window(x)
    if y is x:
        y = g.b.unary('negate', x) if t != 'pred' else x
    return [y]


def tiled_layouts(g):
    r = g.r
    b = g.b
    t = g.pick_type('fi')
    if r.random() < 0.3:
        t = 'bf16'
    dims = g.pick_dims(r.choice([2, 2, 3]), 3000,
                       [1, 2, 3, 5, 8, 9, 13, 17, 20, 33, 130, 260])
    lay = lambda: g.pick_layout(t, dims, 0.2)
    p = g.param(t, dims, lay())
    form = r.choice(['copy', 'compute', 'both'])
    if form == 'copy':
        return [b.copy(p, lay())]
    q = g.param(t, dims, lay())
    x = g.expr([p, q], t, r.randint(1, 2))
    if x.op != 'parameter':
        x.shape.layout = lay()
    if form == 'both':
        return [x, b.copy(p, lay())]
    return [x]


def dynamic_slice_loop(g):
    r = g.r
    t = g.pick_type()
    dims = g.pick_dims(r.randint(1, 3), 2000)
    x = g.param(t, dims)
    sizes = [r.randint(1, d) for d in dims]
    it = r.choice(['s32', 's64', 'u32', 'u64', 'u8', 's8'])
    starts = [g.index_param(d - s, it) for d, s in zip(dims, sizes)]
    y = g.b.dynamic_slice(x, starts, sizes)
    return [g.expr([y], g.pick_type(), r.randint(0, 2))]


def mixed(g):
    """Movement before and after a hero (reduce, transpose, concatenate),
    several roots of different shapes."""
    r = g.r
    b = g.b
    t = g.pick_type('fi')
    hero = r.choice(['reduce', 'transpose', 'concatenate'])
    if hero == 'transpose':
        dims = [r.choice([16, 17, 33, 64]), r.choice([2, 3]),
                r.choice([16, 32, 33])]
    else:
        dims = r.choice(ROW_DIMS + COLUMN_DIMS + MULTIROW_DIMS)
    p = g.param(t, dims)
    x = g.expr([p], t, r.randint(0, 2))
    if r.random() < 0.4:
        x = b.reverse(x, [len(dims) - 1])
    if hero == 'reduce':
        kind = g.reducer_kind(t)
        rd = sorted(r.sample(range(len(dims)), r.randint(1, len(dims))))
        y = b.reduce([x], [b.scalar(t, g.identity(kind, t))], rd,
                     g.reducer(kind, t))
    elif hero == 'transpose':
        y = b.transpose(x, r.choice([[2, 1, 0], [0, 2, 1], [1, 2, 0]]))
    else:
        d = r.randrange(len(dims))
        od = list(dims)
        od[d] = r.choice([1, 3, 16])
        y = b.concatenate([x, g.param(t, od)], d)
    roots = []
    if y.shape.dims and r.random() < 0.5:
        y = b.bitcast(y, [1] + y.shape.dims) if r.random() < 0.5 else \
            b.reshape(y, [g.count(y.shape.dims)])
    roots.append(g.expr([y], g.pick_type(), r.randint(0, 2)))
    if r.random() < 0.5:
        roots.append(g.expr([x], g.pick_type(), 1))
    if r.random() < 0.3:
        roots.append(b.copy(p, g.pick_layout(t, dims, 0.0)))
    return roots


def rounding(g):
    """Conversions and reduce-precision between the float formats (the
    roundings, overflows and denormals of each)."""
    r = g.r
    b = g.b
    t = g.pick_type('f')
    dims = g.pick_dims(r.randint(1, 2), 600)
    p = g.param(t, dims)
    roots = []
    for _ in range(r.randint(1, 3)):
        if r.random() < 0.6:
            eb, mb = r.choice([(5, 10), (8, 7), (4, 3), (8, 23), (11, 52),
                               (5, 2), (3, 1), (6, 0), (8, 10), (2, 5)])
            roots.append(b.reduce_precision(p, eb, mb))
        else:
            roots.append(b.convert(p, g.pick_type('fi', avoid=(t,))))
    return roots


def subbyte(g):
    """s4 / u4 (packed two to a byte): converted to and from wider types."""
    r = g.r
    b = g.b
    t = r.choice(['s4', 'u4'])
    dims = g.pick_dims(r.randint(1, 2), 500)
    p = b.param(t, dims, None)
    wide = b.convert(p, r.choice(['s32', 'f32', 's8']))
    roots = [wide]
    if r.random() < 0.5:
        q = g.param('s32', dims, None)
        roots.append(b.convert(q, t))
    return roots


def degenerate(g):
    """Roots that are parameters, constants or iotas; unused parameters;
    a parameter in a tuple root; empty arrays."""
    r = g.r
    b = g.b
    t = g.pick_type()
    dims = g.pick_dims(zero=True)
    p = g.param(t, dims)
    if r.random() < 0.5:
        g.param(g.pick_type(), g.pick_dims())  # unused
    form = r.choice(['param', 'constant', 'iota', 'tuple', 'scalar'])
    if form == 'param':
        return [p]
    if form == 'constant':
        n = g.count(dims)
        if n > 64:
            return [p]
        return [b.constant(t, dims, [g.special(t) for _ in range(n)])]
    if form == 'iota' and dims and t != 'pred':
        return [b.iota(t, dims, r.randrange(len(dims)))]
    if form == 'scalar':
        q = g.param(t, [])
        return [g.expr([q], g.pick_type(), 2)]
    return [p, g.expr([p], g.pick_type(), 1)]


def vectorize(g):
    """Larger loop fusions without vectorization blockers (the loop emitter
    unrolls and vectorizes them on the small device), row broadcasts."""
    r = g.r
    b = g.b
    t = g.pick_type('fi')
    dims = [r.choice([2, 3, 8, 16]), r.choice([64, 128, 256, 260, 96])]
    leaves = [g.param(t, dims, None)]
    if r.random() < 0.5:
        row = g.param(t, [dims[1]], None)
        leaves.append(b.broadcast(row, dims, [1]))
    x = leaves[0]
    for _ in range(r.randint(1, 3)):
        op = r.choice(['add', 'multiply', 'maximum', 'subtract'] if
                      N.is_float(t) else ['add', 'xor', 'minimum', 'and'])
        x = b.binary(op, x, r.choice(leaves))
        if N.is_float(t) and r.random() < 0.3:
            x = b.unary(r.choice(['exponential', 'tanh', 'abs', 'negate']), x)
    roots = [x]
    if r.random() < 0.3:
        roots.append(b.convert(x, g.pick_type('fi')))
    return roots


def bitcast_width(g):
    """bitcast-convert between widths (a minor dim of the ratio appears or
    goes away)."""
    r = g.r
    b = g.b
    t = g.pick_type('fi')
    narrow = [u for u in ['s8', 'u8', 's16', 'u16', 'f16', 'bf16', 's32',
                          'f32'] if N.bits(u) < N.bits(t)]
    dims = g.pick_dims(r.randint(0, 2), 300)
    if narrow and r.random() < 0.5:
        p = g.param(t, dims, None)
        return [b.bitcast_convert(p, r.choice(narrow))]
    wide = [u for u in ['s16', 'f16', 's32', 'u32', 'f32', 's64', 'f64']
            if N.bits(u) > N.bits(t) and t != 'pred']
    if not wide:
        return [g.param(t, dims, None)]
    w = r.choice(wide)
    p = g.param(t, dims + [N.bits(w) // N.bits(t)], None)
    return [b.bitcast_convert(p, w)]


RECIPES = {
    'bitcast_width': bitcast_width,
    'vectorize': vectorize,
    'degenerate': degenerate,
    'subbyte': subbyte,
    'rounding': rounding,
    'mixed': mixed,
    'loop_elementwise': loop_elementwise,
    'loop_movement': loop_movement,
    'transpose': transpose,
    'reduction': reduction,
    'concatenate': concatenate,
    'dus': dus,
    'input_slices': input_slices,
    'scatter': scatter,
    'gather': gather_loop,
    'reduce_window': reduce_window,
    'tiled_layouts': tiled_layouts,
    'dynamic_slice': dynamic_slice_loop,
}
