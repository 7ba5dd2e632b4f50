#!/usr/bin/env python3
"""The benchmark report: fly_bench's JSON (--benchmark_out, with the cuBLASLt rows it measures
itself) and the peers' lines (bench/peers.py: torch._scaled_mm, torch.mm and, through
bench/pa_decode_sdpa.py, cuDNN SDPA) joined into markdown tables
(libfly, peer, ratio, fraction of the measured ceilings) and, with matplotlib, plots: the decode's
achieved bandwidth per shape with the read ceiling drawn in, GEMM TFLOP/s (TB/s for decode shapes)
against M beside cuBLASLt.

    python3 bench/report.py --bench bench.json --peers sdpa.txt --out docs/performance.md \
        --plots docs/performance --title "H200, <date>, <command>"
"""

import argparse
import json
import pathlib
import re
import sys

FALLBACK_HBM_TBS = 4.57  # the H200's measured read ceiling (docs/h200-runs.md), for a JSON without read_TBs


def read_ceiling(rows):
    """The read-streaming rate fly_bench measured in the run (every GPU row's read_TBs counter), and
    whether it was measured there; else the H200's figure."""
    for b in rows.values():
        if b.get("read_TBs"):
            return float(b["read_TBs"]), True
    return FALLBACK_HBM_TBS, False


def load_bench(path):
    """fly_bench rows: {(op, dtype, shape, impl): row} from Google Benchmark's JSON."""
    rows = {}
    for b in json.loads(pathlib.Path(path).read_text())["benchmarks"]:
        parts = b["name"].split("/")
        if parts[0] not in ("gemm", "pa_decode") or "error_occurred" in b:
            continue
        op, dtype = parts[0], parts[1]
        if op == "gemm":
            shape, impl = parts[2], parts[3]
        else:
            shape, impl = "/".join(parts[2:5]), parts[5]
        rows[(op, dtype, shape, impl)] = b
    return rows


def load_peers(path):
    """bench/peers.py's (and pa_decode_sdpa.py's) lines: ({shape: sdpa entry}, {(dtype, shape): torch entry}).
    For attention the unmasked line wins."""
    attention, gemm = {}, {}
    if path is None:
        return attention, gemm
    for line in pathlib.Path(path).read_text().splitlines():
        words = line.split()
        if len(words) < 3 or "SKIPPED" in words:
            continue
        fields = dict(kv.split("=", 1) for kv in words[2:] if "=" in kv)
        if words[0] == "sdpa":
            entry = {"us": float(fields["us"]), "TBs": float(fields["TB/s"]), "mask": fields.get("mask", "-")}
            if words[1] not in attention or entry["mask"] in ("-", "none"):
                attention[words[1]] = entry
        elif words[0] == "peer" and words[1].startswith("gemm/"):
            _, dtype, shape = words[1].split("/")
            gemm[(dtype, shape)] = {"impl": words[2], "us": float(fields["us"]), "TFLOPs": float(fields["TFLOPs"]),
                                    "TBs": float(fields["TBs"])}
    return attention, gemm


def pa_decode_table(rows, peers, hbm_tbs):
    """The decode rows beside SDPA; the peer's fraction against the ceiling fly_bench measured."""
    lines = ["| kv | B x ctx, Hq/Hkv, q_len | libfly | of HBM | cuDNN SDPA (bf16) | of HBM | libfly / SDPA time | variant |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    points = []
    for (op, dtype, shape, impl), b in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[1]["family_index"])):
        if op != "pa_decode" or impl != "fly":
            continue
        bxc, heads, qlen = shape.split("/")
        peer = peers.get(shape)
        ratio = f"{b['us'] / peer['us']:.2f}x" if peer and dtype == "bf16" else ""
        peer_of_hbm = peer["TBs"] / hbm_tbs if peer else None
        peer_cells = f"{peer['us']:.1f} us | {peer_of_hbm:.2f}" if peer else " | "
        variant = b.get("label", "").split()[0]
        lines.append(f"| {dtype} | {bxc}, {heads.lstrip('h').replace('-', '/')}, {qlen.lstrip('q')} | {b['us']:.1f} us | "
                     f"{b['of_hbm']:.2f} | {peer_cells} | {ratio} | `{variant}` |")
        points.append((dtype, bxc, b["of_hbm"], peer_of_hbm if qlen == "q1" else None))
    return lines, points


