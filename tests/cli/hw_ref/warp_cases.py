"""warp_access cases: a direct simulation of one warp request. Every active
(lane, symbols) point of the map touches element_bytes bytes at
offset * element_bytes; sectors / lines are the distinct sector_bytes /
line_bytes blocks (floor division, also below 0), useful bytes the distinct
bytes. Shared memory: a phase serves banks*bank_bytes bytes' worth of
lanes (lanes / phase = that / max(element_bytes, bank_bytes): half a warp
for 8-byte, a quarter for 16-byte accesses); bank = word mod banks over
every word an access overlaps; the degree is the most distinct words on
one bank in any phase (one word read by many lanes is a broadcast).
docs/hw-reference.md §5 worked examples are the known cases."""
from hw_ref.mapeval import Map

H100 = {"warp_size": 32, "sector_bytes": 32, "line_bytes": 128, "smem_banks": 32,
        "bank_bytes": 4}

KNOWN = [  # (map, element_bytes, memory, device, expected fields)
    ("(d0) -> (d0), domain: d0 in [0, 31]", 4, "global", None,
     {"sectors": 4, "lines": 1}),
    ("(d0) -> (d0 * 2), domain: d0 in [0, 31]", 4, "global", None, {"sectors": 8, "lines": 2}),
    ("(d0) -> (d0 * 32), domain: d0 in [0, 31]", 4, "global", None,
     {"sectors": 32, "lines": 32}),
    ("(d0) -> (d0 + 1), domain: d0 in [0, 31]", 4, "global", None, {"sectors": 5, "lines": 2}),
    ("(d0) -> (d0), domain: d0 in [0, 31]", 2, "global", None, {"sectors": 2, "lines": 1}),
    ("(d0) -> (d0), domain: d0 in [0, 31]", 16, "global", None, {"sectors": 16, "lines": 4}),
    ("(d0) -> (d0 * 32), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 32}),
    ("(d0) -> (d0 * 33), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 1}),
    ("(d0) -> (d0 * 2), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 2}),
    ("(d0) -> (d0 * 6), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 2}),
    ("(d0) -> (0), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 1}),
    ("(d0) -> (d0), domain: d0 in [0, 31]", 8, "shared", None, {"bank_conflict_ways": 1}),
    ("(d0) -> (d0 * 3), domain: d0 in [0, 31]", 1, "shared", None, {}),
    ("(d0) -> (d0), domain: d0 in [0, 31]", 3, "shared", None, {}),
    ("(d0) -> (d0 * 7 - 40), domain: d0 in [0, 31]", 7, "shared", None, {}),
    ("(d0) -> (d0 - 16), domain: d0 in [0, 31]", 4, "shared", None, {"bank_conflict_ways": 1}),
]


def simulate(m, eb, memory, dev):
    dev = dict(H100, **(dev or {}))
    lo, hi = m.bounds.get(m.dims[0], (0, dev["warp_size"] - 1))
    lanes = range(max(lo, 0), min(hi, dev["warp_size"] - 1) + 1)
    syms = [range(m.bounds[s][0], m.bounds[s][1] + 1) for s in m.symbols]
    points = []
    for lane in lanes:
        for sv in _product(syms):
            if m.in_domain([lane], sv):
                points.append((lane, m([lane], sv)[0]))
    nbytes, sectors, lines = set(), set(), set()
    for lane, off in points:
        for b in range(off * eb, off * eb + eb):
            nbytes.add(b)
            sectors.add(b // dev["sector_bytes"])
            lines.add(b // dev["line_bytes"])
    out = {"sectors": len(sectors), "lines": len(lines), "useful_bytes": len(nbytes),
           "efficiency": len(nbytes) / (len(sectors) * dev["sector_bytes"]) if sectors else 0}
    if memory == "shared":
        bb, banks = dev["bank_bytes"], dev["smem_banks"]
        per_phase = max(1, banks * bb // max(eb, bb))
        ways = 0
        phases = {}
        for lane, off in points:
            start = off * eb
            for w in range(start // bb, (start + eb - 1) // bb + 1):
                phases.setdefault(lane // per_phase, {}).setdefault(w % banks, set()).add(w)
        for by_bank in phases.values():
            for words in by_bank.values():
                ways = max(ways, len(words))
        out["bank_conflict_ways"] = ways
    return out


def _product(ranges):
    if not ranges:
        yield []
        return
    for v in ranges[0]:
        for rest in _product(ranges[1:]):
            yield [v] + rest


def judge_factory(map_text, eb, memory, dev, expected):
    m = Map(map_text)
    want = simulate(m, eb, memory, dev)

    def judge(resp):
        if not resp.get("ok"):
            return "ixa rejects: %s" % resp["error"]
        for key, value in want.items():
            got = resp.get(key)
            if key == "efficiency":
                if got is None or abs(got - value) > 1e-9:
                    return "efficiency %s, reference %s" % (got, value)
            elif got != value:
                return "%s %s, reference %s (all: %s)" % (key, got, value, want)
        for key, value in expected.items():
            if want[key] != value:
                return "reference %s %s, documented %s" % (key, want[key], value)
        return None
    return judge


def request(map_text, eb, memory, dev):
    req = {"op": "warp_access", "map": map_text, "element_bytes": eb}
    if memory != "global" or dev:
        req["memory"] = memory
    if dev:
        req["device"] = dict(H100, **dev)
    return req


def rand_expr(rng):
    a = rng.choice([0, 1, 1, 2, 3, 4, 8, 16, 17, 32, 33, 64, -1, -4])
    kind = rng.randrange(6)
    if kind == 0:
        return "d0 * %d + %d" % (a, rng.randint(-40, 40))
    if kind == 1:
        k = rng.choice([2, 4, 8, 16])
        return "(d0 floordiv %d) * %d + (d0 mod %d) * %d" % (
            k, rng.choice([1, 8, 32, 33, 64, 128]), k, rng.choice([1, 2, 4, 32]))
    if kind == 2:
        return "d0 * %d + s0 * %d" % (a, rng.choice([1, 2, 8, 32, 64]))
    if kind == 3:
        return "((d0 + %d) mod %d) * %d" % (rng.randint(0, 7), rng.choice([4, 8, 16, 32]), a)
    if kind == 4:
        return "d0 floordiv %d + s0 * %d" % (rng.choice([2, 4, 8]), rng.choice([1, 4, 32]))
    return "(d0 * %d) mod %d + (d0 floordiv 8) * %d" % (
        rng.choice([1, 3, 5, 9]), rng.choice([8, 32, 64]), rng.choice([0, 8, 64, 65]))


def rand_case(rng):
    expr = rand_expr(rng)
    syms = "[s0]" if "s0" in expr else ""
    lo = rng.choice([0, 0, 0, 4])
    hi = rng.choice([31, 31, 31, 15, 63, 40])
    dom = "d0 in [%d, %d]" % (lo, hi)
    if syms:
        dom += ", s0 in [0, %d]" % rng.choice([0, 1, 3, 7])
    if rng.random() < 0.2:
        dom += ", d0 mod %d in [0, 0]" % rng.choice([2, 3, 4])
    map_text = "(d0)%s -> (%s), domain: %s" % (syms, expr, dom)
    eb = rng.choice([1, 2, 4, 4, 4, 8, 16, 3, 6, 12, 64, 100])
    memory = rng.choice(["global", "shared", "shared"])
    dev = rng.choice([None, None, {"warp_size": 64, "sector_bytes": 64},
                      {"smem_banks": 64}, {"bank_bytes": 8}, {"warp_size": 16},
                      {"smem_banks": 7, "sector_bytes": 24, "line_bytes": 96},
                      {"smem_banks": 1000}])
    return map_text, eb, memory, dev


def build(rng, count):
    cases = []
    for map_text, eb, memory, dev, expected in KNOWN:
        cases.append((request(map_text, eb, memory, dev),
                      judge_factory(map_text, eb, memory, dev, expected)))
    for _ in range(count):
        map_text, eb, memory, dev = rand_case(rng)
        cases.append((request(map_text, eb, memory, dev),
                      judge_factory(map_text, eb, memory, dev, {})))
    return cases
