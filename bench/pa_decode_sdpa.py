#!/usr/bin/env python3
"""The peer of fly_bench's pa_decode rows: PyTorch SDPA (cuDNN first) on the same decode shapes.

    python3 bench/pa_decode_sdpa.py            (on the H200 machine; tools/h200_check.sh runs it)

For each shape (seqs B, context ctx, query heads Hq, kv heads Hkv, head_dim 128, q_len new tokens,
bf16) it builds a contiguous K/V cache [B, Hkv, ctx, d] and q [B, Hq, q_len, d] (uniform in [-1, 1))
and times torch.nn.functional.scaled_dot_product_attention under sdpa_kernel(CUDNN_ATTENTION),
falling back to FLASH_ATTENTION, then EFFICIENT_ATTENTION, when a backend refuses the shape (the
backend used is printed). SDPA's cuDNN path has no fp8 KV cache: fly's e4m3fn rows compare against
these bf16 lines (an fp8 cache reads half the bytes).

Grouped-query attention, in order of preference:
  gqa    enable_gqa=True (torch >= 2.5) on the [B, Hkv, ctx, d] cache;
  fold   the group folded into the query rows, q viewed as [B, Hkv, G * q_len, d]: the same result,
         the same cache read once (every backend takes it);
  repeat K and V repeat_interleave'd to Hq heads (reads G times the bytes; the bytes reported stay
         the cache's, so TB/s is then what fly would need to match, not what SDPA moved).
q_len 4: the new tokens are the last 4 of the context, query i sees tokens t <= ctx - 4 + i. SDPA's
is_causal aligns the mask top-left (wrong here), so an explicit boolean mask is passed; a backend
that refuses masks is tried again without one ("mask=none": 4 x 4 masked logits out of 4 x ctx,
the same bytes and nearly the same work). A second line always times it without the mask: on the
H200 (torch 2.11, cuDNN 9.19, enable_gqa) 64 x 4096 q_len 4 took 1318 us masked, 833 us unmasked,
against 245 us for q_len 1 (the same bytes).

Timing: 20 calls (input sets rotated when one set is under 120 MB, so no row is L2-resident: only
1 x 32768 could be, and it is 134 MB) captured in a torch.cuda.CUDAGraph; 3 replays of warm-up,
then the median of 30 replays timed with CUDA events, / 20. When torch.cuda._sleep exists the stream
is first held by a spinning kernel (like fly_bench's GpuTimer) so the host's replay launch is not
in the interval ("held" in the header line).
bytes = K + V bytes of the cache: B * ctx * Hkv * d * 2 * 2. of_hbm = TB/s / 4.57 (the H200's
measured read-streaming rate; bench/report.py recomputes it from TB/s against the rate fly_bench
measured in the same run, its rows' read_TBs). Each chosen configuration is checked once against an fp32 reference
on one sequence (err = max |sdpa - ref| / max |ref|).
Output: one line per shape,
    sdpa <label> backend=<b> us=<x> TB/s=<y> of_hbm=<z> gqa=<how> mask=<how> sets=<n> err=<e>
or `sdpa <label> SKIPPED <why>`. The script never raises: whatever torch lacks is printed and skipped.
"""

import math
import sys
import traceback

KREAD_TBS = 4.57
GRAPH_CALLS = 20
WARMUP_REPLAYS = 3
REPLAYS = 30
HEAD_DIM = 128
L2_LIMIT = 120 << 20

# (seqs, ctx, q heads, kv heads, q_len): fly_bench's pa_decode rows (bench_pa_decode_cuda.cu), or
# the shapes FLY_SDPA_SHAPES names ("BxCTXxHQxHKVxQLEN ...", tools/h200_check.sh's PA_SWEEP)
SHAPES = [
    (1, 32768, 32, 8, 1),
    (8, 8192, 32, 8, 1),
    (64, 4096, 32, 8, 1),
    (256, 1024, 32, 8, 1),
    (16, 16384, 64, 8, 1),
    (128, 2048, 64, 8, 1),
    (8, 8192, 40, 8, 1),
    (64, 4096, 32, 8, 4),
]


def shapes():
    import os

    named = os.environ.get("FLY_SDPA_SHAPES", "").split()
    return [tuple(int(x) for x in n.split("x")) for n in named] if named else SHAPES


def label(shape):
    b, ctx, hq, hkv, q_len = shape
    return f"{b}x{ctx}/h{hq}-{hkv}/q{q_len}"


def say(*args):
    print(*args, flush=True)


