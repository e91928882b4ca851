"""The compiled (CXXRTL) backend: identical to pysim and the model; perft through it."""

import pytest

from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.backends import get_backend
from hwmovegen.sim.cxxrtl import CxxrtlBackend
from hwmovegen.sim.model import cycle_bound
from hwmovegen.sim.model.perft import perft
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import assert_matches_model


@pytest.fixture(scope="module")
def walker():
    return CxxrtlBackend(GeneratorConfig("dense", "walker"))


def test_cxxrtl_equals_model_on_the_suites(walker, suite):
    boards = [r.board for r in suite]
    for board, hardware in zip(boards, walker.run(boards)):
        model = assert_matches_model(board, hardware)
        assert hardware.stalls == 0
        if not model.promotion_nodes:     # the bound is exact without promotions
            assert hardware.cycles == cycle_bound(model)


def test_cxxrtl_equals_pysim_cycle_for_cycle(walker, suite):
    boards = [r.board for r in suite[:7]] + random_boards(20, seed=11)
    for compiled, simulated in zip(walker.run(boards), tb.simulate(boards)):
        assert compiled == simulated     # moves, steps, promotions, cycles, stalls


def test_perft_depth_3_through_cxxrtl_on_all_suite_positions(walker, suite):
    for record in suite:
        nodes, _ = perft(record.board, 3, walker.generate)
        assert nodes == record.depths[3], record.fen


def test_no_compiler_falls_back_to_pysim(monkeypatch):
    import hwmovegen.sim.harness.toolchain as toolchain
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    said = []
    backend = get_backend("cxxrtl", log=said.append)
    assert backend.name == "pysim" and len(said) == 1 and "no C++ compiler" in said[0]


@pytest.fixture(scope="module")
def fast():
    return CxxrtlBackend(GeneratorConfig("dense", "fast"))


def test_fast_core_equals_model_on_the_suites_with_its_exact_latency(suite):
    alone = CxxrtlBackend(GeneratorConfig("dense", "fast"), overlap=False)
    boards = [r.board for r in suite]
    for board, hardware in zip(boards, alone.run(boards)):
        model = assert_matches_model(board, hardware, core="fast")
        assert hardware.stalls == 0 and hardware.cycles == cycle_bound(model, "fast"), board.fen()


def test_fast_core_back_to_back_on_10000_random_positions(fast):
    moves = span = 0
    for chunk in range(0, 10_000, 500):
        boards = random_boards(500, seed=2027 + chunk)
        results = fast.run(boards)
        for board, hardware in zip(boards, results):
            assert_matches_model(board, hardware, core="fast")
        # the positions' counters tile the batch: every cycle from the first start to the
        # last done is counted once, in one position
        assert sum(r.cycles for r in results) == fast.last_span
        moves += sum(len(r.moves) for r in results)
        span += fast.last_span
    assert moves / span >= 0.95


def test_fast_core_under_backpressure(suite):
    stalled = CxxrtlBackend(GeneratorConfig("dense", "fast"), ready_probability=0.5, seed=3)
    boards = [r.board for r in suite[:7]] + random_boards(1000, seed=17)
    results = stalled.run(boards)
    for board, hardware in zip(boards, results):
        assert_matches_model(board, hardware, core="fast")
    assert sum(r.stalls for r in results) > sum(len(r.moves) for r in results) // 2
    assert sum(r.cycles for r in results) == stalled.last_span


def test_fast_core_cxxrtl_equals_pysim_cycle_for_cycle(suite):
    alone = CxxrtlBackend(GeneratorConfig("dense", "fast"), overlap=False)
    boards = [r.board for r in suite[:7]] + random_boards(20, seed=12)
    assert alone.run(boards) == tb.simulate(boards, GeneratorConfig(core="fast"))


def test_perft_depth_3_through_the_fast_core(fast, suite):
    for record in suite[:7]:
        nodes, _ = perft(record.board, 3, fast.generate)
        assert nodes == record.depths[3], record.fen


def test_the_compile_estimate_is_measured_here(tmp_path, monkeypatch):
    """The compile notice quotes the design's last compile time in this cache, else the others'."""
    from hwmovegen.sim.cxxrtl import build as cxxrtl
    monkeypatch.setenv("HWMOVEGEN_CACHE", str(tmp_path))
    assert cxxrtl._estimate("walker-dense") == "not timed here before: minutes for the larger designs"
    cxxrtl._keep_time("fast-dense", 211.4)
    assert cxxrtl._estimate("walker-dense") == "not compiled here before; another model took 211 s"
    cxxrtl._keep_time("walker-dense", 12.2)
    assert cxxrtl._estimate("walker-dense") == "its last compile here took 12 s"
    assert cxxrtl._estimate("perft3x8-fast-dense") == "not compiled here before; the other models took 12 to 211 s"
