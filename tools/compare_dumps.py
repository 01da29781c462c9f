#!/usr/bin/env python3
"""Compare two dumps of bench/dump_outputs: how far a change moved every output of the query families.

usage: compare_dumps.py BEFORE AFTER [--rename FAMILY:OLD=NEW ...] [--negate FAMILY:FIELD ...]
                        [--scale FAMILY:FIELD=FACTOR ...] [--tolerance R] [--array-scale] [--by-field]
                        [--examples N]

A dump has one line per value, "family case index field component = VALUE" (VALUE a C %a hex float
or a decimal integer; lines starting with '#' are comments). Lines are matched by (family, case,
index, field, component). Before matching, the BEFORE side is mapped onto the AFTER side's names and
conventions:

  --rename FAMILY:OLD=NEW   a field named OLD, or OLD.something (its Jacobian "OLD.jacobian"), is
                            renamed NEW (NEW.something); e.g. manifold:depth=distance
  --negate FAMILY:FIELD     the values of FIELD and FIELD.something are negated (FIELD is the name
                            after the renames; the name before them works too); e.g.
                            sdf_pair:penetration=distance with sdf_pair:distance
  --scale FAMILY:FIELD=F    the values of FIELD and FIELD.something are multiplied by F (a length
                            given as a half-length: 2 for a derivative with respect to it)

FAMILY also covers its batch twin (FAMILY_batch); "*" is every family. Renames apply in the order
given, each once.

The report gives per family: values compared, bitwise equal, the largest absolute and relative
difference (|a - b| / max(|a|, |b|)) with the line where each occurs, NaN on one side only, lines
present on one side only (with examples), keys that two BEFORE lines were mapped onto, and comment
lines found on one side only (such as a part skipped for a missing model). --tolerance R also counts
the values whose relative difference exceeds R (the stated rounding of a change that is not bit for
bit). --array-scale measures each relative difference against the largest magnitude of its whole
output array instead of the value's own (the same family, case, index and field, every component, both
sides): a Jacobian entry that is rounding noise around 0 then counts against its Jacobian's size. --by-field adds the same per (family, field). The exit status is 0 whatever the differences: this is a report (2 for a usage
error or an unreadable file).
"""

import argparse
import math
import struct
import sys


