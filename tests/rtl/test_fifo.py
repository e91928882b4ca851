"""PromotionFifo: every committed entry leaves once, in order, promotions as q r b n,
under random commits and random backpressure, and the stream rules hold."""

import random

import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import PromotionFifo

from ..helpers import StreamMonitor


@pytest.mark.parametrize("ready_probability", [1.0, 0.6, 0.2])
def test_entries_leave_in_order_with_promotions_expanded(ready_probability):
    dut = PromotionFifo(depth=4)
    rng = random.Random(int(ready_probability * 100))
    monitor = StreamMonitor(dut.moves)
    pushed, taken, empty_wrong = [], [], []
    total = 300

    async def producer(ctx):
        while len(pushed) < total:
            entry = {"frm": rng.randrange(64), "to": rng.randrange(64), "capture": rng.randrange(2),
                     "double": rng.randrange(2), "en_passant": rng.randrange(2), "castle": rng.randrange(2),
                     "promotes": int(rng.random() < 0.2)}
            ctx.set(dut.entry, entry)
            writable = not ctx.get(dut.almost_full)
            commit = writable and rng.random() < 0.7
            ctx.set(dut.write, writable)
            ctx.set(dut.commit, commit)
            await ctx.tick()
            if commit:
                pushed.append(entry)
        ctx.set(dut.write, 0)
        ctx.set(dut.commit, 0)

    async def consumer(ctx):
        expected = lambda: sum(4 if e["promotes"] else 1 for e in pushed)
        while len(pushed) < total or len(taken) < expected():
            ready = rng.random() < ready_probability
            ctx.set(dut.moves.ready, ready)
            _, _, valid, payload = await ctx.tick().sample(dut.moves.valid, dut.moves.payload)
            if valid and ready:
                taken.append(payload.as_value().value)
        await ctx.tick().repeat(2)
        if not ctx.get(dut.empty_next) or ctx.get(dut.moves.valid):
            empty_wrong.append("not empty at the end")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.add_testbench(monitor.process, background=True)
    sim.run()

    from hwmovegen.rtl.types import Move, pack
    expected = []
    for e in pushed:
        for promotion in ((5, 4, 3, 2) if e["promotes"] else (0,)):
            expected.append(pack(Move, {"frm": e["frm"], "to": e["to"], "promotion": promotion,
                                        "capture": e["capture"], "double": e["double"],
                                        "en_passant": e["en_passant"], "castle": e["castle"], "check": 0}))
    assert taken == expected
    assert not monitor.violations and not empty_wrong
    assert any(e["promotes"] for e in pushed)
