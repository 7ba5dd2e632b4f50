#!/usr/bin/env python3
"""The peers of fly_bench's rows, timed the way fly_bench times libfly (GPU time per call in a
replayed CUDA graph of 20 calls, the stream held so the host's launch is not in the interval):

  - fp8 GEMM: torch._scaled_mm (e4m3fn A x B^T, per-tensor scales, bf16 out) on fly_bench's shapes;
  - fp32 GEMM: torch.mm (TF32 off);
  - paged-decode attention: bench/pa_decode_sdpa.py (cuDNN SDPA on a contiguous cache), run here.

    python3 bench/peers.py > peers.txt      (on the GPU machine; bench/report.py --peers peers.txt)

Output lines: `peer gemm/<e4m3_bf16|f32_f32>/<M>x<N>x<K> <impl> us=<x> TFLOPs=<y> TBs=<z>` and the
`sdpa ...` lines of pa_decode_sdpa.py; `peer ... SKIPPED <why>` where torch lacks something. The
script never raises.
"""

import pathlib
import sys
import traceback

GRAPH_CALLS = 20
WARMUP_REPLAYS = 3
REPLAYS = 30
# fly_bench's GEMM rows (bench/gemm_shapes.hpp, kBenchShapes); fp32 leaves out 8192^3 as fly_bench does
SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (16, 8192, 8192), (64, 8192, 8192),
          (128, 8192, 8192), (64, 16, 128)]
# kFp8BenchShapes: fp8 rows only
FP8_SHAPES = [(32, 14336, 4096), (96, 8192, 8192), (256, 4096, 4096), (256, 8192, 8192), (1024, 8192, 8192),
              (2048, 8192, 8192)]
# fp32 only: K not a multiple of four floats (kF32OddKBenchShapes)
F32_ODD_K_SHAPES = [(2048, 2048, 2047), (16, 8192, 8191), (128, 8192, 8191)]


def say(*args):
    print(*args, flush=True)


def gpu_us(torch, call):
    """Median GPU time of one call over REPLAYS replays of a graph of GRAPH_CALLS calls."""
    sleep = getattr(torch.cuda, "_sleep", None)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = [call() for _ in range(GRAPH_CALLS)]  # noqa: F841 (kept alive with the graph)
    for _ in range(WARMUP_REPLAYS):
        graph.replay()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ms = []
    for _ in range(REPLAYS):
        if sleep is not None:
            sleep(2_000_000)
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        ms.append(start.elapsed_time(stop))
    ms.sort()
    return ms[len(ms) // 2] * 1e3 / GRAPH_CALLS


def gemm_peers(torch):
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    for m, n, k in SHAPES + FP8_SHAPES + F32_ODD_K_SHAPES:
        flops = 2.0 * m * n * k
        a = torch.randn(m, k, device=dev)
        b = torch.randn(n, k, device=dev)
        try:
            if (m, n, k) not in F32_ODD_K_SHAPES:
                a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
                one = torch.tensor(1.0, device=dev)
                us = gpu_us(torch, lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
                tbs = (m * k + n * k + 2 * m * n) / (us * 1e-6) * 1e-12
                say(f"peer gemm/e4m3_bf16/{m}x{n}x{k} torch_scaled_mm us={us:.2f} TFLOPs={flops / us * 1e-6:.1f} TBs={tbs:.3f}")
        except Exception as e:  # noqa: BLE001
            say(f"peer gemm/e4m3_bf16/{m}x{n}x{k} SKIPPED {str(e).splitlines()[0][:120] if str(e) else type(e).__name__}")
        if m == 8192 or (m, n, k) in FP8_SHAPES:
            continue
        try:
            us = gpu_us(torch, lambda: torch.mm(a, b.t()))
            tbs = 4 * (m * k + n * k + m * n) / (us * 1e-6) * 1e-12
            say(f"peer gemm/f32_f32/{m}x{n}x{k} torch_mm us={us:.2f} TFLOPs={flops / us * 1e-6:.1f} TBs={tbs:.3f}")
        except Exception as e:  # noqa: BLE001
            say(f"peer gemm/f32_f32/{m}x{n}x{k} SKIPPED {str(e).splitlines()[0][:120] if str(e) else type(e).__name__}")
        del a, b


def main():
    try:
        import torch
    except ImportError:
        say("peer SKIPPED torch is not installed")
        return 0
    if not torch.cuda.is_available():
        say("peer SKIPPED no CUDA device")
        return 0
    say(f"# torch {torch.__version__} on {torch.cuda.get_device_name()}; GPU time per call, graphs of {GRAPH_CALLS}")
    gemm_peers(torch)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import pa_decode_sdpa
    pa_decode_sdpa.main()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        say("peer SKIPPED the rest: unexpected error (traceback above)")
        sys.exit(0)
