#!/usr/bin/env python3
"""Proves every simplifier rule's obligations with the SMT solver z3.

  prove_rules.py IXA [--rlimit N] [--only RULE] [--no-bounded] [--verbose]

Reads `IXA rules --json` (one line per rule id, each with its obligations;
simplifier/rule_obligations.h gives the syntax) and proves, for all
integers, `given => lhs == rhs` (a constraint rule: `given => (lhs <=>
rhs)`), with ixa's integer semantics (core/int_math.h): floordiv rounds
toward -infinity for either sign of the divisor, mod(a, b) = a - b *
floordiv(a, b) and ceildiv(a, b) = -floordiv(-a, b). SMT-LIB's div and mod
are Euclidean, so they are not used: each floordiv node is a fresh
quotient q with its defining inequalities (b*q <= a < b*q + b for b > 0,
mirrored for b < 0); gcd and lcm of symbolic constants are fresh atoms
with their defining properties (Encoder.gcd). The right-hand side must
also be defined (no zero divisor) wherever the left-hand side is.

Where z3 does not prove an obligation in one query, PROOFS gives it a
proof: a chain of intermediate expressions whose links z3 proves one by
one, with instances of LEMMAS (each proven for all integers first) as
hypotheses.

A rule without an obligation, an obligation that z3 refutes (printed with
the counterexample) or cannot decide, or an unknown rule id fails the test.
Without --no-bounded (the test passes it), an obligation that z3 cannot
decide is proven for small constants instead and printed as BOUNDED, which
is not a failure: for working on a rule, not for the test.
Before the rules, a self-test: known-false obligations must be refuted and
known-true ones proven, so that the prover itself can fail.

Exit codes: 0 every obligation proven; 1 a failure; 2 z3 (python3-z3) is
missing or the rule list cannot be read.
"""
import argparse
import itertools
import math
import random
import json
import re
import subprocess
import sys
import time

try:
    import z3
except ImportError:
    print("prove_rules.py: the z3 Python module is missing: install "
          "python3-z3 (tools/setup.sh does); the simplifier's rules cannot "
          "be proven without it", file=sys.stderr)
    sys.exit(2)

# Pattern variables that stand for expressions; every other name is one of
# the rule's constants.
EXPRESSION_NAMES = {"a", "b", "c", "x", "y", "z"}

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|"
                   r"(&&|\|\||==|!=|<=|>=|<|>|[-+*(),\[\]]))")


class ParseError(Exception):
    pass


def tokenize(text):
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError("cannot read %r at column %d" % (text, pos + 1))
        number, name, op = m.groups()
        if number is not None:
            tokens.append(("int", int(number)))
        elif name is not None:
            tokens.append(("name", name))
        else:
            tokens.append(("op", op))
        pos = m.end()
    return tokens


KEYWORDS = {"floordiv", "ceildiv", "mod", "min", "max", "gcd", "lcm",
            "bezout_u", "bezout_v", "in",
            "true", "false"}


# bezout_u and bezout_v (in LEMMAS and PROOFS only, not in obligations):
# the coefficients of gcd(a, b) = bezout_u(a, b) * a + bezout_v(a, b) * b
# that Encoder.gcd introduces.
FUNCTIONS = ("min", "max", "gcd", "lcm", "bezout_u", "bezout_v")


class Parser:
    """Expressions and conditions into trees:
    ('int', v) ('var', name) ('neg', e) ('+'|'-'|'*'|'floordiv'|'ceildiv'|
    'mod'|'min'|'max', l, r), and ('true',) ('false',) ('cmp', op, l, r)
    ('and', l, r) ('or', l, r)."""

    def __init__(self, text):
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, kind=None, value=None):
        t = self.peek()
        if t is None or (kind and t[0] != kind) or (value and t[1] != value):
            raise ParseError("in %r: expected %s at token %d" %
                             (self.text, value or kind, self.pos + 1))
        self.pos += 1
        return t

    def at(self, value):
        t = self.peek()
        return t is not None and t[1] == value and t[0] in ("op", "name")

    def done(self):
        if self.pos != len(self.tokens):
            raise ParseError("in %r: unexpected %r" %
                             (self.text, self.tokens[self.pos][1]))

    # Expressions.
    def expr(self):
        e = self.term()
        while self.at("+") or self.at("-"):
            op = self.take()[1]
            e = (op, e, self.term())
        return e

    def term(self):
        e = self.unary()
        while (self.at("*") or self.at("floordiv") or self.at("ceildiv") or
               self.at("mod")):
            op = self.take()[1]
            e = (op, e, self.unary())
        return e

    def unary(self):
        if self.at("-"):
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self):
        t = self.peek()
        if t is None:
            raise ParseError("in %r: unexpected end" % self.text)
        if t[0] == "int":
            self.take()
            return ("int", t[1])
        if t[0] == "name" and t[1] in FUNCTIONS:
            self.take()
            self.take("op", "(")
            e = self.expr()
            while self.at(","):
                self.take()
                e = (t[1], e, self.expr())
            self.take("op", ")")
            return e
        if t[0] == "name" and t[1] not in KEYWORDS:
            self.take()
            return ("var", t[1])
        if t == ("op", "("):
            self.take()
            e = self.expr()
            self.take("op", ")")
            return e
        raise ParseError("in %r: unexpected %r" % (self.text, t[1]))

    # Conditions.
    def condition(self):
        c = self.conjunction()
        while self.at("||"):
            self.take()
            c = ("or", c, self.conjunction())
        return c

    def conjunction(self):
        c = self.atom()
        while self.at("&&"):
            self.take()
            c = ("and", c, self.atom())
        return c

    def atom(self):
        if self.at("true") or self.at("false"):
            return (self.take()[1],)
        if self.at("("):
            # A parenthesized condition, or an expression that starts with
            # a parenthesis: try the condition first.
            start = self.pos
            try:
                self.take()
                c = self.condition()
                self.take("op", ")")
                if not (self.peek() and self.peek()[1] in
                        ("==", "!=", "<=", ">=", "<", ">", "in", "+", "-",
                         "*", "floordiv", "ceildiv", "mod")):
                    return c
            except ParseError:
                pass
            self.pos = start
        left = self.expr()
        if self.at("in"):
            self.take()
            self.take("op", "[")
            lo = self.expr()
            self.take("op", ",")
            hi = self.expr()
            self.take("op", "]")
            return ("and", ("cmp", "<=", lo, left), ("cmp", "<=", left, hi))
        t = self.take("op")
        if t[1] not in ("==", "!=", "<=", ">=", "<", ">"):
            raise ParseError("in %r: expected a comparison, got %r" %
                             (self.text, t[1]))
        return ("cmp", t[1], left, self.expr())


