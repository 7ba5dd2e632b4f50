#!/usr/bin/env python3
"""The listing of `fly_bench --tune` run with FLY_TUNE_ALL=1 (tools/h200_check.sh keeps it as
tune.txt): every tuned shape with every variant's time. Read by tools/tuning_holdout.py and
tools/gemm_cost_model.py."""
import re
import sys


# A shape's first line: A/B and D types, m x n x k, the fastest variant, its time, TFLOP/s and
# the heuristic's pick; the variants' lines follow it, indented.
HEAD = re.compile(r"^(\S+) (\S+)\s+(\d+)x(\d+)x(\d+)\s+(\S+)\s+([\d.]+) us\s+[\d.]+\s+(.*)$")


def parse(path):
    shapes, cur = [], None
    for line in open(path):
        head = HEAD.match(line)
        if head:
            ab, d, m, n, k, win, t, heur = head.groups()
            slower = re.match(r"\S+, ([\d.]+)x slower", heur)
            # heuristic None: the listing does not time its pick (the shape stays a table entry)
            cur = dict(types=(ab, d), shape=(int(m), int(n), int(k)), best=float(t), times={},
                       heuristic=1.0 if heur.startswith("the same") else float(slower.group(1)) if slower else None)
            shapes.append(cur)
            continue
        row = re.match(r"^\s+(\S+)\s+([\d.]+) us", line)
        if row and cur is not None:
            cur["times"][row.group(1)] = float(row.group(2))
    if not any(s["times"] for s in shapes):
        sys.exit(f"{path}: no per-variant times; run fly_bench --tune with FLY_TUNE_ALL=1")
    return shapes


def tile(variant):
    """A variant name's block tile (BM, BN, BK)."""
    return tuple(map(int, re.search(r"_(\d+)x(\d+)x(\d+)_", variant).groups()))


def split_k(variant):
    """The blocks a variant splits a tile's K over (its `_kN` suffix; 1 without one)."""
    m = re.search(r"_k(\d+)(?:_|$)", variant)
    return int(m.group(1)) if m else 1
