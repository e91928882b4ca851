"""The ordering stage in pysim: ordered streams with check flags against the golden model, move for
move, with the order chosen per position at start, under backpressure and back to back."""

import chess
import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.rtl.order import FIRST_BIN_DELAY, FirstBin, Order
from hwmovegen.tables.contracts import ORDER_LATENCY, PROMOTION_BIN, QUIET_BIN, SELECTABLE
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate, work
from hwmovegen.sim.model.order import first_bin, order_bin
from hwmovegen.sim.model.positions import random_boards

from ..helpers import (EN_PASSANT, KIWIPETE, PROMOTION_CAPTURE, PROMOTIONS, StreamMonitor, generate_under_backpressure,
                      read_each_board)

ORDER_NAMES = {Order.SQUARE: "square", Order.MVV_LVA: "mvv-lva", Order.CAPTURES: "captures"}
# positions where the check rule's corner cases occur: a promotion opening the file to the king,
# a capture-promotion along the diagonal back through its square, castling checking along the
# rank the king left and up the file, an en-passant capture that checks, and a discovered check
RULES = [
    "8/4P3/8/8/8/8/8/4k1K1 w - - 0 1",
    "4r3/3P4/8/8/k7/8/8/4K3 w - - 0 1",
    "8/8/8/8/8/8/8/2k1K2R w K - 0 1",
    "5k2/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1",
    "4k3/8/8/8/8/8/4N3/4RK2 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
]


def _assert_ordered(board, order, hardware, core, legal):
    model = generate(Position.from_board(board), legal=legal, order=order)
    assert [(m.uci(), m.check) for m in hardware.moves] == [(m.uci(), m.check) for m in model.moves], \
        (board.fen(), order)
    assert hardware.moves == model.moves
    assert hardware.steps == work(model, core)
    assert hardware.promotion_nodes == model.promotion_nodes
    assert hardware.cycles - hardware.stalls <= cycle_bound(model, core), (board.fen(), order)
    return model


def test_fast_core_orders_each_position_as_chosen_at_start(suite):
    boards = ([r.board for r in suite[:7]] + [chess.Board(f) for f in RULES + [PROMOTIONS, PROMOTION_CAPTURE,
                                                                               EN_PASSANT, KIWIPETE]]
              + random_boards(8, seed=11))
    orders = [list(Order)[i % 3] for i in range(len(boards))]
    results = generate_under_backpressure(MoveGenerator(core="fast", order=SELECTABLE), boards, 0.6, orders)
    checks = captures = 0
    for board, order, result in zip(boards, orders, results):
        model = _assert_ordered(board, ORDER_NAMES[order], result, "fast", False)
        checks += sum(m.check for m in model.moves)
        captures += sum(m.capture for m in model.moves)
    assert checks > 10 and captures > 50 and sum(r.stalls for r in results) > 0


def test_legality_stage_then_order_on_the_walker(suite):
    boards = [r.board for r in suite[:4]] + [chess.Board(f) for f in RULES[:6]] + random_boards(4, seed=12)
    for order in (Order.MVV_LVA, Order.CAPTURES):
        results = generate_under_backpressure(MoveGenerator(core="walker", legal=True, order=order), boards, 0.7)
        for board, result in zip(boards, results):
            _assert_ordered(board, ORDER_NAMES[order], result, "walker", True)


def test_back_to_back_ordered_positions_stay_exact():
    boards = [chess.Board()] + [chess.Board(f) for f in RULES] + random_boards(12, seed=13)
    dut = MoveGenerator(core="fast", order=Order.MVV_LVA)
    out = {}

    async def bench(ctx):
        out["results"], out["span"] = await tb.back_to_back(ctx, dut, [Position.from_board(b) for b in boards])

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    models = [_assert_ordered(board, "mvv-lva", result, "fast", False) for board, result in zip(boards, out["results"])]
    # the banks let the next positions fill while one is read out: far fewer cycles than one at a time
    alone = sum(cycle_bound(model, "fast") for model in models)
    moves = sum(len(model.moves) for model in models)
    assert out["span"] < (alone + moves) / 2, (out["span"], alone, moves)


def test_the_first_bin_is_the_models_forecast(suite):
    """FirstBin, the attack maps' lowest bin, against the model's over the positions where each
    bin's corner cases occur (en passant, promotions with and without a capture, pinned and
    checking pieces: the forecast is pseudo-legal) and random ones."""
    boards = ([r.board for r in suite] + [chess.Board(f) for f in RULES + [PROMOTIONS, PROMOTION_CAPTURE,
                                                                           EN_PASSANT, KIWIPETE]]
              + random_boards(150, seed=14))
    dut = FirstBin()
    bins = read_each_board(dut, boards, FIRST_BIN_DELAY, lambda ctx: ctx.get(dut.bin))
    expected = [first_bin(position, generate(position).moves)
                for position in (Position.from_board(board) for board in boards)]
    assert bins == expected
    assert len(set(expected)) >= 12 and {PROMOTION_BIN, QUIET_BIN} <= set(expected), sorted(set(expected))


def _first_cycle(trace):
    return next((i for i, sample in enumerate(trace) if sample["moves_valid"]), None)