def main():
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001
        say(f"sdpa SKIPPED all: torch not importable ({e!r})")
        return 0
    if not torch.cuda.is_available():
        say("sdpa SKIPPED all: torch.cuda.is_available() is False")
        return 0
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is None:
        say(f"sdpa SKIPPED all: torch {torch.__version__} has no scaled_dot_product_attention")
        return 0

    # Backend selection: torch.nn.attention.sdpa_kernel (torch >= 2.3), else the older
    # torch.backends.cuda.sdp_kernel flags (no cuDNN there).
    backends = []  # (name, context factory)
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        for name in ("CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION"):
            if hasattr(SDPBackend, name):
                backends.append((name.lower(), (lambda b: (lambda: sdpa_kernel(b)))(getattr(SDPBackend, name))))
            else:
                say(f"# torch {torch.__version__}: SDPBackend.{name} missing, skipped")
    except Exception as e:  # noqa: BLE001
        say(f"# torch.nn.attention.sdpa_kernel unavailable ({e!r}); trying torch.backends.cuda.sdp_kernel (no cuDNN)")
        old = getattr(getattr(torch.backends, "cuda", None), "sdp_kernel", None)
        if old is not None:
            backends.append(("flash_attention", lambda: old(enable_flash=True, enable_math=False, enable_mem_efficient=False)))
            backends.append(("efficient_attention", lambda: old(enable_flash=False, enable_math=False, enable_mem_efficient=True)))
    if not backends:
        say("sdpa SKIPPED all: no way to select an SDPA backend in this torch")
        return 0

    dev = torch.device("cuda")
    # enable_gqa: probe it on a tiny problem (math backend, any torch that has the keyword)
    try:
        qq = torch.zeros(1, 4, 1, 64, device=dev, dtype=torch.bfloat16)
        kk = torch.zeros(1, 2, 8, 64, device=dev, dtype=torch.bfloat16)
        sdpa(qq, kk, kk, enable_gqa=True)
        have_gqa = True
    except Exception:  # noqa: BLE001
        have_gqa = False
    sleep = getattr(torch.cuda, "_sleep", None)
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception:  # noqa: BLE001
        cudnn = None
    say(f"# torch {torch.__version__} cuda {torch.version.cuda} cudnn {cudnn} on {torch.cuda.get_device_name(0)}; "
        f"enable_gqa {'yes' if have_gqa else 'no (fold / repeat_interleave instead)'}; "
        f"timing {'held (torch.cuda._sleep before the replay)' if sleep else 'not held (launch latency in it)'}")

    runs = []
    for shape in shapes():
        # q_len > 1: with the causal mask (the exact problem), then without it (what cuDNN does
        # without the mask operand: its broadcast boolean mask costs far more than the 4 x 4 logits)
        runs += [(shape, ["bool", "none"]), (shape, ["none"])] if shape[4] > 1 else [(shape, ["none"])]
    for shape, masks in runs:
        try:
            run_shape(torch, sdpa, dev, shape, backends, have_gqa, sleep, masks)
        except Exception as e:  # noqa: BLE001
            say(f"sdpa {label(shape)} SKIPPED {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            traceback.print_exc(file=sys.stderr)
        finally:
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001
                say(f"sdpa SKIPPED the rest: the CUDA context is unusable ({e!r})")
                return 0
    return 0


def run_shape(torch, sdpa, dev, shape, backends, have_gqa, sleep, masks):
    b, ctx, hq, hkv, q_len = shape
    g = hq // hkv
    d = HEAD_DIM
    kv_bytes = b * ctx * hkv * d * 2 * 2  # K and V, bf16
    set_bytes = kv_bytes + 2 * b * hq * q_len * d * 2
    sets = 1 if set_bytes >= L2_LIMIT else min(16, math.ceil(2 * L2_LIMIT / set_bytes))
    gen = torch.Generator(device=dev)
    gen.manual_seed(1234)

    def rand(*size):
        return torch.empty(*size, device=dev, dtype=torch.bfloat16).uniform_(-1, 1, generator=gen)

    data = [(rand(b, hq, q_len, d), rand(b, hkv, ctx, d), rand(b, hkv, ctx, d)) for _ in range(sets)]

    # masks: query i (of q_len) sees t <= ctx - q_len + i (bottom-right causal)
    def causal_mask(rows_per_token_group):
        t = torch.arange(ctx, device=dev)
        i = torch.arange(q_len, device=dev)
        m = t[None, :] <= (ctx - q_len + i)[:, None]  # [q_len, ctx]
        return m.repeat(rows_per_token_group, 1)  # rows ordered (group member, token)

    # formulations: name -> (make call args from (q, k, v), repeat factor of K/V)
    forms = []
    if have_gqa:
        forms.append("gqa")
    forms.append("fold")
    forms.append("repeat")

    def make_call(form, mask, q, k, v):
        kwargs = {"scale": 1.0 / math.sqrt(d)}
        if form == "gqa":
            qx, kx, vx = q, k, v
            kwargs["enable_gqa"] = True
            m = causal_mask(1) if mask == "bool" else None
        elif form == "fold":
            qx, kx, vx = q.reshape(b, hkv, g * q_len, d), k, v  # q [B, Hkv, G, q_len, d]: row = (member, token)
            m = causal_mask(g) if mask == "bool" else None
        else:
            qx, kx, vx = q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
            m = causal_mask(1) if mask == "bool" else None
        if m is not None:
            kwargs["attn_mask"] = m

        def call():
            o = sdpa(qx, kx, vx, **kwargs)
            return o.reshape(b, hq, q_len, d) if form == "fold" else o

        return call

    chosen = None
    refusals = []
    for bname, ctxf in backends:
        for form in forms:
            for mask in masks:
                try:
                    call = make_call(form, mask, *data[0])
                    with ctxf():
                        out = call()
                    torch.cuda.synchronize()
                    chosen = (bname, ctxf, form, mask, out)
                except Exception as e:  # noqa: BLE001
                    msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                    refusals.append(f"{bname}/{form}/mask={mask}: {msg[:100]}")
                    continue
                break
            if chosen:
                break
        if chosen:
            break
    if chosen is None:
        say(f"sdpa {label(shape)} SKIPPED every backend refused: " + " | ".join(refusals[:6]))
        return
    bname, ctxf, form, mask, out = chosen
    if refusals:
        say(f"# {label(shape)}: refused before {bname}/{form}: " + " | ".join(refusals[:4]))

    # One check against fp32 math on sequence 0 (catches a wrong fold or mask).
    q0, k0, v0 = (x[0].float() for x in data[0])
    k0 = k0.repeat_interleave(g, dim=0)
    v0 = v0.repeat_interleave(g, dim=0)
    logits = torch.einsum("hid,htd->hit", q0, k0) / math.sqrt(d)
    if mask == "bool":
        logits = logits.masked_fill(~causal_mask(1)[None], float("-inf"))
    ref = torch.einsum("hit,htd->hid", torch.softmax(logits, dim=-1), v0)
    err = ((out[0].float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
    del q0, k0, v0, logits, ref, out

    per_set = [make_call(form, mask, *data[i]) for i in range(sets)]  # one (possibly repeated) K/V per set
    calls = [per_set[i % sets] for i in range(GRAPH_CALLS)]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), ctxf():
        for c in calls[:3]:
            c()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph, outs, timing = None, None, "graph"
    try:
        graph = torch.cuda.CUDAGraph()
        with ctxf():
            with torch.cuda.graph(graph):
                outs = [c() for c in calls]  # kept alive with the graph
        for _ in range(WARMUP_REPLAYS):
            graph.replay()
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        say(f"# {label(shape)}: CUDA graph capture failed ({str(e).splitlines()[0] if str(e) else type(e).__name__}); "
            "timing the 20 calls eagerly instead")
        graph, outs, timing = None, None, "eager"
        torch.cuda.synchronize()

    def run_all():
        if graph is not None:
            graph.replay()
        else:
            with ctxf():
                for c in calls:
                    c()

    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    ms = []
    for _ in range(REPLAYS):
        if sleep is not None:
            sleep(2_000_000)  # ~1 ms of spinning: the replay is enqueued before the stream reaches it
        start.record()
        run_all()
        stop.record()
        stop.synchronize()
        ms.append(start.elapsed_time(stop))
    ms.sort()
    us = ms[len(ms) // 2] * 1e3 / GRAPH_CALLS
    tbs = kv_bytes / (us * 1e-6) * 1e-12
    say(f"sdpa {label(shape)} backend={bname.replace('_attention', '')} us={us:.2f} TB/s={tbs:.3f} "
        f"of_hbm={tbs / KREAD_TBS:.3f} gqa={form} mask={mask if q_len > 1 else '-'} sets={sets} err={err:.2e}"
        + ("" if timing == "graph" else " timing=eager"))
    del graph, outs, calls, per_set, data


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        say("sdpa SKIPPED the rest: unexpected error (traceback above)")
        sys.exit(0)
