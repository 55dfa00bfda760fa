#!/usr/bin/env python3
"""Every header of the libraries includes the standard headers it uses.

A header that names std::vector must include <vector>, itself or through a
header of this project that it includes: otherwise it compiles only after
some other include, and a downstream project that includes it first fails.
The find_package test compiles every installed header on its own, which
misses a standard header that another one happens to bring in with this
compiler (<string> brings std::move); this check does not, for the names
below.

Usage: std_includes_test.py REPO_ROOT
"""
import os
import re
import sys

LIBRARIES = ("core", "simplifier", "hw", "analysis", "emit")

# A name of the standard library -> the headers that declare it (any one
# will do).
PROVIDERS = {
    "array": {"array"},
    "vector": {"vector"},
    "string": {"string"},
    "to_string": {"string"},
    "string_view": {"string_view", "string"},
    "optional": {"optional"},
    "nullopt": {"optional"},
    "variant": {"variant"},
    "monostate": {"variant"},
    "holds_alternative": {"variant"},
    "map": {"map"},
    "multimap": {"map"},
    "set": {"set"},
    "unordered_map": {"unordered_map"},
    "unordered_set": {"unordered_set"},
    "deque": {"deque"},
    "list": {"list"},
    "span": {"span"},
    "unique_ptr": {"memory"},
    "shared_ptr": {"memory"},
    "make_unique": {"memory"},
    "make_shared": {"memory"},
    "function": {"functional"},
    "hash": {"functional", "string", "memory", "optional", "variant",
             "unordered_map", "unordered_set"},
    "pair": {"utility", "map", "unordered_map"},
    "move": {"utility"},
    "forward": {"utility"},
    "swap": {"utility"},
    "tuple": {"tuple"},
    "numeric_limits": {"limits"},
    "initializer_list": {"initializer_list", "vector", "string", "map",
                         "set", "array"},
    "is_same_v": {"type_traits"},
    "enable_if_t": {"type_traits"},
    "is_integral_v": {"type_traits"},
    "int8_t": {"cstdint"},
    "int16_t": {"cstdint"},
    "int32_t": {"cstdint"},
    "int64_t": {"cstdint"},
    "uint8_t": {"cstdint"},
    "uint16_t": {"cstdint"},
    "uint32_t": {"cstdint"},
    "uint64_t": {"cstdint"},
    "size_t": {"cstddef", "cstdint", "cstring", "cstdlib", "string",
               "vector", "array", "span", "string_view"},
    "ostream": {"ostream", "iosfwd", "iostream"},
    "istream": {"istream", "iosfwd", "iostream"},
    "sort": {"algorithm"},
    "min": {"algorithm"},
    "max": {"algorithm"},
    "chrono": {"chrono"},
    "mutex": {"mutex"},
    "atomic": {"atomic"},
    "strong_ordering": {"compare"},
    "partial_ordering": {"compare"},
}

# Unqualified fixed-width integers count too (this project writes int64_t
# without std::).
UNQUALIFIED = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
               "uint16_t", "uint32_t", "uint64_t", "size_t"}

STD_INCLUDE = re.compile(r'^\s*#\s*include\s*<([a-z_]+)>', re.M)
OWN_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
STD_NAME = re.compile(r'\bstd::([A-Za-z_][A-Za-z0-9_]*)')
BARE_NAME = re.compile(r'(?<![:\w])(u?int(?:8|16|32|64)_t|size_t)\b')


def strip_comments_and_strings(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'R"(\w*)\((?:.|\n)*?\)\1"', '""', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def main():
    root = sys.argv[1]
    headers = {}
    for lib in LIBRARIES:
        for dirpath, _, files in os.walk(os.path.join(root, lib)):
            for f in files:
                if f.endswith(".h"):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8") as fh:
                        headers[os.path.relpath(path, root)] = fh.read()

    closure = {}

    def std_headers_of(name, stack=()):
        if name in closure:
            return closure[name]
        if name not in headers or name in stack:
            return set()
        text = headers[name]
        found = set(STD_INCLUDE.findall(text))
        for own in OWN_INCLUDE.findall(text):
            found |= std_headers_of(own, stack + (name,))
        closure[name] = found
        return found

    problems = []
    for name in sorted(headers):
        code = strip_comments_and_strings(headers[name])
        used = set(STD_NAME.findall(code)) | (
            set(BARE_NAME.findall(code)) & UNQUALIFIED)
        have = std_headers_of(name)
        for symbol in sorted(used):
            providers = PROVIDERS.get(symbol)
            if providers and not providers & have:
                problems.append(f"{name}: uses {symbol} but includes none of "
                                f"<{'>, <'.join(sorted(providers))}>")
    for p in problems:
        print(p)
    print(f"{len(headers)} headers, {len(problems)} missing standard includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
