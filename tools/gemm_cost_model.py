#!/usr/bin/env python3
"""The GEMM cost model: per variant, GPU time as a non-negative sum of four terms, fitted to the
times of a `fly_bench --tune` listing run with FLY_TUNE_ALL=1 (every variant at every tuning shape).

For a variant of block tile BM x BN x BK at m x n x k on an SM count S:
    tiles = ceil(m / BM) ceil(n / BN),  kt = ceil(k / BK),  waves = ceil(tiles / S)
(a `_kN` variant splits a tile's K over N blocks: tiles counts its blocks, N a tile, and kt a block's
share, ceil(ceil(k / BK) / N))
    us = c0 + c1 waves kt + c2 tiles kt / S + c3 (m k + n k + 2 m n) / 1e6 + c4 waves + c5 kt
the launch's fixed cost (c0), the k-tiles of the SM with the most tiles (c1: whole waves), the
k-tiles of the average SM (c2: a persistent walk's share), the operand and output elements (c3:
what a call streams, per element, the dtypes being the variant's own), a wave's own cost (c4: its
fill and epilogue) and a k-tile's latency however many tiles run (c5). The fit
minimises the relative error over the shapes the variant ran at, with every coefficient >= 0.
src/dispatch/gemm/gemm_cost_model.cpp evaluates the same sum; select_gemm_variant picks by it where
no tuning entry is at the call's shape (docs/gemm.md, "Tuning tables").

    python3 tools/gemm_cost_model.py tune.txt [--sms 132] > src/dispatch/tuning/gemm_model_sm90a.tsv

tools/tuning_holdout.py measures how well it picks at shapes held out of the fit.
"""
import argparse
import itertools
import math
import sys

import tune_listing

SMS = 132  # H100 SXM and H200: the listing's machines


def features(variant, shape, sms=SMS):
    m, n, k = shape
    bm, bn, bk = tune_listing.tile(variant)
    split = tune_listing.split_k(variant)
    tiles = math.ceil(m / bm) * math.ceil(n / bn) * split
    kt = math.ceil(math.ceil(k / bk) / split)
    waves = math.ceil(tiles / sms)
    return [1.0, waves * kt, tiles * kt / sms, (m * k + n * k + 2 * m * n) / 1e6, waves, kt]


def predict(coefficients, variant, shape, sms=SMS):
    return sum(c * f for c, f in zip(coefficients, features(variant, shape, sms)))


def _solve(a, b):
    """Least squares by the normal equations (a few columns); None when singular."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] for i in range(n)]
    y = [sum(r[i] * v for r, v in zip(a, b)) for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-12:
            return None
        m[c], m[p], y[c], y[p] = m[p], m[c], y[p], y[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * z for x, z in zip(m[r], m[c])]
                y[r] -= f * y[c]
    return [y[i] / m[i][i] for i in range(n)]


def fit(points):
    """points: [(features, us)]. The coefficients (>= 0) of least relative error, or None."""
    count = len(points[0][0])
    best = None
    for used in itertools.product((0, 1), repeat=count):  # every active set: exact non-negative LS
        cols = [i for i in range(count) if used[i]]
        if not cols or len(cols) > len(points):
            continue
        sol = _solve([[f[i] / t for i in cols] for f, t in points], [1.0] * len(points))
        if sol is None or min(sol) < 0:
            continue
        c = [0.0] * count
        for i, v in zip(cols, sol):
            c[i] = v if v > 0 else 0.0  # never -0.0, which the table's parser refuses
        err = sum((sum(x * y for x, y in zip(c, f)) / t - 1) ** 2 for f, t in points)
        if best is None or err < best[0]:
            best = (err, c)
    return best and best[1]


def fit_listing(shapes, sms=SMS, keep=lambda s: True):
    """{variant: coefficients} over the listing's shapes that `keep` accepts (4 or more a variant)."""
    points = {}
    for s in shapes:
        if keep(s):
            for v, t in s["times"].items():
                points.setdefault(v, []).append((features(v, s["shape"], sms), t))
    return {v: c for v, p in points.items() if len(p) >= 4 and (c := fit(p)) is not None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tune", help="tune.txt with FLY_TUNE_ALL rows")
    ap.add_argument("--sms", type=int, default=SMS, help="the SM count of the listing's machine")
    ap.add_argument("--only", help="a file of variant names (one a line): rows for those alone (the grid "
                                   "built now, where the listing timed cells that have left it)")
    args = ap.parse_args()
    shapes = tune_listing.parse(args.tune)
    model = fit_listing(shapes, args.sms)
    if args.only:
        names = {line.strip() for line in open(args.only) if line.strip()}
        model = {v: c for v, c in model.items() if v in names}
    print("# libfly GEMM cost model for sm90a: per variant, us = c0 + c1 waves kt + c2 tiles kt / sms +")
    print("#   c3 (m k + n k + 2 m n) / 1e6 + c4 waves + c5 kt, tiles = ceil(m / BM) ceil(n / BN),")
    print("#   kt = ceil(k / BK), waves = ceil(tiles / sms); a _kN variant's tiles are N blocks of")
    print("#   ceil(kt / N) k-tiles each (tools/gemm_cost_model.py, gemm_cost_model.hpp).")
    print(f"# Fitted by tools/gemm_cost_model.py to the {len(shapes)} shapes of the FLY_TUNE_ALL listing {args.tune}")
    print(f"#   ({args.sms} SMs)" + (f", rows for the {len(model)} of its variants named in --only {args.only}." if args.only else "."))
    print("# Do not edit: refit from the listing of the next `TUNE=1 FLY_TUNE_ALL=1 bash tools/h200_check.sh`.")
    print("#")
    print("# variant                                                    sms " + " ".join(f"{'c' + str(i):>10s}" for i in range(6)))
    for v in sorted(model):
        c = model[v]
        print(f"{v:60s} {args.sms:4d} " + " ".join(f"{x:10.6g}" for x in c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
