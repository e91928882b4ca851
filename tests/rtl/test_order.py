"""The ordering stage in pysim: ordered streams with check flags against the golden model, move for
move, with the order chosen per position at start, under backpressure and back to back."""

import chess
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.rtl.order import Order
from hwmovegen.tables.contracts import SELECTABLE
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate, work
from hwmovegen.sim.model.positions import random_boards

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTION_CAPTURE, PROMOTIONS, generate_under_backpressure

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
