"""tools/sass_loops.py finds a kernel's MMA loops in cuobjdump's SASS (backward branches whose body
holds an MMA) and counts their instructions by opcode."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("sass_loops", ROOT / "tools" / "sass_loops.py")
sass_loops = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_loops)

# Two functions in cuobjdump's layout: k has an outer loop [0x10, 0x60] around an MMA loop
# [0x20, 0x50] and a loop without an MMA [0x70, 0x80]; r has no loop.
SASS = """
\tcode for sm_90a
\t\tFunction : k
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   IMAD R2, R3, R4, R5 ;
        /*0020*/                   LDSM.16.M88.4 R8, [R2] ;
        /*0030*/                   HMMA.16816.F32 R12, R8, R10, R12 ;
        /*0040*/              @!P0 F2FP.F16.E4M3.UNPACK_B R9, R9 ;
        /*0050*/               @P1 BRA 0x20 ;
        /*0060*/              @!P2 BRA 0x10 ;
        /*0070*/                   IADD3 R4, R4, 0x1, RZ ;
        /*0080*/               @P3 BRA 0x70 ;
        /*0090*/                   EXIT ;
\t\tFunction : r
        /*0000*/                   EXIT ;
"""


def test_mma_loops_innermost_first(tmp_path):
    path = tmp_path / "k.sass"
    path.write_text(SASS)
    funcs = sass_loops.functions(path)
    assert sorted(funcs) == ["k", "r"]
    assert len(funcs["k"]) == 10 and funcs["k"][3] == (0x30, "HMMA.16816.F32 R12, R8, R10, R12")
    found = sass_loops.loops(funcs["k"])
    assert [(start, end, len(body)) for start, end, body in found] == [(0x20, 0x50, 4), (0x10, 0x60, 6)]
    assert [sass_loops.opcode(t) for _, t in found[0][2]] == ["LDSM", "HMMA", "F2FP", "BRA"]
    assert sass_loops.loops(funcs["r"]) == []
    assert [(start, end) for start, end, _ in sass_loops.loops(funcs["k"], ("IADD3",))] == [(0x70, 0x80)]


def test_prints_the_mix(tmp_path, capsys, monkeypatch):
    path = tmp_path / "k.sass"
    path.write_text(SASS)
    monkeypatch.setattr("sys.argv", ["sass_loops.py", str(path), "--top", "2"])
    sass_loops.main()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "k [0x20, 0x50]: 4 instructions, 1 MMA: LDSM 1, HMMA 1"
    assert out[1].startswith("k [0x10, 0x60]: 6 instructions, 1 MMA: ")
    assert len(out) == 2
