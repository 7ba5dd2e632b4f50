#!/usr/bin/env python3
"""How well the GEMM tuning table's reaches transfer to shapes it was not measured at.

Reads the listing of `fly_bench --tune` run with FLY_TUNE_ALL=1 (tools/h200_check.sh keeps it as
tune.txt): every tuned shape with every variant's time. Each shape in turn is held out: every
entry within a factor 2 of it in m, n and k is removed (what a call beyond the table meets), the
farther reaches of src/dispatch/gemm/gemm_select.cpp pick an entry among the rest, and the picked
entry's variant is timed at the held-out shape from the listing. The heuristic's pick is the
listing's own ("heuristic's pick": no table). A reached variant that pads the shape over 1.25x the
least padded variant's work is refused there, as in the dispatcher.

    python3 tools/tuning_holdout.py tune.txt

Prints, per rule, the geometric mean and worst of (picked time / best time) over the shapes, and
on how many shapes it picked slower or faster than the rule before it. The last rule is the cost
model (tools/gemm_cost_model.py), fitted without the held-out entries: what the dispatcher does
where no entry is at the call's shape; `--within` holds out the shape alone instead (a call
between the table's shapes, which the first reach would serve).
"""
import math
import sys

import gemm_cost_model
from tune_listing import parse, tile


def ratio(x, y):
    return max(x, y) / min(x, y)


def distance(a, b):  # as gemm_tuning_distance
    return sum(abs(math.log2(x) - math.log2(y)) for x, y in zip(a, b))


def nearest(entries, shape):  # the first listed keeps a tie (kTuningTie)
    best, best_d = None, 0.0
    for e in entries:
        d = distance(e["shape"], shape)
        if best is None or d < best_d - 1e-9:
            best, best_d = e, d
    return best


def padded(variant, shape):
    return math.prod(math.ceil(x / t) * t / x for x, t in zip(shape, tile(variant)))


def within_2(a, b):
    """Each of m, n, k within a factor 2: the first reach's bound."""
    return all(ratio(x, y) <= 2 for x, y in zip(a, b))


def transfer(shapes, reaches, table=None):
    """picked / best per shape when the reaches (tried in order) pick among the held-out table
    (table: the entries to pick from, `shapes` by default)."""
    out = []
    table = shapes if table is None else table
    for s in (s for s in shapes if s["heuristic"] is not None):
        rest = [e for e in table if e["types"] == s["types"] and e is not s
                and not within_2(e["shape"], s["shape"])]
        pick = None
        for reach in reaches:
            near = [e for e in rest if reach(e["shape"], s["shape"])]
            if near:
                pick = nearest(near, s["shape"])
                break
        least = min(padded(v, s["shape"]) for v in s["times"])
        win = pick and min(pick["times"], key=pick["times"].get)
        if pick is None or win not in s["times"] or padded(win, s["shape"]) > 1.25 * least:
            out.append(s["heuristic"])
        else:
            out.append(s["times"][win] / s["best"])
    return out


def within_transfer(shapes, reaches, table=None):
    """picked / best per shape, the shape itself held out, as the dispatcher without the model
    picks: the nearest entry within a factor 2 in m, n and k (no padding bound there), else the
    farther `reaches` (with the padding bound), else the heuristic (table: the entries to pick
    from, `shapes` by default)."""
    out = []
    table = shapes if table is None else table
    for s in (s for s in shapes if s["heuristic"] is not None):
        rest = [e for e in table if e["types"] == s["types"] and e is not s]
        within = [e for e in rest if within_2(e["shape"], s["shape"])]
        if within:
            win = min((e := nearest(within, s["shape"]))["times"], key=e["times"].get)
            out.append(s["times"][win] / s["best"] if win in s["times"] else s["heuristic"])
            continue
        out.extend(transfer([s], reaches, table))  # no entry within a factor 2 is left: the reaches decide
    return out


def model_transfer(shapes, reaches, within=False):
    """picked / best per shape when the cost model, fitted without the held-out entries, picks;
    below the least N or K of the entries left (of every dtype, as beyond_model_reach in
    gemm_select.cpp) the dispatcher does not consult it, and the rules before it decide."""
    import gemm_cost_model
    out = []
    for s in (s for s in shapes if s["heuristic"] is not None):
        if within:  # only the shape itself held out
            keep = lambda e, s=s: e["types"] == s["types"] and e is not s
        else:
            keep = lambda e, s=s: e["types"] == s["types"] and e is not s and not within_2(e["shape"], s["shape"])
        left = [e for e in shapes if e is not s and (within or not within_2(e["shape"], s["shape"]))]
        if left and (s["shape"][1] < min(e["shape"][1] for e in left) or s["shape"][2] < min(e["shape"][2] for e in left)):
            out.extend(within_transfer([s], reaches, shapes) if within else transfer([s], reaches, shapes))
            continue
        model = gemm_cost_model.fit_listing(shapes, keep=keep)  # no padding bound: the model counts padded tiles
        pred = {v: gemm_cost_model.predict(model[v], v, s["shape"]) for v in s["times"] if v in model}
        out.append(s["times"][min(pred, key=pred.get)] / s["best"] if pred else s["heuristic"])
    return out


def main():
    within = "--within" in sys.argv[1:]
    shapes = parse([a for a in sys.argv[1:] if a != "--within"][0])
    by_m = lambda e, s: ratio(e[0], s[0]) <= 2
    by_output = lambda e, s: ratio(e[0], s[0]) <= 2 and ratio(e[0] * e[1], s[0] * s[1]) <= 4
    decode_by_m = lambda e, s: by_m(e, s) and s[0] <= 32
    rules = {"heuristic alone": [], "m alone": [by_m], "m and m x n, then m for m <= 32": [by_output, decode_by_m]}
    if within:  # the dispatcher before the model, the shape itself held out
        rules = {"nearest entry, else the reaches": None}
    rules["cost model"] = "model"
    before = None
    for name, reaches in rules.items():
        if reaches == "model":
            r = model_transfer(shapes, [by_output, decode_by_m], within)
        elif reaches is None:
            r = within_transfer(shapes, [by_output, decode_by_m])
        else:
            r = transfer(shapes, reaches)
        gmean = math.exp(sum(map(math.log, r)) / len(r))
        line = f"{name:34s} geometric mean {gmean:.3f}x, worst {max(r):.2f}x over {len(r)} shapes"
        if before is not None:
            slower = sum(x > y * 1.02 for x, y in zip(r, before))
            faster = sum(x < y / 1.02 for x, y in zip(r, before))
            line += f"; against the rule above: {faster} faster, {slower} slower (2% or more)"
        print(line)
        before = r


if __name__ == "__main__":
    main()
