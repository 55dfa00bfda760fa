#!/usr/bin/env python3
"""Every name a library's file keeps to itself is unique in the library.

The libraries compile in unity batches (CMakeLists.txt, IXA_UNITY): several
.cc files of a library form one translation unit, so the helpers each file
declares in its anonymous namespace (or as `static`) meet there. Two equal
names would either not compile (the same signature) or, worse, become
overloads of each other, and a call could silently pick the other file's
helper. Which files share a batch changes as files are added, so the rule
is library-wide: no two .cc files of one library declare the same
file-local function, variable or type name (in an anonymous namespace, or
`static`, `constexpr`, `const` or a `using` at namespace scope), except
the same `using` written the same way.

Usage: unity_names_test.py REPO_ROOT
"""
import collections
import os
import re
import subprocess
import sys

LIBRARIES = ["core", "simplifier", "hw", "analysis", "emit", "tools/ixa"]
# Executables' own files, not in a library's batches.
NOT_IN_LIBRARY = {"tools/ixa/main.cc"}


def strip_line(line, in_comment):
    """The line without comments, string and character literals."""
    out = []
    i = 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_comment = False
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_comment = True
            i += 2
            continue
        if line.startswith('R"', i):
            # A raw string: skip to its end on this line (multi-line raw
            # strings do not declare anything at column 0 that matters).
            m = re.match(r'R"([^(]*)\(', line[i:])
            if m:
                end = line.find(")" + m.group(1) + '"', i)
                i = len(line) if end < 0 else end + len(m.group(1)) + 2
                out.append('""')
                continue
        if c in "\"'":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment


def declaration(statement):
    """(name, kind) of a namespace-scope declaration, or None. kind is
    "alias" for `using X = ...` and `using a::X;` (which may repeat when
    the text is the same), "name" otherwise."""
    s = statement.strip()
    s = re.sub(r"^template\s*<.*?>\s*", "", s)
    if s.startswith("namespace") or s.startswith("using namespace"):
        return None
    m = re.match(r"using\s+(\w+)\s*=", s)
    if m:
        return m.group(1), "alias"
    m = re.match(r"using\s+[\w:]*::(\w+)\s*;", s)
    if m:
        return m.group(1), "alias"
    m = re.match(r"(?:struct|class|enum class|enum|union)\s+(\w+)", s)
    if m:
        return m.group(1), "name"
    # The identifier before the first `(`, `=`, `{`, `[` or `;`.
    m = re.search(r"(?<![:\w])(~?[A-Za-z_]\w*)\s*(?:\(|=|\{|\[|;)", s)
    if not m:
        return None
    name = m.group(1)
    if s[: m.start(1)].rstrip().endswith("::") or name == "operator":
        return None
    if name in {"static", "inline", "constexpr", "const", "extern"}:
        return None
    return name, "name"


def file_local_names(path):
    """{name: (kind, text)} of what a file declares for itself at namespace
    scope: everything in an anonymous namespace, and outside one `static`
    and `constexpr`/`const` declarations (internal linkage) and `using`
    declarations and aliases."""
    names = {}
    scopes = []  # per open brace: "anonymous", "namespace" or "other"
    statement = None
    in_comment = False
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line, in_comment = strip_line(raw.rstrip("\n"), in_comment)
            if re.match(r"\s*#", line):
                continue
            namespace_scope = all(k != "other" for k in scopes)
            anonymous = "anonymous" in scopes
            is_namespace = re.match(r"\s*namespace\b[^;=]*\{", line)
            # Google style: namespace-scope declarations start at column 0.
            if (statement is None and namespace_scope and line[:1].strip()
                    and not is_namespace and not line.startswith("}")):
                head = line.strip()
                if anonymous or re.match(
                        r"(static|constexpr|const|using|template)\b", head):
                    statement = ""
            if statement is not None:
                statement += " " + line
                if re.search(r"[({=;\[]", statement):
                    found = declaration(statement)
                    if found and (anonymous or found[1] == "alias" or
                                  not statement.strip().startswith("template")):
                        names.setdefault(found[0], (found[1],
                                                    " ".join(statement.split())))
                    statement = None
            # Braces of this line, in order.
            for c in line:
                if c == "{":
                    if is_namespace:
                        scopes.append("anonymous" if re.match(
                            r"\s*namespace\s*\{", line) else "namespace")
                        is_namespace = None
                    else:
                        scopes.append("other")
                elif c == "}" and scopes:
                    scopes.pop()
    return names


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = subprocess.run(["git", "-C", root, "ls-files", "*.cc"],
                           capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout: walk the tree
        for lib in LIBRARIES:
            for d, _, fs in os.walk(os.path.join(root, lib)):
                files += [os.path.relpath(os.path.join(d, f), root)
                          for f in fs if f.endswith(".cc")]
    failures = []
    for lib in LIBRARIES:
        where = collections.defaultdict(list)
        for f in sorted(files):
            if not f.startswith(lib + "/") or f in NOT_IN_LIBRARY:
                continue
            for name, (kind, text) in file_local_names(
                    os.path.join(root, f)).items():
                where[name].append((f, kind, text))
        for name, seen in sorted(where.items()):
            fs = [f for f, _, _ in seen]
            same_alias = all(k == "alias" and t == seen[0][2]
                             for _, k, t in seen)
            if len(fs) > 1 and not same_alias:
                failures.append(f"{lib}: `{name}` is file-local in "
                                + ", ".join(fs))
    if failures:
        print("file-local names that meet in a unity batch (rename one, or "
              "share one definition through a header):")
        print("\n".join(failures))
        return 1
    print(f"file-local names unique in {len(LIBRARIES)} libraries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
