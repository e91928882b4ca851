"""Cycle traces: the compiled models' driver and the pysim testbench record the same cycles, and a
trace agrees with the counters of its generation."""

import chess
import pytest

from hwmovegen.sim.harness import trace as cycle_trace
from hwmovegen.sim.backends import PysimBackend, default_backend
from hwmovegen.sim.cxxrtl import CxxrtlBackend, VerilatorBackend
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTION_CAPTURE


@pytest.mark.parametrize("core", ["walker", "fast"])
@pytest.mark.parametrize("legal", [False, True])
def test_the_compiled_model_and_pysim_record_the_same_cycles(core, legal):
    # the simulator the sweeps build each design with (the two trace alike: test_verilator_backend.py)
    config = GeneratorConfig(core=core, legal=legal)
    simulator = {"cxxrtl": CxxrtlBackend, "verilator": VerilatorBackend}[default_backend(config)]
    for fen in (KIWIPETE, PROMOTION_CAPTURE, EN_PASSANT):
        board = chess.Board(fen)
        compiled, samples = simulator(config).trace(board)
        simulated, pysim_samples = PysimBackend(GeneratorConfig(core=core, legal=legal)).trace(board)
        assert samples == pysim_samples and compiled == simulated, fen
        assert samples[0]["start"] and samples[0]["start_ready"] and samples[-1]["done"]
        assert not any(s["done"] for s in samples[:-1]) and all(s["busy"] for s in samples[1:-1])
        assert len(cycle_trace.transfers(samples)) == len(compiled.moves) > 0
        assert len(samples) == compiled.cycles + 1


def test_a_trace_under_backpressure_shows_the_stalls():
    board = chess.Board(KIWIPETE)
    free, _ = CxxrtlBackend().trace(board)
    result, samples = CxxrtlBackend(ready_probability=0.5, seed=3).trace(board)
    assert result.moves == free.moves and result.stalls > 0
    assert len(cycle_trace.stalls(samples)) == result.stalls
    assert len(samples) == result.cycles + 1 > free.cycles + 1
    # every transfer and every stall is a cycle with the move valid; ready low only in a stall
    valid = [i for i, s in enumerate(samples) if s["moves_valid"]]
    assert sorted(cycle_trace.transfers(samples) + cycle_trace.stalls(samples)) == valid


def test_the_check_sees_a_trace_that_disagrees():
    result, samples = CxxrtlBackend().trace(chess.Board(KIWIPETE))
    cycle_trace.check(result, samples)
    lost = [dict(s) for s in samples]
    lost[cycle_trace.transfers(samples)[3]]["moves_ready"] = 0     # a move that left, now a stall
    with pytest.raises(RuntimeError, match="47 moves left, the stream holds 48.*1 stall cycles"):
        cycle_trace.check(result, lost)
    with pytest.raises(RuntimeError, match="cycles from start to done"):
        cycle_trace.check(result, samples[:-2] + samples[-1:])
    with pytest.raises(RuntimeError, match="ends before done"):
        cycle_trace.window(samples[:-1])
