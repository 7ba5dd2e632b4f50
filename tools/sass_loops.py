#!/usr/bin/env python3
"""The instruction mix of a kernel's MMA loops, from `cuobjdump -sass`: what a change costs per
iteration before a GPU measures it.

Every backward branch whose body holds an MMA (HMMA, HGMMA, QGMMA) is a loop; for each (innermost
first) it prints the body's static instruction count, its MMAs and the most frequent opcodes. The
count is static: a body's branches (a masked path, a rescale) are counted whether taken or not, so
compare loops of the same structure.

    python3 tools/sass_loops.py kernel.sass [--top 14] [--anchor FFMA ...]

--anchor replaces the MMA opcodes that make a loop worth listing (FFMA: the fp32 GEMM's loops).

cuobjdump comes with the CUDA toolkit; on a machine without one, PyPI's wheel has it:
`pip download --no-deps nvidia-cuda-cuobjdump` and unzip (bin/cuobjdump). Compile a generated
variant to a cubin with the include flags of compile_commands.json and `-cubin`, then
`cuobjdump -sass k.cubin > kernel.sass`.
"""
import argparse
import collections
import re

MMA = ("HMMA", "HGMMA", "QGMMA")


def functions(path):
    funcs, name = {}, None
    for line in open(path):
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and name:
            funcs[name].append((int(m.group(1), 16), m.group(2).strip()))
    return funcs


def opcode(text):
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def loops(insts, anchors=MMA):
    at = {a: i for i, (a, _) in enumerate(insts)}
    found = []
    for i, (a, text) in enumerate(insts):
        m = re.search(r"BRA(?:\.\S+)?\s+(?:!?U?P\w+,\s*)?0x([0-9a-f]+)", text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target < a and target in at:
            body = insts[at[target]:i + 1]
            if any(opcode(t) in anchors for _, t in body):
                found.append((target, a, body))
    return sorted(found, key=lambda f: len(f[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass")
    ap.add_argument("--top", type=int, default=14)
    ap.add_argument("--anchor", action="append", help="an opcode that marks a loop (default: the MMAs)")
    args = ap.parse_args()
    anchors = tuple(args.anchor) if args.anchor else MMA
    label = "MMA" if anchors == MMA else "/".join(anchors)
    for name, insts in functions(args.sass).items():
        for start, end, body in loops(insts, anchors):
            ops = collections.Counter(opcode(t) for _, t in body)
            marks = sum(ops[m] for m in anchors)
            mix = ", ".join(f"{op} {n}" for op, n in ops.most_common(args.top))
            print(f"{name} [{start:#x}, {end:#x}]: {len(body)} instructions, {marks} {label}: {mix}")


if __name__ == "__main__":
    main()