def parse_expr(text):
    p = Parser(text)
    e = p.expr()
    p.done()
    return e


def parse_condition(text):
    if not text.strip():
        return ("true",)
    p = Parser(text)
    c = p.condition()
    p.done()
    return c


def names_of(tree, out):
    if tree[0] == "var":
        out.add(tree[1])
    for child in tree[1:]:
        if isinstance(child, tuple):
            names_of(child, out)
    return out


class Poly:
    """An integer polynomial over atoms (pattern names, quotients of
    floordiv nodes, min/max nodes): {monomial: coefficient}, a monomial
    being the sorted tuple of its atoms (with repetition)."""

    def __init__(self, terms=None):
        self.terms = {m: c for m, c in (terms or {}).items() if c != 0}

    @staticmethod
    def const(v):
        return Poly({(): v})

    @staticmethod
    def atom(name):
        return Poly({(name,): 1})

    def __add__(self, o):
        t = dict(self.terms)
        for m, c in o.terms.items():
            t[m] = t.get(m, 0) + c
        return Poly(t)

    def __neg__(self):
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, o):
        return self + (-o)

    def __mul__(self, o):
        t = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                m = tuple(sorted(m1 + m2))
                t[m] = t.get(m, 0) + c1 * c2
        return Poly(t)

    def key(self):
        return tuple(sorted(self.terms.items()))

    def __eq__(self, o):
        return self.key() == o.key()

    def __hash__(self):
        return hash(self.key())

    def constant_value(self):
        if not self.terms:
            return 0
        if list(self.terms) == [()]:
            return self.terms[()]
        return None

    def has_atom(self, name):
        return any(name in m for m in self.terms)

    def divide(self, d):
        """self / d when d is one monomial that divides every term exactly;
        None otherwise."""
        if len(d.terms) != 1:
            return None
        (dm, dc), = d.terms.items()
        out = {}
        for m, c in self.terms.items():
            rest = list(m)
            for a in dm:
                if a not in rest:
                    return None
                rest.remove(a)
            if c % dc != 0:
                return None
            out[tuple(rest)] = c // dc
        return Poly(out)

    def split(self, name):
        """(C, R) with self = C * name + R, or None when name occurs in a
        higher power."""
        c, r = {}, {}
        for m, k in self.terms.items():
            n = m.count(name)
            if n > 1:
                return None
            if n == 1:
                rest = list(m)
                rest.remove(name)
                c[tuple(rest)] = k
            else:
                r[m] = k
        return Poly(c), Poly(r)


