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
            "torch_scaled_mm: 20.0 us, 1.10x | 1.60e-03, 1.50e-03 | `g1` |") in text
    assert "BM_Static" not in text
