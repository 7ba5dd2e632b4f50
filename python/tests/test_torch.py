"""libfly on torch tensors: CPU tensors on the host backend, CUDA tensors on the GPU kernels (on
torch's current stream, inside torch.cuda.graph), checked against float64 references and against
torch's own matmul, scaled_mm and attention; the custom ops pass torch.library.opcheck and trace
under torch.compile. Runs where torch is installed (the H200 machine); skipped elsewhere."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the torch tests run on the GPU machine")

import libfly  # noqa: E402
from test_pa_decode import reference  # noqa: E402

CUDA = torch.cuda.is_available() and "cuda" in libfly.backends()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no CUDA device, or a libfly built without CUDA")


def paged(seqs=4, lens=(300, 17, 1, 1000), hq=8, hkv=2, d=128, bs=16, nb=256, dtype=torch.bfloat16, device="cpu",
          seed=0):
    g = torch.Generator().manual_seed(seed)
    kc = (torch.rand((nb, bs, hkv, d), generator=g) * 2 - 1).to(dtype)
    vc = (torch.rand((nb, bs, hkv, d), generator=g) * 2 - 1).to(dtype)
    max_blocks = (max(lens) + bs - 1) // bs
    tables = torch.randperm(nb, generator=g)[: seqs * max_blocks].reshape(seqs, max_blocks).to(torch.int32)
    q = (torch.rand((seqs, 1, hq, d), generator=g) * 2 - 1).to(dtype)
    lens_t = torch.tensor(lens, dtype=torch.int32)
    return [t.to(device) for t in (q, kc, vc, tables, lens_t)]


def ref_of(q, kc, vc, tables, lens, scale):
    f = lambda t: t.float().cpu().double().numpy()  # noqa: E731
    return reference(f(q), f(kc), f(vc), tables.cpu().numpy(), lens.cpu().numpy(), kc.shape[1], scale)


def test_cpu_tensors_run_on_the_host_backend():
    q, kc, vc, tables, lens = paged()
    out, lse = libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=1000, return_lse=True)
    ref, ref_lse = ref_of(q, kc, vc, tables, lens, 1 / math.sqrt(128))
    assert out.dtype == torch.bfloat16 and out.device.type == "cpu"
    assert np.abs(out.float().numpy() - ref).max() <= 2.0 ** -7
    assert np.allclose(lse.numpy(), ref_lse, rtol=1e-4, atol=1e-4)
    a, b = torch.randn(9, 40), torch.randn(7, 40)
    assert torch.allclose(libfly.gemm(a, b), a @ b.T, rtol=1e-5, atol=1e-5)


@needs_cuda
def test_cuda_pa_decode_matches_the_reference_and_torch_attention():
    q, kc, vc, tables, lens = paged(device="cuda")
    out = libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=1000)
    torch.cuda.synchronize()
    ref, _ = ref_of(q, kc, vc, tables, lens, 1 / math.sqrt(128))
    assert out.device.type == "cuda"
    assert np.abs(out.float().cpu().numpy() - ref).max() <= 2.0 ** -7 + 2.0 ** -8  # out and P rounded to bf16
    for s, n in enumerate(lens.tolist()):  # torch's SDPA over the gathered context
        blocks = tables[s, : (n + 15) // 16].long()
        k = kc[blocks].reshape(-1, 2, 128)[:n].transpose(0, 1).unsqueeze(0)
        v = vc[blocks].reshape(-1, 2, 128)[:n].transpose(0, 1).unsqueeze(0)
        sd = torch.nn.functional.scaled_dot_product_attention(q[s].transpose(0, 1).unsqueeze(0), k, v, enable_gqa=True)
        assert torch.allclose(out[s, 0].float(), sd[0, :, 0].float(), atol=2e-2), s


@needs_cuda
def test_cuda_gemm_fp8_and_f32_against_torch():
    a = torch.randn(64, 256, device="cuda")
    b = torch.randn(96, 256, device="cuda")
    assert torch.allclose(libfly.gemm(a, b), a @ b.T, rtol=1e-4, atol=1e-3)
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    sa = torch.tensor([0.5], device="cuda")
    sb = torch.tensor([2.0], device="cuda")
    ours = libfly.gemm(a8, b8, scale_a=sa, scale_b=sb, out_dtype="bf16")
    theirs = torch._scaled_mm(a8, b8.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    assert ours.dtype == torch.bfloat16
    assert torch.allclose(ours.float(), theirs.float(), rtol=2e-2, atol=2e-2)


@needs_cuda
def test_arguments_on_another_device_are_refused_before_any_call():
    # libfly gets raw pointers: a host out with CUDA inputs (or the reverse) would fault, so Python checks
    q, kc, vc, tables, lens = paged(device="cuda", seqs=2, lens=(40, 33))
    with pytest.raises(ValueError, match="out is on cpu but q is on cuda"):
        libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=40, out=torch.empty_like(q, device="cpu"))
    with pytest.raises(ValueError, match="sinks is on cpu"):
        libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=40, sinks=torch.zeros(q.shape[2]))
    a, b = torch.randn(8, 32, device="cuda"), torch.randn(4, 32, device="cuda")
    with pytest.raises(ValueError, match="out is on cpu but a is on cuda"):
        libfly.gemm(a, b, out=torch.empty(8, 4))
    with pytest.raises(ValueError, match="c is on cpu"):
        libfly.gemm(a, b, c=torch.zeros(8, 4), beta=1.0)
    with pytest.raises(ValueError, match="scale_a is on cpu"):
        libfly.gemm(a, b, scale_a=torch.tensor([2.0]))


@needs_cuda
def test_cuda_graph_capture_replays_with_new_data():
    q, kc, vc, tables, lens = paged(device="cuda")
    libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=1000)  # warm-up: handle, opt-ins
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=1000)
    q2, kc2, vc2, tables2, lens2 = paged(device="cuda", seed=1, lens=(999, 64, 30, 2))
    for dst, src in ((q, q2), (kc, kc2), (vc, vc2), (tables, tables2), (lens, lens2)):
        dst.copy_(src)
    graph.replay()
    torch.cuda.synchronize()
    ref, _ = ref_of(q2, kc2, vc2, tables2, lens2, 1 / math.sqrt(128))
    assert np.abs(out.float().cpu().numpy() - ref).max() <= 2.0 ** -7 + 2.0 ** -8


def test_custom_ops_pass_opcheck_and_trace_under_compile():
    device = "cuda" if CUDA else "cpu"
    q, kc, vc, tables, lens = paged(device=device, seqs=2, lens=(40, 33))
    torch.library.opcheck(torch.ops.libfly.pa_decode.default,
                          (q, kc, vc, tables, lens, "nhd", 64, None, None, None, 0.0, 0, None))
    a, b = torch.randn(8, 32, device=device), torch.randn(4, 32, device=device)
    torch.library.opcheck(torch.ops.libfly.gemm.default, (a, b, None, None, None, 1.0, 0.0, torch.float32))

    c = torch.randn(8, 4, device=device, dtype=torch.bfloat16)

    @torch.compile(fullgraph=True)
    def step(q, kc, vc, tables, lens, a, b, c):
        # gemm with c: out's type comes from c's dtype, not from its pointer (no graph break)
        return (libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=64) * 2, libfly.gemm(a, b) + 1,
                libfly.gemm(a, b, c=c, beta=0.5))

    o, d, e = step(q, kc, vc, tables, lens, a, b, c)
    assert torch.equal(o, libfly.pa_decode(q, kc, vc, tables, lens, layout="nhd", max_seq_len=64) * 2)
    assert torch.allclose(d, a @ b.T + 1, rtol=1e-4, atol=1e-4)
    assert e.dtype == torch.bfloat16
    assert torch.allclose(e.float(), a @ b.T + 0.5 * c.float(), rtol=2e-2, atol=2e-2)
