"""The exported Verilog in Verilator, driven by cocotb: the golden model's streams, and the
Amaranth design's cycles (its compiled model) sample for sample, counters included.

One Verilator build per configuration (the fast core with and without the legality stage),
shared by this module's tests in every worker of the run."""

import fcntl
import json
from pathlib import Path
from types import SimpleNamespace

import chess
import pytest

from hwmovegen.boards.export import export
from hwmovegen.rtl.types import CycleSample, unpack
from hwmovegen.sim.verilator import build as verilator
from hwmovegen.sim.drivers.compare import check
from hwmovegen.sim.cxxrtl import VerilatorBackend
from hwmovegen.sim.model.epd import cpw_records
from hwmovegen.sim.model import Generation, Position, echo_fen, generate
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.harness.wire import move_from_word
from hwmovegen.tables.contracts import GeneratorConfig

EXAMPLE = Path(__file__).parents[2] / "examples" / "cocotb"
HERE = Path(__file__).parent


@pytest.fixture(scope="module", params=[False, True], ids=["fast", "fast-legal"])
def netlist(request, model_cache):
    """The exported generator, compiled by Verilator once for the run: in the run's cache, under a
    lock, so that a second worker with the module's tests waits for the first one's build."""
    folder = model_cache / "cocotb" / ("legal" if request.param else "pseudo")
    folder.mkdir(parents=True, exist_ok=True)
    build = folder / "sim_build"
    with open(folder / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            description = export(folder, GeneratorConfig(core="fast", legal=request.param))
            verilator.build(folder / description["netlist"], "movegen", build, log_file=folder / "build.log")
            (folder / "built").touch()
    return SimpleNamespace(folder=folder, build=build, legal=request.param, ports=folder / "movegen.ports.json")


def run_example(netlist, tmp_path, **env):
    log = tmp_path / "example.log"
    tests, failed = verilator.run(netlist.build, "movegen", "test_movegen", EXAMPLE, log_file=log,
                                  env={"HWMOVEGEN_PORTS": str(netlist.ports), **env}, results=tmp_path / "results.xml")
    return tests, failed, log.read_text()


def test_the_example_testbench_passes(netlist, tmp_path):
    tests, failed, log = run_example(netlist, tmp_path, HWMOVEGEN_RANDOM="100", HWMOVEGEN_SEED="7")
    assert (tests, failed) == (3, 0), log
    checked = log.count("equal to the golden model")
    assert checked == (3 if netlist.legal else 2), log
    assert "7 positions, " in log and "100 positions, " in log


def test_the_example_testbench_sees_a_stream_that_differs(netlist, tmp_path):
    """The bench told that the netlist is the other generator (legal for pseudo-legal and the
    other way round) must fail the stream checks."""
    wrong = json.loads(netlist.ports.read_text())
    wrong["legal"] = not wrong["legal"]
    ports = tmp_path / "wrong.ports.json"
    ports.write_text(json.dumps(wrong))
    tests, failed, log = run_example(netlist, tmp_path, HWMOVEGEN_PORTS=str(ports), HWMOVEGEN_RANDOM="20")
    assert failed == 2 and log.count("MISMATCH: ") == 2, log


def replay(netlist, tmp_path, jobs):
    """Run (fen, ready bits or None) jobs on the netlist; their Generations and cycle samples."""
    job, results = tmp_path / "job.json", tmp_path / "results.json"
    job.write_text(json.dumps({"results": str(results),
                               "positions": [{"fen": fen, "ready": ready} for fen, ready in jobs]}))
    log = tmp_path / "replay.log"
    tests, failed = verilator.run(netlist.build, "movegen", "cocotb_replay", HERE, log_file=log,
                                  env={"HWMOVEGEN_JOB": str(job)}, results=tmp_path / "replay.xml")
    assert (tests, failed) == (1, 0), log.read_text()
    out = []
    for item in json.loads(results.read_text()):
        generation = Generation(moves=[move_from_word(word) for word in item["moves"]], steps=item["steps"],
                                promotion_nodes=item["promotion_nodes"], cycles=item["cycles"],
                                stalls=item["stalls"])
        out.append((generation, [unpack(CycleSample, word) for word in item["trace"]]))
    return out


def test_verilog_equals_the_amaranth_design_cycle_for_cycle(netlist, tmp_path):
    """The 7 CPW positions and 300 random ones, each under random backpressure (the ready
    pattern the compiled model drew for it, replayed) and with ready always high: the same
    moves, counters and handshake in every cycle from start to done, and the golden model's
    streams."""
    boards = [record.board for record in cpw_records()] + random_boards(300, seed=2025)
    cases = []
    for probability in (0.5, 1.0):
        compiled = VerilatorBackend(GeneratorConfig(core="fast", legal=netlist.legal), ready_probability=probability,
                                    seed=9, overlap=False)
        for board in boards:
            generation, samples = compiled.trace(board)
            ready = [sample["moves_ready"] for sample in samples] if probability < 1 else None
            cases.append((board, ready, generation, samples))
    results = replay(netlist, tmp_path, [(echo_fen(board), ready) for board, ready, _, _ in cases])
    stalls = 0
    for (board, ready, generation, samples), (verilog, verilog_samples) in zip(cases, results, strict=True):
        assert verilog_samples == samples, echo_fen(board)
        assert verilog == generation, echo_fen(board)       # moves with their flags, every counter
        model = generate(Position.from_board(board), legal=netlist.legal)
        problem = check(board, verilog, model, GeneratorConfig(core="fast", legal=netlist.legal))
        assert problem is None, problem.report()
        stalls += verilog.stalls
    assert stalls > sum(len(generation.moves) for _, ready, generation, _ in cases if ready) // 3
