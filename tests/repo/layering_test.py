#!/usr/bin/env python3
"""Includes go one way: between the libraries, between the parts of a
library, and between the files of one folder (docs/architecture.md).

- The libraries: core <- simplifier <- hw <- analysis <- emit <- tools.
- Inside analysis/ and emit/, each part (a subfolder, or a file at the
  library's top) has a rank; a part includes only parts of lower rank.
- Inside every folder, the implementations call one way: a.cc that
  includes b.h while b.cc includes a.h (or a longer circle of such
  includes) is one part split in two files that call each other. A header
  that includes another for its types is not a call and does not count.

Usage: layering_test.py REPO_ROOT
"""
import os
import re
import sys

LIBRARIES = ("core", "simplifier", "hw", "analysis", "emit", "tools")

# Ranks of the parts inside a library: a part includes only lower ranks.
PART_RANKS = {
    "analysis": {
        "hlo": 0,
        "indexing": 1,
        "fusion": 2,
        "partition": 2,
        "emitters": 3,
        "prefusion": 4,
        "uses": 4,
    },
    "emit": {
        "ir": 0,
        "code_writer": 0,
        "targets": 1,
        "pto": 1,
        "emit_result": 2,
        "lower": 2,
        "passes": 2,
        "emitters": 3,
        "reduce_init_notes": 3,
        "pipeline": 4,
        "emit_fusion": 4,  # defines what pipeline.h declares, as pipeline.cc
        "program": 5,
    },
}

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def source_files(root, top):
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith((".h", ".cc", ".def")):
                yield os.path.relpath(os.path.join(folder, name), root)


def part_of(path):
    """analysis/uses/x.cc -> uses; emit/pipeline.cc -> pipeline."""
    pieces = path.split("/")
    if len(pieces) > 2:
        return pieces[1]
    return os.path.splitext(pieces[1])[0]


def module_of(path):
    """The file's stem: x.h, x.cc and x_internal.h are one part."""
    stem = os.path.splitext(path)[0]
    return re.sub(r"_internal$", "", stem)


def find_cycle(graph):
    """A cycle of the graph as a list of nodes, or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def main():
    root = sys.argv[1]
    problems = []
    folder_graphs = {}
    for level, top in enumerate(LIBRARIES):
        ranks = PART_RANKS.get(top)
        for path in source_files(root, top):
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                target_top = target.split("/")[0]
                if target_top not in LIBRARIES:
                    continue
                if LIBRARIES.index(target_top) > level:
                    problems.append("%s includes %s: %s is above %s" %
                                    (path, target, target_top, top))
                    continue
                if target_top != top:
                    continue
                if ranks is not None:
                    here, there = part_of(path), part_of(target)
                    if here == "emit_fusion" and there == "pipeline":
                        continue
                    if here not in ranks or there not in ranks:
                        unknown = here if here not in ranks else there
                        problems.append(
                            "%s: the part %s/%s has no rank in "
                            "tests/repo/layering_test.py (add it where "
                            "docs/architecture.md places it)" %
                            (path, top, unknown))
                    elif here != there and ranks[there] >= ranks[here]:
                        problems.append(
                            "%s includes %s: %s/%s (rank %d) may include "
                            "only parts below it, not %s/%s (rank %d)" %
                            (path, target, top, here, ranks[here], top, there,
                             ranks[there]))
                if (path.endswith(".cc") and
                        os.path.dirname(path) == os.path.dirname(target)):
                    graph = folder_graphs.setdefault(os.path.dirname(path),
                                                     {})
                    a, b = module_of(path), module_of(target)
                    if a != b:
                        graph.setdefault(a, set()).add(b)
    for folder in sorted(folder_graphs):
        cycle = find_cycle(folder_graphs[folder])
        if cycle:
            problems.append("files of %s call each other in a circle: %s" %
                            (folder, " -> ".join(cycle)))
    for p in problems:
        print(p)
    if problems:
        print("%d layering problem(s)" % len(problems))
        return 1
    print("includes go one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
