"""NodeDecoder: the hardware's Layout.decode, for every address of both layouts."""

import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl import NodeDecoder
from hwmovegen.tables import LAYOUTS, get_layout


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_decoder_equals_layout_decode_at_every_address(name):
    layout = get_layout(name)
    dut = NodeDecoder(layout)
    mismatches = []

    async def bench(ctx):
        for is_queen in (False, True):
            ctx.set(dut.is_queen, is_queen)
            for addr, word in enumerate(layout.node_image):
                ctx.set(dut.addr, addr)
                ctx.set(dut.word, word)
                got = (ctx.get(dut.to), ctx.get(dut.kind), ctx.get(dut.pos_addr), ctx.get(dut.pos_end),
                       ctx.get(dut.dir_addr), ctx.get(dut.dir_end))
                want = layout.decode(addr, word, is_queen)
                if got != tuple(int(x) for x in want):
                    mismatches.append((addr, is_queen, got, want))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert not mismatches, mismatches[:3]
