"""The cocotb side of test_verilator.py: the exported netlist generates each position of a job
under the job's ready pattern, and every move, counter and cycle sample is recorded."""

import json
import os

import cocotb
from cocotb.clock import Clock

from hwmovegen.rtl.types import CycleSample, pack
from hwmovegen.sim.verilator import cocotb_testbench as tb
from hwmovegen.sim.harness.wire import word_from_move


def pattern(bits):
    """``ready(cycle)`` replaying ``bits`` from the start cycle on (None: always ready); past
    the pattern, ready (a design that runs longer shows in its trace anyway)."""
    if bits is None:
        return None
    return lambda cycle: cycle >= len(bits) or bool(bits[cycle])


@cocotb.test()
async def replay(dut):
    with open(os.environ["HWMOVEGEN_JOB"]) as file:
        job = json.load(file)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    await tb.reset(dut)
    results = []
    for item in job["positions"]:
        trace = []
        result = await tb.generate(dut, item["fen"], ready=pattern(item["ready"]), trace=trace)
        results.append({"moves": [word_from_move(move) for move in result.moves], "steps": result.steps,
                        "promotion_nodes": result.promotion_nodes, "cycles": result.cycles,
                        "stalls": result.stalls, "trace": [pack(CycleSample, sample) for sample in trace]})
    with open(job["results"], "w") as file:
        json.dump(results, file)
