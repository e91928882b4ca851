"""The leaf counter in pysim: each legality rule's position counted as it stands and after each
of its moves, against the golden model's own count."""

import chess
from amaranth.sim import Simulator

from hwmovegen.rtl.leafcount import LATENCY, LeafCounter
from hwmovegen.sim.model import Position, generate, leaf_count
from hwmovegen.sim.harness.wire import word_from_move

from ..legal_positions import RULES


def count_in_pysim(jobs):
    """Per (Position, model Move or None), the counter's count and legality, one a cycle."""
    dut = LeafCounter()
    out = []

    async def bench(ctx):
        for position, move in jobs + [(None, None)] * (LATENCY + 1):
            ctx.set(dut.valid, position is not None)
            if position is not None:
                for k, plane in enumerate(position.planes()):
                    ctx.set(dut.planes[k], plane)
                ctx.set(dut.state, position.state())
                ctx.set(dut.null, move is None)
                ctx.set(dut.move.as_value(), word_from_move(move) if move else 0)
            await ctx.tick()
            if ctx.get(dut.out_valid):
                out.append((ctx.get(dut.count), ctx.get(dut.legal)))
        assert not ctx.get(dut.busy)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return out


def test_rules_and_their_children():
    jobs = []
    for _, fen, _, _ in RULES:
        position = Position.from_fen(fen)
        jobs.append((position, None))
        jobs += [(position, move) for move in generate(position).moves]
    got = count_in_pysim(jobs)
    assert len(got) == len(jobs)
    for (position, move), (count, legal) in zip(jobs, got):
        if move is None:
            assert (count, legal) == (len(generate(position, legal=True).moves), 1)
        else:
            want = leaf_count(position, move)
            assert count == want, (position, move.uci())
            # the move's own legality, as the model decides it
            assert legal == (move in generate(position, legal=True).moves), (position, move.uci())
    assert any(not legal for _, legal in got) and any(legal and count for count, legal in got)


def test_one_position_a_cycle_in_order():
    """Back to back, the counts leave in the order the moves went in, LATENCY cycles later."""
    position = Position.from_fen(chess.STARTING_FEN)
    moves = generate(position).moves
    got = count_in_pysim([(position, move) for move in moves])
    assert [count for count, _ in got] == [20] * len(moves)
