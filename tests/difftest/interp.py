"""An HLO interpreter over logical (row-major) element lists.

Each array value is an Arr: `vals` (ints; floats as bit patterns) and
`err`, a per-element absolute error bound for floats (0: exact; math.inf:
the element is implementation-defined or cannot be bounded, and is not
compared). Tuples are Python lists of Arr.
"""
import math

import numerics as N
import scalar_ops as S
from hlo import TupleShape, leaves

INF = math.inf
APPROX_ULPS = 4  # transcendentals: within a few ulp (docs/emitters.md §3)


def reducer_identity(comp, t):
    """The identity of a scalar reducer whose root is one binary op of its
    two parameters, as a value of type t (floats as bits); None for any
    other reducer."""
    root = comp.root
    ops = root.operands if root is not None else []
    if len(comp.params) != 2 or len(ops) != 2 or \
            any(o.op != 'parameter' for o in ops) or ops[0] is ops[1]:
        return None
    op = root.op
    if op in ('add', 'or', 'xor'):
        return 0
    if op == 'multiply':
        return N.encode(1.0, t) if N.is_float(t) else 1
    if op == 'and':
        return N.wrap(-1, t)
    if op in ('maximum', 'minimum'):
        low = op == 'maximum'
        if N.is_float(t):
            return N.encode(-INF if low else INF, t)
        if t == 'pred':
            return 0 if low else 1
        return N.int_min(t) if low else N.int_max(t)
    return None


