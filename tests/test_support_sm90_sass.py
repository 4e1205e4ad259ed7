"""The SASS scans of tests/support/sm90.py (no GPU, no compiler): the instruction counts (bench/gpu/gpu_ptxas.py
--sass) and the live ranges (bench/gpu/gpu_liveregs.py) read labels, loops and FP64 instructions from nvdisasm text as
they should; the contraction counts and the comparison of report rows."""

import subprocess

from tests.support import sm90

# a kernel with a loop over paths (.L_x_0) holding the path loop (.L_x_1), which holds a rare branch's loop (.L_x_2)
SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;  /* 0x000fe200 */
.L_x_0:
        /*0010*/                   DADD R2, R2, R4 ;
.L_x_1:
.L_x_9:
        /*0020*/                   FFMA R3, R3, R5, R6 ;
        /*0030*/              @!P1 F2F.F64.F32 R8, R3 ;
.L_x_2:
        /*0040*/                   MUFU.RCP64H R9, R8 ;
        /*0050*/              @P2 BRA `(.L_x_2) ;
        /*0060*/              @P0 BRA `(.L_x_1) ;
        /*0070*/              @P3 BRA `(.L_x_0) ;
        /*0080*/                   EXIT ;
"""


def test_labels_point_at_the_next_instruction():
    rows, labels = sm90.labelled_matches(SASS, sm90.INSN)
    assert [a for a, _ in rows] == [0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]
    assert labels == {".L_x_0": 0x10, ".L_x_1": 0x20, ".L_x_9": 0x20, ".L_x_2": 0x40}


def test_sass_counts_find_the_path_loop_and_its_fp64():
    c = sm90.sass_counts(SASS)
    assert (c["sass"], c["sass_fp64"]) == (9, 2)  # FP64: DADD and F2F.F64.F32 (MUFU.RCP64H is not a .64 MUFU)
    assert (c["loop_sass"], c["loop_fp64"]) == (5, 1)  # the path loop: .L_x_1 to its BRA, 0x20-0x60
    # the hot part leaves the nested loop (.L_x_2: 0x40-0x50) out
    assert (c["hot_sass"], c["hot_fp64"], c["hot_fp64_ops"]) == (3, 1, ["F2F.F64.F32"])


def test_life_ranges_parse_nvdisasm_live_register_columns(monkeypatch):
    text = """
.L_x_3:
        /*0000*/                   MOV R1, c[0x0][0x28] ;   // |   1  ^     |
        /*0010*/                   IADD3 R2, R1, 0x4, RZ ;  // |   2  :^    |
"""
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, stdout=text))
    rows, labels = sm90.life_ranges("k.cubin", "nvdisasm")
    assert rows == [(0x0, "MOV R1, c[0x0][0x28]", 1, "^     "), (0x10, "IADD3 R2, R1, 0x4, RZ", 2, ":^    ")]
    assert labels == {".L_x_3": 0x0}


# a kernel calling a device function twice; the function calls ptxas's division subroutine
CALLS = """
        .section .text.kern,"ax",@progbits
        /*0000*/                   FFMA R3, R3, R5, R6 ;
        /*0010*/                   CALL.REL.NOINC `($kern$slow) ;
        /*0020*/                   CALL.REL.NOINC `($kern$slow) ;
        /*0030*/                   FMUL R2, R2, R4 ;
        /*0040*/                   HFMA2.MMA R7, -RZ, RZ, 1.875, 0 ;
        /*0050*/                   EXIT ;
$kern$slow:
        /*0060*/                   DFMA R8, R8, R10, R12 ;
        /*0070*/              @!P0 CALL.REL.NOINC `($__internal_0_div) ;
        /*0080*/                   RET.REL.NODEC R20 `(kern) ;
$__internal_0_div:
        /*0090*/                   MUFU.RCP64H R9, R11 ;
        /*00a0*/                   DADD R8, R8, R10 ;
        /*00b0*/                   RET.REL.NODEC R2 `(kern) ;
"""


def test_contraction_counts_expand_calls_and_compare():
    """Calls count as their callees' instructions (recursively); HFMA2 with -RZ, RZ is a constant, not arithmetic;
    the comparison names the opcodes whose counts moved."""
    funcs, calls = sm90.fp_by_function(CALLS)
    assert set(funcs) == {"kern", "$kern$slow", "$__internal_0_div"}
    assert funcs["kern"]["HFMA2(constant)"] == 1 and calls["kern"]["$kern$slow"] == 2
    total = sm90.expanded(funcs, calls, "kern")
    counts = {op: n for op, n in total.items() if sm90.CONTRACTION.match(op)}
    assert counts == {"FFMA": 1, "FMUL": 1, "DFMA": 2, "MUFU.RCP64H": 2}
    assert total["DADD"] == 2  # counted, not a contraction opcode
    before, after = {"contraction": counts}, {"contraction": dict(counts, FFMA=2, FMUL=0)}
    assert sm90.contraction_change(before, {"contraction": dict(counts)}) == "same"
    assert sm90.contraction_change(before, after) == "FFMA 1 -> 2; FMUL 1 -> 0"
    assert sm90.contraction_change(before, {}) == "-"
    row = dict(
        kernel="step",
        basis="LP0",
        mode="block",
        precision="float32",
        arithmetic="float32",
        d=4,
        registers=72,
        spill_stores=0,
        block=128,
        smem=3776,
    )
    lines = sm90.compare([dict(row, registers=92, **before)], [dict(row, **after)])
    assert lines[1].split("  ")[-1] == "FFMA 1 -> 2; FMUL 1 -> 0" and " 92  72 " in lines[1]
