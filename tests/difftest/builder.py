"""Builds HLO graphs op by op: the result shapes come from the HLO
operation semantics (computed here, not asked of ixa)."""
import math

import numerics as N
from hlo import Computation, Instr, Shape, TupleShape


def _ints(xs):
    return '{' + ','.join(str(x) for x in xs) + '}'


def float_literal(bits, t):
    x = N.decode(bits, t)
    if x != x:
        return 'nan'
    if x == math.inf:
        return 'inf'
    if x == -math.inf:
        return '-inf'
    return repr(x)


def literal_text(vals, t, dims):
    def one(v):
        if t == 'pred':
            return 'true' if v else 'false'
        if N.is_float(t):
            return float_literal(v, t)
        return str(v)
    if not dims:
        return one(vals[0])

    def nest(off, k):
        if k == len(dims) - 1:
            return '{' + ', '.join(one(v) for v in vals[off:off + dims[k]]) + '}'
        step = 1
        for d in dims[k + 1:]:
            step *= d
        return '{' + ', '.join(nest(off + i * step, k + 1)
                               for i in range(dims[k])) + '}'
    return nest(0, 0)


class Builder:
    def __init__(self, name='fused_computation', count=None, prefix='p'):
        self.comp = Computation(name)
        self.helpers = []
        self.count = count if count is not None else {}
        self.prefix = prefix
        self.dists = {}  # parameter number -> input distribution hint

    def fresh(self, stem):
        n = self.count.get(stem, 0)
        self.count[stem] = n + 1
        return '%s.%d' % (stem, n)

    def add(self, op, shape, operands=(), attrs=None, text=None, called=None,
            stem=None):
        ins = Instr(self.fresh(stem or op.replace('-', '_')), op, shape,
                    operands, attrs, text, called)
        self.comp.instrs.append(ins)
        return ins

    # ------------------------------------------------------------ leaves
    def param(self, t, dims, layout=None, dist=None):
        k = len(self.comp.params)
        ins = Instr('%s%d' % (self.prefix, k), 'parameter', Shape(t, dims, layout), (),
                    {'number': k})
        self.comp.params.append(ins)
        self.comp.instrs.insert(k, ins)
        self.dists[k] = dist or ('any',)
        return ins

    def constant(self, t, dims, vals):
        return self.add('constant', Shape(t, dims), (), {
            'values': list(vals), 'literal_text': literal_text(vals, t, dims)})

    def scalar(self, t, v):
        return self.constant(t, [], [v])

    def iota(self, t, dims, dim, layout=None):
        return self.add('iota', Shape(t, dims, layout), (), {'dim': dim},
                        ['iota_dimension=%d' % dim])

    # ------------------------------------------------------- elementwise
    def unary(self, op, x, t=None, layout=None):
        return self.add(op, Shape(t or x.shape.t, x.shape.dims, layout), [x])

    def binary(self, op, x, y, layout=None):
        return self.add(op, Shape(x.shape.t, x.shape.dims, layout), [x, y])

    def compare(self, x, y, direction, ctype=None, layout=None):
        text = ['direction=' + direction]
        if ctype:
            text.append('type=' + ctype)
        return self.add('compare', Shape('pred', x.shape.dims, layout), [x, y],
                        {'direction': direction, 'type': ctype}, text)

    def select(self, p, x, y, layout=None):
        return self.add('select', Shape(x.shape.t, x.shape.dims, layout),
                        [p, x, y])

    def clamp(self, lo, x, hi, layout=None):
        return self.add('clamp', Shape(x.shape.t, x.shape.dims, layout),
                        [lo, x, hi])

    def convert(self, x, t, layout=None):
        return self.add('convert', Shape(t, x.shape.dims, layout), [x])

    def bitcast_convert(self, x, t, layout=None):
        """Same width: elementwise. Narrower: a new minor dim of the width
        ratio; wider: the operand's minor dim (the ratio) goes away."""
        dims = list(x.shape.dims)
        a, c = N.bits(x.shape.t), N.bits(t)
        if c < a:
            dims.append(a // c)
        elif c > a:
            dims = dims[:-1]
        return self.add('bitcast-convert', Shape(t, dims, layout), [x])

    def copy(self, x, layout=None):
        return self.add('copy', Shape(x.shape.t, x.shape.dims, layout), [x])

    # ----------------------------------------------------- data movement
    def broadcast(self, x, dims, bdims, layout=None):
        return self.add('broadcast', Shape(x.shape.t, dims, layout), [x],
                        {'dims': list(bdims)}, ['dimensions=' + _ints(bdims)])

    def reshape(self, x, dims, layout=None):
        return self.add('reshape', Shape(x.shape.t, dims, layout), [x])

    def bitcast(self, x, dims, layout=None):
        return self.add('bitcast', Shape(x.shape.t, dims, layout), [x])

    def transpose(self, x, perm, layout=None):
        dims = [x.shape.dims[p] for p in perm]
        return self.add('transpose', Shape(x.shape.t, dims, layout), [x],
                        {'dims': list(perm)}, ['dimensions=' + _ints(perm)])

    def slice(self, x, starts, limits, strides, layout=None):
        dims = [-(-(l - s) // k) for s, l, k in zip(starts, limits, strides)]
        text = 'slice={' + ', '.join(
            '[%d:%d%s]' % (s, l, '' if k == 1 else ':%d' % k)
            for s, l, k in zip(starts, limits, strides)) + '}'
        return self.add('slice', Shape(x.shape.t, dims, layout), [x],
                        {'starts': list(starts), 'strides': list(strides)},
                        [text])

    def pad(self, x, pv, config, layout=None):
        dims = []
        for d, (lo, hi, it) in zip(x.shape.dims, config):
            dims.append(lo + hi + d + max(d - 1, 0) * it)
        text = 'padding=' + 'x'.join(
            '%d_%d' % (lo, hi) + ('_%d' % it if it else '')
            for lo, hi, it in config)
        return self.add('pad', Shape(x.shape.t, dims, layout), [x, pv],
                        {'config': [tuple(c) for c in config]}, [text])

    def concatenate(self, xs, dim, layout=None):
        dims = list(xs[0].shape.dims)
        dims[dim] = sum(x.shape.dims[dim] for x in xs)
        return self.add('concatenate', Shape(xs[0].shape.t, dims, layout),
                        xs, {'dim': dim}, ['dimensions={%d}' % dim])

    def reverse(self, x, rdims, layout=None):
        return self.add('reverse', Shape(x.shape.t, x.shape.dims, layout), [x],
                        {'dims': list(rdims)}, ['dimensions=' + _ints(rdims)])

    def dynamic_slice(self, x, starts, sizes, layout=None):
        return self.add('dynamic-slice', Shape(x.shape.t, sizes, layout),
                        [x] + list(starts), {},
                        ['dynamic_slice_sizes=' + _ints(sizes)])

    def dynamic_update_slice(self, x, u, starts, layout=None):
        return self.add('dynamic-update-slice',
                        Shape(x.shape.t, x.shape.dims, layout),
                        [x, u] + list(starts))

    def gather(self, x, ind, offset_dims, collapsed, start_index_map, ivd,
               slice_sizes, layout=None):
        batch = list(ind.shape.dims)
        if ivd < len(batch):
            del batch[ivd]
        rank = len(batch) + len(offset_dims)
        window = [s for d, s in enumerate(slice_sizes) if d not in collapsed]
        dims, bi, wi = [], 0, 0
        for d in range(rank):
            if d in offset_dims:
                dims.append(window[wi])
                wi += 1
            else:
                dims.append(batch[bi])
                bi += 1
        text = ['offset_dims=' + _ints(offset_dims),
                'collapsed_slice_dims=' + _ints(collapsed),
                'start_index_map=' + _ints(start_index_map),
                'index_vector_dim=%d' % ivd,
                'slice_sizes=' + _ints(slice_sizes)]
        return self.add('gather', Shape(x.shape.t, dims, layout), [x, ind], {
            'offset_dims': list(offset_dims),
            'collapsed_slice_dims': list(collapsed),
            'start_index_map': list(start_index_map), 'index_vector_dim': ivd,
            'slice_sizes': list(slice_sizes)}, text)

    def scatter(self, x, ind, upd, uwd, inserted, s2o, ivd, comp,
                layout=None):
        text = ['update_window_dims=' + _ints(uwd),
                'inserted_window_dims=' + _ints(inserted),
                'scatter_dims_to_operand_dims=' + _ints(s2o),
                'index_vector_dim=%d' % ivd, 'to_apply=' + comp.name]
        return self.add('scatter', Shape(x.shape.t, x.shape.dims, layout),
                        [x, ind, upd], {
                            'update_window_dims': list(uwd),
                            'inserted_window_dims': list(inserted),
                            'scatter_dims_to_operand_dims': list(s2o),
                            'index_vector_dim': ivd}, text, comp)

    def reduce(self, xs, inits, rdims, comp, layouts=None):
        dims = [d for i, d in enumerate(xs[0].shape.dims) if i not in rdims]
        layouts = layouts or [None] * len(xs)
        shapes = [Shape(x.shape.t, dims, l) for x, l in zip(xs, layouts)]
        shape = shapes[0] if len(xs) == 1 else TupleShape(shapes)
        return self.add('reduce', shape, list(xs) + list(inits),
                        {'dims': sorted(rdims)},
                        ['dimensions=' + _ints(sorted(rdims)),
                         'to_apply=' + comp.name], comp)

    def reduce_window(self, x, init, size, stride, pad, lhs_dilate, rhs_dilate,
                      comp, layout=None):
        dims = []
        for d, k, s, (lo, hi), bd, wd in zip(x.shape.dims, size, stride, pad,
                                             lhs_dilate, rhs_dilate):
            dilated = (d - 1) * bd + 1 if d else 0
            padded = dilated + lo + hi
            window = (k - 1) * wd + 1
            dims.append(0 if padded < window else (padded - window) // s + 1)

        def field(name, vals, default):
            if all(v == default for v in vals):
                return ''
            return ' %s=%s' % (name, 'x'.join(str(v) for v in vals))
        text = ('window={size=' + 'x'.join(str(k) for k in size) +
                field('stride', stride, 1) +
                ('' if all(p == (0, 0) for p in pad) else
                 ' pad=' + 'x'.join('%d_%d' % p for p in pad)) +
                field('lhs_dilate', lhs_dilate, 1) +
                field('rhs_dilate', rhs_dilate, 1) + '}')
        return self.add('reduce-window', Shape(x.shape.t, dims, layout),
                        [x, init], {
                            'size': list(size), 'stride': list(stride),
                            'pad': [tuple(p) for p in pad],
                            'lhs_dilate': list(lhs_dilate),
                            'rhs_dilate': list(rhs_dilate)},
                        [text, 'to_apply=' + comp.name], comp)

    def map(self, xs, comp):
        rank = len(xs[0].shape.dims)
        return self.add('map', Shape(comp.root.shape.t, xs[0].shape.dims),
                        xs, {}, ['dimensions=' + _ints(range(rank)),
                                 'to_apply=' + comp.name], comp)

    def reduce_precision(self, x, exponent_bits, mantissa_bits):
        return self.add('reduce-precision', Shape(x.shape.t, x.shape.dims),
                        [x], {'exponent_bits': exponent_bits,
                              'mantissa_bits': mantissa_bits},
                        ['exponent_bits=%d' % exponent_bits,
                         'mantissa_bits=%d' % mantissa_bits])

    def tuple(self, xs):
        return self.add('tuple', TupleShape([x.shape for x in xs]), xs)

    def get_tuple_element(self, x, k):
        return self.add('get-tuple-element', x.shape.elems[k], [x],
                        {'index': k}, ['index=%d' % k], stem='gte')

    # ----------------------------------------------------------- helpers
    def scalar_computation(self, tag, types, body):
        """A computation of scalars: `body(b, params)` returns its root(s)
        (built with a nested Builder)."""
        name = '%s_%s_%d' % (tag, '_'.join(types), len(self.helpers))
        sub = Builder(name, self.count, 'h%d_' % len(self.helpers))
        ps = [sub.param(t, []) for t in types]
        root = body(sub, ps)
        if isinstance(root, list):
            root = sub.tuple(root)
        sub.comp.root = root
        sub.comp.tag = tag
        self.helpers.append(sub.comp)
        return sub.comp
