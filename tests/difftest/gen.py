"""Random fusions, built from this tool's own choices: element types,
shapes with size-1 and odd dims, layouts (permuted, tiled), every
elementwise op, data movement, and one recipe per emitter kind."""
import random

import numerics as N
import scalar_ops as S
from builder import Builder
from hlo import Module, TupleShape

ODD_DIMS = [1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33]
TRANSPOSE_DIMS = [16, 17, 31, 32, 33, 40, 64, 65, 96]
MAX_ELEMS = 3000


class Gen:
    def __init__(self, seed, recipe=None):
        self.r = random.Random(seed)
        self.b = Builder()
        self.seed = seed
        self.recipe = recipe or self.r.choice(sorted(RECIPES))
        self.notes = []
        # Fewer ops whose result may be undefined (reduction inputs: one
        # undefined element makes its whole group incomparable).
        self.safe = False

    # ------------------------------------------------------------ choices
    def pick_type(self, kinds='fisp', avoid=()):
        r = self.r
        pool = []
        if 'f' in kinds:
            pool += ['f32'] * 4 + ['f16'] * 2 + ['bf16'] * 2 + ['f64']
        if 'i' in kinds:
            pool += ['s32'] * 2 + ['s8', 's16', 's64', 'u8', 'u16', 'u32',
                                   'u64']
        if 'p' in kinds:
            pool += ['pred']
        pool = [t for t in pool if t not in avoid]
        return r.choice(pool)

    def pick_dims(self, rank=None, max_elems=MAX_ELEMS, pool=ODD_DIMS,
                  zero=False):
        r = self.r
        if rank is None:
            rank = r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4, 5])
        while True:
            dims = [r.choice(pool) for _ in range(rank)]
            n = 1
            for d in dims:
                n *= d
            if n <= max_elems:
                if zero and rank and r.random() < 0.06:
                    dims[r.randrange(rank)] = 0  # an empty array
                return dims

    def pick_layout(self, t, dims, p_default=0.6):
        r = self.r
        rank = len(dims)
        x = r.random()
        if rank <= 1 or x < p_default:
            return None
        if x < p_default + 0.25 or rank > 3:
            m2m = list(range(rank))
            r.shuffle(m2m)
            return N.Layout(m2m)
        m2m = list(range(rank - 1, -1, -1))
        if r.random() < 0.3:
            r.shuffle(m2m)
        tiles = r.choice([[(2, 2)], [(8, 128)], [(4, 4)], [(2, 1)],
                          [(1, 128)], [(2, 2), (2, 1)], [(8, 128), (2, 1)],
                          [(3,)], [(-1, 8)], [(-1, 2, 4)], [(2, -1, 3)]])
        if t == 'bf16' and r.random() < 0.5:
            tiles = [(8, 128), (2, 1)]
        if rank < max(len(tl) for tl in tiles):
            return N.Layout(m2m)
        return N.Layout(m2m, tiles)

    def param(self, t, dims, layout='random', dist=None):
        if layout == 'random':
            layout = self.pick_layout(t, dims)
        return self.b.param(t, dims, layout, dist)

    def index_param(self, hi, t=None):
        """A scalar start index, often out of range (clamped by XLA)."""
        t = t or self.r.choice(['s32', 's32', 's64', 'u32', 's8', 'u8', 'u64',
                                's16'])
        return self.b.param(t, [], None, ('index', -3, hi + 3))

    # --------------------------------------------------------- constants
    def special(self, t):
        r = self.r
        if t == 'pred':
            return r.randint(0, 1)
        if N.is_float(t):
            x = r.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.0, 1e30,
                          float('inf'), float('-inf'), float('nan'), 1e-40,
                          100.0, -7.25, 65504.0])
            return N.encode(x, t)
        n = N.bits(t)
        return N.wrap(r.choice([0, 1, -1, 2, 3, 7, n - 1, n, n + 1,
                                N.int_min(t), N.int_max(t), -5, 100]), t)

    def bconst(self, t, dims, v=None):
        c = self.b.scalar(t, self.special(t) if v is None else v)
        return self.b.broadcast(c, dims, [])

    # ------------------------------------------------------- elementwise
    def coerce(self, x, t):
        if x.shape.t == t:
            return x
        if (self.r.random() < 0.25 and x.shape.t != 'pred' and t != 'pred'
                and N.bits(x.shape.t) == N.bits(t) and not self.safe):
            return self.b.bitcast_convert(x, t)
        return self.b.convert(x, t)

    def expr(self, leaves, t, depth):
        """A random elementwise expression of type t over `leaves` (arrays
        of one shape)."""
        r = self.r
        b = self.b
        dims = leaves[0].shape.dims
        if depth <= 0 or r.random() < 0.15:
            if r.random() < 0.08 and self.count(dims) <= 64:
                return self.b.constant(t, dims, [self.special(t) for _ in
                                                 range(self.count(dims))])
            return self.coerce(r.choice(leaves), t)
        sub = lambda tt=t: self.expr(leaves, tt, depth - 1)
        x = r.random()
        if t == 'pred':
            if x < 0.55:
                ct = self.pick_type()
                ctype = None
                if N.is_float(ct) and r.random() < 0.3 and not self.safe:
                    ctype = 'TOTALORDER'
                d = r.choice(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'])
                y = sub(ct) if r.random() < 0.7 else self.bconst(ct, dims)
                return b.compare(sub(ct), y, d, ctype)
            if x < 0.7:
                return b.unary('not', sub())
            if x < 0.85:
                return b.binary(r.choice(S.PRED_BINARY), sub(), sub())
            if x < 0.93:
                return b.unary('is-finite', sub(self.pick_type('f')), 'pred')
            return b.select(sub('pred'), sub(), sub())
        if x < 0.08:
            return b.select(sub('pred'), sub(), sub())
        if x < 0.14:
            lo, hi = self.special(t), self.special(t)
            if r.random() < 0.5:
                return b.clamp(b.scalar(t, lo), sub(), b.scalar(t, hi))
            return b.clamp(sub(), sub(), sub())
        if x < 0.24:
            return self.coerce(sub(self.pick_type(avoid=(t,))), t)
        if x < 0.27 and t != 'pred':
            op = r.choice(S.FLOAT_BINARY if N.is_float(t) else S.INT_BINARY)
            comp = self.b.scalar_computation(
                'map', [t, t], lambda s, p: s.binary(op, p[0], p[1]))
            return b.map([sub(), sub()], comp)
        if x < 0.29 and N.is_float(t):
            eb, mb = r.choice([(5, 10), (8, 7), (4, 3), (8, 23), (11, 52),
                               (5, 2), (3, 1)])
            return b.reduce_precision(sub(), eb, mb)
        if N.is_float(t):
            if x < 0.55:
                return b.unary(r.choice(S.FLOAT_UNARY), sub())
            op = r.choice(S.FLOAT_BINARY)
        else:
            if x < 0.45:
                return b.unary(r.choice(S.INT_UNARY), sub())
            op = r.choice(S.INT_BINARY)
        lhs = sub()
        rhs = sub() if r.random() < 0.7 else self.bconst(t, dims)
        if op == 'power' and not N.is_float(t) and r.random() < 0.7:
            lo = -3 if N.kind(t) == 's' else 0
            rhs = b.clamp(b.scalar(t, lo), rhs, b.scalar(t, min(
                70, N.int_max(t))))  # exponents XLA's emitters agree on
        if r.random() < 0.5:
            lhs, rhs = rhs, lhs
        return b.binary(op, lhs, rhs)

    # ----------------------------------------------------- data movement
    def count(self, dims):
        n = 1
        for d in dims:
            n *= d
        return n

    def move(self, x):
        """One random data-movement op on x (its element count bounded)."""
        r = self.r
        b = self.b
        dims = list(x.shape.dims)
        rank = len(dims)
        t = x.shape.t
        choices = ['broadcast', 'reshape', 'slice', 'pad', 'reverse',
                   'concatenate', 'dynamic-slice', 'gather', 'bitcast',
                   'transpose', 'iota', 'reduce-window', 'dus']
        if rank == 0:
            choices = ['broadcast', 'pad_scalar']
        op = r.choice(choices)
        n = self.count(dims)
        if op == 'broadcast' or (op == 'pad_scalar'):
            if op == 'pad_scalar':
                return b.reshape(x, [1] * r.randint(1, 2))
            s = r.choice([1, 2, 3, 5, 7])
            if n * s > MAX_ELEMS or rank >= 4:
                return x
            pos = r.randint(0, rank)
            out = dims[:pos] + [s] + dims[pos:]
            bd = [i if i < pos else i + 1 for i in range(rank)]
            return b.broadcast(x, out, bd)
        if op == 'reshape':
            out = list(dims)
            k = r.randrange(rank)
            if r.random() < 0.3 and rank < 4:
                out.insert(r.randint(0, rank), 1)
            elif out[k] > 1 and any(out[k] % f == 0 for f in (2, 3, 5)):
                f = [f for f in (2, 3, 5) if out[k] % f == 0][0]
                out[k:k + 1] = [f, out[k] // f] if r.random() < 0.5 else \
                    [out[k] // f, f]
            elif rank >= 2 and k + 1 < rank:
                out[k:k + 2] = [out[k] * out[k + 1]]
            if len(out) > 4:
                return x
            return b.reshape(x, out)
        if op == 'transpose':
            perm = list(range(rank))
            r.shuffle(perm)
            return b.transpose(x, perm)
        if op == 'slice':
            st, li, sd = [], [], []
            for d in dims:
                s = r.randint(0, max(d - 1, 0))
                l = r.randint(min(s + 1, d), d)
                st.append(s)
                li.append(l)
                sd.append(r.choice([1, 1, 2, 3]))
            return b.slice(x, st, li, sd)
        if op == 'pad':
            cfg = []
            out = 1
            for d in dims:
                lo, hi, it = r.randint(-2, 3), r.randint(-2, 3), r.choice(
                    [0, 0, 1, 2])
                size = lo + hi + d + max(d - 1, 0) * it
                if size < 0 or (lo < 0 and -lo > d + max(d - 1, 0) * it):
                    lo, hi = 0, 1
                    size = 1 + d + max(d - 1, 0) * it
                cfg.append((lo, hi, it))
                out *= size
            if out > MAX_ELEMS:
                return x
            pv = b.scalar(t, self.special(t)) if r.random() < 0.5 else \
                self.param(t, [])
            return b.pad(x, pv, cfg)
        if op == 'reverse':
            rd = [d for d in range(rank) if r.random() < 0.5] or [0]
            return b.reverse(x, rd)
        if op == 'concatenate':
            d = r.randrange(rank)
            if 2 * n > MAX_ELEMS:
                return x
            other = list(dims)
            other[d] = r.choice([1, 2, 3, 5])
            y = self.param(t, other)
            xs = [x, y] if r.random() < 0.5 else [y, x, x]
            if self.count(other) + n * (len(xs) - 1) > MAX_ELEMS:
                xs = [x, y]
            return b.concatenate(xs, d)
        if op == 'dynamic-slice':
            sizes = [r.randint(1, d) if d else 0 for d in dims]
            starts = [self.index_param(d - s) for d, s in zip(dims, sizes)]
            return b.dynamic_slice(x, starts, sizes)
        if op == 'dus':
            sizes = [r.randint(1, d) if d else 0 for d in dims]
            u = self.param(t, sizes)
            starts = [self.index_param(d - s) for d, s in zip(dims, sizes)]
            return b.dynamic_update_slice(x, u, starts)
        if op == 'gather':
            return self.gather(x)
        if op == 'bitcast':
            perm = list(range(rank))
            r.shuffle(perm)
            m2m = x.shape.layout.minor_to_major if x.shape.layout else \
                list(range(rank - 1, -1, -1))
            if x.shape.layout and x.shape.layout.tiles:
                return x
            out = [dims[p] for p in perm]
            return b.bitcast(x, out, N.Layout([perm.index(d) for d in m2m]))
        if op == 'iota':
            it = self.pick_type('fi')
            io = b.iota(it, dims, r.randrange(rank))
            return b.binary(r.choice(['add', 'maximum', 'multiply']),
                            self.coerce(io, t) if t != 'pred' else x,
                            x) if t != 'pred' else b.select(
                b.compare(io, self.bconst(it, dims, N.encode_int(2, it)
                                          if N.is_float(it) else 2), 'LT'),
                x, x)
        if op == 'reduce-window':
            return self.reduce_window(x)
        return x

    def gather(self, x):
        r = self.r
        b = self.b
        dims = x.shape.dims
        rank = len(dims)
        k = r.choice([1, 2, 3, 5, 7])
        it = r.choice(['s32', 's32', 's64', 'u32', 's8', 'u16'])
        nmap = r.randint(1, rank)
        sim = r.sample(range(rank), nmap)
        sizes = [r.randint(1, d) if d else 0 for d in dims]
        collapsed = sorted(d for d in sim if sizes[d] == 1 and
                           r.random() < 0.7)
        ivd = r.choice([1, 1, 0]) if r.random() < 0.8 else 1
        # indices [k, nmap] (ivd=1), [nmap, k] (ivd=0) or [k] (ivd=1, nmap=1)
        if nmap == 1 and r.random() < 0.3:
            ind_dims, ivd = [k], 1
        elif ivd == 1:
            ind_dims = [k, nmap]
        else:
            ind_dims = [nmap, k]
        hi = max(dims) if dims else 1
        ind = self.b.param(it, ind_dims, None, ('index', -2, hi + 2))
        nwin = rank - len(collapsed)
        out_rank = 1 + nwin
        offset_dims = sorted(r.sample(range(out_rank), nwin))
        if self.count(ind_dims) * self.count(sizes) > MAX_ELEMS:
            return x
        return b.gather(x, ind, offset_dims, collapsed, sim, ivd, sizes)

    def reduce_window(self, x):
        r = self.r
        dims = x.shape.dims
        t = x.shape.t
        if t == 'pred':
            return x
        kind = r.choice(['sum', 'max', 'min'])
        comp = self.reducer(kind, t)
        size = [r.randint(1, min(d, 3)) if d else 1 for d in dims]
        stride = [r.choice([1, 1, 2]) for _ in dims]
        pad = [(r.randint(0, 1), r.randint(0, 1)) for _ in dims]
        ld = [r.choice([1, 1, 1, 2]) for _ in dims]
        rd = [r.choice([1, 1, 1, 2]) for _ in dims]
        init = self.b.scalar(t, self.identity(kind, t))
        out = self.b.reduce_window(x, init, size, stride, pad, ld, rd, comp)
        if self.count(out.shape.dims) == 0:
            self.b.comp.instrs.remove(out)
            return x
        return out

    # ---------------------------------------------------------- reducers
    def identity(self, kind, t):
        if kind in ('sum', 'or', 'xor'):
            return 0
        if kind == 'prod':
            return N.encode(1.0, t) if N.is_float(t) else 1
        if kind == 'and':
            return 1 if t == 'pred' else N.wrap(-1, t)
        if N.is_float(t):
            return N.encode(float('-inf') if kind == 'max' else float('inf'),
                            t)
        if t == 'pred':
            return 0 if kind == 'max' else 1
        return N.int_min(t) if kind == 'max' else N.int_max(t)

    def reducer(self, kind, t):
        op = {'sum': 'add', 'max': 'maximum', 'min': 'minimum',
              'prod': 'multiply', 'and': 'and', 'or': 'or', 'xor': 'xor',
              'assign': None}[kind]
        if op is None:  # scatter's overwrite
            return self.b.scalar_computation(kind, [t, t], lambda s, p: p[1])
        return self.b.scalar_computation(
            kind, [t, t], lambda s, p: s.binary(op, p[0], p[1]))

    def reducer_kind(self, t):
        if t == 'pred':
            return self.r.choice(['and', 'or', 'max', 'min'])
        if N.is_float(t):
            return self.r.choice(['sum', 'sum', 'max', 'min'])
        return self.r.choice(['sum', 'sum', 'max', 'min', 'prod', 'and',
                              'or', 'xor'])

    def argmax(self, t, it, kind='argmax'):
        d = 'GT' if kind == 'argmax' else 'LT'

        def body(s, p):
            a, ai, c, ci = p
            better = s.compare(a, c, d)
            eq = s.compare(a, c, 'EQ')
            lower = s.compare(ai, ci, 'LT')
            pick = s.binary('or', better, s.binary('and', eq, lower))
            return [s.select(pick, a, c), s.select(pick, ai, ci)]
        return self.b.scalar_computation(kind, [t, it, t, it], body)

    # ------------------------------------------------------------ module
    def finish(self, roots):
        if self.r.random() < 0.08:
            roots = roots + [roots[0]]  # one value, two outputs
        if len(roots) >= 3 and self.r.random() < 0.2:
            roots = [self.b.tuple(roots[:2])] + roots[2:]  # nested tuple
        if len(roots) == 1:
            root = roots[0]
        else:
            root = self.b.tuple(roots)
        self.b.comp.root = root
        wrap = self.r.random() < 0.5
        m = Module('m%d' % self.seed, self.b.comp, self.b.helpers, wrap)
        m.dists = self.b.dists
        return m

    def out_layout(self, x):
        """Gives a root its own layout (only roots no other op reads)."""
        if self.r.random() < 0.35 and x.op not in ('parameter', 'bitcast', 'scatter') and \
                not isinstance(x.shape, TupleShape) and \
                not any(x in i.operands for i in self.b.comp.instrs):
            x.shape.layout = self.pick_layout(x.shape.t, x.shape.dims, 0.0)
        return x

    def generate(self):
        roots = RECIPES[self.recipe](self)
        roots = [self.out_layout(x) for x in roots]
        return self.finish(roots)


from recipes import RECIPES  # noqa: E402  (recipes use Gen's helpers)
