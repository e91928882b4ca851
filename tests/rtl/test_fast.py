"""The fast core in pysim: the model's stream move for move, its exact latency, backpressure,
back-to-back positions, abort."""

import chess
import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.sim.model.positions import random_boards

from hwmovegen.tables.contracts import CORE_CONTRACTS, GeneratorConfig

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
