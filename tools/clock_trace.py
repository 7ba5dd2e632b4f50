#!/usr/bin/env python3
"""The SM clock and board power while a fly_bench row ran, from the nvidia-smi trace that
tools/h200_check.sh's CLOCK_ROWS records beside it (one line every 20 ms):

  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
      --format=csv,noheader,nounits -lms 20 > trace.csv

  python3 tools/clock_trace.py trace.csv

Why: a kernel that outruns its peer for one call and trails it back to back (fly's 8192^3 on the
H200, 2026-12-06) may be slowed by the clock the board's power limit allows under sustained load.
Only the busy samples count (power at least half the trace's highest: the row's long batches, not
the idle gaps between its phases); the line gives their count, the SM clock's median and range,
the power's median and highest, the highest temperature, and how often each clock-event reason
mask was active (nvidia-smi's bit mask: 0x4 the software power cap, 0x20/0x40 thermal slowdown).
"""
import statistics
import sys


def read(path):
    """[(sm_mhz, watts, celsius, reasons)] of the parsable lines, in order."""
    samples = []
    for line in open(path, encoding="utf-8", errors="replace"):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 5:
            continue
        try:
            samples.append((float(fields[1]), float(fields[2]), float(fields[3]), fields[4]))
        except ValueError:
            continue  # a header, or "[N/A]"
    return samples


def summary(samples):
    """One line over the busy samples, or why there is none."""
    if not samples:
        return "clocks: no samples (nvidia-smi wrote none that parse)"
    peak = max(w for _, w, _, _ in samples)
    busy = [s for s in samples if s[1] >= peak / 2]
    clocks = [s[0] for s in busy]
    watts = [s[1] for s in busy]
    reasons = {}
    for s in busy:
        reasons[s[3]] = reasons.get(s[3], 0) + 1
    mix = " ".join(f"{r}:{n}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    return (f"clocks: {len(busy)} busy of {len(samples)} samples; SM {statistics.median(clocks):.0f} MHz "
            f"(min {min(clocks):.0f}, max {max(clocks):.0f}); power {statistics.median(watts):.0f} W "
            f"(max {max(watts):.0f}); {max(s[2] for s in busy):.0f} C max; reasons {mix}")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    print(summary(read(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
