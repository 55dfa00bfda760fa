#!/usr/bin/env python3
"""Nothing in the repository points outside it.

  python3 tests/repo/self_contained_test.py [REPO_ROOT]

Every tracked text file is read (git ls-files; without git, the source tree
minus dot folders and build trees). A line fails when it

  - names a path outside the repository: `../shared`, `/work/`,
    `shared/spec`, `shared/peers`, `seeds/...`, `spec/<name>.md`;
  - cites a reference document by a name that does not resolve to a file of
    the repository (`indexing.md` must be `docs/indexing.md` outside docs/;
    `cli.md`, `style.md`, `design.md`, `pto-codegen.md` exist nowhere here),
    or cites a `docs/` page that does not exist;
  - carries a tracker id (`issue 12`) or the id of a guideline or law kept
    outside the repository (`(G4)`, `law 2`): a comment says why instead.

Before reading the tree the script checks its own patterns against known
good and bad lines, so a pattern that stops matching fails the test too.
Exit status 0 when every line passes, 1 otherwise (each failure printed as
path:line: reason: text).
"""

import os
import re
import subprocess
import sys

# Files another branch is rewriting: their lines are not checked until that
# branch is merged. Empty this tuple then (entries are paths or folder
# prefixes ending in "/").
PENDING_FILES = ()
# Pages another branch is writing: a citation of one is accepted before the
# page exists. Empty this set once they are merged.
PENDING_PAGES = set()

THIS_FILE = "tests/repo/self_contained_test.py"

OUTSIDE_PATH = re.compile(
    r"\.\./shared\b|/work/|\bshared/(?:spec|peers|seeds|hooks)\b"
    r"|(?<![\w-])seeds/[\w.*-]+|(?<![\w-])spec/(?:[\w-]+|\*)\.md")
# The reference documents kept outside the repository, by file name; the
# ones that have an in-repo page must be cited by a path that resolves.
DOC_NAME = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)*)"
    r"(cli|indexing|emitters|cost-model|layouts|pto-codegen|hw-reference"
    r"|xla-reference|design|style)\.md\b")
DOCS_PAGE = re.compile(r"(?<![\w./-])docs/[\w./-]*[\w-]\.md\b")
TRACKER_ID = re.compile(r"\b[Ii]ssues? #?\d+|\b[Ii]ssue-\d+")
OUTSIDE_ID = re.compile(r"\((?:style )?G\d+(?:\.\d+)?\b|\blaws? \d+\b")


def find_problems(path, text, exists):
    """Yields (line number, reason, line) for every failing line of `text`,
    the content of the repository file `path`; exists(p) tells whether the
    repository holds the file p (relative to its root)."""
    folder = os.path.dirname(path)
    for number, line in enumerate(text.splitlines(), 1):
        reasons = []
        m = OUTSIDE_PATH.search(line)
        if m:
            reasons.append("path outside the repository (%s)" % m.group(0))
        for m in DOC_NAME.finditer(line):
            cited = m.group(1) + m.group(2) + ".md"
            candidates = {os.path.normpath(cited),
                          os.path.normpath(os.path.join(folder, cited))}
            if not any(exists(c) or c in PENDING_PAGES for c in candidates):
                reasons.append("%s is not a file of the repository" % cited)
        for m in DOCS_PAGE.finditer(line):
            page = os.path.normpath(m.group(0))
            if not exists(page) and page not in PENDING_PAGES:
                reasons.append("no such page %s" % page)
        m = TRACKER_ID.search(line)
        if m:
            reasons.append("tracker id (%s)" % m.group(0))
        m = OUTSIDE_ID.search(line)
        if m:
            reasons.append("id kept outside the repository (%s)" % m.group(0))
        if reasons:
            yield number, "; ".join(dict.fromkeys(reasons)), line


def check_patterns():
    """The patterns catch what they must and pass what they must not."""
    files = {"docs/indexing.md", "docs/emitters.md", "docs/protocol.md",
             "core/expr.h"}
    exists = files.__contains__
    bad = [
        ("core/a.h", "// The text form (spec/indexing.md §2)."),
        ("core/a.h", "// The protocol (../shared/spec/cli.md)."),
        ("core/a.h", "// The protocol (cli.md, \"Devices\")."),
        ("core/a.h", "// Per-op maps (indexing.md §3)."),
        ("core/a.h", "// see style.md §1"),
        ("core/a.h", "// Round trip of every map of seeds/*.txt"),
        ("tools/a.sh", "PEERS=/work/shared/peers"),
        ("tools/a.py", "# the workload of shared/peers/README.md"),
        ("core/a.h", "// No heap allocation (issue 13)."),
        ("core/a.h", "// Issue 12, item 6: a long chain."),
        ("core/a.h", "// Exact arithmetic (G4)."),
        ("core/a.h", "// Budgets (law 2)."),
        ("core/a.h", "// The contract (docs/nowhere.md)."),
        ("docs/a.md", "See `pto-codegen.md` §3."),
    ]
    good = [
        ("core/a.h", "// The text form (docs/indexing.md §2)."),
        ("core/a.h", "// The protocol (docs/protocol.md, \"Devices\")."),
        ("docs/a.md", "The steps of `emitters.md` §4."),
        ("docs/a.md", "Sources: `openxla/xla/docs/tiled_layout.md`."),
        ("core/a.h", "// Fixed seed; 2 issues found before, item 3."),
        ("core/a.h", "// GPU grid of 128 threads, reduce over G dims."),
    ]
    failures = []
    for path, line in bad:
        if not list(find_problems(path, line, exists)):
            failures.append("pattern misses a bad line: %s: %s" % (path, line))
    for path, line in good:
        for _, reason, _ in find_problems(path, line, exists):
            failures.append("pattern flags a good line (%s): %s: %s" %
                            (reason, path, line))
    return failures


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and
                       not os.path.exists(os.path.join(folder, d,
                                                       "CMakeCache.txt"))]
            for name in names:
                files.append(os.path.relpath(os.path.join(folder, name), root))
        return files


def read_text(full_path):
    try:
        with open(full_path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    failures = check_patterns()
    files = tracked_files(root)
    present = set(files)
    exists = present.__contains__
    for path in sorted(files):
        if path == THIS_FILE or path.startswith(PENDING_FILES):
            continue
        text = read_text(os.path.join(root, path))
        if text is None:
            continue
        for number, reason, line in find_problems(path, text, exists):
            failures.append("%s:%d: %s: %s" % (path, number, reason,
                                               line.strip()[:160]))
    for failure in failures:
        print(failure)
    print("%d files checked, %d failures" % (len(files), len(failures)))
    return 1 if failures else 0


def test_self_contained():
    assert main([sys.argv[0]]) == 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
