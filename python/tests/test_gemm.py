"""libfly.gemm on NumPy arrays (the host backend) against float64 products: f32 and fp8 inputs on
random data, alpha, beta, C, scales, padded rows, and the argument checks."""

import numpy as np
import pytest

import libfly

RNG = np.random.default_rng(2026)


def e4m3fn_values():
    """Every finite e4m3fn code's value (sign, 4-bit exponent bias 7, 3-bit mantissa; 0x7F/0xFF NaN)."""
    out = np.zeros(256)
    for code in range(256):
        s, e, m = code >> 7, (code >> 3) & 15, code & 7
        v = (m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        out[code] = -v if s else v
    out[0x7F] = out[0xFF] = np.nan
    return out


def bound(a, b, k, unit):
    # |fl(sum) - sum| <= k * unit * sum |a||b| (fp32 accumulation), plus the output's rounding
    return k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T) + unit * np.abs(a @ b.T) + 1e-30


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 13, 64), (33, 17, 300)])
def test_f32_matches_float64(m, n, k):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    d = libfly.gemm(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    assert d.dtype == np.float32 and d.shape == (m, n)
    assert np.all(np.abs(d - ref) <= bound(a.astype(np.float64), b.astype(np.float64), k, 2.0 ** -24))


def test_fp8_with_scales_alpha_beta_and_c():
    m, n, k = 9, 20, 96
    values = e4m3fn_values()
    finite = np.array([c for c in range(256) if np.isfinite(values[c])], np.uint8)
    a_bits = RNG.choice(finite, (m, k)).astype(np.uint8)
    b_bits = RNG.choice(finite, (n, k)).astype(np.uint8)
    sa, sb = np.array([0.5], np.float32), np.array([0.125], np.float32)
    c = RNG.standard_normal((m, n)).astype(np.float32)
    d = libfly.gemm(libfly.typed(a_bits, "e4m3fn"), libfly.typed(b_bits, "e4m3fn"), scale_a=sa, scale_b=sb, c=c,
                    alpha=2.0, beta=-0.75)
    a, b = values[a_bits], values[b_bits]
    ref = 2.0 * 0.5 * 0.125 * (a @ b.T) - 0.75 * c.astype(np.float64)
    tol = 2.0 * 0.0625 * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T) + 2.0 ** -23 * np.abs(ref) + 1e-6
    assert np.all(np.abs(d - ref) <= tol)


def test_padded_rows_and_out():
    a_full = RNG.standard_normal((6, 40)).astype(np.float32)
    b_full = RNG.standard_normal((5, 48)).astype(np.float32)
    a, b = a_full[:, :32], b_full[:, :32]  # leading dimensions 40 and 48
    out = np.full((6, 5), np.nan, np.float32)
    assert libfly.gemm(a, b, out=out) is out
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    assert np.all(np.abs(out - ref) <= bound(a.astype(np.float64), b.astype(np.float64), 32, 2.0 ** -24))


def test_arguments_are_checked_by_name():
    a = np.ones((4, 8), np.float32)
    with pytest.raises(ValueError, match="b must be N x K with a's K"):
        libfly.gemm(a, np.ones((3, 9), np.float32))
    with pytest.raises(ValueError, match="a must be row-major"):
        libfly.gemm(np.ones((8, 4), np.float32).T, np.ones((3, 8), np.float32))
    with pytest.raises(ValueError, match="NumPy dtype float64"):
        libfly.gemm(np.ones((4, 8)), np.ones((3, 8)))
    with pytest.raises(ValueError, match="out must be 4 x 3 f32"):
        libfly.gemm(a, np.ones((3, 8), np.float32), out=np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="b: expected a torch tensor or a NumPy array"):
        libfly.gemm(a, [[1.0] * 8])
    # one scale per operand: a per-row (or empty) scale is refused, not read as its first element
    with pytest.raises(ValueError, match=r"scale_a must be one float32 \(shape \(\) or \(1,\)\), got f32 \(4, 1\)"):
        libfly.gemm(a, np.ones((3, 8), np.float32), scale_a=np.ones((4, 1), np.float32))
    with pytest.raises(ValueError, match="scale_b must be one float32"):
        libfly.gemm(a, np.ones((3, 8), np.float32), scale_b=np.ones((0,), np.float32))
    frozen = np.zeros((4, 3), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out is a read-only NumPy array"):
        libfly.gemm(a, np.ones((3, 8), np.float32), out=frozen)
    with pytest.raises(ValueError, match="out_dtype 'f64' is not f32, f16 or bf16"):
        libfly.gemm(a, np.ones((3, 8), np.float32), out_dtype="f64")
    assert libfly.explain_gemm(a, np.ones((3, 8), np.float32)) == "host_reference: host backend"
