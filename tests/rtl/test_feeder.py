"""PieceFeeder: the side to move's pieces in ascending order with their head ROM word,
whatever the pattern in which the core consumes them."""

import random

import chess
import pytest
from amaranth import Elaboratable, Module
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from hwmovegen.rtl import PieceFeeder
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables import TableKind, get_layout, table_kind

from ..helpers import ONE_STEP_WALKS


class FeederWithHeads(Elaboratable):
    def __init__(self, layout):
        self.layout = layout
        self.feeder = PieceFeeder(layout.addr_width)

    def elaborate(self, platform):
        m = Module()
        m.submodules.feeder = feeder = self.feeder
        m.submodules.heads = heads = Memory(shape=self.layout.addr_width, depth=self.layout.head_depth,
                                            init=self.layout.head_image)
        port = heads.read_port()
        m.d.comb += [port.addr.eq(feeder.rom_index), port.en.eq(feeder.rom_en), feeder.rom_data.eq(port.data)]
        return m


def planes_of(position):
    return [sum(((code >> bit) & 1) << square for square, code in enumerate(position.squares)) for bit in range(4)]


@pytest.mark.parametrize("consume_probability", [1.0, 0.3])
def test_pieces_in_ascending_order_with_their_heads(consume_probability):
    layout = get_layout("dense")
    top = FeederWithHeads(layout)
    dut = top.feeder
    rng = random.Random(7)
    positions = [Position.from_board(b) for b in random_boards(12, seed=8)]
    positions += [Position.from_fen(fen) for fen in ONE_STEP_WALKS + [chess.STARTING_FEN]]
    got, want, last, kinds = [], [], [], []
    want_kinds, want_last = [], []

    async def bench(ctx):
        for position in positions:
            own = position.own_squares()
            want_kinds.extend((table_kind(position.squares[sq]), (sq % 8 - sq // 8) % 8, (sq % 8 + sq // 8) % 8)
                              for sq in own)
            want_last.extend([False] * (len(own) - 1) + [True])
            want.append([(sq, table_kind(position.squares[sq]) == TableKind.QUEEN,
                          layout.head(table_kind(position.squares[sq]), sq)) for sq in own])
            for bit, plane in enumerate(planes_of(position)[:3]):
                ctx.set(dut.types[bit], plane)
            ctx.set(dut.white_to_move, position.white_to_move)
            ctx.set(dut.pieces, sum(1 << sq for sq in own))
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            ctx.set(dut.run, 1)
            taken = []
            for _ in range(4 * len(own) + 20):
                consume = rng.random() < consume_probability
                first_valid = ctx.get(dut.first_valid)
                ctx.set(dut.consume, consume and first_valid)
                if consume and first_valid:
                    piece = ctx.get(dut.first)
                    last.append(bool(ctx.get(dut.first_last)))
                    taken.append((piece.square, bool(piece.queen), ctx.get(dut.first_word)))
                    kinds.append((piece.kind, piece.diagonal, piece.anti_diagonal))
                await ctx.tick()
            ctx.set(dut.consume, 0)
            ctx.set(dut.run, 0)
            got.append(taken)

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert got == want and kinds == want_kinds and last == want_last