class Encoder:
    """z3 terms of one obligation, built through polynomials. Every
    floordiv node (ceildiv and mod are written with it) is a fresh quotient
    atom with its defining inequalities; equal nodes share one. `divisors`
    collects the divisors of each side (they must be non-zero).

    z3's nonlinear integer reasoning rarely finds that a quotient is unique
    (from b*q1 + r1 = b*q2 + r2 with both remainders in [0, b) it must
    conclude q1 = q2). lemmas() adds that fact as instances, each valid
    for every integer value: for nodes with the same divisor whose
    dividends differ by b * P, q1 = q2 + P; and for a node and a candidate
    value E (another quotient, or the value of q that the goal needs),
    b*E <= a <= b*E + b - 1 implies q = E (mirrored for b < 0)."""

    def __init__(self, linear=False):
        # linear: every product of atoms is an atom of its own (a
        # relaxation: unsat there is unsat for the real products too).
        self.linear = linear
        self.vars = {}
        self.defs = []
        self.divisors = []
        self.nodes = []  # (dividend, divisor, quotient atom)
        self.quotients = {}
        self.gcds = {}
        self.fresh = 0
        # (monomial, replacement): the given's equations `P == Q` with P a
        # product of names (see rewrites_of), applied to every node's
        # polynomial once the given is encoded.
        self.rewrites = []

    def reduce(self, p):
        """p with every monomial that contains a rewrite's monomial P
        (as a sub-multiset) replaced by the rest times Q, to a fixpoint (a
        replacement never contains its own P)."""
        for _ in range(16):
            changed = False
            for mono, repl in self.rewrites:
                out = Poly()
                for m, c in p.terms.items():
                    rest = list(m)
                    if all(rest.count(a) >= mono.count(a) for a in mono):
                        for a in mono:
                            rest.remove(a)
                        out = out + Poly({tuple(rest): c}) * repl
                        changed = True
                    else:
                        out = out + Poly({m: c})
                p = out
            if not changed:
                break
        return p

    def z3var(self, name):
        if name not in self.vars:
            self.vars[name] = z3.Int(name)
        return self.vars[name]

    def z3(self, p):
        out = []
        for m, c in sorted(p.terms.items()):
            t = z3.IntVal(c)
            if self.linear and len(m) > 1:
                t = t * self.z3var("*".join(m))
            else:
                for a in m:
                    t = t * self.z3var(a)
            out.append(t)
        if not out:
            return z3.IntVal(0)
        return z3.simplify(z3.Sum(out)) if len(out) > 1 else out[0]

    def floordiv(self, a, b):
        self.divisors.append(b)
        if len(b.terms) == 1 and list(b.terms.values())[0] < 0:
            # a floordiv b = (-a) floordiv (-b) for every b != 0: a
            # divisor written negative (`k == -h` rewrote k) becomes
            # positive, as the rule's derivation reads it.
            a, b = -a, -b
        key = (a.key(), b.key())
        if key in self.quotients:
            return Poly.atom(self.quotients[key])
        q = "_q%d" % self.fresh
        self.fresh += 1
        self.quotients[key] = q
        self.nodes.append((a, b, q))
        # a - b*q is the remainder: in [0, b - 1] for b > 0, in [b + 1, 0]
        # for b < 0.
        rest, zb = self.z3(a - b * Poly.atom(q)), self.z3(b)
        v = b.constant_value()
        if v is None or v > 0:
            pos = z3.And(rest >= 0, rest <= zb - 1)
            self.defs.append(pos if v is not None else z3.Implies(zb > 0, pos))
        if v is None or v < 0:
            neg = z3.And(rest <= 0, rest >= zb + 1)
            self.defs.append(neg if v is not None else z3.Implies(zb < 0, neg))
        return Poly.atom(q)

    def gcd(self, a, b):
        """(gcd(a, b), lcm(a, b)) of symbolic constants, as fresh atoms:
        g >= 0 divides both (a = g*i, b = g*j) and is a combination u*a +
        v*b. Every common divisor then divides g, so g is the gcd; and
        Bezout's identity says such u and v exist, so every value of the
        names is covered. lcm(a, b) = |a*b| / g = g*|i*j|, which is 0 where
        a = b = 0 (g = 0), as ixa has it. i and j are the quotients of the
        nodes a floordiv g and b floordiv g (an expression may name them)."""
        key = (a.key(), b.key())
        if key not in self.gcds:
            g, u, v, l = (Poly.atom("_%s%d" % (p, self.fresh))
                          for p in "guvl")
            self.fresh += 1
            # g = 0 (a = b = 0) leaves the quotients free, which a = g*i
            # allows: not a divisor that must be non-zero.
            divisors = len(self.divisors)
            i, j = self.floordiv(a, g), self.floordiv(b, g)
            del self.divisors[divisors:]
            product = self.z3(g * i * j)
            # g > 0 unless a = b = 0, and l > 0 unless a or b is 0, follow
            # from the rest, but not at once for z3.
            self.defs += [self.z3(g) >= 0,
                          z3.Implies(z3.Or(self.z3(a) != 0, self.z3(b) != 0),
                                     self.z3(g) > 0),
                          z3.Implies(z3.And(self.z3(a) != 0, self.z3(b) != 0),
                                     self.z3(l) > 0),
                          self.z3(a - g * i) == 0,
                          self.z3(b - g * j) == 0,
                          self.z3(g - u * a - v * b) == 0,
                          self.z3(l) == z3.If(self.z3(i * j) >= 0, product,
                                              -product)]
            self.gcds[key] = (g, l, u, v)
        return self.gcds[key]

    def minmax(self, kind, a, b):
        name = "_m%d" % self.fresh
        self.fresh += 1
        za, zb = self.z3(a), self.z3(b)
        pick = za <= zb if kind == "min" else za >= zb
        self.defs.append(self.z3var(name) == z3.If(pick, za, zb))
        return Poly.atom(name)

    def expr(self, t):
        p = self.expr_unreduced(t)
        return self.reduce(p) if self.rewrites else p

    def expr_unreduced(self, t):
        kind = t[0]
        if kind == "int":
            return Poly.const(t[1])
        if kind == "var":
            return Poly.atom(t[1])
        if kind == "neg":
            return -self.expr(t[1])
        a, b = self.expr(t[1]), self.expr(t[2])
        if kind == "+":
            return a + b
        if kind == "-":
            return a - b
        if kind == "*":
            return a * b
        if kind == "floordiv":
            return self.floordiv(a, b)
        if kind == "ceildiv":
            return -self.floordiv(-a, b)
        if kind == "mod":
            return a - b * self.floordiv(a, b)
        if kind in ("min", "max"):
            return self.minmax(kind, a, b)
        if kind in ("bezout_u", "bezout_v"):
            return self.gcd(a, b)[2 if kind == "bezout_u" else 3]
        if kind in ("gcd", "lcm"):
            va, vb = a.constant_value(), b.constant_value()
            if va is None or vb is None:
                return self.gcd(a, b)[0 if kind == "gcd" else 1]
            g = math.gcd(va, vb)
            if kind == "gcd":
                return Poly.const(g)
            return Poly.const(abs(va * vb) // g if g else 0)
        raise ValueError(kind)

    def condition(self, t):
        kind = t[0]
        if kind == "true":
            return z3.BoolVal(True)
        if kind == "false":
            return z3.BoolVal(False)
        if kind == "and":
            return z3.And(self.condition(t[1]), self.condition(t[2]))
        if kind == "or":
            return z3.Or(self.condition(t[1]), self.condition(t[2]))
        op, a, b = t[1], self.expr(t[2]), self.expr(t[3])
        d = self.z3(a - b)
        return {"==": d == 0, "!=": d != 0, "<=": d <= 0, ">=": d >= 0,
                "<": d < 0, ">": d > 0}[op]

    def sign_lemmas(self):
        out = []
        # The sign of a product of a divisor b with a sum or difference of
        # two quotients by b (or with one quotient) is the sign of that sum
        # times b's: with products as atoms, b*q1 - b*q2 >= b follows from
        # q1 > q2 (b > 0) only so.
        for i, (a1, b1, q1) in enumerate(self.nodes):
            if b1.constant_value() is not None:
                continue
            zb = self.z3(b1)
            pairs = [Poly.atom(q1)]
            for a2, b2, q2 in self.nodes[i + 1:]:
                if b2 == b1:
                    pairs += [Poly.atom(q1) + Poly.atom(q2),
                              Poly.atom(q1) - Poly.atom(q2)]
            for d in pairs:
                zd, zp = self.z3(d), self.z3(b1 * d)
                out.append(z3.Implies(zb > 0, z3.And(
                    z3.Implies(zd >= 1, zp >= zb), z3.Implies(zd == 0, zp == 0),
                    z3.Implies(zd <= -1, zp <= -zb))))
                out.append(z3.Implies(zb < 0, z3.And(
                    z3.Implies(zd >= 1, zp <= zb), z3.Implies(zd == 0, zp == 0),
                    z3.Implies(zd <= -1, zp >= -zb))))
        return out

    def lemmas(self, goal=None):
        out = []
        # The rule's constants (the names that are not expressions).
        constants = sorted(
            {a for poly in [goal or Poly()] + [p for n in self.nodes
                                               for p in n[:2]]
             for m in poly.terms for a in m
             if not a.startswith("_") and a not in EXPRESSION_NAMES})
        for a, b, q in self.nodes:
            # A remainder's bounds times a constant c: with products as
            # atoms, the sums of such scaled bounds are linear.
            rest = a - b * Poly.atom(q)
            zb = self.z3(b)
            for c in constants:
                cp = Poly.atom(c)
                zc, scaled = self.z3var(c), self.z3(cp * rest)
                top = self.z3(cp * b - cp)
                out.append(z3.Implies(z3.And(zc > 0, zb > 0),
                                      z3.And(scaled >= 0, scaled <= top)))
        for i, (a1, b1, q1) in enumerate(self.nodes):
            # Equalities q1 == v also hold multiplied by the monomials that
            # multiply q1 in the goal, and by each constant (needed where
            # products are atoms).
            factors = [Poly.const(1)] + [Poly.atom(c) for c in constants]
            split = goal.split(q1) if goal is not None else None
            if split is not None:
                factors += [Poly({m: 1}) for m in split[0].terms
                            if len(m) > 1]

            def equal(v, premise=None):
                for f in factors:
                    eq = self.z3(Poly.atom(q1) * f - v * f) == 0
                    out.append(eq if premise is None else
                               z3.Implies(premise, eq))

            candidates = []
            for j, (a2, b2, q2) in enumerate(self.nodes):
                if i == j:
                    continue
                candidates.append(Poly.atom(q2))
                if b1 == b2:
                    p = (a1 - a2).divide(b1)
                    if p is not None:
                        equal(Poly.atom(q2) + p, self.z3(b1) != 0)
            if split is not None and split[0].terms:
                # goal = C * q1 + R == 0: q1 = -R / C.
                e = (-split[1]).divide(split[0])
                if e is not None:
                    candidates.append(e)
            for e in candidates:
                if e.has_atom(q1):
                    continue
                rest, zb = self.z3(a1 - b1 * e), self.z3(b1)
                equal(e, z3.And(zb > 0, rest >= 0, rest <= zb - 1))
                equal(e, z3.And(zb < 0, rest <= 0, rest >= zb + 1))
        return out


def is_condition(text):
    return bool(re.search(r"==|!=|<=|>=|<|>|\bin\b|&&|\|\||^\s*(true|false)\s*$",
                          text))


def check(solver_setup, rlimit):
    s = z3.Solver()
    # A resource limit, not a timeout: the same answer however loaded the
    # machine is (and no timer thread, which z3 4.8 can deadlock on).
    s.set("rlimit", rlimit)
    for f in solver_setup:
        s.add(f)
    return s, s.check()


def rewrites_of(given_tree):
    """The given's top-level equations `P == Q` where P is a product of
    names (coefficient 1, no number) and Q does not contain P: wherever
    the given holds P equals Q, so P may be replaced by Q in the sides
    (`k * m == n * j` states that n divides k * m with the witness j;
    `k == -h` a negative constant by a positive one)."""
    out = []
    for c in conjuncts(given_tree):
        if c[0] != "cmp" or c[1] != "==":
            continue
        plain = Encoder()
        p, q = plain.expr(c[2]), plain.expr(c[3])
        # A gcd's atoms come with floordiv nodes: not a plain product.
        if plain.nodes or len(p.terms) != 1:
            continue
        (mono, coeff), = p.terms.items()
        if coeff != 1 or not mono:
            continue
        if any(all(m.count(a) >= mono.count(a) for a in mono)
               for m in q.terms):
            continue
        out.append((mono, q))
    return out


def encode(given_tree, lhs_tree, rhs_tree, constraint, linear, facts=()):
    """(hypotheses, lemmas, goals, encoder, lhs, rhs): the obligation holds
    iff hypotheses + goal is unsat for each goal. facts: instances of
    proven lemmas (see LEMMAS), (given, lhs, rhs, constraint) trees, each
    a hypothesis `given and a defined lhs => lhs == rhs` whose div/mod
    nodes are those of the obligation where they are equal."""
    enc = Encoder(linear)
    given = enc.condition(given_tree)
    enc.rewrites = rewrites_of(given_tree)
    hypotheses = []
    for fact_given, fact_lhs, fact_rhs, fact_constraint in facts:
        first = len(enc.divisors)
        premise = enc.condition(fact_given)
        fact_side = enc.condition if fact_constraint else enc.expr
        left = fact_side(fact_lhs)
        # The lemma was proven where its given's and lhs's divisors are
        # non-zero (prove() assumes both defined).
        premise = z3.And([premise] + [enc.z3(d) != 0
                                      for d in enc.divisors[first:]])
        right = fact_side(fact_rhs)
        equal = left == right if fact_constraint else enc.z3(left - right) == 0
        hypotheses.append(z3.Implies(premise, equal))
        del enc.divisors[first:]
    side = enc.condition if constraint else enc.expr
    lhs = side(lhs_tree)
    lhs_divisors = len(enc.divisors)
    rhs = side(rhs_tree)
    defined = [enc.z3(d) != 0 for d in enc.divisors[:lhs_divisors]]
    rhs_divisors = [enc.z3(d) for d in enc.divisors[lhs_divisors:]]
    if constraint:
        differ, lemmas = lhs != rhs, enc.lemmas()
    else:
        differ, lemmas = enc.z3(lhs - rhs) != 0, enc.lemmas(lhs - rhs)
    goals = []
    if rhs_divisors:
        goals.append(("a zero divisor on the right-hand side",
                      z3.Or([d == 0 for d in rhs_divisors])))
    goals.append(("lhs != rhs", differ))
    return ([given] + hypotheses + enc.defs + defined, lemmas, goals, enc, lhs,
            rhs)


def prove(given_text, lhs_text, rhs_text, rlimit, facts=()):
    """Returns (status, detail): status 'proven', 'refuted' (detail: the
    counterexample), or 'unknown'. facts: as encode() takes them."""
    given_tree = parse_condition(given_text)
    constraint = is_condition(lhs_text)
    parse = parse_condition if constraint else parse_expr
    lhs_tree, rhs_tree = parse(lhs_text), parse(rhs_text)
    names = sorted(names_of(given_tree, set()) | names_of(lhs_tree, set()) |
                   names_of(rhs_tree, set()))
    relaxed = encode(given_tree, lhs_tree, rhs_tree, constraint, True, facts)
    exact = encode(given_tree, lhs_tree, rhs_tree, constraint, False, facts)
    base, lemmas, goals, enc, lhs, rhs = exact
    for k, (what, negated) in enumerate(goals):
        # First with every product of atoms an atom of its own (linear
        # arithmetic, decided at once; unsat there is unsat here), then
        # the products as they are, with the quotient lemmas (valid for
        # all integers: they settle what z3's nonlinear reasoning rarely
        # finds on its own) and without (some queries go faster).
        rb, rl, rg, renc, _, _ = relaxed
        s, r = check(rb + rl + [rg[k][1]], rlimit)
        if r == z3.unsat:
            continue
        # The sign lemmas (Encoder.sign_lemmas) make the linear query
        # slower where they are not needed: tried second, briefly.
        rsign = renc.sign_lemmas()
        if rsign:
            s, r = check(rb + rl + rsign + [rg[k][1]], rlimit // 4)
            if r == z3.unsat:
                continue
        # A constraint obligation's lemmas have no goal to aim at: z3 goes
        # faster without them.
        tries = ([(lemmas, rlimit), ([], 4 * rlimit)] if not constraint else
                 [([], 4 * rlimit), (lemmas, rlimit)])
        # Last, with the sign lemmas of products by a symbolic divisor
        # too: they settle comparisons of multiples, and slow the other
        # queries down.
        sign = enc.sign_lemmas()
        if sign:
            tries.append((lemmas + sign, rlimit))
        for extra, limit in tries:
            s, r = check(base + extra + [negated], limit)
            if r == z3.unsat or r == z3.sat:
                break
        if r == z3.unsat:
            continue
        if r == z3.sat:
            m = s.model()
            values = ", ".join(
                "%s = %s" % (n, m.eval(enc.z3var(n), model_completion=True))
                for n in names)
            if constraint:
                lv, rv = (m.eval(lhs, model_completion=True),
                          m.eval(rhs, model_completion=True))
            else:
                lv, rv = (m.eval(enc.z3(lhs), model_completion=True),
                          m.eval(enc.z3(rhs), model_completion=True))
            return "refuted", "%s at %s (lhs = %s, rhs = %s)" % (what, values,
                                                                  lv, rv)
        return "unknown", "%s: z3 says %s" % (what, s.reason_unknown())
    return "proven", ""


# Lemmas for the proof plans below: each is proven for all integers (and
# printed) before the rules, as an obligation of its own (with a plan of
# its own, which may use the lemmas above it only); a plan then uses
# instances of it, its names replaced by expressions of the obligation.
LEMMAS = {
    # Nested floordivs by positive divisors merge (k = c1 * w: w is k / c1,
    # the witness of c1 | k).
    "nested_floordiv": {"given": "c1 > 0 && w > 0 && k == c1 * w",
                        "lhs": "(a floordiv c1) floordiv w",
                        "rhs": "a floordiv k"},
    # A factor common to the dividend and a positive divisor cancels.
    "cancel_factor": {"given": "c1 > 0 && w > 0 && k == c1 * w",
                      "lhs": "(a * c1) floordiv k",
                      "rhs": "a floordiv w"},
    # mod by a multiple of d, then by d, is mod by d.
    "mod_of_mod": {"given": "d > 0 && m == d * w",
                   "lhs": "(x mod m) mod d",
                   "rhs": "x mod d"},
    # A multiple of d leaves no remainder.
    "multiple_mod": {"given": "d > 0", "lhs": "(d * a) mod d", "rhs": "0"},
    # A value in [0, d) is its own remainder.
    "mod_small": {"given": "0 <= a && a < d", "lhs": "a mod d", "rhs": "a"},
    # lcm(m, n) = m * (n / gcd(m, n)).
    "lcm_multiple": {"given": "m > 0 && n > 0", "lhs": "lcm(m, n)",
                     "rhs": "m * (n floordiv gcd(m, n))"},
    "lcm_multiple_right": {"given": "m > 0 && n > 0", "lhs": "lcm(m, n)",
                           "rhs": "n * (m floordiv gcd(m, n))"},
    # A common multiple a of m and n is lcm(m, n) times u*(a/n) + v*(a/m),
    # u and v the Bezout coefficients of gcd(m, n): a*gcd = u*m*a + v*n*a
    # = m*n*(u*(a/n) + v*(a/m)), and m*n = gcd * lcm.
    "bezout_multiple": {
        "given": "m > 0 && n > 0 && a mod m == 0 && a mod n == 0",
        "lhs": "a",
        "rhs": "lcm(m, n) * (bezout_u(m, n) * (a floordiv n) + "
               "bezout_v(m, n) * (a floordiv m))"},
    # So lcm(m, n) divides every common multiple.
    "lcm_divides": {
        "given": "m > 0 && n > 0 && a mod m == 0 && a mod n == 0",
        "lhs": "a mod lcm(m, n)", "rhs": "0",
        "chain": ["(lcm(m, n) * (bezout_u(m, n) * (a floordiv n) + "
                  "bezout_v(m, n) * (a floordiv m))) mod lcm(m, n)"],
        "lemmas": [("bezout_multiple", {"m": "m", "n": "n", "a": "a"}),
                   ("multiple_mod", {
                       "d": "lcm(m, n)",
                       "a": "bezout_u(m, n) * (a floordiv n) + "
                            "bezout_v(m, n) * (a floordiv m)"})]},
    # Values that differ by a multiple of d are congruent modulo d.
    "difference_congruent": {"given": "d > 0 && (a - b) mod d == 0",
                             "lhs": "a mod d", "rhs": "b mod d",
                             "chain": ["((a - b) mod d + b) mod d"]},
    # Values congruent modulo d differ by a multiple of d.
    "congruent_difference": {"given": "d > 0 && a mod d == b mod d",
                             "lhs": "(a - b) mod d",
                             "rhs": "0",
                             "chain": ["(a mod d - b mod d) mod d"]},
}

# Obligations that z3 does not prove in one query, each with its proof:
# a chain lhs = e1 = ... = rhs (for a constraint rule lhs <=> e1 <=> ...)
# whose links z3 proves one by one under the obligation's given, every
# link with the listed lemma instances as hypotheses. Keyed by the rule
# and the obligation's text, so that a changed obligation loses its plan
# (and then fails unless z3 proves it alone).
PROOFS = {
    # x mod m = r and x mod n = s give r mod g = x mod g = s mod g for g =
    # gcd(m, n), which divides both moduli.
    ("constraint.merge_mod",
     "m > 0 && n > 0 && 0 <= r && r < m && 0 <= s && s < n && "
     "(r - s) mod gcd(m, n) != 0",
     "x mod m in [r, r] && x mod n in [s, s]", "false"): {
        "lemmas": [("mod_of_mod", {"d": "gcd(m, n)", "m": "m", "x": "x",
                                   "w": "m floordiv gcd(m, n)"}),
                   ("mod_of_mod", {"d": "gcd(m, n)", "m": "n", "x": "x",
                                   "w": "n floordiv gcd(m, n)"}),
                   ("congruent_difference", {"d": "gcd(m, n)", "a": "r",
                                             "b": "s"})],
    },
    # The Chinese remainder theorem: x agrees with t modulo m and modulo n
    # iff lcm(m, n) divides x - t (lcm_divides; lcm(m, n) is a multiple
    # of both), iff x mod lcm(m, n) = t (t is in [0, lcm(m, n))).
    ("constraint.merge_mod",
     "m > 0 && n > 0 && 0 <= r && r < m && 0 <= s && s < n && 0 <= t && "
     "t < lcm(m, n) && t mod m == r && t mod n == s",
     "x mod m in [r, r] && x mod n in [s, s]",
     "x mod lcm(m, n) in [t, t]"): {
        "chain": [
            ("(x - t) mod m == 0 && (x - t) mod n == 0",
             [("congruent_difference", {"d": "m", "a": "x", "b": "t"}),
              ("congruent_difference", {"d": "n", "a": "x", "b": "t"}),
              ("difference_congruent", {"d": "m", "a": "x", "b": "t"}),
              ("difference_congruent", {"d": "n", "a": "x", "b": "t"})]),
            ("(x - t) mod lcm(m, n) == 0",
             [("lcm_divides", {"m": "m", "n": "n", "a": "x - t"}),
              ("lcm_multiple", {"m": "m", "n": "n"}),
              ("lcm_multiple_right", {"m": "m", "n": "n"}),
              ("mod_of_mod", {"d": "m", "m": "lcm(m, n)", "x": "x - t",
                              "w": "n floordiv gcd(m, n)"}),
              ("mod_of_mod", {"d": "n", "m": "lcm(m, n)", "x": "x - t",
                              "w": "m floordiv gcd(m, n)"}),
              ("mod_small", {"a": "(x - t) mod lcm(m, n)", "d": "m"}),
              ("mod_small", {"a": "(x - t) mod lcm(m, n)", "d": "n"})]),
        ],
        "last": [("mod_small", {"a": "t", "d": "lcm(m, n)"}),
                 ("congruent_difference", {"d": "lcm(m, n)", "a": "x",
                                           "b": "t"}),
                 ("difference_congruent", {"d": "lcm(m, n)", "a": "x",
                                           "b": "t"})],
    },
    # floordiv.of_mod read backwards inside, then the nested floordivs
    # merge.
    ("floordiv.of_mod_of_div", "c1 > 0 && m > 0 && k > 0",
     "((a floordiv c1) mod m) floordiv k",
     "(a mod (c1 * m)) floordiv (c1 * k)"): {
        "chain": ["((a mod (c1 * m)) floordiv c1) floordiv k"],
    },
    # With Z = a + b*c1 + c2*c1 and k = c1*w: the dividend is c1*(Z
    # floordiv c1), the factor c1 cancels against k, and the nested
    # floordivs merge.
    ("floordiv.of_rounded", "c1 > 0 && k > 0 && k mod c1 == 0",
     "((a floordiv c1) * c1 + b * c1 + c2 * c1) floordiv k",
     "(a + b * c1 + c2 * c1) floordiv k"): {
        "chain": ["(((a + b * c1 + c2 * c1) floordiv c1) * c1) floordiv k",
                  "((a + b * c1 + c2 * c1) floordiv c1) floordiv "
                  "(k floordiv c1)"],
        "lemmas": [("cancel_factor", {
                        "a": "(a + b * c1 + c2 * c1) floordiv c1",
                        "c1": "c1", "k": "k", "w": "k floordiv c1"}),
                   ("nested_floordiv", {"a": "a + b * c1 + c2 * c1",
                                        "c1": "c1", "k": "k",
                                        "w": "k floordiv c1"})],
    },
}


def replace_names(tree, trees):
    if tree[0] == "var" and tree[1] in trees:
        return trees[tree[1]]
    return tuple(replace_names(c, trees) if isinstance(c, tuple) else c
                 for c in tree)


def lemma_instance(name, binding):
    """The (given, lhs, rhs, constraint) trees of LEMMAS[name] with each of
    its names replaced by the expression that binding gives it."""
    lemma = LEMMAS[name]
    constraint = is_condition(lemma["lhs"])
    parse = parse_condition if constraint else parse_expr
    trees = [parse_condition(lemma["given"]), parse(lemma["lhs"]),
             parse(lemma["rhs"])]
    names = set()
    for t in trees:
        names_of(t, names)
    if names != set(binding):
        raise ParseError("lemma %s binds %s, not %s" %
                         (name, sorted(binding), sorted(names)))
    values = {n: parse_expr(text) for n, text in binding.items()}
    return tuple(replace_names(t, values) for t in trees) + (constraint,)


def prove_planned(given, lhs, rhs, plan, rlimit):
    """Proves lhs = rhs under given by the plan's chain, each link with the
    plan's lemma instances: (status, detail) as prove() returns them, the
    detail of a failure naming the link."""
    facts = [lemma_instance(n, b) for n, b in plan.get("lemmas", [])]
    # A chain entry is the next expression, or (it, the lemma instances
    # for the link to it only); "last": those of the link to rhs.
    steps = [e if isinstance(e, tuple) else (e, [])
             for e in plan.get("chain", [])]
    chain = [lhs] + [e for e, _ in steps] + [rhs]
    own = [[lemma_instance(n, b) for n, b in l]
           for l in [l for _, l in steps] + [plan.get("last", [])]]
    for k in range(len(chain) - 1):
        status, detail = prove(given, chain[k], chain[k + 1], rlimit,
                               facts + own[k])
        if status != "proven":
            return status, "link %s  ~  %s: %s" % (chain[k], chain[k + 1],
                                                   detail)
    return "proven", ""


def lemmas_used(plan):
    steps = [e for e in plan.get("chain", []) if isinstance(e, tuple)]
    return {n for n, _ in plan.get("lemmas", []) + plan.get("last", []) +
            [i for _, l in steps for i in l]}


def prove_lemmas(rlimit, verbose):
    failures = 0
    for k, (name, lemma) in enumerate(LEMMAS.items()):
        # A lemma proven with itself or a later one could be circular.
        later = lemmas_used(lemma) - set(list(LEMMAS)[:k])
        if later:
            failures += 1
            print("FAIL lemma %s: its proof uses %s, not proven above it" %
                  (name, ", ".join(sorted(later))))
            continue
        t0 = time.time()
        status, detail = prove_planned(lemma["given"], lemma["lhs"],
                                       lemma["rhs"], lemma, rlimit)
        text = "lemma %s: %s => %s  ~  %s" % (name, lemma["given"] or "true",
                                             lemma["lhs"], lemma["rhs"])
        if status != "proven":
            failures += 1
            print("FAIL %s\n     %s: %s" % (text, status, detail))
        elif verbose:
            print("ok   %s (%.2f s)" % (text, time.time() - t0))
    if not failures:
        print("prove_rules.py: %d lemmas proven for all integers: %s" %
              (len(LEMMAS), ", ".join(LEMMAS)))
    return failures


def substitute(tree, values):
    if tree[0] == "var" and tree[1] in values:
        return ("int", values[tree[1]])
    return tuple(substitute(c, values) if isinstance(c, tuple) else c
                 for c in tree)


def evaluate(tree):
    """The value of a tree without names (None: a zero divisor)."""
    kind = tree[0]
    if kind == "int":
        return tree[1]
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "neg":
        v = evaluate(tree[1])
        return None if v is None else -v
    if kind == "cmp":
        a, b = evaluate(tree[2]), evaluate(tree[3])
        if a is None or b is None:
            return None
        return {"==": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b,
                "<": a < b, ">": a > b}[tree[1]]
    a, b = evaluate(tree[1]), evaluate(tree[2])
    if a is None or b is None:
        return None
    if kind in ("and", "or"):
        return (a and b) if kind == "and" else (a or b)
    if kind in ("floordiv", "ceildiv", "mod") and b == 0:
        return None
    # Python's // is floor division for either sign, and its % is
    # a - b * (a // b): ixa's semantics.
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "floordiv":
        return a // b
    if kind == "ceildiv":
        return -((-a) // b)
    if kind == "mod":
        return a % b
    if kind in ("min", "max"):
        return min(a, b) if kind == "min" else max(a, b)
    if kind not in ("gcd", "lcm"):
        raise ValueError("%s has no value of its own" % kind)
    g = math.gcd(a, b)
    return g if kind == "gcd" else (abs(a * b) // g if g else 0)


def conjuncts(tree):
    if tree[0] == "and":
        return conjuncts(tree[1]) + conjuncts(tree[2])
    return [tree]


def prove_bounded(given_text, lhs_text, rhs_text, rlimit, bound, max_cases):
    """Proves the obligation for the values in [-bound, bound] of the
    constants of its left-hand side (all of them, or a fixed sample of
    20000 where there are more), smallest first, at most max_cases
    assignments that satisfy the given (the other names stay symbolic;
    the arithmetic is then mostly linear)."""
    given_tree = parse_condition(given_text)
    constraint = is_condition(lhs_text)
    parse = parse_condition if constraint else parse_expr
    lhs_tree, rhs_tree = parse(lhs_text), parse(rhs_text)
    fixed = sorted(n for n in names_of(lhs_tree, set())
                   if n not in EXPRESSION_NAMES)
    cases = 0
    # The smallest values first, at most max_cases assignments that the
    # given allows.
    values_range = range(-bound, bound + 1)
    if len(values_range) ** len(fixed) <= 20000:
        combos = list(itertools.product(values_range, repeat=len(fixed)))
    else:
        # Too many to list: a fixed sample of them.
        rng = random.Random(len(fixed))
        combos = [tuple(rng.choice(values_range) for _ in fixed)
                  for _ in range(20000)]
    combos.sort(key=lambda v: (max(map(abs, v), default=0), v))
    for values in combos:
        if cases == max_cases:
            break
        env = dict(zip(fixed, values))
        g = substitute(given_tree, env)
        if any(names_of(c, set()) == set() and evaluate(c) is not True
               for c in conjuncts(g)):
            continue  # the given does not hold for these constants
        lhs, rhs = substitute(lhs_tree, env), substitute(rhs_tree, env)
        base, lemmas, goals, enc, _, _ = encode(g, lhs, rhs, constraint,
                                                False)
        relaxed = encode(g, lhs, rhs, constraint, True)
        for k, (what, negated) in enumerate(goals):
            s, res = check(relaxed[0] + relaxed[1] + [relaxed[2][k][1]],
                           rlimit)
            if res == z3.unsat:
                continue
            s, res = check(base + lemmas + [negated], rlimit)
            if res != z3.unsat and res != z3.sat:
                s, res = check(base + [negated], 4 * rlimit)
            if res == z3.unsat:
                continue
            where = ", ".join("%s = %d" % kv for kv in env.items())
            if res == z3.sat:
                m = s.model()
                more = ", ".join(
                    "%s = %s" % (n, m.eval(enc.z3var(n),
                                           model_completion=True))
                    for n in sorted(names_of(g, set()) | names_of(lhs, set())
                                    | names_of(rhs, set())))
                return "refuted", "%s at %s, %s" % (what, where, more)
            return "unknown", "%s at %s: z3 says %s" % (what, where,
                                                        s.reason_unknown())
        cases += 1
    return "bounded", "%d cases of %s in [%d, %d], smallest first" % (
        cases, ", ".join(fixed), -bound, bound)


# Obligations with a known answer: the prover must refute the false ones
# (with a counterexample) and prove the true ones.
SELF_TEST = [
    # A sign flipped: floordiv.negative_divisor without the minus.
    ("refuted", "n < -1", "a floordiv n", "a floordiv (-n)"),
    # XLA's counterexample: two floordiv terms do not fold.
    ("refuted", "m > 0 && n > 1", "(x floordiv m + y floordiv m) floordiv n",
     "(x + y) floordiv (m * n)"),
    # SMT-LIB's Euclidean mod differs from ixa's for a negative divisor.
    ("refuted", "", "7 mod -2", "1"),
    ("proven", "", "7 mod -2", "-1"),
    ("proven", "", "-7 floordiv 2", "-4"),
    ("proven", "", "-7 ceildiv 2", "-3"),
    ("refuted", "n > 0", "a floordiv n", "a ceildiv n"),
    # A right-hand side that divides by zero where the left does not.
    ("refuted", "n > 0", "a - a", "a mod (n - n)"),
    # A constraint rule with a wrong end.
    ("refuted", "n > 0", "a floordiv n in [l, u]", "a in [l * n, u * n]"),
    ("proven", "n > 0", "a floordiv n in [l, u]",
     "a in [l * n, u * n + n - 1]"),
    # gcd and lcm of symbolic constants.
    ("refuted", "m > 0 && n > 0", "lcm(m, n)", "m * n"),
    ("refuted", "m > 0 && n > 0", "gcd(m, n)", "1"),
    ("proven", "m == 6 && n == -4", "lcm(m, n) + gcd(m, n)", "14"),
]

# A proof plan with a false link must not prove its obligation.
SELF_TEST_PLAN = ("n > 0", "a floordiv n", "a ceildiv n",
                  {"chain": ["(a + n - 1) floordiv n"],
                   "lemmas": [("nested_floordiv", {"a": "a", "c1": "n",
                                                   "k": "n", "w": "1"})]})


def run_self_test(rlimit):
    failures = 0
    for expected, given, lhs, rhs in SELF_TEST:
        status, detail = prove(given, lhs, rhs, rlimit)
        if status != expected:
            failures += 1
            print("SELF-TEST FAILED: %s => %s = %s: expected %s, got %s %s" %
                  (given or "true", lhs, rhs, expected, status, detail))
    status, detail = prove_planned(*SELF_TEST_PLAN, rlimit)
    if status != "refuted":
        failures += 1
        print("SELF-TEST FAILED: a plan with a false link: %s %s" %
              (status, detail))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ixa")
    ap.add_argument("--rlimit", type=int, default=2000000,
                    help="z3's resource limit per query (deterministic, "
                    "unlike a timeout)")
    ap.add_argument("--only", help="prove this rule's obligations only")
    ap.add_argument("--bound", type=int, default=4,
                    help="where z3 cannot prove an obligation for all "
                    "integers, prove it for every constant of its "
                    "left-hand side in [-BOUND, BOUND]")
    ap.add_argument("--max-cases", type=int, default=40,
                    help="at most this many constant assignments per "
                    "bounded obligation")
    ap.add_argument("--no-bounded", action="store_true",
                    help="fail instead of proving bounded")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    start = time.time()
    try:
        out = subprocess.run([args.ixa, "rules", "--json"], check=True,
                             capture_output=True, text=True).stdout
        rules = [json.loads(line) for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print("prove_rules.py: cannot read `%s rules --json`: %s" %
              (args.ixa, e), file=sys.stderr)
        return 2
    failures = run_self_test(args.rlimit)
    if failures:
        print("prove_rules.py: the prover's self-test failed")
        return 1
    failures = prove_lemmas(args.rlimit, args.verbose)
    total = proven = by_plan = 0
    bounded = []
    planned = set()
    for rule in rules:
        rid = rule["rule"]
        if args.only and rid != args.only:
            continue
        if not rule["obligations"]:
            failures += 1
            print("FAIL %s: no obligation (simplifier/rule_obligations.cc)" %
                  rid)
            continue
        for o in rule["obligations"]:
            total += 1
            t0 = time.time()
            key = (rid, o["given"], o["lhs"], o["rhs"])
            plan = PROOFS.get(key)
            try:
                if plan is None:
                    status, detail = prove(o["given"], o["lhs"], o["rhs"],
                                           args.rlimit)
                else:
                    planned.add(key)
                    status, detail = prove_planned(o["given"], o["lhs"],
                                                   o["rhs"], plan, args.rlimit)
            except ParseError as e:
                status, detail = "unreadable", str(e)
            text = "%s: %s => %s  ~  %s" % (rid, o["given"] or "true",
                                            o["lhs"], o["rhs"])
            if status == "unknown" and not args.no_bounded:
                first = detail
                status, detail = prove_bounded(o["given"], o["lhs"], o["rhs"],
                                               args.rlimit, args.bound,
                                               args.max_cases)
                if status == "bounded":
                    bounded.append("%s (symbolic: %s; %s)" %
                                   (text, first, detail))
                    continue
            if status == "proven":
                proven += 1
                by_plan += plan is not None
                if args.verbose:
                    print("ok   %s (%.2f s)" % (text, time.time() - t0))
                continue
            failures += 1
            print("FAIL %s\n     %s: %s" % (text, status, detail))
    if not args.only:
        for key in PROOFS:
            if key not in planned:
                failures += 1
                print("FAIL a proof plan for an obligation that %s does not "
                      "list (changed?): %s: %s => %s  ~  %s" %
                      ((args.ixa,) + key))
    for b in bounded:
        print("BOUNDED %s" % b)
    print("prove_rules.py: %d rules, %d obligations, %d proven for all "
          "integers (%d by a proof plan), %d proven for bounded constants, "
          "%d failed (%.1f s)" %
          (len(rules), total, proven, by_plan, len(bounded), failures,
           time.time() - start))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
