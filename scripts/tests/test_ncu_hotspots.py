"""ncu_hotspots.py: stall samples per SASS line from ncu's source-page CSV (synthetic fixture)."""
import gzip
from pathlib import Path

import pytest

import ncu_hotspots as hs

DATA = Path(__file__).parent / "data" / "ncu_source_synthetic.csv"


def kernels():
    return hs.parse(DATA.read_text())


def test_each_kernel_block_is_read_with_its_lines():
    ks = kernels()
    assert [k.name.split("<")[0] for k in ks] == ["void fa::wgmma_persistent_fwd_kernel", "void fa::mma_fwd_kernel"]
    assert [len(k.lines) for k in ks] == [6, 2]
    assert ks[0].samples == 10 + 1050 + 40 + 720 + 30  # "1,050": the thousands separator is read
    assert ks[1].samples == 400


def test_hot_lines_rank_by_samples_with_their_share():
    ranked = hs.hot_lines(kernels()[0], top=3)
    assert [line.opcode for _, line in ranked] == ["BRA", "WARPGROUP", "HGMMA"]
    share, line = ranked[0]
    assert share == pytest.approx(100.0 * 1050 / 1850)
    assert line.executed == 17440
    # A sample counts once: the "(Not Issued)" twins are not reasons of their own.
    assert line.stalls == {"long_sb": 1048, "wait": 2}


def test_reasons_and_mix_sum_over_the_kernel():
    k = kernels()[0]
    shares = dict(hs.reasons(k))
    assert shares["long_sb"] == pytest.approx(100.0 * 1058 / 1850)
    assert sum(shares.values()) == pytest.approx(100.0)
    mix = dict(hs.opcode_mix(k))
    assert mix["SYNCS"] == 17440 and mix["F2FP"] == 49152 and mix["FMNMX"] == 49152


def test_the_opcode_drops_predicate_and_modifiers():
    assert hs.opcode_of("@!P0  BRA 0x10") == "BRA"
    assert hs.opcode_of("@P1 HGMMA.64x128x16.F32.BF16 R88, R160") == "HGMMA"
    assert hs.opcode_of("@!UPT UIADD3 UR4, UR4, 0x1, URZ") == "UIADD3"
    assert hs.opcode_of("   ") == ""


def test_report_prints_every_kernel(capsys):
    assert hs.main([str(DATA), "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("== void fa::") == 2
    assert "56.8%" in out  # 1050 of 1850 samples on the barrier-wait branch
    assert "instruction mix (M): HMMA:0.00 LDSM:0.00" in out


def test_a_csv_that_is_not_the_source_page_is_one_line(tmp_path, capsys):
    raw = tmp_path / "raw.csv"
    raw.write_text('"ID","Kernel Name","gpu__time_duration.sum"\n"0","k","1.0"\n')
    assert hs.main([str(raw)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not ncu's --page source --csv output" in err[0]
    block = tmp_path / "block.csv"
    block.write_text('"Kernel Name","k"\n"Address","Source"\n')
    assert hs.main([str(block)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "lacks Warp Stall Sampling (All Samples), Instructions Executed" in err[0]


def test_bad_arguments_are_one_line(capsys):
    assert hs.main([]) == 2
    assert "one of them" in capsys.readouterr().err
    assert hs.main([str(DATA), "--top", "0"]) == 2
    assert "--top must be at least 1" in capsys.readouterr().err


def test_a_gzipped_export_reads_the_same(tmp_path, capsys):
    packed = tmp_path / "source.csv.gz"
    packed.write_bytes(gzip.compress(DATA.read_bytes()))
    assert hs.main([str(packed)]) == 0
    assert hs.main([str(DATA)]) == 0
    out = capsys.readouterr().out.split("== ")
    assert out[1:3] == out[3:5]


def test_compare_puts_two_kernels_side_by_side(tmp_path, capsys):
    second = tmp_path / "second.csv"
    # The second export: only its mma kernel (the first block dropped).
    text = DATA.read_text()
    second.write_text(text[text.index('"Kernel Name","void fa::mma'):])
    assert hs.main([str(DATA), "--compare", str(second)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("== A void fa::wgmma_persistent") and out[1].startswith("== B void fa::mma")
    assert "A 0.23  B 0.00" in out[2]
    rows = {line.split()[0]: line.split()[1:] for line in out[3:] if line and not line.startswith(("stall", "opcode"))}
    assert rows["long_sb"] == ["57.2", "0.0"] and rows["math"] == ["1.0", "75.0"]
    assert rows["HGMMA"] == ["0.05", "0.00"] and rows["HMMA"] == ["0.00", "0.00"]
