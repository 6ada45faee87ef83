"""sass_loops.py: finding a kernel's loops in cuobjdump -sass text, and telling a moved loop from an
unchanged one."""
import sass_loops

KERNEL = "_Z6kernelv"
OTHER = "_Z5otherv"


def sass(functions):
    """cuobjdump -sass-like text: {name: [instruction, ...]}, 16 bytes an instruction from 0."""
    lines = ["", "Fatbin elf code:", "================", "arch = sm_90", ""]
    for name, code in functions.items():
        lines.append(f"        Function : {name}")
        lines.append("        .headerflags    @\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"")
        for i, text in enumerate(code):
            lines.append(f"        /*{16 * i:04x}*/                   {text} ;                /* 0x000000000000 */")
            lines.append("                                                                     /* 0x000000000000 */")
        lines.append("        ..........")
    return "\n".join(lines) + "\n"


def body(n_ffma=70, registers=(1, 2, 3)):
    a, b, c = registers
    return [f"FFMA R{a}, R{b}, R{c}, R{a}" for _ in range(n_ffma)] + [f"MUFU.EX2 R{b}, R{c}", f"LDL R{c}, [R1+0x10]"]


def kernel(loop_body, loop_start=2):
    """Two set-up instructions, the loop (a guarded branch back to its first instruction), EXIT, and an
    out-of-line wait stub whose unguarded branch returns into the loop."""
    code = ["S2R R0, SR_TID.X", "IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]"] + list(loop_body)
    code.append(f"@P0 BRA {16 * loop_start:#x}")
    code.append("EXIT")
    stub = len(code)
    code += ["SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR4+0x22000], R5", f"@!P1 BRA {16 * stub:#x}",
             f"BRA {16 * (loop_start + 3):#x}"]
    return code


def write(tmp_path, name, functions):
    path = tmp_path / name
    path.write_text(sass(functions))
    return str(path)


def test_the_loop_is_found_and_the_wait_stubs_return_is_not():
    fns = sass_loops.parse(sass({KERNEL: kernel(body())}).splitlines())
    loops = sass_loops.find_loops(fns[KERNEL], 64)
    assert len(loops) == 1
    loop = loops[0]
    assert (loop.start, len(loop.instructions)) == (0x20, 73)  # 70 FFMA, MUFU, LDL and the branch
    assert "73 instructions: 0 MMA, 1 MUFU, 1 LDL/STL, 0 uniform" in loop.summary()
    # Below --min-instructions it is not reported.
    assert sass_loops.find_loops(fns[KERNEL], 100) == []


def test_normalize_blanks_registers_predicates_and_immediates():
    assert sass_loops.normalize("@!P3 FFMA R12, R4.reuse, UR7, -R9") == "@!P FFMA R, R, UR, -R"
    assert sass_loops.normalize("LDL R3, [R1+0x28]") == "LDL R, [R+#]"
    assert sass_loops.opcode("@!P0 BRA 0x30") == "BRA"


def test_an_unchanged_loop_under_other_register_numbers_is_identical(tmp_path, capsys):
    a = write(tmp_path, "a.sass", {KERNEL: kernel(body()), OTHER: kernel(body())})
    b = write(tmp_path, "b.sass", {KERNEL: kernel(body(registers=(7, 8, 9))), OTHER: kernel(body())})
    assert sass_loops.main([a, b]) == 0
    out = capsys.readouterr().out
    assert out.count("identical (73 instructions)") == 2


def test_a_reordered_loop_differs_with_the_same_opcode_counts(tmp_path, capsys):
    moved = body()
    moved.insert(10, moved.pop(70))  # the MUFU ten instructions earlier
    a = write(tmp_path, "a.sass", {KERNEL: kernel(body())})
    b = write(tmp_path, "b.sass", {KERNEL: kernel(moved)})
    assert sass_loops.main([a, b]) == 1
    out = capsys.readouterr().out
    assert "loop 0: differs, 73 -> 73 instructions, similarity 0." in out
    assert "the same opcode counts: only the order moved" in out


def test_a_changed_loop_lists_the_opcodes_whose_counts_moved(tmp_path, capsys):
    a = write(tmp_path, "a.sass", {KERNEL: kernel(body())})
    b = write(tmp_path, "b.sass", {KERNEL: kernel(body(n_ffma=72))})
    assert sass_loops.main([a, b]) == 1
    assert "opcode counts: FFMA 70 -> 72" in capsys.readouterr().out


def test_an_outer_loop_added_around_the_old_one_is_not_paired_with_it(tmp_path, capsys):
    inner = kernel(body())
    # The same loop (from instruction 81 on) inside an outer loop of 80 more instructions.
    code = ["S2R R0, SR_TID.X"] + [f"IADD3 R{i % 5}, R{i % 5}, 0x1, RZ" for i in range(80)] + body() + \
        [f"@P0 BRA {16 * 81:#x}", "@P1 BRA 0x10", "EXIT"]
    a = write(tmp_path, "a.sass", {KERNEL: inner})
    b = write(tmp_path, "b.sass", {KERNEL: code})
    assert sass_loops.main([a, b]) == 1  # one loop more
    out = capsys.readouterr().out
    assert "1 / 2 loops" in out and "loop 0: identical (73 instructions)" in out


def test_against_kernel_compares_two_names_and_kernel_filters(tmp_path, capsys):
    a = write(tmp_path, "a.sass", {KERNEL: kernel(body()), OTHER: kernel(body(n_ffma=90))})
    b = write(tmp_path, "b.sass", {"_Z12kernel_renamedv": kernel(body())})
    assert sass_loops.main(["--kernel", "6kernel", "--against-kernel", "renamed", a, b]) == 0
    assert "identical" in capsys.readouterr().out
    # dev.sh passes the build's binary first, then the flags and the other input.
    assert sass_loops.main([a, "--kernel", "6kernel", a]) == 0
    assert "identical" in capsys.readouterr().out
    assert sass_loops.main(["--kernel", "other", a]) == 0
    out = capsys.readouterr().out
    assert OTHER in out and KERNEL not in out and "93 instructions" in out


def test_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    a = write(tmp_path, "a.sass", {KERNEL: kernel(body())})
    assert sass_loops.main(["--kernel", "nothing", a]) == 2
    assert "no function matches --kernel 'nothing'" in capsys.readouterr().err
    assert sass_loops.main([str(tmp_path / "missing")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert sass_loops.main([a, a, a]) == 2
    assert sass_loops.main(["--against-kernel", "x", a]) == 2
    assert sass_loops.main(["--min-instructions", "1", a]) == 2
    assert sass_loops.main(["--kernel", "(", a]) == 2
