"""Make and unmake through the board's edit port: every move of a few positions made and
unmade, checked against python-chess's push square for square and state for state."""

import random

import chess
import pytest
from amaranth import Module
from amaranth.sim import Simulator

from hwmovegen.rtl.apply import MoveApplier, make_cycles
from hwmovegen.rtl.board import BoardRAM
from hwmovegen.rtl.types import BoardState, position_image, unpack
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.harness.wire import position_bytes, word_from_move

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTIONS

CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


def _bench(depth=8, prefetch=False):
    m = Module()
    m.submodules.board = board = BoardRAM()
    m.submodules.applier = applier = MoveApplier(depth, prefetch=prefetch)
    m.d.comb += [applier.planes.eq(board.planes), applier.state.eq(board.state),
                 board.edit.square_en.eq(applier.edit.square_en), board.edit.square.eq(applier.edit.square),
                 board.edit.code.eq(applier.edit.code), board.edit.state_en.eq(applier.edit.state_en),
                 board.edit.state.eq(applier.edit.state)]
    return m, board, applier


def _image(ctx, board):
    planes = [ctx.get(board.planes[bit]) for bit in range(4)]
    state = unpack(BoardState, ctx.get(board.state.as_value()))
    return position_image(planes, state)


def _ask(ctx, applier, move):
    """Put a make of ``move`` (None: an unmake) on the command stream."""
    ctx.set(applier.commands.payload.unmake, move is None)
    ctx.set(applier.commands.payload.move.as_value(), word_from_move(move) if move else 0)


async def _command(ctx, applier, move=None):
    """Make ``move`` (a model Move) or, with None, unmake; return the cycles until idle."""
    ctx.set(applier.commands.valid, 1)
    _ask(ctx, applier, move)
    while not ctx.get(applier.commands.ready):
        await ctx.tick()
    await ctx.tick()
    ctx.set(applier.commands.valid, 0)
    cycles = 1
    while ctx.get(applier.busy):
        await ctx.tick()
        cycles += 1
    return cycles


def run(fens, walk=None, prefetch=False):
    """Make and unmake every legal move of each position (and, with ``walk``, a random
    path of that many plies made then unmade, each command taken the cycle the one before
    ends), checking each board against python-chess."""
    m, board, applier = _bench(prefetch=prefetch)
    checked = []

    async def bench(ctx):
        for fen in fens:
            root = chess.Board(fen)
            await tb.load(ctx, board, root)
            assert _image(ctx, board) == position_bytes(root)
            for move in generate(Position.from_board(root), legal=True).moves:
                after = root.copy()
                after.push(chess.Move.from_uci(move.uci()))
                assert await _command(ctx, applier, move) == make_cycles(move)
                assert _image(ctx, board) == position_bytes(after), (fen, move.uci())
                assert ctx.get(applier.level) == 1
                assert await _command(ctx, applier) == make_cycles(move) + (not prefetch)
                assert _image(ctx, board) == position_bytes(root), (fen, move.uci())
                checked.append(move)
            if walk:
                rng, path, boards = random.Random(fen), [], [root.copy()]
                for _ in range(walk):
                    moves = generate(Position.from_board(boards[-1]), legal=True).moves
                    if not moves:
                        break
                    move = rng.choice(moves)
                    await _command(ctx, applier, move)
                    boards.append(boards[-1].copy())
                    boards[-1].push(chess.Move.from_uci(move.uci()))
                    assert _image(ctx, board) == position_bytes(boards[-1])
                    path.append(move)
                for _ in path:
                    await _command(ctx, applier)
                    boards.pop()
                    assert _image(ctx, board) == position_bytes(boards[-1])
                assert ctx.get(applier.level) == 0

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return checked


@pytest.mark.parametrize("prefetch", [False, True])
def test_every_kind_of_move_made_and_unmade(prefetch):
    moves = run([KIWIPETE, PROMOTIONS, EN_PASSANT, CASTLING, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                 "n1n1k3/PPP5/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/6pp/4K1N1 b - - 0 1",
                 "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1"], prefetch=prefetch)
    assert any(m.castle for m in moves) and any(m.en_passant for m in moves)
    assert any(m.promotion and m.capture for m in moves) and any(m.double for m in moves)


@pytest.mark.parametrize("prefetch", [False, True])
@pytest.mark.parametrize("fen", [chess.STARTING_FEN, KIWIPETE])
def test_a_deep_path_made_then_unmade(fen, prefetch):
    run([fen], walk=8, prefetch=prefetch)


def _model_move(board, uci):
    return next(m for m in generate(Position.from_board(board)).moves if m.uci() == uci)


def test_the_stack_refuses_beyond_its_depth():
    m, board, applier = _bench(depth=2)
    path, boards = ["e2e4", "e7e5"], [chess.Board()]
    for uci in path:
        boards.append(boards[-1].copy())
        boards[-1].push_uci(uci)

    async def bench(ctx):
        await tb.load(ctx, board, boards[0])
        _ask(ctx, applier, None)
        ctx.set(applier.commands.valid, 1)
        assert not ctx.get(applier.commands.ready)          # nothing to unmake
        for position, uci in zip(boards, path):
            await _command(ctx, applier, _model_move(position, uci))
        _ask(ctx, applier, _model_move(boards[2], "g1f3"))
        ctx.set(applier.commands.valid, 1)
        assert not ctx.get(applier.commands.ready)          # the stack is full
        ctx.set(applier.commands.valid, 0)
        assert _image(ctx, board) == position_bytes(boards[2])

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
