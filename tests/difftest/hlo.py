"""A small HLO graph: what the generator builds, the interpreter runs and
the printer writes as HLO text."""
import numerics as N


class Shape:
    def __init__(self, t, dims, layout=None):
        self.t = t
        self.dims = list(dims)
        self.layout = layout  # numerics.Layout or None (default)

    @property
    def rank(self):
        return len(self.dims)

    def count(self):
        n = 1
        for d in self.dims:
            n *= d
        return n

    def text(self, layout=True):
        s = '%s[%s]' % (self.t, ','.join(str(d) for d in self.dims))
        if layout and self.layout is not None and self.rank > 0:
            s += self.layout.text()
        return s

    def physical(self):
        return N.Physical(self.dims, self.layout)


class TupleShape:
    def __init__(self, elems):
        self.elems = list(elems)

    def text(self, layout=True):
        return '(' + ', '.join(e.text(layout) for e in self.elems) + ')'


def leaves(shape):
    if isinstance(shape, TupleShape):
        out = []
        for e in shape.elems:
            out += leaves(e)
        return out
    return [shape]


class Instr:
    def __init__(self, name, op, shape, operands=(), attrs=None, text_attrs=None,
                 called=None):
        self.name = name
        self.op = op
        self.shape = shape
        self.operands = list(operands)
        self.a = dict(attrs or {})       # structured, for the interpreter
        self.text_attrs = list(text_attrs or [])  # printed, in order
        self.called = called             # Computation (to_apply / calls)

    def text(self):
        if self.op == 'parameter':
            args = str(self.a['number'])
        elif self.op == 'constant':
            args = self.a['literal_text']
        else:
            args = ', '.join(o.name for o in self.operands)
        s = '%s = %s %s(%s)' % (self.name, self.shape.text(), self.op, args)
        for t in self.text_attrs:
            s += ', ' + t
        return s


class Computation:
    def __init__(self, name):
        self.name = name
        self.instrs = []
        self.params = []
        self.root = None
        # For scalar reducers: what the generator built ('sum', 'max', ...).
        self.tag = None

    def text(self, entry=False):
        lines = [('ENTRY ' if entry else '') + self.name + ' {']
        for i in self.instrs:
            lines.append('  ' + ('ROOT ' if i is self.root else '') + i.text())
        lines.append('}')
        return '\n'.join(lines)


class Module:
    def __init__(self, name, fusion, helpers, wrap_in_fusion):
        self.name = name
        self.fusion = fusion        # the fused computation
        self.helpers = helpers      # reducers, combiners
        self.wrap = wrap_in_fusion  # an ENTRY calling the fusion

    def text(self):
        parts = ['HloModule ' + self.name, '']
        for h in self.helpers:
            parts += [h.text(), '']
        if not self.wrap:
            parts.append(self.fusion.text(entry=True))
            return '\n'.join(parts) + '\n'
        parts += [self.fusion.text(), '']
        lines = ['ENTRY main {']
        for p in self.fusion.params:
            lines.append('  %s = %s parameter(%d)' %
                         (p.name, p.shape.text(), p.a['number']))
        lines.append('  ROOT fusion = %s fusion(%s), kind=kLoop, calls=%s' %
                     (self.fusion.root.shape.text(),
                      ', '.join(p.name for p in self.fusion.params),
                      self.fusion.name))
        lines.append('}')
        parts.append('\n'.join(lines))
        return '\n'.join(parts) + '\n'
