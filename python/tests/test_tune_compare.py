"""tools/tune_compare.py --against: two FLY_TUNE_ALL listings of the same cells under two settings,
compared per shape (each listing's fastest cell, then the first's cells with both times)."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("tune_compare", ROOT / "tools" / "tune_compare.py")
tune_compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tune_compare)

# bench/bench_gemm_tune.cu's layout: a shape's winner line, then every variant's time.
FIRST = """\
fly_bench --tune: 2 sm90a variants on NVIDIA H100 80GB HBM3, writing x.tsv
ab -> d        m x n x k        fastest                                                        time  TFLOP/s  heuristic's pick
e4m3fn bf16    96x8192x8192     gemm_b                                                         31.4 us    401.0
    gemm_b                                                         31.4 us    401.0
    gemm_a                                                         35.0 us    360.0
e4m3fn bf16    128x8192x8192    gemm_a                                                         32.0 us    500.0
    gemm_a                                                         32.0 us    500.0
"""
SECOND = """\
e4m3fn bf16    96x8192x8192     gemm_a                                                         34.0 us    370.0
    gemm_a                                                         34.0 us    370.0
    gemm_b                                                         34.5 us    365.0
"""


def test_against_compares_each_shape_and_cell(tmp_path):
    first, second = tmp_path / "on.txt", tmp_path / "off.txt"
    first.write_text(FIRST)
    second.write_text(SECOND)
    lines = tune_compare.against(tune_compare.read(str(first)), tune_compare.read(str(second)), top=5)
    # 128 x 8192^2 is not in the second listing: left out, not compared with nothing
    assert lines[0] == "e4m3fn bf16 96x8192x8192: fastest 31.4 / 34.0 us (1.083x)"
    assert len(lines) == 3
    assert lines[1].split()[0] == "gemm_b" and lines[1].endswith(f"{34.5 / 31.4:.3f}x")
    assert lines[2].split()[0] == "gemm_a" and lines[2].endswith(f"{34.0 / 35.0:.3f}x")


def test_against_lists_only_the_top_cells(tmp_path):
    first, second = tmp_path / "on.txt", tmp_path / "off.txt"
    first.write_text(FIRST)
    second.write_text(SECOND)
    lines = tune_compare.against(tune_compare.read(str(first)), tune_compare.read(str(second)), top=1)
    assert len(lines) == 2 and lines[1].split()[0] == "gemm_b"
