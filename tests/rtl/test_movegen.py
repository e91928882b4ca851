"""The whole generator in pysim against the golden model, move for move, with the cycle bound."""

import chess
from amaranth import ClockDomain, Module
from amaranth.sim import Simulator

from hwmovegen.rtl import MoveGenerator
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.sim.model.positions import random_boards

from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import (KIWIPETE, ONE_STEP_WALKS, PROMOTIONS, assert_matches_model,
                       generate_under_backpressure)


def positions_under_test(suite):
    cpw = [r.board for r in suite[:7]]
    perftsuite = [r.board for r in suite[7::9]]
    randoms = random_boards(40, seed=99)
    return cpw + perftsuite + randoms + [chess.Board(fen) for fen in [PROMOTIONS] + ONE_STEP_WALKS]


def test_stream_equals_model_with_ready_high(suite):
    boards = positions_under_test(suite)
    results = tb.simulate(boards)
    assert len(results) == len(boards)
    for board, result in zip(boards, results):
        assert_matches_model(board, result)
        assert result.stalls == 0


def test_butterfly_layout_in_hardware(suite):
    boards = [r.board for r in suite[:7]] + [chess.Board(PROMOTIONS)]
    for board, result in zip(boards, tb.simulate(boards, GeneratorConfig(layout="butterfly"))):
        assert_matches_model(board, result, layout="butterfly")


def test_random_backpressure_gives_the_identical_stream(suite):
    boards = [r.board for r in suite[:7]] + [chess.Board(PROMOTIONS)] + random_boards(12, seed=5)
    results = generate_under_backpressure(MoveGenerator(), boards, 0.4)
    for board, result in zip(boards, results):
        assert_matches_model(board, result)
    assert sum(r.stalls for r in results) > 0


def test_abort_mid_generation_then_new_position():
    dut = MoveGenerator()
    results = []

    async def bench(ctx):
        await tb.load(ctx, dut, KIWIPETE)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        ctx.set(dut.moves.ready, 1)
        await ctx.tick().repeat(20)
        assert ctx.get(dut.busy)
        ctx.set(dut.abort, 1)
        await ctx.tick()
        ctx.set(dut.abort, 0)
        assert not ctx.get(dut.busy) and not ctx.get(dut.moves.valid)
        results.append(await tb.generate(ctx, dut, chess.STARTING_FEN))
        results.append(await tb.run(ctx, dut))  # the same position again, without reloading

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for result in results:
        assert_matches_model(chess.Board(), result)


def test_clock_domain_reset_mid_generation():
    """A real reset of the sync domain (board included) followed by a fresh load."""
    dut = MoveGenerator()
    top = Module()
    top.domains.sync = sync = ClockDomain()
    top.submodules.dut = dut
    results = []

    async def bench(ctx):
        await tb.load(ctx, dut, KIWIPETE)
        ctx.set(dut.start, 1)
        ctx.set(dut.moves.ready, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick().repeat(30)
        ctx.set(sync.rst, 1)
        await ctx.tick()
        ctx.set(sync.rst, 0)
        assert not ctx.get(dut.busy) and not ctx.get(dut.done) and ctx.get(dut.counters.moves) == 0
        results.append(await tb.generate(ctx, dut, PROMOTIONS))

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert_matches_model(chess.Board(PROMOTIONS), results[0])


def test_back_to_back_positions_share_one_run(suite):
    boards = [chess.Board(KIWIPETE), chess.Board(), chess.Board(KIWIPETE), chess.Board(PROMOTIONS)]
    results = tb.simulate(boards)
    for board, result in zip(boards, results):
        assert_matches_model(board, result)
    assert results[0].moves == results[2].moves and results[0].cycles == results[2].cycles


def test_counters_describe_the_run():
    result = tb.simulate([PROMOTIONS])[0]
    model = generate(Position.from_fen(PROMOTIONS))
    assert result.promotion_nodes == model.promotion_nodes == 3  # b7: b8, xa8, xc8
    assert len(result.moves) == len(model.moves) == 5 + 3 + 3 * 4  # king, knight, b7 promotions
    # the FIFO expands promotions while the walk goes on: fewer than 3 extra cycles each
    assert model.steps + 4 < result.cycles <= cycle_bound(model)
    plain = tb.simulate([chess.STARTING_FEN])[0]
    assert plain.cycles == plain.steps + 4 == 60


def test_docs_testbench_example_runs(capsys):
    """The testbench-API example in docs/cores.md runs as written."""
    from pathlib import Path
    readme = (Path(__file__).parents[2] / "docs" / "cores.md").read_text()
    example = readme.split("<!-- testbench-example -->")[1].split("```python")[1].split("```")[0]
    exec(compile(example, "README-example", "exec"), {})
    out = capsys.readouterr().out
    assert "c1d2" in out and "cycles" in out
