"""Benchmarks: moves per cycle per position, simulated cycles per second, perft wall time."""

import time

import chess

from ...tables.contracts import GeneratorConfig
from ..backends import ModelBackend
from ..model.perft import perft

__all__ = ["python_chess_perft", "position_rows", "perft_rows", "stream_rate", "stage_overhead",
           "hardware_perft_rows", "simulator_rows", "RATE_POSITIONS", "PERFT_BENCH", "SIMULATED_DESIGNS"]

RATE_POSITIONS = 1000       # random positions (seed 1) behind the moves/cycle a core is credited with


def python_chess_perft(board, depth):
    """python-chess's own legal move generator, bulk-counted at the last ply."""
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def _rate(backend, results):
    """Moves per cycle of a batch just run: over its span when the backend ran it back to
    back, else over the positions' own cycles (loading between them not counted)."""
    cycles = getattr(backend, "last_span", 0) or sum(r.cycles for r in results)
    return sum(len(r.moves) for r in results) / cycles


def stream_rate(backend, boards=None):
    """The moves per cycle ``backend``'s core sustains over a batch (by default
    ``RATE_POSITIONS`` random positions, seed 1) with ``ready`` high."""
    from ..model.positions import random_boards
    boards = random_boards(RATE_POSITIONS, seed=1) if boards is None else boards
    return _rate(backend, backend.run(boards))


def stage_overhead(staged_backend, plain_backend, boards=None):
    """The cycles a stage (the legality stage, the ordering stage) adds per position (mean, max)
    with ``ready`` high: each position's cycles with the stage minus its cycles without, one
    position at a time, over the standard batch."""
    from ..model.positions import random_boards
    boards = random_boards(RATE_POSITIONS, seed=1) if boards is None else boards
    extra = [staged.cycles - plain.cycles
             for staged, plain in zip(staged_backend.run(boards), plain_backend.run(boards))]
    return sum(extra) / len(extra), max(extra)


def position_rows(backend, records, repeat):
    """Per CPW position: moves, steps, cycles and moves/cycle of one generation; the
    moves/cycle over ``repeat`` generations of it in a batch (back to back for a core that
    overlaps them); simulated cycles/s over that batch (loading included): inside the C++
    driver, and end to end through Python (encoding, decoding the stream)."""
    rows = []
    for record in records:
        one = backend.run([record.board])[0]
        boards = [record.board] * repeat
        before, core_before = backend.clock_cycles, backend.core_seconds
        start = time.perf_counter()
        batch = backend.run(boards)
        seconds = time.perf_counter() - start
        simulated = backend.clock_cycles - before
        rows.append({
            "name": record.name, "fen": record.fen, "moves": len(one.moves), "steps": one.steps,
            "cycles": one.cycles, "moves_per_cycle": round(len(one.moves) / one.cycles, 3),
            "batch_moves_per_cycle": round(_rate(backend, batch), 3),
            "steps_per_cycle": round(one.steps / one.cycles, 3),
            "sim_cycles_per_second": round(simulated / (backend.core_seconds - core_before)),
            "end_to_end_cycles_per_second": round(simulated / seconds),
        })
    return rows


def perft_rows(hardware, depth, fen=chess.STARTING_FEN, legal=False):
    """perft(depth) through the simulated hardware, the golden model and python-chess
    (``legal``: the hardware's and the model's own legality, not python-chess's)."""
    board = chess.Board(fen)
    model = ModelBackend(GeneratorConfig(hardware.layout, legal=legal))
    rows = []
    for name, count in (
        (f"{hardware.name} (simulated hardware)", lambda: perft(board, depth, hardware.generate, legal)),
        ("model (golden model in Python)", lambda: perft(board, depth, model.generate, legal)),
        ("python-chess legal move generator", lambda: _timed(python_chess_perft, board.copy(), depth)),
    ):
        nodes, seconds = count()
        rows.append({"generator": name, "nodes": nodes, "seconds": round(seconds, 2),
                     "nodes_per_second": round(nodes / seconds)})
    return rows


def _timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


# ``bench perft``: the positions and depths the hardware perft is measured on
PERFT_BENCH = (
    ("start position", chess.STARTING_FEN, 5, 4_865_609),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603),
    ("CPW position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
)
PYTHON_CHESS_DEPTH_DROP = 2     # python-chess is timed two plies shallower (seconds, not minutes)
PEER_RUNS = 3                   # the CPU perfts' best of three (a depth-5 perft takes milliseconds)


