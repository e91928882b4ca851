"""Synthesis, place and route with the YoWASP tools: the reports parse and the designs fit."""

import json

import pytest

from hwmovegen.boards.synth import SynthError, synth
from hwmovegen.sim.cli import main


@pytest.mark.parametrize("target, cells, rams", [
    ("ice40-up5k", "ICESTORM_LC", 30),
    ("ecp5-85f", "TRELLIS_COMB", 208),
])
def test_synth_report(target, cells, rams, capsys):
    assert main(["synth", "--target", target, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == target and report["logic_cell_kind"] == cells
    assert 0 < report["fmax_mhz"] < 1000
    assert 0 < report["logic_cells"] <= report["logic_cells_available"]
    assert report["luts"] > 500 and report["ffs"] > 500
    assert 0 < report["brams"] <= report["brams_available"] == rams
    assert report["critical_path"]["from"] and report["critical_path"]["to"]
    if target == "ice40-up5k":
        assert report["logic_cells"] <= report["logic_cells_available"] // 2   # the area goal


def test_butterfly_does_not_fit_the_up5k():
    with pytest.raises(SynthError, match="does not fit"):
        synth("ice40-up5k", layout="butterfly")


@pytest.mark.parametrize("board, suffix", [("icebreaker", ".bin"), ("ulx3s-85f", ".bit")])
def test_build_leaves_a_bitstream(board, suffix, tmp_path, capsys):
    assert main(["build", "--board", board, "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    bitstream = tmp_path / f"hwmovegen-{board}{suffix}"
    assert report["bitstream"] == str(bitstream) and bitstream.stat().st_size > 10_000
    assert report["fmax_mhz"] >= report["clock_mhz"]     # the board clock meets timing


def test_unknown_board_and_target_exit_2(capsys):
    assert main(["build", "--board", "nexys"]) == 2
    assert main(["synth", "--target", "xc7"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "unknown board" in err[0] and "unknown target" in err[1]
