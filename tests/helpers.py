"""Positions and stream helpers shared by the tests."""

import chess

from hwmovegen.sim.model import Position, cycle_bound, generate, work
from hwmovegen.tables import TableKind, rays

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
CPW_POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
PROMOTIONS = "n1n1k3/PPP5/8/8/8/8/5ppp/4K1N1 w - - 0 1"
PROMOTION_CAPTURE = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"
EN_PASSANT = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"
BISHOP_WALK = "4k3/8/8/8/8/4p3/8/2B1K3 w - - 0 1"     # the README's worked walk
# Walks of a single step: a corner bishop blocked at once, as the first, a middle
# and the last piece of the side to move (found by `compare --random`).
ONE_STEP_WALKS = [
    "7b/6k1/8/8/8/8/8/K7 b - - 0 1",
    "k7/8/8/8/8/8/1P6/B6K w - - 0 1",
    "k6b/6p1/8/8/8/8/8/b6K b - - 0 1",
    "6Bb/2kbr1Rn/p1P5/5p2/K1P2P2/N6P/5b2/R7 b - - 12 55",
]


def chains():
    """(kind, square) of every chain in the tables."""
    for kind in TableKind:
        for square in range(64):
            if rays(kind, square):
                yield kind, square


def boards(*fens):
    return [chess.Board(fen) for fen in fens]


def assert_matches_model(board, hardware, layout="dense", core="walker"):
    """The hardware's stream equals the model's move for move (flags too), with the
    same counters and within the core's cycle bound."""
    model = generate(Position.from_board(board), layout)
    assert hardware.uci() == model.uci(), board.fen()
    assert hardware.moves == model.moves, board.fen()
    assert hardware.steps == work(model, core)
    assert hardware.promotion_nodes == model.promotion_nodes
    assert hardware.cycles - hardware.stalls <= cycle_bound(model, core)
    return model


class StreamMonitor:
    """An async pysim process checking the amaranth.lib.stream rules on a stream:
    once valid, the payload holds and valid stays high until the transfer."""

    def __init__(self, stream):
        self.stream = stream
        self.violations = []
        self.transfers = 0

    async def process(self, ctx):
        held = None
        async for _, _, valid, ready, payload in ctx.tick().sample(
                self.stream.valid, self.stream.ready, self.stream.payload):
            value = payload.as_value().value if hasattr(payload, "as_value") else payload
            if held is not None and (not valid or value != held):
                self.violations.append("payload or valid dropped before the transfer")
            self.transfers += bool(valid and ready)
            held = value if valid and not ready else None


def generate_under_backpressure(dut, boards, probability, orders=None):
    """Generate ``boards`` one after another on ``dut`` in pysim with random ``ready``
    (a pattern per position) under a :class:`StreamMonitor`; return the Generations
    after checking the stream rules and that every transfer was collected. ``orders``: an
    ``Order`` per board, set on ``dut.order`` with its start."""
    from amaranth.sim import Simulator
    from hwmovegen.sim.harness import pysim as tb

    monitor = StreamMonitor(dut.moves)
    results = []

    async def bench(ctx):
        for index, board in enumerate(boards):
            if orders is not None:
                ctx.set(dut.order, orders[index])
            ready = tb.random_ready(seed=index, probability=probability)
            results.append(await tb.generate(ctx, dut, board, ready=ready))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.add_testbench(monitor.process, background=True)
    sim.run()
    assert not monitor.violations and monitor.transfers == sum(len(r.moves) for r in results)
    return results


def read_each_board(dut, boards, delay, read):
    """``dut`` (a component with ``planes`` and ``state`` inputs, registered ``delay`` cycles deep)
    given each of ``boards`` in turn: ``read(ctx)`` of each, ``delay`` cycles after it was set."""
    from amaranth.sim import Simulator
    out = []

    async def bench(ctx):
        for board in boards:
            position = Position.from_board(board)
            ctx.set(dut.planes.as_value(), sum(plane << 64 * k for k, plane in enumerate(position.planes())))
            ctx.set(dut.state, position.state())
            await ctx.tick().repeat(delay)
            out.append(read(ctx))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return out
