"""bench/report.py joins fly_bench's JSON and the peers' lines into the report's tables: rows,
ratios and ceiling fractions taken from the inputs, peers matched by shape."""

import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("report", ROOT / "bench" / "report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def row(name, index, **fields):
    return {"name": name + "/iterations:1/manual_time", "family_index": index, **fields}


def test_tables_join_libfly_and_peers(tmp_path):
    bench = {"benchmarks": [
        row("pa_decode/bf16/8x8192/h32-8/q1/fly", 1, us=80.0, of_hbm=0.8, label="pa_v1 splits=4"),
        row("pa_decode/e4m3fn/8x8192/h32-8/q1/fly", 2, us=50.0, of_hbm=0.6, label="pa_v2 splits=6"),
        row("gemm/e4m3_bf16/16x8192x8192/fly", 3, us=22.0, TFLOPs=97.0, TBs=3.0, err=1.6e-3, label="g1: tuned"),
        row("gemm/e4m3_bf16/16x8192x8192/cublaslt", 4, us=20.0, TFLOPs=107.0, TBs=3.3, err=1.5e-3, label="cuBLASLt"),
        row("BM_StaticLayoutEval", 0, real_time=1.0),
    ]}
    (tmp_path / "bench.json").write_text(json.dumps(bench))
    (tmp_path / "sdpa.txt").write_text(
        "# torch\nsdpa 8x8192/h32-8/q1 backend=cudnn us=64.00 TB/s=4.2 of_hbm=0.92 mask=-\n"
        "peer gemm/e4m3_bf16/16x8192x8192 torch_scaled_mm us=20.00 TFLOPs=107.4 TBs=3.400\n"
        "peer gemm/f32_f32/16x8192x8192 SKIPPED no device\n")
    out = tmp_path / "perf.md"
    assert report.main(["--bench", str(tmp_path / "bench.json"), "--peers", str(tmp_path / "sdpa.txt"), "--out",
                        str(out), "--title", "test machine"]) == 0
    text = out.read_text()
    assert "test machine" in text
    assert "| bf16 | 8x8192, 32/8, 1 | 80.0 us | 0.80 | 64.0 us | 0.92 | 1.25x | `pa_v1` |" in text
    assert "| e4m3fn | 8x8192, 32/8, 1 | 50.0 us | 0.60 | 64.0 us | 0.92 |  | `pa_v2` |" in text  # no ratio: other dtype
    assert ("| e4m3 -> bf16 | 16x8192x8192 | 22.0 us, 97 TFLOP/s, 3.00 TB/s | 20.0 us, 107 TFLOP/s, 3.30 TB/s | 1.10x | "
            " | torch_scaled_mm: 20.0 us, 1.10x | 1.60e-03, 1.50e-03 | `g1` |") in text
    assert "BM_Static" not in text
    assert "4.57 TB/s HBM read (the H200's; this run did not measure its own)" in text  # no read_TBs in the rows


def test_measured_ceiling_back_to_back_times_and_the_plain_read_floor(tmp_path):
    """With read_TBs in the rows the fractions use it, the peer's included (its TB/s over it); the
    back-to-back column names the batch size the rows carry and the plain-read row's time."""
    bench = {"benchmarks": [
        row("pa_decode/bf16/8x8192/h32-8/q1/fly", 1, us=80.0, of_hbm=0.75, read_TBs=3.2, label="pa_v1 splits=4"),
        row("gemm/e4m3_bf16/16x8192x8192/fly", 2, us=28.0, TFLOPs=77.0, TBs=2.4, err=1.6e-3, batch_us=25.4,
            batch_calls=40, read_TBs=3.2, label="g1: tuned"),
        row("gemm/e4m3_bf16/16x8192x8192/cublaslt", 3, us=27.0, TFLOPs=80.0, TBs=2.5, err=1.6e-3, batch_us=27.2,
            batch_calls=40, read_TBs=3.2, label="cuBLASLt"),
        row("gemm/e4m3_bf16/16x8192x8192/read", 4, us=25.0, TBs=2.7, batch_us=24.3, batch_calls=40, read_TBs=3.2,
            label="plain read of A and B"),
        row("gemm/e4m3_bf16/4096x4096x4096/fly", 5, us=100.0, TFLOPs=1370.0, TBs=0.6, err=1.6e-3, batch_us=99.0,
            batch_calls=40, read_TBs=3.2, label="g2: tuned"),
    ]}
    (tmp_path / "bench.json").write_text(json.dumps(bench))
    (tmp_path / "sdpa.txt").write_text("sdpa 8x8192/h32-8/q1 backend=cudnn us=64.00 TB/s=2.88 of_hbm=0.63 mask=-\n")
    out = tmp_path / "perf.md"
    assert report.main(["--bench", str(tmp_path / "bench.json"), "--peers", str(tmp_path / "sdpa.txt"), "--out",
                        str(out)]) == 0
    text = out.read_text()
    assert "3.20 TB/s HBM read, measured on this card in the same run" in text
    assert "| bf16 | 8x8192, 32/8, 1 | 80.0 us | 0.75 | 64.0 us | 0.90 | 1.25x | `pa_v1` |" in text  # 2.88 / 3.2
    assert "40 back to back" in text and "20 back to back" not in text
    assert "| 1.04x | 25.4 us, 27.2 us (0.93x); plain read 24.3 us |" in text
    assert "| 99.0 us |" in text  # no peer row: libfly's alone
    assert "/read" not in text and "plain read of A and B" not in text  # the floor is a column, not a row