@pytest.mark.parametrize("order", [Order.MVV_LVA, Order.CAPTURES])
def test_the_first_move_leaves_as_it_arrives_with_early(suite, order):
    """With ``early`` a position's first ordered move leaves when it arrives if its bin is the
    forecast's: the same stream, under backpressure and one at a time, ``done`` a cycle sooner
    exactly then (the ordering latency's contract otherwise), the first move far sooner."""
    boards = ([r.board for r in suite[:7]] + [chess.Board(f) for f in RULES + [PROMOTIONS, PROMOTION_CAPTURE,
                                                                               EN_PASSANT, KIWIPETE]]
              + random_boards(6, seed=15))
    name = ORDER_NAMES[order]
    results = generate_under_backpressure(
        MoveGenerator(core="fast", legal=True, order=order, captures=True, early=True), boards, 0.6)
    for board, result in zip(boards, results):
        _assert_ordered(board, name, result, "fast", True)
    sooner, firsts = 0, {}
    for early in (False, True):
        dut = MoveGenerator(core="fast", legal=True, order=order, early=early)
        runs = []

        async def bench(ctx):
            for board in boards:
                trace = []
                runs.append((await tb.generate(ctx, dut, Position.from_board(board), trace=trace), trace))

        sim = Simulator(dut)
        sim.add_clock(1e-8)
        sim.add_testbench(bench)
        sim.run()
        for board, (result, trace) in zip(boards, runs):
            position = Position.from_board(board)
            model = _assert_ordered(board, name, result, "fast", True)
            unordered = generate(position, legal=True)
            came = bool(model.moves) and order_bin(position, model.moves[0]) == first_bin(
                position, generate(position).moves)
            assert result.cycles == cycle_bound(unordered, "fast") + len(model.moves) + ORDER_LATENCY - \
                (early and came), (board.fen(), early)
            if early:
                sooner += came and _first_cycle(trace) < firsts[board.fen()]
            else:
                firsts[board.fen()] = _first_cycle(trace)
    assert sooner >= len(boards) // 2, sooner


@pytest.mark.parametrize("probability", [0.5, 1.0])
def test_early_positions_overlapping_in_the_orderer_stay_exact(probability):
    """As the search runs it: the next position loaded and started once the last one's legal
    stream has ended, while the orderer still emits it (the early orderer reads each position as
    it was at its start), under backpressure or none: every bank's first move early or not, in
    turn, with the rest behind it. Each short position follows kiwipete's 48 moves after a delay;
    with the stream always ready, the five delays given make the short one's bank complete the
    cycle after its early first move left, as kiwipete's ended (its bins after the first were
    lost once: the list cut short)."""
    shorts = [(RULES[0], 15), (RULES[1], 9), (RULES[5], 14), (PROMOTION_CAPTURE, 10), (EN_PASSANT, 16)] + \
        [(board.fen(), delay) for board, delay in zip(random_boards(6, seed=16), range(3, 24, 4))]
    runs = [run for short, delay in shorts for run in ((KIWIPETE, 0), (short, delay))]
    dut = MoveGenerator(core="fast", legal=True, order=Order.MVV_LVA, captures=True, early=True)
    monitor = StreamMonitor(dut.moves)
    lists, current = [], []

    async def producer(ctx):
        for fen, delay in runs:
            while not ctx.get(dut.start_ready):
                await ctx.tick()
            for _ in range(delay):
                await ctx.tick()
            await tb.load(ctx, dut, Position.from_fen(fen))
            while not ctx.get(dut.start_ready):
                await ctx.tick()
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            await ctx.tick()

    async def consumer(ctx):
        ready = tb.random_ready(seed=16, probability=probability)
        cycle = 0
        while len(lists) < len(runs):
            ctx.set(dut.moves.ready, ready(cycle))
            _, _, valid, taking, payload, done = await ctx.tick().sample(
                dut.moves.valid, dut.moves.ready, dut.moves.payload, dut.done)
            if done:        # (the next position's first move may come in the cycle of this done)
                lists.append(list(current))
                current.clear()
            if valid and taking:
                current.append(tb.move_from_payload(payload))
            cycle += 1
            assert cycle < 200_000

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.add_testbench(monitor.process, background=True)
    sim.run()
    assert not monitor.violations
    for (fen, _), moves in zip(runs, lists):
        assert moves == generate(Position.from_fen(fen), legal=True, order="mvv-lva").moves, fen


def test_the_early_orderer_reads_the_position_as_it_started():
    """The search makes a position's first move on the board while the rest of the position still
    arrives, from the cycle after ``start`` on (a first capture from the board): the board emptied a
    square a cycle from then on (the legality stage's setup reads the copy taken at start, so
    ``board_free`` stays high), the stream, bins and check flags stay those of the position as it was at
    ``start``."""
    boards = [chess.Board(KIWIPETE), chess.Board(RULES[1]), chess.Board(RULES[3])] + random_boards(4, seed=17)
    dut = MoveGenerator(core="fast", legal=True, order=Order.MVV_LVA, editable=True, captures=True, early=True)
    lists = []

    async def bench(ctx):
        for board in boards:
            await tb.load(ctx, dut, Position.from_board(board))
            while not ctx.get(dut.start_ready):
                await ctx.tick()
            ctx.set(dut.start, 1)
            ctx.set(dut.moves.ready, 1)
            moves, square, edited = [], 0, 0
            while True:
                _, _, valid, payload, done, free = await ctx.tick().sample(
                    dut.moves.valid, dut.moves.payload, dut.done, dut.board_free)
                ctx.set(dut.start, 0)
                if valid:
                    moves.append(tb.move_from_payload(payload))
                assert free
                writing = not done
                ctx.set(dut.edit.square_en, writing)
                ctx.set(dut.edit.square, square)
                ctx.set(dut.edit.code, 0)
                square, edited = (square + 1) % 64 if writing else square, edited + writing
                if done:
                    break
            ctx.set(dut.edit.square_en, 0)
            lists.append((moves, edited))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for board, (moves, edited) in zip(boards, lists):
        model = generate(Position.from_board(board), legal=True, order="mvv-lva").moves
        assert [(m.uci(), m.check) for m in moves] == [(m.uci(), m.check) for m in model], board.fen()
        assert moves == model and edited > 10, (board.fen(), edited)
