"""Benchmarks: moves per cycle per position, simulated cycles per second, perft wall time."""

import time

import chess

from ...tables.contracts import GeneratorConfig
from ...tables.search import DEFAULT_QUIESCENCE
from ..backends import ModelBackend
from ..model import Position
from ..model.perft import perft
from ..model.search import SearchRequest
from ..model.positions import random_boards
from ..peers.gigantua import GigantuaError, gigantua_perft
from ..peers.stockfish import StockfishError, stockfish_perft
from .hwperft import projected_nodes_per_second

__all__ = ["python_chess_perft", "position_rows", "perft_rows", "stream_rate", "stage_overhead",
           "hardware_perft_rows", "search_rows", "RATE_POSITIONS", "PERFT_BENCH", "SEARCH_BENCH", "SEARCH_BENCH_DEPTH",
           "SEARCH_PEERS", "SIM_BENCH", "SIM_BENCH_SECONDS", "SIM_BENCH_PERFT_DEPTH", "SIM_BENCH_SEARCH_DEPTH",
           "simulator_rows"]

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
    cycles = backend.last_span or sum(r.cycles for r in results)
    return sum(len(r.moves) for r in results) / cycles


def stream_rate(backend, boards=None):
    """The moves per cycle ``backend``'s core sustains over a batch (by default
    ``RATE_POSITIONS`` random positions, seed 1) with ``ready`` high."""
    boards = random_boards(RATE_POSITIONS, seed=1) if boards is None else boards
    return _rate(backend, backend.run(boards))


def stage_overhead(staged_backend, plain_backend, boards=None):
    """The cycles a stage (the legality stage, the ordering stage) adds per position (mean, max)
    with ``ready`` high: each position's cycles with the stage minus its cycles without, one
    position at a time, over the standard batch."""
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


def perft_rows(hardware, depth, fen=chess.STARTING_FEN):
    """perft(depth) through the simulated hardware, the golden model and python-chess (with the
    hardware's ``legal``: the hardware's and the model's own legality, not python-chess's)."""
    board = chess.Board(fen)
    legal = hardware.legal
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


