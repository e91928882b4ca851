"""The fast core in pysim: the model's stream move for move, its exact latency, backpressure,
back-to-back positions, abort."""

import chess
import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.rtl.order import Order
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.sim.model.order import order_moves
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables import PieceType, piece_code

from hwmovegen.tables.contracts import CORE_CONTRACTS, SELECTABLE, GeneratorConfig

from ..helpers import (EN_PASSANT, KIWIPETE, ONE_STEP_WALKS, POSITION3, PROMOTION_CAPTURE, PROMOTIONS,
                       StreamMonitor, assert_matches_model, generate_under_backpressure)

# en passant from each edge file and by two pawns at once, for both colours
EN_PASSANT_EDGES = [
    "4k3/8/8/Pp6/8/8/8/4K3 w - b6 0 1",
    "4k3/8/8/6pP/8/8/8/4K3 w - g6 0 1",
    "4k3/8/8/8/pP6/8/8/4K3 b - b3 0 1",
    "4k3/8/8/8/1pPp4/8/8/4K3 b - c3 0 1",
    "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1",
]
FAST = CORE_CONTRACTS["fast"]


def fast_positions(suite):
    fens = [KIWIPETE, POSITION3, PROMOTIONS, PROMOTION_CAPTURE, EN_PASSANT] + EN_PASSANT_EDGES + ONE_STEP_WALKS
    return [r.board for r in suite[:7]] + [chess.Board(f) for f in fens] + random_boards(12, seed=31)


def run(body, dut):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(body)
    return sim


def test_stream_equals_model_and_latency_is_exact(suite):
    boards = fast_positions(suite)
    for board, result in zip(boards, tb.simulate(boards, GeneratorConfig(core="fast"))):
        model = assert_matches_model(board, result, core="fast")
        # one cycle a move, plus the documented pipeline latency, whatever the pieces and rays
        assert result.stalls == 0
        assert result.cycles == len(model.moves) + FAST.latency == cycle_bound(model, "fast"), board.fen()


def test_a_position_without_moves_is_done_in_a_few_cycles():
    # the side to move has no piece at all (the hardware does not insist on a king)
    position = Position.from_board(chess.Board("k7/8/8/8/8/8/8/8 w - - 0 1"), check=False)
    result = tb.simulate([position, chess.Board(KIWIPETE)], GeneratorConfig(core="fast"))
    assert result[0].moves == [] and result[0].cycles == FAST.empty == cycle_bound(generate(position), "fast")
    assert_matches_model(chess.Board(KIWIPETE), result[1], core="fast")


def test_backpressure_keeps_the_stream_rules_and_the_stream(suite):
    boards = [r.board for r in suite[:7]] + [chess.Board(f) for f in (PROMOTIONS, PROMOTION_CAPTURE)]
    results = generate_under_backpressure(MoveGenerator(core="fast"), boards, 0.4)
    for board, result in zip(boards, results):
        assert_matches_model(board, result, core="fast")
    assert sum(r.stalls for r in results) > 0


@pytest.mark.parametrize("probability", [1.0, 0.6])
def test_back_to_back_positions_overlap(suite, probability):
    boards = [chess.Board(KIWIPETE), chess.Board(PROMOTIONS)] + [r.board for r in suite[:7]] + \
        [chess.Board(f) for f in EN_PASSANT_EDGES[:2]]
    dut = MoveGenerator(core="fast")
    monitor = StreamMonitor(dut.moves)
    outcome, dones = [], [0]

    async def bench(ctx):
        ready = None if probability == 1.0 else tb.random_ready(seed=3, probability=probability)
        outcome.append(await tb.back_to_back(ctx, dut, boards, ready=ready))

    async def count_dones(ctx):
        async for _, _, pulse in ctx.tick().sample(dut.done):
            dones[0] += pulse

    sim = run(bench, dut)
    sim.add_testbench(monitor.process, background=True)
    sim.add_testbench(count_dones, background=True)
    sim.run()
    (results, span), = outcome
    assert dones[0] == len(boards) and not monitor.violations
    for board, result in zip(boards, results):
        assert_matches_model(board, result, core="fast")
    moves = sum(len(r.moves) for r in results)
    # every cycle of the span belongs to one position's counters (the core never idles here)
    assert sum(r.cycles for r in results) == span
    if probability == 1.0:
        # the latency of all but the first position is hidden behind the previous one's moves
        assert span <= moves + FAST.latency + 2 * len(boards)
        assert moves / span > 0.9


