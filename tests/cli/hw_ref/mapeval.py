"""Parses and evaluates ixa's printed indexing maps (docs/indexing.md §2).

Independent of ixa: a small recursive-descent reader of the text form
`(d0, d1)[s0] -> (expr, ...), domain: d0 in [0, 2], ..., expr in [lo, hi]`
with floor semantics for floordiv / mod and ceil for ceildiv.
"""
import re

_TOKEN = re.compile(r"\s*(->|-?\d+|[A-Za-z_][A-Za-z_0-9]*|[()\[\],:+\-*])")


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError("bad map text at %d: %r" % (pos, text[pos:pos + 20]))
        tok = m.group(1)
        # A leading '-' on a number is only a literal sign after an operator.
        out.append(tok)
        pos = m.end()
    return out


class _Reader:
    def __init__(self, toks):
        self.t, self.p = toks, 0

    def peek(self):
        return self.t[self.p] if self.p < len(self.t) else None

    def eat(self, tok):
        if self.peek() == tok:
            self.p += 1
            return True
        return False

    def need(self, tok):
        if not self.eat(tok):
            raise ValueError("expected %r, got %r" % (tok, self.peek()))

    def name_list(self, close):
        names = []
        if self.eat(close):
            return names
        while True:
            names.append(self.t[self.p])
            self.p += 1
            if self.eat(close):
                return names
            self.need(",")

    # expr := term (('+'|'-') term)*
    def expr(self):
        node = self.term()
        while True:
            tok = self.peek()
            if tok in ("+", "-"):
                self.p += 1
                node = (tok, node, self.term())
            elif tok is not None and re.fullmatch(r"-\d+", tok):
                # "a -3" tokenized as a signed literal: binary minus.
                self.p += 1
                node = ("+", node, ("c", int(tok)))
            else:
                return node

    def term(self):
        node = self.unary()
        while self.peek() in ("*", "floordiv", "ceildiv", "mod"):
            op = self.t[self.p]
            self.p += 1
            node = (op, node, self.unary())
        return node

    def unary(self):
        if self.eat("-"):
            return ("neg", self.unary())
        return self.atom()

    def atom(self):
        tok = self.peek()
        self.p += 1
        if tok == "(":
            node = self.expr()
            self.need(")")
            return node
        if re.fullmatch(r"-?\d+", tok):
            return ("c", int(tok))
        return ("v", tok)


def _fdiv(a, b):
    if b == 0:
        raise ZeroDivisionError
    return a // b


def evaluate(node, env):
    kind = node[0]
    if kind == "c":
        return node[1]
    if kind == "v":
        return env[node[1]]
    if kind == "neg":
        return -evaluate(node[1], env)
    a, b = evaluate(node[1], env), evaluate(node[2], env)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "floordiv":
        return _fdiv(a, b)
    if kind == "ceildiv":
        return -_fdiv(-a, b)
    if kind == "mod":
        return a - b * _fdiv(a, b)
    raise ValueError(kind)


class Map:
    """dims, symbols: names; results: trees; bounds: name -> (lo, hi);
    constraints: list of (tree, lo, hi)."""

    def __init__(self, text):
        self.text = text
        r = _Reader(_tokens(text))
        r.need("(")
        self.dims = r.name_list(")")
        self.symbols = r.name_list("]") if r.eat("[") else []
        r.need("->")
        r.need("(")
        self.results = []
        if not r.eat(")"):
            while True:
                self.results.append(r.expr())
                if r.eat(")"):
                    break
                r.need(",")
        self.bounds, self.constraints = {}, []
        if r.eat(","):
            if r.peek() == "domain":
                r.p += 1
                r.need(":")
                while r.peek() is not None:
                    e = r.expr()
                    r.need("in")
                    r.need("[")
                    lo = int(r.t[r.p]); r.p += 1
                    r.need(",")
                    hi = int(r.t[r.p]); r.p += 1
                    r.need("]")
                    if e[0] == "v" and e[1] in self.dims + self.symbols and \
                            e[1] not in self.bounds:
                        self.bounds[e[1]] = (lo, hi)
                    else:
                        self.constraints.append((e, lo, hi))
                    if not r.eat(","):
                        break
        if r.peek() is not None:
            raise ValueError("trailing map text: %r" % r.t[r.p:])

    def env(self, dims, symbols=()):
        env = dict(zip(self.dims, dims))
        env.update(zip(self.symbols, symbols))
        return env

    def __call__(self, dims, symbols=()):
        env = self.env(dims, symbols)
        return [evaluate(e, env) for e in self.results]

    def in_domain(self, dims, symbols=()):
        env = self.env(dims, symbols)
        for name, (lo, hi) in self.bounds.items():
            if not lo <= env[name] <= hi:
                return False
        return all(lo <= evaluate(e, env) <= hi for e, lo, hi in self.constraints)
