"""The compiled (CXXRTL) backend: identical to pysim and the model, compare at scale, perft."""

import json

import chess
import pytest

from hwmovegen.sim import testbench as tb
from hwmovegen.sim.backends import get_backend
from hwmovegen.sim.cli import main
from hwmovegen.sim.compare import compare
from hwmovegen.sim.cxxrtl import CxxrtlBackend
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.perft import perft
from hwmovegen.sim.positions import random_boards

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.fixture(scope="module")
def dense():
    return CxxrtlBackend("dense")


def test_cxxrtl_equals_model_on_the_suites(dense, suite):
    boards = [r.board for r in suite]
    for board, hardware in zip(boards, dense.run(boards)):
        model = generate(Position.from_board(board))
        assert hardware.moves == model.moves, board.fen()
        assert (hardware.steps, hardware.promotion_nodes) == (model.steps, model.promotion_nodes)
        assert hardware.stalls == 0
        assert hardware.cycles <= model.steps + 3 * model.promotion_nodes + 4
        if not model.promotion_nodes:
            assert hardware.cycles == model.steps + 4


def test_cxxrtl_equals_pysim_cycle_for_cycle(dense, suite):
    boards = [r.board for r in suite[:7]] + random_boards(20, seed=11)
    for compiled, simulated in zip(dense.run(boards), tb.simulate(boards)):
        assert compiled == simulated     # moves, steps, promotions, cycles, stalls


def test_butterfly_layout_compiled(suite):
    boards = [r.board for r in suite]
    summary = compare(boards, "cxxrtl", "butterfly")
    assert summary.positions == 133 and not summary.mismatches


def test_compare_ten_thousand_random_positions():
    boards = random_boards(10_000, seed=1)
    summary = compare(boards, "cxxrtl", "dense", jobs=2)
    assert summary.positions == 10_000
    assert not summary.mismatches, summary.mismatches[0].report()
    assert summary.moves > 300_000 and summary.stalls == 0
    assert summary.cycles <= summary.steps + 3 * summary.promotions + 4 * summary.positions


def test_compare_under_random_backpressure():
    summary = compare(random_boards(1000, seed=4), "cxxrtl", "dense", ready=0.3, seed=9)
    assert not summary.mismatches and summary.stalls > summary.positions


def test_perft_depth_3_through_cxxrtl_on_all_suite_positions(dense, suite):
    for record in suite:
        nodes, _ = perft(record.board, 3, dense.generate)
        assert nodes == record.depths[3], record.fen


def test_compare_reports_a_mismatch_and_exits_1(capsys, monkeypatch):
    """A broken golden model must make compare fail loudly: the check can fail."""
    import hwmovegen.sim.compare as compare_module

    def dropping_last_move(position, layout="dense"):
        result = generate(position, layout)
        if position.white_to_move:
            result.moves = result.moves[:-1]
        return result

    monkeypatch.setattr(compare_module, "generate", dropping_last_move)
    code = main(["compare", "--random", "5", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 1 and "MISMATCH" in out and "first difference at move" in out


def test_cli_moves_identical_across_backends(capsys):
    outputs = {}
    for backend in ("cxxrtl", "pysim", "model"):
        assert main(["moves", "--fen", KIWIPETE, "--backend", backend, "--json"]) == 0
        outputs[backend] = json.loads(capsys.readouterr().out)
    assert outputs["cxxrtl"] == outputs["pysim"]
    assert outputs["cxxrtl"]["moves"] == outputs["model"]["moves"]
    assert outputs["cxxrtl"]["cycles"] == outputs["cxxrtl"]["steps"] + 4


def test_cli_perft_kiwipete_through_cxxrtl(capsys):
    assert main(["perft", "--backend", "cxxrtl", "--fen", KIWIPETE, "--depth", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 97862


def test_cli_perft_divide_through_cxxrtl(capsys):
    assert main(["perft", "--fen", KIWIPETE, "--depth", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == "Nodes searched: 2039" and len(lines) == 48 + 2
    board = chess.Board(KIWIPETE)
    assert {line.split(":")[0] for line in lines[:48]} == {m.uci() for m in board.legal_moves}


def test_cli_compare_bundled_suites_json(capsys):
    assert main(["compare", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["positions"] == 133 and summary["mismatches"] == [] and summary["moves_per_cycle"] > 0.5


def test_cli_bench_json(capsys):
    assert main(["bench", "--json", "--depth", "2", "--repeat", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in report["positions"]][:2] == ["initial", "kiwipete"]
    assert all(row["nodes"] == 400 for row in report["perft"])
    assert report["positions"][0]["sim_cycles_per_second"] > 0


def test_no_compiler_falls_back_to_pysim(monkeypatch):
    import hwmovegen.sim.toolchain as toolchain
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    said = []
    backend = get_backend("cxxrtl", log=said.append)
    assert backend.name == "pysim" and len(said) == 1 and "no C++ compiler" in said[0]
