#!/usr/bin/env python3
"""Per tuning shape, the fastest cell on trial against the fastest other cell, from the tune.txt
that `TUNE=1 FLY_TUNE_ALL=1 bash tools/h200_check.sh` writes (every variant's time per shape).

  python3 tools/tune_compare.py tune.txt --trial '_st$|_k[24]$|128x192|_b4$' \
      [--table src/dispatch/tuning/sm90a.tsv]

A trial cell "wins" a shape where it is faster than every other cell that ran there; the ratio is
the other cell's time over the trial cell's (above 1: the trial cell is faster). A narrowed run
(GEMM_FILTER) times only some of the grid: --table adds the committed table's winner and its time
from an earlier run (compare across runs with care: a few percent move from run to run).

  python3 tools/tune_compare.py tune.txt --against tune_off.txt [--top 12]

--against compares two listings of the same cells under two settings (tools/h200_check.sh's
TUNE_ENVS writes the second in the same call, e.g. FLY_GEMM_EDGE_BOX=0): per shape each listing's
fastest cell and the ratio (above 1: the first listing is faster), then the first's fastest --top
cells with both times.
"""
import argparse
import re
import sys

# bench/bench_gemm_tune.cu's lines: a shape's winner, then (FLY_TUNE_ALL) every variant's time
SHAPE = re.compile(r"^(\S+ \S+)\s+(\d+x\d+x\d+)\s+(\S+)\s+([\d.]+) us\s+([\d.]+)")
ROW = re.compile(r"^    (\S+)\s+([\d.]+) us\s+([\d.]+)$")


def read(path):
    """[(types, shape, {variant: us})] in the file's order."""
    shapes = []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = SHAPE.match(line)
        if m:
            shapes.append((m.group(1), m.group(2), {}))
            continue
        m = ROW.match(line)
        if m and shapes:
            shapes[-1][2][m.group(1)] = float(m.group(2))
    return shapes


def read_table(path):
    """{(types, shape): (variant, us)} from a tuning table's entries and their time comments."""
    entries = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+#\s*([\d.]+) us", line)
        if m:
            entries[(m.group(1) + " " + m.group(2), f"{m.group(3)}x{m.group(4)}x{m.group(5)}")] = (m.group(6), float(m.group(7)))
    return entries


def against(first, second, top):
    """The lines comparing two listings: per shape, each one's fastest cell and second / first."""
    other = {(types, shape): times for types, shape, times in second}
    lines = []
    for types, shape, times in first:
        theirs = other.get((types, shape), {})
        if not times or not theirs:
            continue
        a, b = min(times.values()), min(theirs.values())
        lines.append(f"{types} {shape}: fastest {a:.1f} / {b:.1f} us ({b / a:.3f}x)")
        for v in sorted(times, key=times.get)[:top]:
            t = theirs.get(v)
            lines.append(f"    {v:<58} {times[v]:>9.1f} {t if t is not None else float('nan'):>9.1f}"
                         + (f"  {t / times[v]:.3f}x" if t is not None else "  (not in the second)"))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tune", help="tune.txt with FLY_TUNE_ALL rows")
    ap.add_argument("--trial", help="regex over variant names: the cells on trial")
    ap.add_argument("--table", help="a committed tuning table: its winner and time beside each shape")
    ap.add_argument("--against", help="a second listing of the same cells (another setting)")
    ap.add_argument("--top", type=int, default=12, help="with --against: cells listed per shape")
    args = ap.parse_args()
    if (args.trial is None) == (args.against is None):
        sys.exit("give --trial or --against")
    if args.against:
        lines = against(read(args.tune), read(args.against), args.top)
        if not lines:
            sys.exit(f"{args.tune}, {args.against}: no shape with per-variant rows in both")
        print("\n".join(lines))
        return
    table = read_table(args.table) if args.table else {}
    trial = re.compile(args.trial)
    shapes = read(args.tune)
    if not any(times for _, _, times in shapes):
        sys.exit(f"{args.tune}: no per-variant rows (run the tune with FLY_TUNE_ALL=1)")
    wins = {}
    print(f"{'ab d':<12} {'m x n x k':<20} {'best other':<58} {'us':>9}  {'best on trial':<58} {'us':>9} {'other/trial':>11}"
          + ("  table's winner, us" if table else ""))
    for types, shape, times in shapes:
        old = {v: t for v, t in times.items() if not trial.search(v)}
        new = {v: t for v, t in times.items() if trial.search(v)}
        if not new:
            continue
        bo = min(old, key=old.get) if old else None
        bn = min(new, key=new.get)
        ratio = old[bo] / new[bn] if bo else float("inf")
        if ratio > 1.0:
            wins.setdefault(bn, []).append(f"{types} {shape} ({ratio:.3f}x)")
        committed = table.get((types, shape))
        print(f"{types:<12} {shape:<20} {bo or '-':<58} {old.get(bo, 0):>9.1f}  {bn:<58} {new[bn]:>9.1f} {ratio:>11.3f}"
              + (f"  {committed[0]} {committed[1]:.1f}" if committed else ""))
    print("\ntrial cells that won a shape:")
    for v, where in sorted(wins.items()):
        print(f"  {v}: {len(where)}: " + "; ".join(where))
    if not wins:
        print("  none")


if __name__ == "__main__":
    main()
