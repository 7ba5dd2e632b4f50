#!/usr/bin/env python3
"""Replaces one operand type's shapes in a tuning table or a FLY_TUNE_ALL listing with those of a
narrower tune on the same card.

The fp32 shapes only ever run fp32 variants, so a tune of a build narrowed to them
(`GEMM_FILTER='gemm_sm90a_f32_.*' TUNE=1 FLY_TUNE_ALL=1 bash tools/h200_check.sh`) measures
every fp32 shape whole without timing the fp8 grid. This puts its sections in
place of the base's, keeping every other shape as the base measured it:

    python3 tools/tune_merge.py --ab f32 src/dispatch/tuning/sm90a.tsv new/sm90a.tsv > merged.tsv
    python3 tools/tune_merge.py --ab f32 docs/data/<base listing> new/tune.txt > merged-listing.txt

The kind of file (table or listing) is read from its lines. Both files must come from the same
kind of card: the script refuses two files whose first lines name different devices, unless
--other-card says that the type's shapes may come from another card (an H200's fp32 tune into an
H100's table: the two cards' fp32 shapes ran within a few percent of each other, 2026-12-06); the
note that the merge writes at the head names the card either way, in place of an earlier note
for the same type.
"""
import argparse
import re
import sys

from tune_listing import HEAD as LISTING_HEAD

TABLE_SECTION = re.compile(r"^# (\S+) x (\S+) -> (\S+)\s*$")
DEVICE = re.compile(r"^(?:# Written by fly_bench \S+ on (.+?) \(sm_\d+\)|fly_bench --tune: \d+ \S+ variants on (.+?), writing)")


def is_listing(lines):
    return any(LISTING_HEAD.match(line) for line in lines)


def device_line(lines, path):
    """The line naming the card the file was measured on (the table's "Written by", the listing's
    "fly_bench --tune:"), and that card."""
    for line in lines:
        m = DEVICE.match(line)
        if m:
            return line, m.group(1) or m.group(2)
    sys.exit(f"tune_merge: {path} names no device")


def split(lines, section_ab, belongs):
    """(lines before the first section, [(ab, section lines)], lines after the last section). A
    section is its first line and the lines that belong to it (`belongs`), blank lines among and
    after them included; the first other line ends the sections (a listing's closing "wrote N
    entries" line)."""
    head, sections, tail = [], [], []
    for line in lines:
        ab = None if tail else section_ab(line)
        if ab is not None:
            sections.append((ab, [line]))
        elif sections and not tail and (belongs(line) or not line.strip()):
            sections[-1][1].append(line)
        elif sections:
            tail.append(line)
        else:
            head.append(line)
    return head, sections, tail


def content_end(lines):
    """Where the blank lines that `lines` ends with begin."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return end


def listing_ab(line):
    m = LISTING_HEAD.match(line)
    return m.group(1) if m else None


def listing_belongs(line):  # a variant's time under its shape's line
    return line.startswith((" ", "\t"))


def table_ab(line):
    m = TABLE_SECTION.match(line)
    return m.group(1) if m else None


def table_belongs(line):  # an entry under its dtypes' comment
    return bool(line.strip()) and not line.startswith("#")


def merge(base, new, ab, paths, other_card=False):
    if is_listing(base) != is_listing(new):
        sys.exit("tune_merge: one file is a listing and the other a table")
    (_, base_card), (provenance, new_card) = device_line(base, paths[0]), device_line(new, paths[1])
    if base_card != new_card and not other_card:
        sys.exit(f"tune_merge: the files were measured on different cards ({base_card} / {new_card});"
                 " --other-card merges them all the same")
    section_ab, belongs = (listing_ab, listing_belongs) if is_listing(base) else (table_ab, table_belongs)
    base_head, base_sections, base_tail = split(base, section_ab, belongs)
    _, new_sections, _ = split(new, section_ab, belongs)
    taken = [s for s in new_sections if s[0] == ab]
    if not taken:
        sys.exit(f"tune_merge: the new file has no {ab} shapes")
    # the base's own separator between sections (a table's blank line, none in a listing), put
    # between the merged sections in place of whatever blank lines each brought along
    first_lines = base_sections[0][1]
    separator = first_lines[content_end(first_lines):] if len(base_sections) > 1 else []
    note_start = f"# The {ab} shapes below were re-measured in a narrower tune"
    out = [line for line in base_head if not line.startswith(note_start)]  # an earlier merge's note
    card = f" on another card ({new_card})" if base_card != new_card else ""
    note = f"{note_start}{card}: {provenance.lstrip('# ').rstrip()}\n"
    # A table's header ends at its first blank line after the comments; a listing's lines are free.
    out.insert(len(out) - 1 if out and not out[-1].strip() else len(out), note)
    # the new sections where the base's first section of the type was, the base's others in order
    first = next((i for i, s in enumerate(base_sections) if s[0] == ab), len(base_sections))
    merged = base_sections[:first] + taken + [s for s in base_sections[first:] if s[0] != ab]
    for i, (_, lines) in enumerate(merged):
        out.extend(lines[:content_end(lines)] + (separator if i + 1 < len(merged) else []))
    out.extend(base_tail)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ab", required=True, help="the operand type whose shapes are replaced, e.g. f32")
    p.add_argument("--other-card", action="store_true",
                   help="merge even when the new file was measured on another card (the note names it)")
    p.add_argument("base")
    p.add_argument("new")
    args = p.parse_args()
    sys.stdout.writelines(merge(open(args.base).readlines(), open(args.new).readlines(), args.ab,
                                (args.base, args.new), args.other_card))


if __name__ == "__main__":
    main()
