"""BoardRAM: clear, rank writes, state writes, and the bitplanes they leave."""

import random

from amaranth.sim import Simulator

from hwmovegen.rtl import BoardRAM


def codes_from_planes(planes):
    return [sum(((planes[bit] >> square) & 1) << bit for bit in range(4)) for square in range(64)]


def test_writes_clear_and_state():
    dut = BoardRAM()
    rng = random.Random(3)
    seen = []

    async def bench(ctx):
        expected = [0] * 64
        for _ in range(200):
            action = rng.random()
            ctx.set(dut.load.clear, 0)
            ctx.set(dut.load.rank_en, 0)
            if action < 0.1:
                ctx.set(dut.load.clear, 1)
                expected = [0] * 64
            if action < 0.05 or action > 0.2:       # a rank write in the clearing cycle wins for its rank
                rank = rng.randrange(8)
                codes = [rng.randrange(16) for _ in range(8)]
                ctx.set(dut.load.rank_en, 1)
                ctx.set(dut.load.rank, rank)
                ctx.set(dut.load.rank_planes, [sum((c >> k & 1) << i for i, c in enumerate(codes))
                                               for k in range(4)])
                expected[8 * rank:8 * rank + 8] = codes
            await ctx.tick()
            planes = [ctx.get(dut.planes[bit]) for bit in range(4)]
            seen.append(codes_from_planes(planes) == expected)
        ctx.set(dut.load.rank_en, 0)
        ctx.set(dut.load.state_en, 1)
        ctx.set(dut.load.state, {"white_to_move": 1, "castling": 0b1010, "ep_valid": 1, "ep_square": 43})
        await ctx.tick()
        ctx.set(dut.load.state_en, 0)
        ctx.set(dut.load.state, {"white_to_move": 0, "castling": 0, "ep_valid": 0, "ep_square": 0})
        await ctx.tick()
        state = ctx.get(dut.state)
        seen.append((state.white_to_move, state.castling, state.ep_valid, state.ep_square) == (1, 10, 1, 43))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(seen) == 201 and all(seen)