def test_walker_refuses_back_to_back():
    dut = MoveGenerator(core="walker")

    async def bench(ctx):
        with pytest.raises(ValueError, match="load after done"):
            await tb.back_to_back(ctx, dut, [chess.Board()])

    run(bench, dut).run()


def test_abort_then_a_new_position():
    dut = MoveGenerator(core="fast")
    results = []

    async def bench(ctx):
        await tb.load(ctx, dut, KIWIPETE)
        ctx.set(dut.start, 1)
        ctx.set(dut.moves.ready, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick().repeat(25)
        assert ctx.get(dut.busy) and ctx.get(dut.moves.valid)
        ctx.set(dut.abort, 1)
        await ctx.tick()
        ctx.set(dut.abort, 0)
        assert not ctx.get(dut.busy) and not ctx.get(dut.moves.valid) and ctx.get(dut.start_ready)
        results.append(await tb.generate(ctx, dut, chess.STARTING_FEN))
        results.append(await tb.run(ctx, dut))      # again, without reloading: the board is kept

    run(bench, dut).run()
    for result in results:
        assert_matches_model(chess.Board(), result, core="fast")


# a king boxed in and its other men blocked (a stalemate), a capture that is illegal (the pinned
# knight's), a king whose only moves are captures, no piece that may capture (the core is done at
# once, before the legality setup: a stalemate whose last attacks the setup sees on its way down,
# and a king free to step), and the en-passant and promotion cases above
CAPTURES_ONLY = [KIWIPETE, POSITION3, PROMOTIONS, PROMOTION_CAPTURE, EN_PASSANT, *EN_PASSANT_EDGES[:2],
                 "k7/2K5/1P6/7p/7P/8/8/8 b - - 0 1", "4k3/4r3/8/8/4N2b/8/8/4K3 w - - 0 1",
                 "4k3/8/8/8/8/1p6/2ppp3/3K4 w - - 0 1", "3r1r2/8/8/8/8/2n5/8/4K2k w - - 0 1",
                 "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]


def test_captures_only_is_the_captures_of_the_whole_stream():
    """A captures core (``captures_only``): the pseudo-legal stream (``all_moves``, the core's
    order) is the model's captures in the model's order, the legal stream in ``captures`` order the
    same as the whole position's, ``legal_moves`` its length and ``king_step`` whether the model
    has a legal king step; each sooner than the whole generation."""
    dut = MoveGenerator(core="fast", legal=True, order=SELECTABLE, legal_count=True, captures=True)
    boards = [chess.Board(fen) for fen in CAPTURES_ONLY] + random_boards(4, seed=8)
    runs = []

    async def bench(ctx):
        for board in boards:
            await tb.load(ctx, dut, Position.from_board(board))
            for pseudo, order in ((1, Order.SQUARE), (0, Order.CAPTURES)):
                for only in (1, 0):
                    ctx.set(dut.all_moves, pseudo)
                    ctx.set(dut.order, order)
                    ctx.set(dut.captures_only, only)
                    result = await tb.run(ctx, dut)
                    runs.append((board, pseudo, only, result, ctx.get(dut.legal_moves), ctx.get(dut.king_step)))

    run(bench, dut).run()
    for board, pseudo, only, result, legal_moves, king_step in runs:
        position = Position.from_board(board)
        model = generate(position, legal=not pseudo).moves
        got = [move.uci() for move in result.moves]
        if pseudo:
            assert got == [move.uci() for move in model if move.capture or not only], board.fen()
        else:
            assert got == [move.uci() for move in order_moves(position, model, "captures")], board.fen()
            assert legal_moves == sum(1 for move in model if move.capture or not only)
            king_square = position.squares.index(piece_code(PieceType.KING, not board.turn))
            king = [move for move in model if move.frm == king_square and not move.castle]
            assert king_step == bool(king), board.fen()
    whole = {(board.fen(), pseudo): result.cycles for board, pseudo, only, result, _, _ in runs if not only}
    for board, pseudo, only, result, _, _ in runs:
        if only:
            assert result.cycles < whole[board.fen(), pseudo] or not result.moves and result.cycles == \
                whole[board.fen(), pseudo], board.fen()
