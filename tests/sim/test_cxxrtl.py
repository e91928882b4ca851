"""The compiled (CXXRTL) backend: identical to pysim and the model; perft through it."""

import pytest

from hwmovegen.sim import testbench as tb
from hwmovegen.sim.backends import get_backend
from hwmovegen.sim.cxxrtl import CxxrtlBackend
from hwmovegen.sim.model import cycle_bound
from hwmovegen.sim.perft import perft
from hwmovegen.sim.positions import random_boards

from ..helpers import assert_matches_model


@pytest.fixture(scope="module")
def walker():
    return CxxrtlBackend("dense", "walker")


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
    import hwmovegen.sim.toolchain as toolchain
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    said = []
    backend = get_backend("cxxrtl", log=said.append)
    assert backend.name == "pysim" and len(said) == 1 and "no C++ compiler" in said[0]
