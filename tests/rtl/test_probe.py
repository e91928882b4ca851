"""RayProbe and MoverMask against the geometry, on real positions."""

import chess
from amaranth.sim import Simulator

from hwmovegen.rtl.movers import MoverMask
from hwmovegen.rtl.probe import RayProbe
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.slots import DIRECTIONS

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTIONS


def masks(position):
    occupied = sum(1 << s for s, code in enumerate(position.squares) if code)
    black = sum(1 << s for s, code in enumerate(position.squares) if code & 8)
    own = occupied & ~black if position.white_to_move else black
    return occupied, own


def expected_probe(position, square):
    occupied, own = masks(position)
    reach, stop_opponent = [], 0
    file, rank = square & 7, square >> 3
    for direction, (df, dr) in enumerate(DIRECTIONS[:8]):
        steps = 0
        f, r = file + df, rank + dr
        while 0 <= f < 8 and 0 <= r < 8 and not occupied >> (8 * r + f) & 1:
            steps += 1
            f, r = f + df, r + dr
        reach.append(steps)
        if 0 <= f < 8 and 0 <= r < 8 and not own >> (8 * r + f) & 1:
            stop_opponent |= 1 << direction
    jump_free = jump_opponent = 0
    for j, (df, dr) in enumerate(DIRECTIONS[8:]):
        f, r = file + df, rank + dr
        if 0 <= f < 8 and 0 <= r < 8:
            target = 8 * r + f
            jump_free |= (not own >> target & 1) << j
            jump_opponent |= (occupied >> target & 1 and not own >> target & 1) << j
    return reach, stop_opponent, jump_free, jump_opponent, position.squares[square] & 7


def positions():
    return [Position.from_board(b) for b in random_boards(30, seed=21)] + [
        Position.from_fen(fen) for fen in (chess.STARTING_FEN, KIWIPETE, PROMOTIONS, EN_PASSANT)]


def test_probe_reach_and_stops_every_square():
    dut = RayProbe(tag_shape=6)
    got, want = [], []

    async def bench(ctx):
        for position in positions():
            occupied, own = masks(position)
            ctx.set(dut.occupied, occupied)
            ctx.set(dut.own, own)
            ctx.set(dut.types, position.planes()[:3])
            for square in list(range(64)) + [0, 0, 0]:  # three more cycles to drain the pipeline
                ctx.set(dut.valid, 1)
                ctx.set(dut.square, square)
                diagonal, anti_diagonal = RayProbe.diagonals(square)
                ctx.set(dut.diagonal, diagonal)
                ctx.set(dut.anti_diagonal, anti_diagonal)
                ctx.set(dut.tag, square)
                await ctx.tick()
                if ctx.get(dut.out_valid):
                    out = ctx.get(dut.result)
                    s = ctx.get(dut.out_square)
                    assert ctx.get(dut.out_tag) == s
                    got.append(([out.reach[d] for d in range(8)], out.stop_opponent, out.jump_free,
                                out.jump_opponent, out.piece_type))
                    want.append(expected_probe(position, s))
            ctx.set(dut.valid, 0)
            await ctx.tick().repeat(3)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(got) >= 64 * len(positions()) and got == want


def test_movers_are_the_pieces_that_emit():
    dut = MoverMask()
    results = []

    async def bench(ctx):
        for position in positions():
            occupied, own = masks(position)
            ctx.set(dut.types, position.planes()[:3])
            ctx.set(dut.white_to_move, position.white_to_move)
            ep = 0 if position.ep_square is None else 1 << position.ep_square
            ctx.set(dut.capturable, (occupied & ~own) | ep)
            ctx.set(dut.occupied, occupied)
            ctx.set(dut.own, own)
            await ctx.tick()
            movers = ctx.get(dut.movers)
            emitting = {move.frm for move in generate(position).moves}
            results.append((movers, sum(1 << s for s in emitting)))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert all(got == want for got, want in results)
