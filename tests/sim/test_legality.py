"""The golden model's legality against python-chess, rule by rule and at scale; the compiled
legality stage (both cores) against the model on the same positions."""

import chess
import pytest

from hwmovegen.sim.drivers.compare import compare
from hwmovegen.sim.backends import default_backend, get_backend
from hwmovegen.sim.model.legality import setup_cycles
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.sim.model.perft import perft
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig, LEGAL_SETUP_CYCLES

from ..legal_positions import RULES


def assert_legal_stream(board, result, model=None):
    """The stream is the model's legal stream move for move, and python-chess's legal moves as a set."""
    model = model or generate(Position.from_board(board), legal=True)
    assert result.moves == model.moves, board.fen()
    assert {m.to_chess() for m in result.moves} == set(board.legal_moves), board.fen()
    return model


@pytest.mark.parametrize("name, fen, legal, illegal", RULES, ids=[rule[0] for rule in RULES])
def test_model_rule_by_rule(name, fen, legal, illegal):
    board = chess.Board(fen)
    model = assert_legal_stream(board, generate(Position.from_board(board), legal=True))
    pseudo = generate(Position.from_board(board))
    # the legal stream is the pseudo-legal stream filtered, in the same order
    assert model.moves == [m for m in pseudo.moves if m in model.moves]
    ucis = model.uci()
    assert all(m in ucis for m in legal) and not any(m in ucis for m in illegal)
    assert model.setup == LEGAL_SETUP_CYCLES


def test_model_on_the_suites_and_random_positions(suite, random_1000):
    for board in [r.board for r in suite] + random_1000:
        assert_legal_stream(board, generate(Position.from_board(board), legal=True))


def test_model_perft_with_its_own_legality(suite):
    for record in suite[:7]:
        nodes, _ = perft(record.board, 3, lambda b: generate(Position.from_board(b, check=False), legal=True),
                         legal=True)
        assert nodes == record.depths[3], record.fen


@pytest.fixture(scope="module", params=["walker", "fast"])
def legal_backend(request):
    config = GeneratorConfig("dense", request.param, legal=True)
    return get_backend(default_backend(config), config)       # the simulator that builds it soonest


def test_hardware_rule_by_rule(legal_backend):
    boards = [chess.Board(fen) for _, fen, _, _ in RULES]
    for board, hardware in zip(boards, legal_backend.run(boards)):
        model = assert_legal_stream(board, hardware)
        assert hardware.cycles <= cycle_bound(model, legal_backend.core)


def test_hardware_on_the_suites_and_10000_random_positions(legal_backend, suite):
    boards = [r.board for r in suite] + random_boards(10_000, seed=2028)
    summary = compare(boards, legal_backend, jobs=2)
    assert summary.positions == len(boards) and summary.mismatches == []


def test_hardware_perft_depth_3_on_every_suite_position(legal_backend, suite):
    for record in suite:
        nodes, _ = perft(record.board, 3, legal_backend.generate, legal=True)
        assert nodes == record.depths[3], record.fen


def test_the_fast_core_bound_is_exact_with_the_stage(suite):
    config = GeneratorConfig("dense", "fast", legal=True)
    legal = get_backend(default_backend(config), config)
    boards = [r.board for r in suite[:7]] + [chess.Board(fen) for _, fen, _, _ in RULES]
    for board, hardware in zip(boards, legal.run(boards)):
        model = generate(Position.from_board(board), legal=True)
        assert hardware.cycles == cycle_bound(model, "fast"), board.fen()
        assert model.setup == setup_cycles(generate(Position.from_board(board)).moves)
