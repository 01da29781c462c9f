#!/usr/bin/env python3
"""Counts the house-keeping figures of the C sources: functions over N lines and functions with
M or more parameters, with their names.

    python3 tools/code_metrics.py [--lines 100] [--params 8] [--list] [DIR ...]

DIR defaults to src, tools and include. A function is a definition that starts in column 0
(`type name(args)` up to the line holding its `{`) and ends at the next `}` in column 0, or on that
line when it closes there (a one-line definition): the layout every file here has. Prototypes and macros are not counted. Parameters are
counted on the signature with nested parentheses (function pointers) collapsed.
"""
import argparse
import os
import re
import sys

HEAD = re.compile(r"^[A-Za-z_][A-Za-z0-9_ \*]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if not m or lines[i].startswith(("typedef", "#", "//", "static_assert", "return")):
            i += 1
            continue
        # gather the signature up to the line holding its '{' (or a ';': a prototype)
        signature, j = "", i
        while j < len(lines) and j < i + 40:
            signature += lines[j] + "\n"
            if "{" in lines[j] or lines[j].rstrip().endswith(";"):
                break
            j += 1
        if "{" not in signature:
            i = j + 1
            continue
        signature = signature[: signature.index("{")]
        if lines[j].rstrip().endswith("}") and lines[j].count("{") == lines[j].count("}"):
            end = j  # a definition on one line
        else:
            end = j + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
        yield m.group(1), i + 1, end - i + 1, parameter_count(signature)
        i = end + 1


def parameter_count(signature):
    inside = signature[signature.index("(") + 1 : signature.rindex(")")]
    depth, flat = 0, ""
    for c in inside:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            flat += c
    flat = flat.strip()
    if flat in ("", "void"):
        return 0
    return flat.count(",") + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="*", default=["src", "tools", "include"])
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--params", type=int, default=8)
    parser.add_argument("--list", action="store_true", help="name each function counted")
    args = parser.parse_args()
    long_ones, wide_ones, total = [], [], 0
    for top in args.dirs:
        for root, _, names in os.walk(top):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                for fn, line, length, params in functions(path):
                    total += 1
                    if length > args.lines:
                        long_ones.append((length, "%s:%d %s" % (path, line, fn)))
                    if params >= args.params:
                        wide_ones.append((params, "%s:%d %s" % (path, line, fn)))
    print("functions: %d" % total)
    print("over %d lines: %d" % (args.lines, len(long_ones)))
    if args.list:
        for length, where in sorted(long_ones, reverse=True):
            print("  %5d  %s" % (length, where))
    print("with %d or more parameters: %d" % (args.params, len(wide_ones)))
    if args.list:
        for params, where in sorted(wide_ones, reverse=True):
            print("  %5d  %s" % (params, where))
    return 0


if __name__ == "__main__":
    sys.exit(main())
