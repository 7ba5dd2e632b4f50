"""tools/tuning_holdout.py: the cost model's line follows the dispatcher's reach bound (a held-out
shape below the least N or K of the entries left is decided by the reaches, here the heuristic)."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import tune_listing  # noqa: E402
import tuning_holdout  # noqa: E402

SMALL = "gemm_sm90a_e4m3fn_bf16_64x64x128_w4x1_tmaws_s12"
BIG = "gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4"


def shape_block(m, n, k, small_us, big_us, heuristic):
    best, win = min((small_us, SMALL), (big_us, BIG))
    head = f"e4m3fn bf16    {m}x{n}x{k}     {win}    {best:.1f} us    100.0  {heuristic}\n"
    return head + f"    {SMALL}    {small_us:.1f} us    100.0\n    {BIG}    {big_us:.1f} us    100.0\n"


def listing(tmp_path):
    text = "fly_bench --tune: 2 sm90a variants on NVIDIA H200, writing x.tsv\n"
    # the fit's shapes: N and K of 4096 and more, M from 64 to 8192
    for m, n, k, s, b in [(64, 4096, 4096, 12.0, 15.0), (256, 4096, 8192, 30.0, 28.0), (1024, 8192, 8192, 110.0, 100.0),
                          (4096, 4096, 4096, 120.0, 105.0), (8192, 8192, 8192, 900.0, 820.0), (128, 8192, 4096, 20.0, 22.0)]:
        text += shape_block(m, n, k, s, b, "the same")
    # below every other entry's N: the model would extrapolate; the heuristic's pick runs 1.5x the best
    text += shape_block(64, 512, 4096, 10.0, 12.0, f"{SMALL}, 1.50x slower")
    path = tmp_path / "tune.txt"
    path.write_text(text)
    return tune_listing.parse(path)


def test_a_shape_below_the_least_n_left_goes_to_the_reaches(tmp_path):
    shapes = listing(tmp_path)
    reaches = [lambda e, s: tuning_holdout.ratio(e[0], s[0]) <= 2 and tuning_holdout.ratio(e[0] * e[1], s[0] * s[1]) <= 4,
               lambda e, s: tuning_holdout.ratio(e[0], s[0]) <= 2 and s[0] <= 32]
    picked = tuning_holdout.model_transfer(shapes, reaches)
    assert len(picked) == 7
    # the last shape: no entry within reach (M x N 8x off), so the heuristic's 1.5x, not a model pick (1.0 or 1.2)
    assert picked[-1] == 1.5
    # inside the bound every shape is the model's pick: a variant's time over the best, never the heuristic's
    assert all(x < 1.5 for x in picked[:-1])
    within = tuning_holdout.model_transfer(shapes, reaches, within=True)
    assert within[-1] == 1.5
