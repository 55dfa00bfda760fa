"""IREE #iree_vector_ext.nested_layout cases: the worked examples of
VectorExtAttrs.td and the gpu_nested_layout_vector_distribution lit tests
(docs/hw-reference.md §2.4), and random layouts; ixa's `nested_layout`
against a brute-force model of the distribution:

  x_i = ((((vsg_i*B_i + b_i)*O_i + o_i)*T_i + vt_i)*E_i + e_i
  vsg_i = (sg floordiv ss_i) mod S_i, vt_i = (lane floordiv ts_i) mod T_i
  (0 where the stride is 0; IREE sets the stride of a size-1 tile to 0)

lanes are [0, subgroup_size) (default prod(T)); virtual subgroup ids are
[0, max(H, V)), V = max(prod(S), 1 + sum ss_i*(S_i-1)), and run on
hardware subgroup id mod H (H = num_subgroups, default V).
"""
import itertools

from hw_ref.mapeval import Map

FIELDS = ["subgroup_tile", "batch_tile", "outer_tile", "thread_tile",
          "element_tile", "subgroup_strides", "thread_strides"]


def prod(v):
    p = 1
    for x in v:
        p *= x
    return p


class Nested:
    def __init__(self, S, B, O, T, E, ss, ts, subgroup_size=0, num_subgroups=0):
        self.S, self.B, self.O, self.T, self.E = S, B, O, T, E
        self.ss = [0 if s == 1 else d for s, d in zip(S, ss)]
        self.ts = [0 if t == 1 else d for t, d in zip(T, ts)]
        self.raw = (list(ss), list(ts))
        self.r = len(S)
        self.lanes = subgroup_size or prod(T)
        span = max(prod(S), 1 + sum(d * (s - 1) for s, d in zip(S, self.ss)))
        self.H = num_subgroups or span
        self.sg_range = max(self.H, span)
        self.subgroup_size, self.num_subgroups = subgroup_size, num_subgroups

    def request(self):
        req = {"op": "nested_layout"}
        vals = [self.S, self.B, self.O, self.T, self.E, self.raw[0], self.raw[1]]
        for f, v in zip(FIELDS, vals):
            req[f] = list(v)
        if self.subgroup_size:
            req["subgroup_size"] = self.subgroup_size
        if self.num_subgroups:
            req["num_subgroups"] = self.num_subgroups
        return req

    def shape(self):
        return [s * b * o * t * e for s, b, o, t, e in
                zip(self.S, self.B, self.O, self.T, self.E)]

    def x(self, sg, lane, b, o, e):
        out = []
        for i in range(self.r):
            vsg = (sg // self.ss[i]) % self.S[i] if self.ss[i] else 0
            vt = (lane // self.ts[i]) % self.T[i] if self.ts[i] else 0
            out.append(((((vsg * self.B[i] + b[i]) * self.O[i] + o[i]) * self.T[i] + vt)
                        * self.E[i] + e[i]))
        return out

    def registers(self):
        """(b, o, e) in row-major order over B ++ O ++ E."""
        for p in itertools.product(*[range(n) for n in self.B + self.O + self.E]):
            yield p[:self.r], p[self.r:2 * self.r], p[2 * self.r:]

    def elements(self, sg, lane):
        return [self.x(sg, lane, b, o, e) for b, o, e in self.registers()]

    def owners(self, element):
        """Brute force: every (hardware subgroup, lane) some register of
        which holds `element`."""
        out = set()
        regs = list(self.registers())
        for v in range(self.sg_range):
            for lane in range(self.lanes):
                if any(self.x(v, lane, b, o, e) == element for b, o, e in regs):
                    out.add((v % self.H, lane))
        return sorted([list(p) for p in out])


KNOWN = [
    # docs/hw-reference.md §2.4, nl-01..03: subgroup 1, lane 17 of example 1.
    (Nested([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16]),
     {"shape": [64, 64], "subgroup": 1, "thread": 17}),
    (Nested([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16], 64, 4),
     {"element": [40, 13]}),  # nl-04: owners (1,56) and (3,56)
    (Nested([2, 1], [2, 4], [1, 1], [16, 4], [1, 4], [1, 0], [1, 16]),
     {"subgroup": 0, "thread": 0}),  # nl-05
    (Nested([1, 1], [1, 2], [1, 1], [4, 8], [4, 1], [0, 0], [8, 1]),
     {"subgroup": 0, "thread": 13}),  # nl-06 col-major transfer_read
    (Nested([2], [1], [1], [16], [4], [1], [1], 64),
     {"subgroup": 1, "thread": 6}),  # nl-07 wave64: elements 88..91
    (Nested([4, 2], [1, 1], [1, 1], [1, 1], [1, 1], [1, 4], [0, 0]),
     {"element": [1, 1]}),  # nl-08 subgroup order 0,4,1,5,...
    (Nested([1, 1], [1, 1], [2, 1], [2, 5], [1, 1], [0, 0], [5, 1]),
     {"subgroup": 0, "thread": 7}),  # nl-09: (1,2) and (3,2)
    (Nested([1, 1], [1, 1], [1, 1], [4, 8], [1, 1], [0, 0], [1, 16], 64),
     {"element": [2, 1]}),  # nl-11: lanes 18, 22, 26, 30
    (Nested([1, 1], [1, 1], [1, 1], [4, 8], [1, 1], [0, 0], [1, 16], 64),
     {"element": [2, 5]}),  # nl-12: no owner
    (Nested([4], [1], [1], [2], [1], [1], [1], 0, 2), {"element": [5]}),
]
EXPECTED = {
    0: {"distributed_shape": [2, 4, 1, 1, 1, 4]},
    1: {"owners": [[1, 56], [3, 56]]},
    4: {"elements": [[88], [89], [90], [91]]},
    6: {"elements": [[1, 2], [3, 2]]},
    7: {"owners": [[0, 18], [0, 22], [0, 26], [0, 30]]},
    8: {"owners": []},
}


def judge_factory(n, extra, expected=None):
    def judge(resp):
        if not resp.get("ok"):
            return "ixa rejects: %s" % resp["error"]
        if resp["distributed_shape"] != n.B + n.O + n.E:
            return "distributed_shape %s" % resp["distributed_shape"]
        if resp["vector_shape"] != n.shape():
            return "vector_shape %s, reference %s" % (resp["vector_shape"], n.shape())
        if "shape" in extra:
            bad = [i for i, (a, b) in enumerate(zip(extra["shape"], n.shape())) if a != b]
            if resp.get("valid") != (not bad) or resp.get("mismatched_dims") != bad:
                return "shape check %s/%s, reference %s" % (
                    resp.get("valid"), resp.get("mismatched_dims"), bad)
        m = Map(resp["map"])
        if m.bounds.get(m.dims[0]) != (0, n.sg_range - 1) or \
                m.bounds.get(m.dims[1]) != (0, n.lanes - 1):
            return "map id bounds %s, expected subgroup < %d, lane < %d" % (
                m.bounds, n.sg_range, n.lanes)
        regs = list(n.registers())
        step_sg = max(1, n.sg_range // 4)
        step_lane = max(1, n.lanes // 8)
        for sg in range(0, n.sg_range, step_sg):
            for lane in range(0, n.lanes, step_lane):
                for b, o, e in regs[:16]:
                    got = m([sg, lane], list(b) + list(o) + list(e))
                    want = n.x(sg, lane, b, o, e)
                    if got != want:
                        return "map at sg %d lane %d regs %s: %s, reference %s" % (
                            sg, lane, (b, o, e), got, want)
        if "subgroup" in extra:
            want = n.elements(extra["subgroup"], extra["thread"])
            if resp.get("elements") != want:
                return "elements %s, reference %s" % (resp.get("elements"), want)
        if "element" in extra:
            want = n.owners(extra["element"])
            if resp.get("owners") != want:
                return "owners %s, reference %s" % (resp.get("owners"), want)
        for key, value in (expected or {}).items():
            if resp.get(key) != value:
                return "%s %s, documented %s" % (key, resp.get(key), value)
        return None
    return judge


def rand_nested(rng):
    while True:
        r = rng.randint(1, 3)
        pick = lambda: [rng.choice([1, 1, 2, 2, 3, 4]) for _ in range(r)]  # noqa: E731
        S, B, O, T, E = pick(), pick(), pick(), pick(), pick()

        def strides(tiles):
            if rng.random() < 0.6:  # compact, in a random order, maybe gapped
                order = list(range(r))
                rng.shuffle(order)
                out, cur = [0] * r, 1
                for k in order:
                    out[k] = cur
                    cur *= tiles[k] * rng.choice([1, 1, 1, 2])
                return out
            return [rng.choice([0, 1, 2, 3, 4, 8]) for _ in range(r)]
        ss, ts = strides(S), strides(T)
        sgs = rng.choice([0, 0, prod(T), 8, 16, rng.randint(1, 40)])
        nsg = rng.choice([0, 0, 0, 1, 2, 3, 4, 8])
        n = Nested(S, B, O, T, E, ss, ts, sgs, nsg)
        if n.sg_range * n.lanes * prod(B + O + E) <= 20000 and prod(B + O + E) <= 256:
            return n


def build(rng, count):
    cases = []
    for k, (n, extra) in enumerate(KNOWN):
        req = n.request()
        req.update(extra)
        cases.append((req, judge_factory(n, extra, EXPECTED.get(k))))
    for _ in range(count):
        n = rand_nested(rng)
        extra = {}
        if rng.random() < 0.5:
            shape = n.shape()
            if rng.random() < 0.5:
                shape[rng.randrange(n.r)] += 1
            extra["shape"] = shape
        if rng.random() < 0.7:
            extra["subgroup"] = rng.randrange(n.sg_range)
            extra["thread"] = rng.randrange(n.lanes)
        if rng.random() < 0.7:
            extra["element"] = [rng.randrange(d) for d in n.shape()]
        req = n.request()
        req.update(extra)
        cases.append((req, judge_factory(n, extra)))
    # Malformed: rank mismatch, zero tile, negative stride, ids out of range.
    base = KNOWN[0][0].request()
    bad = [dict(base, batch_tile=[2]), dict(base, thread_tile=[0, 4]),
           dict(base, thread_strides=[-1, 16]), dict(base, subgroup=2, thread=0),
           dict(base, subgroup=0, thread=64), dict(base, element=[64, 0]),
           dict(base, element=[1])]
    for req in bad:
        cases.append((req, lambda r: None if not r.get("ok") and
                      r["error"]["code"] == "invalid_argument" else "expected invalid_argument"))
    return cases
