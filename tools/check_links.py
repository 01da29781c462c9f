#!/usr/bin/env python3
"""Checks that every relative link in the repository's Markdown files resolves.

A link [text](target) or ![alt](target) to a file must name a file or folder of the repository;
one with a #fragment must also name a heading of the target Markdown file (GitHub's anchors:
lower case, punctuation dropped, spaces as hyphens, -1, -2, ... for repeats). Links to web
addresses are not fetched. Prints each broken link as FILE:LINE: TARGET (why) and exits with
status 1 when there is one.

    python3 tools/check_links.py [FILE.md ...]     (default: every tracked *.md file)
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files():
    """every tracked Markdown file, relative to the repository root"""
    try:
        out = subprocess.check_output(["git", "-C", ROOT, "ls-files", "*.md"], text=True)
        files = [line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, _, names in os.walk(ROOT):
            if "/." in folder or "/build" in folder:
                continue
            files += [os.path.relpath(os.path.join(folder, n), ROOT) for n in names if n.endswith(".md")]
    return sorted(files)


def slug(heading):
    """GitHub's anchor of a heading's text"""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """the anchors of a Markdown file's headings"""
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    base = slug(m.group(1))
                    count = seen.get(base, 0)
                    seen[base] = count + 1
                    found.add(base if count == 0 else "%s-%d" % (base, count))
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of every link outside code"""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
            for m in LINK.finditer(line):
                yield number, m.group(1)


def problems(relative):
    """the broken links of one file, as (line, target, why)"""
    path = os.path.join(ROOT, relative)
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        destination = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not destination.startswith(ROOT + os.sep) and destination != ROOT:
            yield number, target, "outside the repository"
            continue
        if not os.path.exists(destination):
            yield number, target, "no such file"
            continue
        if fragment and destination.endswith(".md") and fragment not in anchors(destination):
            yield number, target, "no heading with this anchor"


def main(argv):
    files = argv or markdown_files()
    broken = 0
    for relative in files:
        for number, target, why in problems(relative):
            print("%s:%d: %s (%s)" % (relative, number, target, why))
            broken += 1
    print("%d links broken in %d files" % (broken, len(files)), file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
