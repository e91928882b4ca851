"""The command line: output formats, and one-line errors with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from hwmovegen.sim.cli import main

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_console_script_is_installed():
    exe = Path(sys.executable).parent / "hwmovegen"
    assert exe.exists(), "the hwmovegen console script is not installed beside the interpreter"
    done = subprocess.run([exe, "moves"], capture_output=True, text=True, check=True)
    assert done.stdout.split()[:2] == ["b1c3", "b1a3"] and len(done.stdout.split()) == 20


def test_moves_default_is_the_start_position(capsys):
    code, out, _ = run(capsys, "moves")
    assert code == 0 and sorted(out.split()) == sorted(m.uci() for m in chess.Board().legal_moves)


def test_moves_json_from_epd_checks_against_python_chess(capsys, tmp_path):
    epd = tmp_path / "p.epd"
    epd.write_text(f"# comment\n\n{KIWIPETE} ;D1 48\n8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - ;x\n")
    code, out, _ = run(capsys, "moves", "--epd", str(epd), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) == 2
    for line in lines:
        board = chess.Board(line["fen"])
        stream = [chess.Move.from_uci(u) for u in line["moves"]]
        assert len(stream) == len(set(stream)) > 0
        assert {m for m in stream if board.is_legal(m)} == set(board.legal_moves)
        assert line["steps"] > 0


def test_perft_kiwipete_depth_3(capsys):
    code, out, _ = run(capsys, "perft", "--fen", KIWIPETE, "--depth", "3", "--json")
    result = json.loads(out)
    assert code == 0 and result["nodes"] == 97862 and result["seconds"] >= 0


def test_perft_divide(capsys):
    code, out, _ = run(capsys, "perft", "--depth", "2", "--divide")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0] == "b1c3: 20" and lines[-1] == "Nodes searched: 400"


def test_tables_report(capsys):
    code, out, _ = run(capsys, "tables", "--json")
    reports = {r["layout"]: r for r in json.loads(out)}
    assert code == 0 and reports["dense"]["total_bits"] <= 65536
    code, out, _ = run(capsys, "tables")
    assert code == 0 and out.splitlines()[1].startswith("dense")


@pytest.mark.parametrize("argv, message", [
    (["moves", "--fen", "rnbqkbnr/pppppppp/8/8 w"], "bad FEN"),
    (["moves", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["moves", "--fen", "k7/8/8/8/8/8/8/K6r b - - 0 1"], "in check"),
    (["moves", "--epd", "/nonexistent/file.epd"], "cannot read EPD"),
    (["moves", "--backend", "nonsense"], "unknown backend"),
    (["moves", "--layout", "nonsense"], "unknown layout"),
    (["perft", "--depth", "0"], "at least 1"),
    (["perft", "--depth", "x"], "invalid int"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


def test_bad_epd_line_names_file_and_line(capsys, tmp_path):
    epd = tmp_path / "bad.epd"
    epd.write_text(f"{KIWIPETE}\nxx/yy w - -\n")
    code, _, err = run(capsys, "moves", "--epd", str(epd))
    assert code == 2 and f"{epd}:2:" in err
