"""tools/clock_trace.py: the busy samples of an nvidia-smi trace summarised (clock, power, reasons)."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("clock_trace", ROOT / "tools" / "clock_trace.py")
clock_trace = importlib.util.module_from_spec(spec)
spec.loader.exec_module(clock_trace)

TRACE = """\
2026/12/06 03:00:00.000, 345, 90.10, 30, 0x0000000000000001
2026/12/06 03:00:00.020, 1980, 690.00, 45, 0x0000000000000000
2026/12/06 03:00:00.040, 1755, 700.00, 50, 0x0000000000000004
2026/12/06 03:00:00.060, 1710, 699.00, 52, 0x0000000000000004
2026/12/06 03:00:00.080, [N/A], [N/A], 52, [N/A]
2026/12/06 03:00:00.100, 1980, 120.00, 40, 0x0000000000000001
"""


def test_only_busy_samples_count(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text(TRACE)
    samples = clock_trace.read(trace)
    assert len(samples) == 5  # the [N/A] line is skipped
    line = clock_trace.summary(samples)
    # busy: power >= 350 W (half of 700): the three samples at 690-700 W
    assert line.startswith("clocks: 3 busy of 5 samples; SM 1755 MHz (min 1710, max 1980)")
    assert "power 699 W (max 700)" in line
    assert "52 C max" in line
    assert "reasons 0x0000000000000004:2 0x0000000000000000:1" in line


def test_no_samples_says_so(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("timestamp, clocks.sm [MHz]\n")
    assert "no samples" in clock_trace.summary(clock_trace.read(trace))
