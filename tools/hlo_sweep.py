#!/usr/bin/env python3
"""Sweeps HLO modules through every HLO op of `ixa query`.

  tools/hlo_sweep.py [--ixa build/bin/ixa] [--timeout S] [--all] PATH...

PATH is an .hlo/.txt file or a directory of them (XLA dumps, the corpus in
tests/analysis/hlo_corpus). For each module it asks `indexing` of every
instruction (output to input for every output, input to output for every
operand, and with physical_layout), `fusion_indexing` (plain, with
all_instructions and group_by_producer), `partition`, `thread_indexing`,
`coalescing` (also over tiles), `utilization`, `fusion_cost`, `tile` and
`emit` (cpp) of the default region, every fusion and every computation, and
`fusion_decision` / two-instruction groups over the entry's edges.

A response is a problem when the process crashes or hangs (a batch is then
retried request by request to name the culprit), when the answer is an
`internal` error, or a `parse_error` (the modules are meant to be valid).
Other errors are counted by kind (with --all, every one is listed): valid
modules may still get `unsupported` or `limit_exceeded` where the engine
has no answer, but never instead of a per-operand `unknown`.
Exit status 1 when there are problems.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

NAME = re.compile(r'^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=', re.M)
TUPLE = re.compile(r'^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*\(', re.M)
FUSION = re.compile(r'^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=.*?\bfusion\(', re.M)
COMPUTATION = re.compile(
    r'^\s*(?:ENTRY\s+)?%?([\w.\-]+)\s*(?:\([^)]*\)\s*->.*)?\{\s*$', re.M)
ENTRY_DEF = re.compile(
    r'^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(\S+)\s+([\w\-]+)\((.*)$', re.M)
ARRAY = r'%?{}\s*=\s*[a-z0-9]+\[([^\]]*)\]'


def run(ixa, requests, timeout):
    """(responses, failure): failure is None, 'timeout' or a crash note."""
    data = ''.join(json.dumps(r) + '\n' for r in requests)
    try:
        p = subprocess.run([ixa, 'query', '-'], input=data, text=True,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], 'timeout after %s s' % timeout
    lines = p.stdout.splitlines()
    if p.returncode not in (0, 1) or len(lines) != len(requests):
        return lines, 'exit %d: %s' % (p.returncode, p.stderr[-500:])
    return [json.loads(line) for line in lines], None


def first_requests(text):
    base = {'hlo': text}
    names = list(dict.fromkeys(NAME.findall(text)))
    tuples = set(TUPLE.findall(text))
    reqs = [dict(base, op='indexing')]
    for n in names:
        reqs.append(dict(base, op='indexing', instruction=n))
        reqs.append(dict(base, op='indexing', instruction=n,
                         physical_layout=True))
        if n in tuples:
            for j in range(1, 4):
                reqs.append(dict(base, op='indexing', instruction=n, output=j))
    return reqs


def second_requests(text, first, answers):
    base = {'hlo': text}
    reqs = []
    for q, r in zip(first, answers):
        if 'instruction' not in q or 'output' in q or not r.get('ok'):
            continue
        for e in r.get('operands', []):
            reqs.append(dict(base, op='indexing', instruction=q['instruction'],
                             direction='input_to_output',
                             operand=e['operand']))
    fusions = list(dict.fromkeys(FUSION.findall(text)))
    computations = [c for c in dict.fromkeys(COMPUTATION.findall(text))
                    if c not in fusions]
    for target in [None] + fusions + computations:
        where = {} if target is None else {'fusion': target}
        for op in ['fusion_indexing', 'partition', 'thread_indexing',
                   'coalescing', 'utilization', 'fusion_cost']:
            reqs.append(dict(base, op=op, **where))
        reqs.append(dict(base, op='fusion_indexing', all_instructions=True,
                         **where))
        reqs.append(dict(base, op='fusion_indexing', group_by_producer=True,
                         **where))
        reqs.append(dict(base, op='emit', target='cpp', **where))
    for fusion in fusions:
        m = re.search(ARRAY.format(re.escape(fusion)), text)
        if not m or '?' in m.group(1):
            continue
        dims = [int(x.replace('<=', '')) for x in m.group(1).split(',') if x]
        for sizes in ([1] * len(dims), [min(d, 4) for d in dims]):
            if all(s >= 1 for s in sizes):
                reqs.append(dict(base, op='tile', fusion=fusion,
                                 tile={'sizes': sizes}))
        reqs.append(dict(base, op='coalescing', fusion=fusion,
                         tile_sizes=[max(1, min(d, 8)) for d in dims]))
    entry = text[text.find('ENTRY'):]
    defs = ENTRY_DEF.findall(entry[:entry.find('\n}')])
    names = {d[0] for d in defs}
    edges = []
    for name, _, _, rest in defs:
        for o in re.findall(r'%?([\w.\-]+)', rest.split(')')[0]):
            if o in names and o != name and (o, name) not in edges:
                edges.append((o, name))
    for producer, consumer in edges[:40]:
        reqs.append(dict(base, op='fusion_decision', producer=producer,
                         consumer=consumer))
        reqs.append(dict(base, op='fusion_indexing',
                         instructions=[producer, consumer]))
    return reqs


def described(q):
    return json.dumps({k: v for k, v in q.items() if k != 'hlo'})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('paths', nargs='+')
    parser.add_argument('--ixa', default='build/bin/ixa')
    parser.add_argument('--timeout', type=float, default=300)
    parser.add_argument('--all', action='store_true')
    args = parser.parse_args()
    files = []
    for path in args.paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path)
                            if f.endswith(('.hlo', '.txt')))
        else:
            files.append(path)
    problems, kinds, errors = [], collections.Counter(), []
    requests = 0
    for f in files:
        text = open(f, newline='').read()
        first = first_requests(text)
        answers, failure = run(args.ixa, first, args.timeout)
        batches = [(first, answers, failure)]
        if not failure:
            second = second_requests(text, first, answers)
            batches.append((second,) + run(args.ixa, second, args.timeout))
        for reqs, answers, failure in batches:
            requests += len(reqs)
            if failure:
                for q in reqs:  # name the culprits
                    _, alone = run(args.ixa, [q], args.timeout)
                    if alone:
                        problems.append((f, alone, described(q)))
                continue
            for q, r in zip(reqs, answers):
                if r.get('ok'):
                    continue
                e = r['error']
                kinds[(q['op'], e['code'],
                       re.sub(r"'[^']*'", "'X'", e['message'])[:90])] += 1
                if e['code'] in ('internal', 'parse_error'):
                    problems.append((f, e['code'] + ': ' + e['message'],
                                     described(q)))
                elif args.all:
                    errors.append((f, e['code'] + ': ' + e['message'],
                                   described(q)))
        print('%-50s %d requests' % (os.path.basename(f), requests),
              file=sys.stderr)
    print('%d modules, %d requests' % (len(files), requests))
    for (op, code, message), n in kinds.most_common():
        print('%6d  %-16s %-16s %s' % (n, op, code, message))
    for f, what, q in errors + problems:
        print('%s: %s\n    %s' % (f, what, q[:300]))
    print('%d problems' % len(problems))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