def _peer_row(name, path, fen, depth, largest):
    """One CPU perft program's measurement of a bench tree (``name``: "stockfish" or
    "gigantua"), with the largest array's projection's ratio to it."""
    from ..peers.gigantua import GigantuaError, gigantua_perft
    from ..peers.stockfish import StockfishError, stockfish_perft
    try:
        if name == "stockfish":
            runs = [stockfish_perft(fen, depth, path) for _ in range(PEER_RUNS)]
            nodes, seconds, version, clock = min(runs, key=lambda r: r[1])
        else:
            nodes, seconds, clock = gigantua_perft(fen, depth, path, runs=PEER_RUNS)
            version = "Gigantua"
    except (StockfishError, GigantuaError) as error:
        return {"error": str(error)}
    rate = nodes / seconds
    return {"version": version, "nodes": nodes, "seconds": round(seconds, 6), "clock": clock,
            "nodes_per_s": round(rate), "ratio": largest and round(largest / rate, 3)}


def hardware_perft_rows(arrays, fmax, peers=None, progress=None):
    """Per PERFT_BENCH position: each array's nodes and cycles (cycle-accurate simulation)
    and projected nodes/s (nodes x ``fmax[engines]`` MHz / cycles), python-chess's nodes/s,
    and each CPU perft program's in ``peers`` ({"stockfish": path, "gigantua": path}, a path
    None where it is absent) with the largest array's ratio to it."""
    from .hwperft import projected_nodes_per_second
    rows = []
    for name, fen, depth, published in PERFT_BENCH:
        board = chess.Board(fen)
        row = {"name": name, "fen": fen, "depth": depth, "published": published, "arrays": []}
        for array in arrays:
            run = array.perft(board, depth)
            projected = projected_nodes_per_second(run.nodes, run.cycles, fmax.get(array.engines))
            row["arrays"].append({"engines": array.engines, "nodes": run.nodes, "cycles": run.cycles,
                                  "nodes_per_cycle": round(run.nodes / run.cycles, 3),
                                  "balance": round(run.balance, 4), "fmax_mhz": fmax.get(array.engines),
                                  "projected_nodes_per_s": projected and round(projected),
                                  "simulation_seconds": round(run.seconds, 2)})
            if progress:
                progress()
        shallow = depth - PYTHON_CHESS_DEPTH_DROP
        nodes, seconds = _timed(python_chess_perft, board.copy(), shallow)
        row["python_chess"] = {"depth": shallow, "nodes": nodes, "nodes_per_s": round(nodes / seconds)}
        largest = row["arrays"][-1]["projected_nodes_per_s"]
        for peer, path in (peers or {}).items():
            if path:
                row[peer] = _peer_row(peer, path, fen, depth, largest)
        rows.append(row)
    return rows


# -- the simulators: the same designs compiled by each, their compile time and simulated speed

SIMULATED_DESIGNS = (
    ("fast core", GeneratorConfig(core="fast")),
    ("fast + legality + ordering", GeneratorConfig(core="fast", legal=True, order="mvv-lva")),
    ("one perft engine", GeneratorConfig(core="fast", perft_engines=1)),
    ("three-engine array", GeneratorConfig(core="fast", perft_engines=3)),
)
SIMULATED_POSITIONS = 3000      # random positions (seed 1) a generator runs back to back
SIMULATED_PERFT_DEPTH = 5       # a perft array walks the start position this deep


def simulator_rows(simulators, designs=SIMULATED_DESIGNS, log=None, progress=None):
    """Per design and compiled simulator (``cxxrtl``, ``verilator``): the seconds its model took
    to build (None: built before they were kept), and the simulated cycles per second of a
    generator over ``SIMULATED_POSITIONS`` random positions (every cycle, loading included) or of
    a perft array walking the start position ``SIMULATED_PERFT_DEPTH`` plies (its cycles from
    start to done), with what they computed (moves or nodes, cycles) to compare across
    simulators. Builds what is not cached."""
    from ..backends import get_backend
    from ..harness.compiled import compile_seconds
    from ..model.positions import random_boards
    from .hwperft import HardwarePerft
    boards = random_boards(SIMULATED_POSITIONS, seed=1)
    rows = []
    for design, config in designs:
        for name in simulators:
            if config.perft_engines:
                array = HardwarePerft(name, config, log=log)
                array.prepare()
                simulator, build = array._sim.array.simulator, array._sim.array.simulator.build_perft
                run = array.perft(chess.Board(), SIMULATED_PERFT_DEPTH)
                cycles, seconds, work = run.cycles, run.seconds, run.nodes
            else:
                backend = get_backend(name, config, log=log)
                backend.prepare()
                simulator, build = backend.simulator, backend.simulator.build_generator
                before, spent = backend.clock_cycles, backend.core_seconds
                results = backend.run(boards)
                cycles, seconds = backend.clock_cycles - before, backend.core_seconds - spent
                work = sum(len(r.moves) for r in results)
            rows.append({"design": design, "simulator": simulator.name,
                         "compile_seconds": compile_seconds(build(config, log=log)),
                         "cycles": cycles, "seconds": seconds, "cycles_per_second": cycles / seconds,
                         "moves" if not config.perft_engines else "nodes": work})
            if progress:
                progress(1)
    return rows
