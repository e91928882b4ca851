"""The search's board readings: the evaluation and the Polyglot key kept on make and unmake, and
the in-check test, against the tables' own sums, python-chess's zobrist_hash and is_check."""

import random

import chess
import chess.polyglot
import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from hwmovegen.rtl.apply import MoveApplier
from hwmovegen.rtl.board import BoardRAM
from hwmovegen.rtl.evaluate import SCORE_LATENCY, InCheck, PositionTerms, follow_board
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.harness.wire import word_from_move
from hwmovegen.tables.eval import evaluate, white_terms

from ..helpers import EN_PASSANT, KIWIPETE, POSITION3, PROMOTIONS


def _bench():
    m = Module()
    m.submodules.board = board = BoardRAM()
    m.submodules.applier = applier = MoveApplier(16)
    m.submodules.terms = terms = PositionTerms()
    m.submodules.check = check = InCheck()
    wiring.connect(m, applier.edit, board.edit)
    m.d.comb += [applier.planes.eq(board.planes), applier.state.eq(board.state)]
    follow_board(m, board.planes, board.state, applier.edit, terms, check)
    return m, board, applier, terms, check


def _expected(board):
    position = Position.from_board(board)
    mg, eg, phase = white_terms(position.squares)
    return {"mg": mg, "eg": eg, "phase": min(phase, 24), "score": evaluate(position.squares, board.turn),
            "key": chess.polyglot.zobrist_hash(board), "check": board.is_check()}


def _seen(ctx, terms, check):
    return {"mg": ctx.get(terms.mg), "eg": ctx.get(terms.eg), "phase": ctx.get(terms.phase),
            "score": ctx.get(terms.score), "key": ctx.get(terms.key), "check": bool(ctx.get(check.check))}


async def _apply(ctx, applier, move=None):
    ctx.set(applier.commands.valid, 1)
    ctx.set(applier.commands.payload.unmake, move is None)
    ctx.set(applier.commands.payload.move.as_value(), word_from_move(move) if move else 0)
    while not ctx.get(applier.commands.ready):
        await ctx.tick()
    await ctx.tick()
    ctx.set(applier.commands.valid, 0)
    while ctx.get(applier.busy):
        await ctx.tick()


async def _settle(ctx, terms):
    """Wait for the registered score to catch up with the board: at most SCORE_LATENCY cycles
    after the applier's last edit (the engine reads it that late, in EXPAND)."""
    waited = 0
    while not ctx.get(terms.ready):
        await ctx.tick()
        waited += 1
    assert waited <= SCORE_LATENCY
    assert SCORE_LATENCY <= 2                # a third stage would make a stand-pat node wait


def walk(fens, plies, paths, seed=1):
    """For each position: load, scan, then ``paths`` random paths of ``plies`` moves made and
    unmade, the readings checked at every node."""
    m, board, applier, terms, check = _bench()
    checked = []

    async def bench(ctx):
        rng = random.Random(seed)
        for fen in fens:
            root = chess.Board(fen)
            await tb.load(ctx, board, root)
            ctx.set(terms.scan, 1)
            await ctx.tick()
            ctx.set(terms.scan, 0)
            while ctx.get(terms.busy):
                await ctx.tick()
            await _settle(ctx, terms)
            assert _seen(ctx, terms, check) == _expected(root), fen
            for _ in range(paths):
                boards = [root.copy()]
                for _ in range(plies):
                    moves = generate(Position.from_board(boards[-1]), legal=True).moves
                    if not moves:
                        break
                    # captures and promotions first: they change the material and the phase
                    rng.shuffle(moves)
                    moves.sort(key=lambda move: not (move.capture or move.promotion or move.castle))
                    move = moves[0] if rng.random() < 0.6 else rng.choice(moves)
                    await _apply(ctx, applier, move)
                    await _settle(ctx, terms)
                    boards.append(boards[-1].copy())
                    boards[-1].push(chess.Move.from_uci(move.uci()))
                    assert _seen(ctx, terms, check) == _expected(boards[-1]), (fen, boards[-1].fen())
                    checked.append(boards[-1].copy())
                while len(boards) > 1:
                    await _apply(ctx, applier)
                    await _settle(ctx, terms)
                    boards.pop()
                    assert _seen(ctx, terms, check) == _expected(boards[-1]), (fen, boards[-1].fen())

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return checked


def test_terms_and_key_follow_make_and_unmake():
    seen = walk([chess.STARTING_FEN, KIWIPETE, POSITION3, PROMOTIONS, EN_PASSANT,
                 "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                 "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"], plies=6, paths=3)
    # the walks passed what the test is about: checks, en passant keys, promotions, castling
    assert any(board.is_check() for board in seen)
    assert any(board.has_legal_en_passant() for board in seen)
    assert any(len(board.move_stack) and board.move_stack[-1].promotion for board in seen)


@pytest.mark.parametrize("fen, check", [
    ("4k3/8/8/8/8/8/8/4K2r w - - 0 1", True),           # a rook along the rank
    ("4k3/8/8/8/8/8/5P2/4K2r w - - 0 1", True),
    ("4k3/8/8/8/8/8/8/4KN1r w - - 0 1", False),          # blocked
    ("4k3/8/8/8/1b6/8/8/4K3 w - - 0 1", True),           # a bishop on the diagonal
    ("4k3/8/8/8/8/3p4/8/4K3 w - - 0 1", False),          # a black pawn ahead: not yet
    ("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", True),           # a black pawn diagonally ahead
    ("4k3/8/8/8/8/8/8/3pK3 w - - 0 1", False),           # beside: no
    ("4k3/5P2/8/8/8/8/8/4K3 b - - 0 1", True),           # a white pawn attacks e8 from f7
    ("4k3/8/5N2/8/8/8/8/4K3 b - - 0 1", True),
    ("4k3/8/8/8/8/8/8/q3K3 w - - 0 1", True),
    ("4k3/8/8/8/8/8/8/qn2K3 w - - 0 1", False),
])
def test_in_check(fen, check):
    m, board, applier, terms, check_unit = _bench()

    async def bench(ctx):
        await tb.load(ctx, board, chess.Board(fen))
        assert bool(ctx.get(check_unit.check)) == check == chess.Board(fen).is_check()

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