def batch_calls(rows):
    """How many calls fly_bench's GEMM batches ran back to back (its rows' batch_calls; 20 before it said)."""
    return next((int(b["batch_calls"]) for b in rows.values() if b.get("batch_calls")), 20)


def gemm_table(rows, torch_peers):
    lines = [f"| A x B -> D | M x N x K | libfly | cuBLASLt | libfly / cuBLASLt time | {batch_calls(rows)} back to back: "
             "libfly, cuBLASLt; plain read | "
             "torch (peers.py) | error (libfly, cuBLASLt) | variant |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    points = []
    for (op, dtype, shape, impl), b in sorted(rows.items(), key=lambda kv: kv[1]["family_index"]):
        if op != "gemm" or impl != "fly":
            continue
        peer = rows.get((op, dtype, shape, "cublaslt"))
        m = int(shape.split("x")[0])
        rate = lambda r: f"{r['us']:.1f} us, {r['TFLOPs']:.0f} TFLOP/s, {r['TBs']:.2f} TB/s"  # noqa: E731
        ratio = f"{b['us'] / peer['us']:.2f}x" if peer else ""
        batch = []  # back to back: libfly, cuBLASLt and their ratio; the plain read of A and B (decode shapes)
        if b.get("batch_us") and peer and peer.get("batch_us"):
            batch.append(f"{b['batch_us']:.1f} us, {peer['batch_us']:.1f} us ({b['batch_us'] / peer['batch_us']:.2f}x)")
        elif b.get("batch_us"):
            batch.append(f"{b['batch_us']:.1f} us")
        floor = rows.get((op, dtype, shape, "read"))
        if floor and floor.get("batch_us"):
            batch.append(f"plain read {floor['batch_us']:.1f} us")
        err = f"{b.get('err', float('nan')):.2e}, {peer.get('err', float('nan')):.2e}" if peer else ""
        variant = b.get("label", "").split(":")[0]
        t = torch_peers.get((dtype, shape))
        torch_cell = f"{t['impl']}: {t['us']:.1f} us, {b['us'] / t['us']:.2f}x" if t else ""
        lines.append(f"| {dtype.replace('_', ' -> ')} | {shape} | {rate(b)} | {rate(peer) if peer else ''} | {ratio} | {'; '.join(batch)} | "
                     f"{torch_cell} | {err} | `{variant}` |")
        if peer:
            points.append((dtype, m, shape, b["TFLOPs"], peer["TFLOPs"], b["TBs"], peer["TBs"]))
    return lines, points


def plot(pa_points, gemm_points, folder, hbm_tbs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib is not installed: no plots", file=sys.stderr)
        return []
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels = sorted({bxc for _, bxc, _, _ in pa_points}, key=lambda s: (int(s.split("x")[0]), int(s.split("x")[1])))
    x = {l: i for i, l in enumerate(labels)}
    for dtype, marker in (("bf16", "o"), ("e4m3fn", "s")):
        pts = [(x[bxc], frac) for d, bxc, frac, _ in pa_points if d == dtype]
        if pts:
            ax.scatter(*zip(*pts), marker=marker, label=f"libfly, {dtype} cache")
    peer = sorted({(x[bxc], p) for d, bxc, _, p in pa_points if p is not None})
    if peer:
        ax.scatter(*zip(*peer), marker="x", color="black", label="cuDNN SDPA (contiguous bf16)")
    ax.axhline(1.0, color="red", linestyle="--", label=f"measured read ceiling ({hbm_tbs:.2f} TB/s)")
    ax.set_xticks(range(len(labels)), [l.replace("x", " x ") for l in labels], rotation=20)
    ax.set_xlabel("batch x context (tokens)")
    ax.set_ylabel("fraction of HBM read bandwidth")
    ax.set_ylim(0, 1.1)
    ax.set_title("Paged-attention decode, head_dim 128, block 16")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "pa_decode_bandwidth.png", dpi=110)
    made.append(folder / "pa_decode_bandwidth.png")
    plt.close(fig)

    decode = sorted(p for p in gemm_points if p[0].startswith("e4m3") and p[2].endswith("x8192x8192") and p[1] <= 128)
    square = sorted(p for p in gemm_points if p[0].startswith("e4m3") and len(set(p[2].split("x"))) == 1)
    if decode or square:
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
        if decode:
            ms = [p[1] for p in decode]
            left.plot(ms, [p[5] for p in decode], "o-", label="libfly")
            left.plot(ms, [p[6] for p in decode], "x--", label="cuBLASLt")
            left.axhline(hbm_tbs, color="red", linestyle="--", label="measured HBM read ceiling")
            left.set_xscale("log", base=2)
            left.set_ylim(0, hbm_tbs * 1.1)
            left.set_xlabel("M (N = K = 8192)")
            left.set_ylabel("TB/s on the operands")
            left.set_title("fp8 GEMM, decode shapes")
            left.legend(fontsize=8)
        if square:
            ns = [p[1] for p in square]
            right.plot(ns, [p[3] for p in square], "o-", label="libfly")
            right.plot(ns, [p[4] for p in square], "x--", label="cuBLASLt")
            right.set_xscale("log", base=2)
            right.set_xlabel("M = N = K")
            right.set_ylabel("TFLOP/s")
            right.set_title("fp8 GEMM, square shapes")
            right.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(folder / "gemm.png", dpi=110)
        made.append(folder / "gemm.png")
        plt.close(fig)
    return made


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", required=True, help="fly_bench --benchmark_out JSON")
    p.add_argument("--peers", help="bench/peers.py (or bench/pa_decode_sdpa.py) output")
    p.add_argument("--out", help="markdown file to write (stdout without)")
    p.add_argument("--plots", help="folder for the PNG plots (none without)")
    p.add_argument("--title", default="", help="a line naming the machine, date and command")
    a = p.parse_args(argv)
    rows = load_bench(a.bench)
    attention_peers, gemm_peers = load_peers(a.peers)
    hbm_tbs, measured = read_ceiling(rows)
    pa_lines, pa_points = pa_decode_table(rows, attention_peers, hbm_tbs)
    gemm_lines, gemm_points = gemm_table(rows, gemm_peers)
    md = ["# Performance", "", "Generated by `bench/report.py`; do not edit by hand.", ""]
    if a.title:
        md += [a.title, ""]
    ceiling = (f"{hbm_tbs:.2f} TB/s HBM read, measured on this card in the same run" if measured
               else f"{hbm_tbs:.2f} TB/s HBM read (the H200's; this run did not measure its own)")
    md += ["GPU time, never the host's enqueue: the paged decode per call in a replayed CUDA graph of 20 calls, "
           f"the GEMM of one call behind a held stream, and of {batch_calls(rows)} back to back (`batch_us`); "
           "beside decode shapes the floor, a plain read of the same A and B (fly_bench's `read` rows). "
           f"Fractions of the measured ceilings: {ceiling}.", ""]
    made = plot(pa_points, gemm_points, a.plots, hbm_tbs) if a.plots else []
    out_dir = pathlib.Path(a.out).parent if a.out else pathlib.Path(".")
    md += ["## Paged-attention decode (head_dim 128, block 16, NHD, scattered blocks)", ""] + pa_lines + [""]
    md += [f"![{f.stem}]({f.relative_to(out_dir) if f.is_relative_to(out_dir) else f})" for f in made if "pa_" in f.name]
    md += ["", "## GEMM", ""] + gemm_lines + [""]
    md += [f"![{f.stem}]({f.relative_to(out_dir) if f.is_relative_to(out_dir) else f})" for f in made if "gemm" in f.name]
    text = "\n".join(md).rstrip() + "\n"
    if a.out:
        pathlib.Path(a.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
