"""ptxas_report.py: parsing `ptxas -v`, the short names, the exit status."""
import io
import sys
from pathlib import Path

import ptxas_report

SAMPLE = Path(__file__).resolve().parent / "data" / "ptxas_v_sample.txt"


def test_every_entry_gets_its_own_registers_and_spills():
    got = ptxas_report.parse(SAMPLE.read_text().splitlines())
    assert [i.arch for i in got] == ["sm_90", "sm_90"]
    mma, ws = got
    assert "mma_fwd_kernel" in mma.mangled and "warp_specialized_fwd_kernel" in ws.mangled
    assert (mma.registers, mma.stack_bytes, mma.spill_store_bytes, mma.spill_load_bytes) == (136, 0, 0, 0)
    assert (ws.registers, ws.stack_bytes, ws.spill_store_bytes, ws.spill_load_bytes) == (255, 24, 56, 52)
    assert not mma.spills and ws.spills


def test_lines_before_the_first_entry_are_ignored():
    lines = ["ptxas info    : Used 99 registers", "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads"]
    assert ptxas_report.parse(lines) == []


def test_shorten_keeps_the_template_arguments_only():
    demangled = ("void fa::(anonymous namespace)::mma_fwd_kernel<fa::(anonymous namespace)::MmaTraits<"
                 "__nv_bfloat16, 64, 128, 64, 4> >(fa::FwdParams)")
    assert ptxas_report.shorten(demangled) == "mma_fwd_kernel<MmaTraits<__nv_bfloat16, 64, 128, 64, 4> >"
    # A parenthesis inside the template arguments is not the parameter list.
    assert ptxas_report.shorten("void k<(int)3>(int)") == "k<(int)3>"


def run_main(monkeypatch, capsys, text, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    rc = ptxas_report.main(list(args))
    return rc, capsys.readouterr()


def test_table_and_exit_status(monkeypatch, capsys):
    text = SAMPLE.read_text()
    rc, out = run_main(monkeypatch, capsys, text)
    assert rc == 0
    rows = out.out.splitlines()
    assert rows[0].split()[:3] == ["kernel", "arch", "regs"] and len(rows) == 3
    assert rows[2].split()[-1] == "56/52" and rows[1].split()[-1] == "-"
    rc, _ = run_main(monkeypatch, capsys, text, "--fail-on-spill")
    assert rc == 1
    only_mma = "\n".join(text.splitlines()[:6])
    rc, _ = run_main(monkeypatch, capsys, only_mma, "--fail-on-spill")
    assert rc == 0


def test_csv_columns(monkeypatch, capsys):
    rc, out = run_main(monkeypatch, capsys, SAMPLE.read_text(), "--csv")
    lines = out.out.splitlines()
    assert rc == 0
    assert lines[0] == "kernel,arch,registers,stack_bytes,spill_store_bytes,spill_load_bytes"
    assert lines[2].endswith(",sm_90,255,24,56,52")


def test_no_entries_is_an_error_that_says_why(monkeypatch, capsys):
    rc, out = run_main(monkeypatch, capsys, "nvcc fatal : something\n")
    assert rc == 2 and "-Xptxas -v" in out.err