def parse_value(text):
    """Returns an int for a decimal integer, else a float (C's %a hex floats, nan, inf)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float.fromhex(text)
    except ValueError:
        return float(text)


def family_matches(pattern, family):
    return pattern == "*" or family == pattern or family == pattern + "_batch"


def field_matches(name, field):
    """The part of `field` after `name` when `field` is `name` or `name.something`, else None."""
    if field == name:
        return ""
    if field.startswith(name + "."):
        return field[len(name):]
    return None


def split_spec(text, option, with_value):
    if ":" not in text:
        raise argparse.ArgumentTypeError(f"{option} {text}: expected FAMILY:...")
    family, rest = text.split(":", 1)
    if with_value:
        if "=" not in rest:
            raise argparse.ArgumentTypeError(f"{option} {text}: expected FAMILY:NAME=VALUE")
        name, value = rest.split("=", 1)
        return family, name, value
    return family, rest, None


class Mapping:
    """The renames, negations and scalings that bring BEFORE's lines onto AFTER's names."""

    def __init__(self, renames, negations, scalings):
        self.renames = renames  # [(family, old, new)]
        self.factors = [(f, n, -1.0) for f, n, _ in negations] + [(f, n, float(v)) for f, n, v in scalings]
        self.cache = {}

    def field(self, family, field):
        """(new field, factor) for a BEFORE field."""
        key = (family, field)
        if key in self.cache:
            return self.cache[key]
        original = field
        for pattern, old, new in self.renames:
            if family_matches(pattern, family):
                tail = field_matches(old, field)
                if tail is not None:
                    field = new + tail
        factor = 1.0
        for pattern, name, value in self.factors:
            if family_matches(pattern, family) and (
                field_matches(name, field) is not None or field_matches(name, original) is not None
            ):
                factor *= value
        self.cache[key] = (field, factor)
        return field, factor


def read_dump(path, mapping=None):
    """{key: value} and the comment lines of a dump; `mapping` (BEFORE only) renames and scales."""
    values, comments, collisions = {}, set(), []
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        print(f"compare_dumps: {path}: {error.strerror}", file=sys.stderr)
        sys.exit(2)
    with handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("#"):
                comments.add(line.rstrip("\n"))
                continue
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 7 or parts[5] != "=":
                print(f"compare_dumps: {path}:{number}: not a dump line: {line.rstrip()}")
                continue
            family, case, index, field, component, _, text = parts
            value = parse_value(text)
            if mapping is not None:
                field, factor = mapping.field(family, field)
                if factor != 1.0:
                    value = -value if factor == -1.0 else value * factor
            key = (family, case, index, field, component)
            if key in values:
                collisions.append(key)
            values[key] = value
    return values, comments, collisions


def bits(value):
    return struct.pack("<d", value) if isinstance(value, float) else value


def bitwise_equal(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return bits(float(a)) == bits(float(b))


class Stats:
    def __init__(self, tolerance=None):
        self.tolerance = tolerance
        self.beyond = 0  # relative difference above the tolerance
        self.compared = self.equal = self.nan_one_side = 0
        self.max_abs = self.max_rel = 0.0
        self.worst_abs = self.worst_rel = None

    def add(self, key, a, b, array_scale=None):
        self.compared += 1
        if bitwise_equal(a, b):
            self.equal += 1
            return
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            if not (math.isnan(a) and math.isnan(b)):
                self.nan_one_side += 1
                self.beyond += 1
            return
        if a == b:  # +0 and -0
            return
        difference = abs(a - b)
        scale = max(abs(a), abs(b)) if array_scale is None else array_scale
        relative = difference / scale if scale > 0 and math.isfinite(scale) else math.inf
        if self.tolerance is not None and relative > self.tolerance:
            self.beyond += 1
        if difference > self.max_abs or self.worst_abs is None:
            self.max_abs, self.worst_abs = difference, (key, a, b)
        if relative > self.max_rel or self.worst_rel is None:
            self.max_rel, self.worst_rel = relative, (key, a, b)


def describe(worst):
    key, a, b = worst
    return f"{' '.join(key)}: {a!r} ({float(a).hex()}) -> {b!r} ({float(b).hex()})"


def report(title, stats, only_before, only_after, examples, indent=""):
    print(f"{indent}{title}: {stats.compared} compared, {stats.equal} bitwise equal"
          + (f", {stats.compared - stats.equal} differ" if stats.compared != stats.equal else ""))
    if stats.worst_abs is not None:
        print(f"{indent}  max abs difference {stats.max_abs:.3e} at {describe(stats.worst_abs)}")
        print(f"{indent}  max rel difference {stats.max_rel:.3e} at {describe(stats.worst_rel)}")
    if stats.tolerance is not None:
        print(f"{indent}  beyond relative tolerance {stats.tolerance:g}: {stats.beyond}")
    if stats.nan_one_side:
        print(f"{indent}  NaN on one side only: {stats.nan_one_side}")
    for side, keys in (("BEFORE", only_before), ("AFTER", only_after)):
        if keys:
            shown = ", ".join(" ".join(k) for k in sorted(keys)[:examples])
            print(f"{indent}  only in {side}: {len(keys)} lines (e.g. {shown})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rename", action="append", default=[], metavar="FAMILY:OLD=NEW")
    parser.add_argument("--negate", action="append", default=[], metavar="FAMILY:FIELD")
    parser.add_argument("--scale", action="append", default=[], metavar="FAMILY:FIELD=FACTOR")
    parser.add_argument("--tolerance", type=float, metavar="R",
                        help="count the values whose relative difference exceeds R")
    parser.add_argument("--array-scale", action="store_true",
                        help="relative differences against the largest magnitude of the value's output array")
    parser.add_argument("--by-field", action="store_true", help="also report per (family, field)")
    parser.add_argument("--examples", type=int, default=3, help="keys shown per one-sided group (3)")
    args = parser.parse_args()
    try:
        renames = [split_spec(s, "--rename", True) for s in args.rename]
        negations = [split_spec(s, "--negate", False) for s in args.negate]
        scalings = [split_spec(s, "--scale", True) for s in args.scale]
        for _, _, value in scalings:
            float(value)
    except (argparse.ArgumentTypeError, ValueError) as error:
        parser.error(str(error))
    mapping = Mapping(renames, negations, scalings)
    before, before_comments, collisions = read_dump(args.before, mapping)
    after, after_comments, after_collisions = read_dump(args.after)

    scales = None
    if args.array_scale:  # (family, case, index, field) -> largest finite magnitude on either side
        scales = {}
        for values in (before, after):
            for key, value in values.items():
                magnitude = abs(float(value))
                if math.isfinite(magnitude) and magnitude > scales.get(key[:4], 0.0):
                    scales[key[:4]] = magnitude
    families = sorted({k[0] for k in before} | {k[0] for k in after})
    per_family = {f: Stats(args.tolerance) for f in families}
    per_field = {}
    only_before = {f: [] for f in families}
    only_after = {f: [] for f in families}
    for key, a in before.items():
        if key in after:
            scale = scales.get(key[:4], 0.0) if scales is not None else None
            per_family[key[0]].add(key, a, after[key], scale)
            if args.by_field:
                per_field.setdefault((key[0], key[3]), Stats(args.tolerance)).add(key, a, after[key], scale)
        else:
            only_before[key[0]].append(key)
    for key in after:
        if key not in before:
            only_after[key[0]].append(key)

    print(f"compare_dumps: {args.before} -> {args.after}")
    if renames or negations or scalings:
        print("  BEFORE mapped by: " + ", ".join(
            [f"rename {f}:{o}={n}" for f, o, n in renames] + [f"negate {f}:{n}" for f, n, _ in negations]
            + [f"scale {f}:{n}={v}" for f, n, v in scalings]))
    total = Stats(args.tolerance)
    for family in families:
        stats = per_family[family]
        report(family, stats, only_before[family], only_after[family], args.examples)
        total.compared += stats.compared
        total.equal += stats.equal
        total.beyond += stats.beyond
        if args.by_field:
            for (fam, field), field_stats in sorted(per_field.items()):
                if fam == family:
                    report(field, field_stats, [k for k in only_before[family] if k[3] == field],
                           [k for k in only_after[family] if k[3] == field], args.examples, indent="    ")
    one_sided = sum(len(v) for v in only_before.values()) + sum(len(v) for v in only_after.values())
    beyond = f", {total.beyond} beyond relative tolerance {args.tolerance:g}" if args.tolerance is not None else ""
    print(f"total: {total.compared} compared, {total.equal} bitwise equal{beyond}, {one_sided} lines on one side only")
    for side, keys in (("BEFORE", collisions), ("AFTER", after_collisions)):
        if keys:
            print(f"  {side}: {len(keys)} lines mapped onto a key already taken (e.g. {' '.join(keys[0])}):"
                  " check the renames")
    for side, comments in (("BEFORE", before_comments - after_comments), ("AFTER", after_comments - before_comments)):
        for comment in sorted(comments):
            print(f"  comment only in {side}: {comment}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