# ``bench search``: the CPW perft positions and three middlegames, each searched to a fixed depth
SEARCH_BENCH = (
    ("start position", chess.STARTING_FEN),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("CPW position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("CPW position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    ("CPW position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    ("CPW position 6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
    ("Italian game", "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7"),
    ("Queen's gambit declined", "r1bqkb1r/pp1n1ppp/2p1pn2/3p2B1/2PP4/2N1P3/PP3PPP/R2QKBNR w KQkq - 0 6"),
    ("Sicilian Najdorf", "rn1qkb1r/1p2pppp/p2p1n2/8/3NP1b1/2N5/PPP2PPP/R1BQKB1R w KQkq - 1 7"),
)
SEARCH_BENCH_DEPTH = 3

# The machines a search engine is measured against (their published figures, positions a second).
# The Deep Blue chip: F.-h. Hsu, "IBM's Deep Blue chess grandmaster chips", IEEE Micro 19(2), 1999:
# about 10 cycles a position, 2 to 2.5 M positions/s per chip at 24 MHz. Belle: J. H. Condon and
# K. Thompson, "Belle chess hardware", Advances in Computer Chess 3, 1982: about 160 K positions/s.
SEARCH_PEERS = (
    ("Deep Blue chip (1997, 24 MHz)", 10, 2_250_000),
    ("Belle (1983)", None, 160_000),
)

# where a search's cycles go: the engine's own counters (rtl/search.py SearchCounters)
CYCLE_PARTS = ("first_move_cycles", "generate_cycles", "apply_cycles", "pv_cycles", "draw_cycles")


def search_rows(engine, depth, fmax=None, quiescence=None, progress=None):
    """Per SEARCH_BENCH position: the hardware search's answer and counters at ``depth`` (with
    quiescence ``quiescence``, the default Q if None), its cycles per node, where its cycles go,
    and at ``fmax`` MHz its projected nodes/s and time to depth."""
    rows = []
    for name, fen in SEARCH_BENCH:
        board = chess.Board(fen)
        request = SearchRequest(Position.from_board(board), depth, halfmove=board.halfmove_clock,
                                quiescence=DEFAULT_QUIESCENCE if quiescence is None else quiescence)
        start = time.perf_counter()
        result = engine.run(request)
        seconds = time.perf_counter() - start
        hardware = getattr(result, "hardware", {})
        row = {"name": name, "fen": fen, "depth": depth, "quiescence": request.quiescence, **result.as_dict(),
               "cycles_per_node": round(result.cycles / result.nodes, 2),
               "cycles_in": {part[:-len("_cycles")]: hardware[part] for part in CYCLE_PARTS if part in hardware},
               "simulation_seconds": round(seconds, 2)}
        if fmax:
            row["fmax_mhz"] = fmax
            row["projected_nodes_per_s"] = round(result.nodes * fmax * 1e6 / result.cycles)
            row["time_to_depth_ms"] = round(result.cycles / fmax / 1e3, 3)
        rows.append(row)
        if progress:
            progress()
    return rows


# ``bench sim``: each design's compiled models, their compile time and simulated cycles a second
SIM_BENCH = (
    ("walker", "generator", GeneratorConfig(core="walker")),
    ("fast", "generator", GeneratorConfig(core="fast")),
    ("fast+legal", "generator", GeneratorConfig(core="fast", legal=True)),
    ("fast+legal+mvv-lva", "generator", GeneratorConfig(core="fast", legal=True, order="mvv-lva")),
    ("perft engine", "perft", GeneratorConfig(core="fast", perft_engines=1)),
    ("3-engine perft array", "perft", GeneratorConfig(core="fast", perft_engines=3)),
    ("search engine", "search", GeneratorConfig(core="fast")),
)
SIM_BENCH_SECONDS = 1.0     # at least this much simulation a generator's measure (its batch repeats until then)
SIM_BENCH_PERFT_DEPTH = 4   # perft(4) of the start position: 197,281 nodes
SIM_BENCH_SEARCH_DEPTH = 2


def _simulate(kind, config, simulator, log=None):
    """(cycles, processor seconds) of a few seconds of ``kind``'s work on the design ``config``
    names, simulated by ``simulator``: generator batches of random positions (every cycle
    simulated, loading included, over the time spent in C++), perft(4) of the start position (start
    to done), the search positions to depth 2 (start to done each). The time is this process's
    processor time, which other load on the machine leaves alone (on an idle machine, the wall time)."""
    from ..backends import get_search_backend, offer
    from .hwperft import HardwarePerft
    if kind == "generator":
        backend = offer(simulator).generator(config, log=log)
        boards = random_boards(200, seed=1)
        backend.run(boards[:1])
        cycles, seconds = backend.clock_cycles, backend.core_cpu_seconds
        while backend.core_cpu_seconds - seconds < SIM_BENCH_SECONDS:
            backend.run(boards)
        return backend.clock_cycles - cycles, backend.core_cpu_seconds - seconds
    if kind == "perft":
        array = HardwarePerft(simulator, config, log=log)
        array.prepare()
        start = time.process_time()
        run = array.perft(chess.Board(), SIM_BENCH_PERFT_DEPTH)
        return run.cycles, time.process_time() - start
    engine = get_search_backend(simulator, core=config.core, log=log)
    engine.prepare()
    cycles = seconds = 0
    for _, fen in SEARCH_BENCH:
        board = chess.Board(fen)
        request = SearchRequest(Position.from_board(board), SIM_BENCH_SEARCH_DEPTH, halfmove=board.halfmove_clock)
        start = time.process_time()
        cycles += engine.run(request).cycles
        seconds += time.process_time() - start
    return cycles, seconds


def simulator_rows(simulators, designs=SIM_BENCH, log=None, progress=None):
    """Per design of ``designs`` and simulator of ``simulators``: the seconds its model's last
    compile took on this machine (compiled now if not cached) and the cycles it simulates a second."""
    from ..cxxrtl.build import build_model, build_perft_model, build_search_model, compile_seconds
    builders = {"generator": build_model, "perft": build_perft_model, "search": build_search_model}
    rows = []
    for name, kind, config in designs:
        row = {"design": name}
        for simulator in simulators:
            library = builders[kind](config, log=log, simulator=simulator)
            cycles, seconds = _simulate(kind, config, simulator, log)
            row[simulator] = {"compile_seconds": compile_seconds(library), "cycles": cycles,
                              "seconds": round(seconds, 3), "cycles_per_second": round(cycles / seconds)}
            if progress:
                progress()
        rows.append(row)
    return rows
