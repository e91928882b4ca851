"""The legality stage in pysim behind both cores: the model's legal stream under random
backpressure, the stream rules kept, abort mid-setup."""

import chess
import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate

from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import KIWIPETE, generate_under_backpressure
from ..legal_positions import RULES

CHOSEN = ["double check", "en passant exposing the king on the rank", "castling through check",
          "pin on a diagonal", "a promotion blocks the check", "en passant along the pin",
          "en passant blocks a check along the king's rank", "a knight on the eighth rank checks"]


@pytest.mark.parametrize("core", ["walker", "fast"])
def test_legal_stream_under_backpressure(core):
    boards = [chess.Board(fen) for name, fen, _, _ in RULES if name in CHOSEN] + [chess.Board(KIWIPETE)]
    results = generate_under_backpressure(MoveGenerator(core=core, legal=True), boards, 0.5)
    for board, result in zip(boards, results):
        model = generate(Position.from_board(board), legal=True)
        assert result.moves == model.moves, board.fen()
        assert result.cycles - result.stalls <= cycle_bound(model, core)
    assert sum(r.stalls for r in results) > 0


def test_abort_during_the_setup_then_a_new_position():
    dut = MoveGenerator(core="walker", legal=True)
    results = []

    async def bench(ctx):
        await tb.load(ctx, dut, KIWIPETE)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick().repeat(5)
        ctx.set(dut.abort, 1)
        await ctx.tick()
        ctx.set(dut.abort, 0)
        assert not ctx.get(dut.busy) and not ctx.get(dut.moves.valid)
        results.append(await tb.generate(ctx, dut, RULES[0][1]))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert results[0].moves == generate(Position.from_fen(RULES[0][1]), legal=True).moves


@pytest.mark.parametrize("core", ["walker", "fast"])
def test_all_moves_bypasses_the_stage_cycle_for_cycle(core):
    """``all_moves`` at start: the plain core's stream and counters, exactly; the next
    position without it is filtered again."""
    fens = [KIWIPETE, RULES[0][1]]
    plain = tb.simulate(fens, GeneratorConfig(core=core))
    dut = MoveGenerator(core=core, legal=True)
    results = []

    async def bench(ctx):
        for fen in fens:
            for all_moves in (1, 0):
                ctx.set(dut.all_moves, all_moves)
                results.append(await tb.generate(ctx, dut, fen))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for index, fen in enumerate(fens):
        bypassed, legal = results[2 * index], results[2 * index + 1]
        assert bypassed == plain[index], fen
        assert legal.moves == generate(Position.from_fen(fen), legal=True).moves, fen
