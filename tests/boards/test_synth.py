"""Synthesis, place and route with the YoWASP tools: reports, fit, agreement with `tables`,
bitstreams for the dev boards, and requests refused before any tool runs."""

import json
import time

import pytest

from hwmovegen.boards.devboards import build_bitstream, check_baud
import hwmovegen.boards.synth as synth_module
from hwmovegen.boards.synth import BadRequest, DoesNotFit, saved_report, synth
from hwmovegen.cli import main
from hwmovegen.tables.contracts import GeneratorConfig, SELECTABLE


@pytest.mark.parametrize("target, cells, rams", [
    ("ice40-up5k", "ICESTORM_LC", 30),
    ("ecp5-85f", "TRELLIS_COMB", 208),
    ("gw2ar-18", "LUT4", 46),       # nextpnr-himbaechel and its Gowin chip database from PyPI
])
def test_synth_report_agrees_with_tables(target, cells, rams, capsys):
    assert main(["synth", "--target", target, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == target and report["logic_cell_kind"] == cells and report["core"] == "walker"
    assert 0 < report["fmax_mhz"] < 1000
    assert 0 < report["logic_cells"] <= report["logic_cells_available"]
    assert report["luts"] > 500 and report["ffs"] > 500
    assert 0 < report["brams"] <= report["brams_available"] == rams
    assert report["critical_path"]["from"] and report["critical_path"]["to"]
    if target == "ice40-up5k":
        assert report["logic_cells"] <= report["logic_cells_available"] // 2   # the area goal
    assert main(["tables", "--target", target, "--layout", "dense", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert tables["block_rams"][target] == report["brams"] == report["brams_expected"]
    # kept as the configuration's last report, for `hwmovegen report`
    saved = saved_report(target, GeneratorConfig("dense", "walker", legal=False))
    assert saved == {**report, "saved": saved["saved"]} and report["mmoves_per_s"] > 0


def test_a_perft_engine_fits_the_up5k(capsys):
    """A whole perft engine (the walker, the legality stage, the applier and the walk) to
    depth 8: the walker's ROMs take 20 of the 30 block RAMs, the move lists the SPRAMs."""
    assert main(["synth", "--target", "ice40-up5k", "--perft-engines", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["legal"] and report["perft_engines"] == 1 and 0 < report["fmax_mhz"] < 1000
    assert report["logic_cells"] <= report["logic_cells_available"] == 5280
    assert report["brams_expected"] == 20 < report["brams"] <= 30
    assert report["sprams"] == 2 and report["sprams_available"] == 4
    assert report["nodes_per_cycle"] > 0.2
    saved = saved_report("ice40-up5k", GeneratorConfig("dense", "walker", perft_engines=1))
    assert saved == {**report, "saved": saved["saved"]}


def test_butterfly_does_not_fit_the_up5k():
    start = time.perf_counter()
    with pytest.raises(BadRequest, match="does not fit"):
        synth("ice40-up5k", GeneratorConfig(layout="butterfly"))
    with pytest.raises(BadRequest, match="does not fit"):
        build_bitstream("icebreaker", "unused", GeneratorConfig(layout="butterfly"))
    assert time.perf_counter() - start < 5      # refused up front, not after place and route
    assert saved_report("ice40-up5k", GeneratorConfig("butterfly", "walker")) is None
    assert main(["synth", "--target", "ice40-up5k", "--layout", "butterfly"]) == 2
    verdict = saved_report("ice40-up5k", GeneratorConfig("butterfly", "walker"))
    assert "fmax_mhz" not in verdict and "258 block RAMs" in verdict["does_not_fit"]


def test_an_ordered_generator_is_reported_apart(tmp_path, monkeypatch, capsys):
    """synth --order keeps its report beside the plain generator's (the flow and the rate
    stubbed: the configuration's key and the printed stage are what is checked here)."""
    monkeypatch.setattr(synth_module, "cache_dir", lambda *parts: tmp_path)

    def fake_synth(target, config, build_dir, seed, stage=None, search=False):
        assert not search
        order = bool(config.order)
        return {"target": target, "layout": config.layout, "core": config.core, "legal": config.legal,
                "perft_engines": 0, "order": order,
                "seed": seed, "fmax_mhz": 100.0 if order else 120.0, "constraint_mhz": 150, "goal_mhz": 125,
                "logic_cells": 10, "logic_cells_available": 20, "logic_cell_kind": "TRELLIS_COMB", "luts": 5,
                "ffs": 6, "carries": 1, "brams": 1, "brams_available": 208, "critical_path": None, "seconds": 1}

    monkeypatch.setattr(synth_module, "synth", fake_synth)
    monkeypatch.setattr(synth_module, "_stream_rate", lambda config, log=None: 0.5 if config.order else 1.0)
    assert main(["synth", "--target", "ecp5-85f", "--core", "fast", "--json"]) == 0
    assert main(["synth", "--target", "ecp5-85f", "--core", "fast", "--order"]) == 0
    out = capsys.readouterr().out
    assert "(fast core, any layout (no ROM), ordering stage)" in out and "(0.5 moves/cycle x fmax, mvv-lva order)" in out
    plain, ordered = saved_report("ecp5-85f", GeneratorConfig(core="fast")), saved_report(
        "ecp5-85f", GeneratorConfig(core="fast", order=SELECTABLE))
    assert plain["fmax_mhz"] == 120.0 and plain["mmoves_per_s"] == 120.0 and not plain["order"]
    assert ordered["fmax_mhz"] == 100.0 and ordered["mmoves_per_s"] == 50.0 and ordered["order"]
    # the fast core reads no ROM: its butterfly configuration is the same synthesis, one report
    assert saved_report("ecp5-85f", GeneratorConfig("butterfly", "fast")) == plain
    assert main(["synth", "--target", "ecp5-85f", "--core", "fast", "--layout", "butterfly", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == "dense"


def test_a_design_that_does_not_fit_says_what_its_netlist_needs(monkeypatch):
    def overflow(platform, top, *args, **kwargs):
        top._MustUse__used = top.core._MustUse__used = True     # never built: no unused-elaboratable warning
        raise DoesNotFit("the placer ran out of ICESTORM_RAM", {"SB_LUT4": 8571, "SB_DFFESR": 2454, "SB_DFF": 63,
                                                                 "SB_RAM40_4K": 32, "SB_CARRY": 679})
    monkeypatch.setattr(synth_module, "run_flow", overflow)
    with pytest.raises(DoesNotFit) as refusal:
        synth("ice40-up5k", GeneratorConfig(order=SELECTABLE))
    assert str(refusal.value) == (
        "the walker core with the ordering stage does not fit the iCE40 UP5K (SG48): the placer ran out of "
        "ICESTORM_RAM, the device has 30 (the netlist has 8571 LUTs, 2517 FFs and 32 block RAMs for 5280 logic "
        "cells and 30 block RAMs)")


def test_synth_search_engines_builds_the_array_and_keeps_its_report_apart(tmp_path, monkeypatch, capsys):
    """``synth --search --engines 2`` hands the flow a SearchArray of two engines and keeps its verdict
    apart from the one engine's (the flow stubbed: placing two engines takes hours)."""
    from amaranth.hdl import Fragment
    from hwmovegen.rtl.search import SearchArray
    monkeypatch.setattr(synth_module, "cache_dir", lambda *parts: tmp_path)
    designs = []

    def overflow(platform, top, *args, **kwargs):
        Fragment.get(top, platform)     # elaborated (the array, its engines), not placed
        designs.append(top.core)
        raise DoesNotFit("the placer ran out of TRELLIS_COMB", {})
    monkeypatch.setattr(synth_module, "run_flow", overflow)
    assert main(["synth", "--target", "ecp5-85f", "--core", "fast", "--search", "--engines", "2"]) == 2
    assert "the search array of 2 engines (fast core) does not fit" in capsys.readouterr().err
    assert isinstance(designs[0], SearchArray) and len(designs[0].engines) == 2
    verdict = saved_report("ecp5-85f", GeneratorConfig(core="fast", search_engines=2), search=True)
    assert verdict["search_engines"] == 2 and "search array of 2 engines" in verdict["does_not_fit"]
    assert saved_report("ecp5-85f", GeneratorConfig(core="fast"), search=True) is None


# One build per board: the walker on the ULX3S is the walker placed on the same ECP5 as synth's report
# (test_synth_report_agrees_with_tables) plus the host link that the ULX3S's fast build places there too.
@pytest.mark.parametrize("board, suffix, core", [("icebreaker", ".bin", "walker"), ("ulx3s-85f", ".bit", "fast")])
def test_build_leaves_a_bitstream(board, suffix, core, tmp_path, capsys):
    assert main(["build", "--board", board, "--core", core, "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["core"] == core
    bitstream = tmp_path / f"hwmovegen-{board}{suffix}"
    assert report["bitstream"] == str(bitstream) and bitstream.stat().st_size > 10_000
    assert report["fmax_mhz"] >= report["clock_mhz"]     # the board clock meets timing


@pytest.mark.parametrize("baud, message", [
    (0, "must be positive"), (-1, "must be positive"), (20_000_000, "too fast"), (2_500_000, "cannot be divided"),
    (7, "outside 1,200 to 3,000,000"), (1_199, "outside"),
])
def test_baud_rates_the_clock_cannot_divide(baud, message):
    with pytest.raises(BadRequest, match=message):
        check_baud(12e6, baud)
    assert check_baud(12e6, 115_200) == 104


def test_out_folder_checked_first(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    start = time.perf_counter()
    assert main(["synth", "--target", "ice40-up5k", "--out", str(blocker / "sub")]) == 2
    assert main(["build", "--board", "icebreaker", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("hwmovegen: error: argument --out: ") for line in err)
    assert all(line.endswith(f"{blocker} is not a folder") for line in err)
    assert time.perf_counter() - start < 5


def test_fast_core_synth_on_the_ecp5(capsys):
    assert main(["synth", "--target", "ecp5-85f", "--core", "fast", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["core"] == "fast" and 0 < report["fmax_mhz"] < 1000 and report["logic_cells"] > 1000
    assert report["brams"] == report["brams_expected"] == 0      # no ROM: its FIFOs land in distributed RAM
    assert report["moves_per_cycle"] >= 0.95
    assert report["mmoves_per_s"] == round(report["moves_per_cycle"] * report["fmax_mhz"], 1)


def test_fast_core_with_the_host_link_does_not_fit_the_icebreaker(tmp_path, capsys):
    assert main(["build", "--board", "icebreaker", "--core", "fast", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not fit" in err[0] and "the device has 5280" in err[0]


# the tools as the flow sees them: the logs Yosys and nextpnr write, a stage at a time
FAKE_FLOW = """
echo yosys > top.rpt; sleep 0.8
echo 'Info: Placed 5 cells based on constraints.' > top.tim; sleep 0.8
echo 'Info: Routing..' >> top.tim; sleep 0.8
echo 'Info: Program finished normally.' >> top.tim; sleep 0.8
echo '{"utilization": {"ICESTORM_LC": {"used": 10, "available": 5280}, "ICESTORM_RAM": {"used": 1, "available": 30}},
       "fmax": {"clk": {"achieved": 50.0, "constraint": 60.0}}}' > report.json
echo '{"design": {"num_cells_by_type": {"SB_LUT4": 8}}}' > top.stat.json
"""


def test_synthesis_reports_its_stages_on_a_terminal_and_nothing_in_json(capsys, monkeypatch, tmp_path):
    import dataclasses
    import sys
    from pathlib import Path
    from hwmovegen.boards.targets import TARGETS

    class FakePlan:
        script = "build_top"

        def extract(self, root):
            (Path(root) / "build_top.sh").write_text(FAKE_FLOW)

    class FakePlatform:
        required_tools = ["yosys", "nextpnr-ice40", "icepack"]

        def build(self, top, *args, build_dir, **kwargs):
            top._MustUse__silence = top.core._MustUse__silence = True    # never elaborated here
            Path(build_dir).mkdir(parents=True, exist_ok=True)
            return FakePlan()

    monkeypatch.setenv("HWMOVEGEN_CACHE", str(tmp_path))
    monkeypatch.setitem(TARGETS, "ice40-up5k", dataclasses.replace(TARGETS["ice40-up5k"], platform=FakePlatform))
    monkeypatch.setattr(synth_module, "_stream_rate", lambda config, log=None: 0.5)
    seen = []
    report = synth_module.rated_synth("ice40-up5k", stage=seen.append)
    assert seen == list(synth_module.RATED_STAGES) and report["fmax_mhz"] == 50.0 and report["mmoves_per_s"] == 25.0
    assert main(["synth", "--target", "ice40-up5k", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["logic_cells"] == 10 and err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["synth", "--target", "ice40-up5k"]) == 0
    err = capsys.readouterr().err
    assert all(f"synthesis for the ice40-up5k: {stage}" in err for stage in synth_module.RATED_STAGES), err
    assert err.index(": Yosys") < err.index(": place") < err.index(": route") < err.index(": pack")