def identity_inits(comp):
    """{parameter number: value} for the scalar parameters `comp` uses as a
    reduce's init, each the identity of that reduce's reducer. XLA applies
    an init an implementation-defined number of times, so only the identity
    has one answer; XLA's own tests feed inits that way, and so do ours."""
    out = {}
    for ins in comp.instrs:
        if ins.op != 'reduce' or ins.called is None:
            continue
        for init in ins.operands[len(ins.operands) // 2:]:
            if init.op != 'parameter' or init.shape.dims:
                continue
            v = reducer_identity(ins.called, init.shape.t)
            if v is not None:
                out[init.a['number']] = v
    return out


class Arr:
    def __init__(self, shape, vals, err=None):
        self.shape = shape
        self.vals = vals
        self.err = err if err is not None else [0.0] * len(vals)


def _strides(dims):
    return N.row_major_strides(dims)


def _lin(idx, strides):
    return sum(i * s for i, s in zip(idx, strides))


# ------------------------------------------------------------- tolerance
def _approx_tol(r, t):
    """Own error of a transcendental with result r (a double)."""
    if t == 'f64':
        return APPROX_ULPS * N.ulp(r, 'f64') + 2.0 ** -1022
    # plus the smallest normal: a result in the subnormal range may come
    # out as 0 (logistic as 1 / (1 + exp(-x)), as XLA expands it)
    tol = APPROX_ULPS * N.ulp(r, 'f32') + 2.0 ** -126
    if t != 'f32':
        tol += N.ulp(r, t)
    return tol


def _float_elem(op, t, in_ts, xs, errs):
    """A float-valued elementwise op on raw operands -> (bits, err)."""
    dec = [N.decode(x, it) for x, it in zip(xs, in_ts)]
    if op in ('abs', 'negate') and N.is_nan_bits(xs[0], t):
        return N.canonical_nan(t), errs[0]  # a NaN (XLA may quiet it)
    if op == 'abs':
        m, e = N.FMT[t]
        return xs[0] & ~(1 << (m + e)), errs[0]
    if op == 'negate':
        m, e = N.FMT[t]
        return xs[0] ^ (1 << (m + e)), errs[0]
    r = S.float_real(op, dec)
    bits = S.store(r, t)
    approx = op in S.APPROX
    if not any(errs):
        if not approx:
            return bits, 0.0
        if r != r or abs(r) == INF:
            # inf or NaN from a transcendental: exact unless the true
            # value sits at the edge of the range
            if abs(r) == INF and any(abs(d) != INF for d in dec):
                near = [S.float_real(op, [d * (1 + s * 1e-6) for d in dec])
                        for s in (-1, 1)]
                if any(abs(v) != INF for v in near):
                    return bits, INF
            return bits, 0.0
        tol = _approx_tol(r, t)
        if abs(r) + tol > N.max_finite(t):
            return bits, INF
        return bits, tol
    # Some operand is known only within a bound.
    if op not in S.CONTINUOUS:
        return bits, INF
    if r != r or abs(r) == INF or any(d != d or abs(d) == INF for d in dec):
        return bits, INF
    corners = [[]]
    for d, e in zip(dec, errs):
        if e == INF:
            return bits, INF
        corners = [c + [d + s * e] for c in corners for s in (-1, 0, 1)]
    dev = 0.0
    for c in corners:
        v = S.float_real(op, c)
        if v != v or abs(v) == INF:
            return bits, INF
        dev = max(dev, abs(v - r))
    tol = 2 * dev + 2 * N.ulp(r, t) + (_approx_tol(r, t) if approx else 0)
    if abs(r) + tol > N.max_finite(t):
        return bits, INF
    return bits, tol


class Interpreter:
    def __init__(self):
        self.cache = {}

    # The fusion computation on its parameters' values.
    def run(self, comp, args):
        env = {}
        for p in comp.params:
            env[p] = args[p.a['number']]
        for ins in comp.instrs:
            if ins.op == 'parameter':
                continue
            env[ins] = self.eval(ins, [env[o] for o in ins.operands])
        return env[comp.root]

    def scalar_call(self, comp, vals):
        """A scalar computation on scalar values (ints or float bits)."""
        return self.scalar_call_err(comp, vals)[0]

    def scalar_call_err(self, comp, vals):
        """(results, err): err is INF where a result is implementation-
        defined (e.g. an integer power XLA's emitters disagree on)."""
        fast = self.cache.get(comp)
        if fast is None:
            fast = self.cache[comp] = self._fast_path(comp)
        if fast:
            v, e = fast(vals)
            return [v], e
        env = {}
        for p in comp.params:
            env[p] = Arr(p.shape, [vals[p.a['number']]])
        for ins in comp.instrs:
            if ins.op == 'parameter':
                continue
            env[ins] = self.eval(ins, [env[o] for o in ins.operands])
        out = env[comp.root]
        outs = out if isinstance(out, list) else [out]
        return [a.vals[0] for a in outs], max(a.err[0] for a in outs)

    def _fast_path(self, comp):
        """root = op(p0, p1) (the usual reducers): one elem call."""
        root = comp.root
        if (len(comp.params) != 2 or root.op in ('tuple', 'parameter') or
                root.operands != comp.params):
            return False
        t = root.shape.t
        in_ts = [p.shape.t for p in comp.params]

        def fn(vals):
            return self.elem(root, root.op, t, in_ts, vals, [0.0, 0.0])
        return fn

    def eval(self, ins, ops):
        op = ins.op
        fn = getattr(self, 'op_' + op.replace('-', '_'), None)
        if fn is not None:
            return fn(ins, ops)
        return self.elementwise(ins, ops)

    # -------------------------------------------------------- elementwise
    def elementwise(self, ins, ops):
        op = ins.op
        t = ins.shape.t
        n = ins.shape.count()
        in_ts = [o.shape.t for o in ops]
        # Scalar operands broadcast (clamp's bounds).
        cols = [o.vals if len(o.vals) == n else o.vals * n for o in ops]
        ecols = [o.err if len(o.err) == n else o.err * n for o in ops]
        vals, errs = [], []
        for i in range(n):
            xs = [c[i] for c in cols]
            es = [c[i] for c in ecols]
            v, e = self.elem(ins, op, t, in_ts, xs, es)
            vals.append(v)
            errs.append(e)
        return Arr(ins.shape, vals, errs)

    def elem(self, ins, op, t, in_ts, xs, es):
        if op == 'select':
            if es[0]:
                return xs[1], INF
            return (xs[1], es[1]) if xs[0] else (xs[2], es[2])
        if op == 'compare':
            v = S.compare(ins.a['direction'], ins.a.get('type'), xs[0], xs[1],
                          in_ts[0])
            if ins.a.get('type') == 'TOTALORDER' and any(
                    N.is_canonical_nan(x, in_ts[0]) for x in xs):
                return v, INF  # an arithmetic NaN's bits are not defined
            return v, (INF if any(es) else 0.0)
        if op == 'convert':
            v, amb = S.convert(xs[0], in_ts[0], t)
            if amb:
                return v, INF
            if es[0]:
                x = N.decode(xs[0], in_ts[0]) if N.is_float(in_ts[0]) else 0
                if not N.is_float(t) or x != x or abs(x) == INF:
                    return v, INF
                return v, es[0] + 2 * N.ulp(x, t)
            return v, 0.0
        if op == 'bitcast-convert':
            undefined = es[0] or (N.is_float(in_ts[0]) and
                                  N.is_canonical_nan(xs[0], in_ts[0]))
            return S.bitcast_convert(xs[0], in_ts[0], t), \
                (INF if undefined else 0.0)
        if op == 'is-finite':
            x = N.decode(xs[0], in_ts[0])
            return int(x == x and abs(x) != INF), (INF if es[0] else 0.0)
        if op == 'copy':
            return xs[0], es[0]
        if N.is_float(t):
            return _float_elem(op, t, in_ts, xs, es)
        v = S.int_op(op, xs, t, in_ts[0])
        if v is None:
            return 0, INF
        return v, (INF if any(es) else 0.0)

    # ----------------------------------------------------- data movement
    def _gather_by(self, ins, src, fn):
        """out[i] = src[fn(i)] (fn returns a linear index into src, or
        None for `fill`)."""
        dims = ins.shape.dims
        vals, errs = [], []
        for idx in N.all_indices(dims):
            j = fn(idx)
            vals.append(src.vals[j])
            errs.append(src.err[j])
        return Arr(ins.shape, vals, errs)

    def op_parameter(self, ins, ops):
        raise AssertionError('parameters are bound by run()')

    def op_constant(self, ins, ops):
        return Arr(ins.shape, list(ins.a['values']))

    def op_iota(self, ins, ops):
        d = ins.a['dim']
        t = ins.shape.t
        vals = []
        for idx in N.all_indices(ins.shape.dims):
            v = idx[d]
            if N.is_float(t):
                vals.append(N.encode_int(v, t))
            else:
                vals.append(N.wrap(v, t))
        return Arr(ins.shape, vals)

    def op_broadcast(self, ins, ops):
        src = ops[0]
        st = _strides(src.shape.dims)
        bd = ins.a['dims']
        return self._gather_by(
            ins, src, lambda idx: _lin([idx[d] for d in bd], st))

    def op_reshape(self, ins, ops):
        return Arr(ins.shape, list(ops[0].vals), list(ops[0].err))

    def op_bitcast(self, ins, ops):
        # Same physical element: the offset in the result's layout is the
        # offset in the operand's layout.
        src = ops[0]
        out_phys = ins.shape.physical()
        in_phys = src.shape.physical()
        where = {}
        st = _strides(src.shape.dims)
        for idx in N.all_indices(src.shape.dims):
            where[in_phys.offset(idx)] = _lin(idx, st)
        return self._gather_by(ins, src,
                               lambda idx: where[out_phys.offset(idx)])

    def op_transpose(self, ins, ops):
        src = ops[0]
        st = _strides(src.shape.dims)
        perm = ins.a['dims']

        def fn(idx):
            j = [0] * len(perm)
            for k, p in enumerate(perm):
                j[p] = idx[k]
            return _lin(j, st)
        return self._gather_by(ins, src, fn)

    def op_copy(self, ins, ops):
        return Arr(ins.shape, list(ops[0].vals), list(ops[0].err))

    def op_slice(self, ins, ops):
        src = ops[0]
        st = _strides(src.shape.dims)
        starts, strides = ins.a['starts'], ins.a['strides']
        return self._gather_by(ins, src, lambda idx: _lin(
            [s + i * k for i, s, k in zip(idx, starts, strides)], st))

    def op_reverse(self, ins, ops):
        src = ops[0]
        dims = src.shape.dims
        st = _strides(dims)
        rev = set(ins.a['dims'])
        return self._gather_by(ins, src, lambda idx: _lin(
            [dims[d] - 1 - i if d in rev else i for d, i in enumerate(idx)],
            st))

    def op_pad(self, ins, ops):
        src, pv = ops
        dims = src.shape.dims
        st = _strides(dims)
        cfg = ins.a['config']  # (lo, hi, interior) per dim
        vals, errs = [], []
        for idx in N.all_indices(ins.shape.dims):
            j = []
            for i, (lo, hi, it), d in zip(idx, cfg, dims):
                t = i - lo
                if t < 0 or t % (it + 1) or t // (it + 1) >= d:
                    j = None
                    break
                j.append(t // (it + 1))
            if j is None:
                vals.append(pv.vals[0])
                errs.append(pv.err[0])
            else:
                k = _lin(j, st)
                vals.append(src.vals[k])
                errs.append(src.err[k])
        return Arr(ins.shape, vals, errs)

    def op_concatenate(self, ins, ops):
        d = ins.a['dim']
        vals, errs = [], []
        sts = [_strides(o.shape.dims) for o in ops]
        for idx in N.all_indices(ins.shape.dims):
            i = idx[d]
            for o, st in zip(ops, sts):
                if i < o.shape.dims[d]:
                    j = list(idx)
                    j[d] = i
                    k = _lin(j, st)
                    vals.append(o.vals[k])
                    errs.append(o.err[k])
                    break
                i -= o.shape.dims[d]
        return Arr(ins.shape, vals, errs)

    @staticmethod
    def _clamp_start(v, hi):
        return min(max(v, 0), max(hi, 0))

    def op_dynamic_slice(self, ins, ops):
        src = ops[0]
        dims = src.shape.dims
        sizes = ins.shape.dims
        starts = [self._clamp_start(o.vals[0], d - s)
                  for o, d, s in zip(ops[1:], dims, sizes)]
        st = _strides(dims)
        return self._gather_by(ins, src, lambda idx: _lin(
            [a + b for a, b in zip(idx, starts)], st))

    def op_dynamic_update_slice(self, ins, ops):
        base, upd = ops[0], ops[1]
        dims = base.shape.dims
        ud = upd.shape.dims
        starts = [self._clamp_start(o.vals[0], d - s)
                  for o, d, s in zip(ops[2:], dims, ud)]
        vals, errs = list(base.vals), list(base.err)
        st = _strides(dims)
        ust = _strides(ud)
        for idx in N.all_indices(ud):
            k = _lin([a + b for a, b in zip(idx, starts)], st)
            u = _lin(idx, ust)
            vals[k] = upd.vals[u]
            errs[k] = upd.err[u]
        return Arr(ins.shape, vals, errs)

    def op_gather(self, ins, ops):
        src, ind = ops
        a = ins.a
        odims = src.shape.dims
        rank = len(ins.shape.dims)
        offset_dims = a['offset_dims']
        collapsed = a['collapsed_slice_dims']
        sim = a['start_index_map']
        ivd = a['index_vector_dim']
        sizes = a['slice_sizes']
        batch_dims = [d for d in range(rank) if d not in offset_dims]
        window_operand_dims = [d for d in range(len(odims))
                               if d not in collapsed]
        ist = _strides(ind.shape.dims)
        st = _strides(odims)

        def fn(idx):
            g = [idx[d] for d in batch_dims]
            start = [0] * len(odims)
            for k, od in enumerate(sim):
                gi = list(g)
                if ivd < len(ind.shape.dims):
                    gi.insert(ivd, k)
                v = ind.vals[_lin(gi, ist)]
                start[od] = self._clamp_start(v, odims[od] - sizes[od])
            j = list(start)
            for k, wd in enumerate(window_operand_dims):
                j[wd] += idx[offset_dims[k]]
            return _lin(j, st)
        return self._gather_by(ins, src, fn)

    # ---------------------------------------------------------- scatter
    def op_scatter(self, ins, ops):
        base, ind, upd = ops
        a = ins.a
        odims = base.shape.dims
        ud = upd.shape.dims
        uwd = a['update_window_dims']
        inserted = a['inserted_window_dims']
        s2o = a['scatter_dims_to_operand_dims']
        ivd = a['index_vector_dim']
        comp = ins.called
        window_operand_dims = [d for d in range(len(odims))
                               if d not in inserted]
        wsize = [1] * len(odims)
        for k, wd in enumerate(window_operand_dims):
            wsize[wd] = ud[uwd[k]]
        scatter_dims = [d for d in range(len(ud)) if d not in uwd]
        vals, errs = list(base.vals), list(base.err)
        parts = [[] for _ in vals]  # the updates combined into each element
        st = _strides(odims)
        ist = _strides(ind.shape.dims)
        ust = _strides(ud)
        for idx in N.all_indices(ud):
            g = [idx[d] for d in scatter_dims]
            start = [0] * len(odims)
            for k, od in enumerate(s2o):
                gi = list(g)
                if ivd < len(ind.shape.dims):
                    gi.insert(ivd, k)
                start[od] = ind.vals[_lin(gi, ist)]
            if any(s < 0 or s > d - w for s, d, w in zip(start, odims, wsize)):
                continue  # the whole window must fit, else it is skipped
            j = list(start)
            for k, wd in enumerate(window_operand_dims):
                j[wd] += idx[uwd[k]]
            k = _lin(j, st)
            u = _lin(idx, ust)
            res, e = self.scalar_call_err(comp, [vals[k], upd.vals[u]])
            vals[k] = res[0]
            if e:
                errs[k] = INF
            parts[k].append(u)
        t = ins.shape.t
        tag = comp.tag
        for k in range(len(vals)):
            if not parts[k] or errs[k] == INF:
                continue
            uerr = [upd.err[u] for u in parts[k]]
            if len(parts[k]) > 1 and tag == 'assign':
                errs[k] = INF  # the order of colliding updates is not fixed
            elif N.is_float(t) and tag == 'sum':
                errs[k] = _sum_group_tolerance(
                    vals[k], [base.vals[k]] + [upd.vals[u] for u in parts[k]],
                    [base.err[k]] + uerr, t)
            elif tag == 'assign':
                errs[k] = uerr[0]
            elif any(uerr) or errs[k]:
                errs[k] = INF if not N.is_float(t) else max([errs[k]] + uerr)
        return Arr(ins.shape, vals, errs)

    # ----------------------------------------------------------- tuples
    def op_tuple(self, ins, ops):
        return list(ops)

    def op_get_tuple_element(self, ins, ops):
        return ops[0][ins.a['index']]

    # ----------------------------------------------------------- reduce
    def op_reduce(self, ins, ops):
        n = len(ops) // 2
        inputs, inits = ops[:n], ops[n:]
        src_dims = inputs[0].shape.dims
        rdims = ins.a['dims']
        kept = [d for d in range(len(src_dims)) if d not in rdims]
        out_shapes = leaves(ins.shape)
        out_dims = out_shapes[0].dims
        st = _strides(src_dims)
        groups = {}
        for idx in N.all_indices(src_dims):
            key = tuple(idx[d] for d in kept)
            groups.setdefault(key, []).append(_lin(idx, st))
        outs = [([], []) for _ in range(n)]
        for oidx in N.all_indices(out_dims):
            members = groups.get(tuple(oidx), [])
            self._reduce_group(ins.called, inputs, inits, members, outs)
        if not out_dims:
            members = groups.get((), [])
            self._reduce_group(ins.called, inputs, inits, members, outs)
        res = [Arr(s, v, e) for s, (v, e) in zip(out_shapes, outs)]
        return res if isinstance(ins.shape, TupleShape) else res[0]

    def _reduce_group(self, comp, inputs, inits, members, outs):
        n = len(inputs)
        acc = [i.vals[0] for i in inits]
        err = max([0.0] + [i.err[0] for i in inits])
        undefined = False
        for m in members:
            acc, e = self.scalar_call_err(comp,
                                          acc + [x.vals[m] for x in inputs])
            undefined = undefined or e == INF
            err = max(err, max(x.err[m] for x in inputs))
        tag = comp.tag
        errs = [err] * n
        for k in range(n):
            t = inputs[k].shape.t
            if tag == 'sum' and N.is_float(t):
                errs[k] = _sum_group_tolerance(
                    acc[k], [inputs[k].vals[m] for m in members],
                    [inputs[k].err[m] for m in members], t)
            elif tag in ('argmax', 'argmin') and err:
                errs[k] = INF
            elif tag in ('argmax', 'argmin') and N.is_float(inputs[0].shape.t):
                if any(N.is_nan_bits(inputs[0].vals[m], inputs[0].shape.t)
                       for m in members):
                    errs[k] = INF  # NaN breaks the reducer's associativity
            elif err and not N.is_float(t):
                errs[k] = INF
        for k in range(n):
            outs[k][0].append(acc[k])
            outs[k][1].append(INF if undefined else errs[k])

    def op_reduce_window(self, ins, ops):
        src, init = ops
        a = ins.a
        dims = src.shape.dims
        st = _strides(dims)
        size, stride = a['size'], a['stride']
        pad, wdil, bdil = a['pad'], a['rhs_dilate'], a['lhs_dilate']
        comp = ins.called
        t = ins.shape.t
        vals, errs = [], []
        for oidx in N.all_indices(ins.shape.dims):
            acc = init.vals[0]
            err = init.err[0]
            members = []
            for w in N.all_indices(size):
                j = []
                for o, k, s, (lo, _), wd, bd, d in zip(
                        oidx, w, stride, pad, wdil, bdil, dims):
                    p = o * s + k * wd - lo
                    if p < 0 or p % bd or p // bd >= d:
                        j = None
                        break
                    j.append(p // bd)
                if j is None:
                    continue
                m = _lin(j, st)
                members.append(m)
                res, e = self.scalar_call_err(comp, [acc, src.vals[m]])
                acc = res[0]
                err = max(err, src.err[m], e)
            if comp.tag == 'sum' and N.is_float(t):
                err = _sum_group_tolerance(acc, [src.vals[m] for m in members],
                                           [src.err[m] for m in members], t)
            elif err and not N.is_float(t):
                err = INF
            vals.append(acc)
            errs.append(err)
        return Arr(ins.shape, vals, errs)

    def op_bitcast_convert(self, ins, ops):
        src = ops[0]
        a, c = N.bits(src.shape.t), N.bits(ins.shape.t)
        if a == c:
            return self.elementwise(ins, ops)
        # Little-endian: the narrow elements of one wide element are its
        # bytes (or halves, ...) from the least significant up.
        vals, errs = [], []
        if c < a:
            k = a // c
            for v, e in zip(src.vals, src.err):
                u = N.to_unsigned_bits(v, src.shape.t)
                bad = e or (N.is_float(src.shape.t) and
                            N.is_canonical_nan(v, src.shape.t))
                for j in range(k):
                    vals.append(N.from_unsigned_bits(
                        (u >> (c * j)) & ((1 << c) - 1), ins.shape.t))
                    errs.append(INF if bad else 0.0)
        else:
            k = c // a
            for i in range(0, len(src.vals), k):
                u = 0
                for j in range(k):
                    u |= N.to_unsigned_bits(src.vals[i + j], src.shape.t) << (
                        a * j)
                bad = any(src.err[i:i + k])
                vals.append(N.from_unsigned_bits(u, ins.shape.t))
                errs.append(INF if bad else 0.0)
        return Arr(ins.shape, vals, errs)

    def op_reduce_precision(self, ins, ops):
        t = ins.shape.t
        eb, mb = ins.a['exponent_bits'], ins.a['mantissa_bits']
        src = ops[0]
        return Arr(ins.shape, [S.reduce_precision(v, t, eb, mb)
                               for v in src.vals],
                   [INF if e else 0.0 for e in src.err])

    def op_map(self, ins, ops):
        n = ins.shape.count()
        vals, errs = [], []
        for i in range(n):
            res, e = self.scalar_call_err(ins.called,
                                          [o.vals[i] for o in ops])
            vals.append(res[0])
            errs.append(INF if any(o.err[i] for o in ops) else e)
        return Arr(ins.shape, vals, errs)


def _sum_group_tolerance(acc, xs, errs, t):
    """A float sum in any order: |difference| <= 2 (n-1) u sum|x| (both
    orders' rounding) plus the inputs' own bounds; inf/NaN only where the
    inputs force it."""
    if any(e == INF for e in errs):
        return INF
    dec = [N.decode(x, t) for x in xs]
    if any(d != d for d in dec):
        return 0.0  # NaN whatever the order
    has_pinf = any(d == INF for d in dec)
    has_ninf = any(d == -INF for d in dec)
    total = sum(abs(d) for d in dec if abs(d) != INF)
    if has_pinf or has_ninf:
        # inf, or NaN when both signs meet, in any order, unless finite
        # partial sums may overflow to the other sign in some order
        return INF if total > N.max_finite(t) / 2 else 0.0
    u = 2.0 ** -(N.FMT[t][0] + 1)
    if t in ('f16', 'bf16'):
        u += 2.0 ** -24
    tol = 2 * max(len(dec), 1) * u * total + sum(errs) + 2 * N.ulp(0.0, t)
    r = N.decode(acc, t)
    if r != r or abs(r) == INF or total + tol > N.max_finite(t):
        return INF  # an overflow that depends on the order
    return tol
