"""The ``hwmovegen`` command line."""

import argparse
import json
import sys

import chess

from .model import PositionError, parse_fen

__all__ = ["main"]


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def _positions(args):
    """(fen, board) pairs from --fen / --epd (default: the start position)."""
    from .epd import read_epd
    if args.fen is not None and args.epd is not None:
        raise CliError("give --fen or --epd, not both")
    if args.epd is not None:
        return [(r.fen, r.board) for r in read_epd(args.epd)]
    fen = args.fen if args.fen is not None else chess.STARTING_FEN
    return [(fen, parse_fen(fen))]


def _log(args):
    """One-line notices on stderr (building the compiled model, falling back), none in --json mode."""
    if args.json:
        return None
    return lambda text: print(f"hwmovegen: {text}", file=sys.stderr, flush=True)


def _print_rows(rows, width):
    """A two-column text report."""
    for name, value in rows:
        print(f"{name:<{width}}{value}")


def _backend(args, **options):
    from .backends import get_backend
    from .cxxrtl import BackendUnavailable
    try:
        backend = get_backend(args.backend, layout=args.layout, log=_log(args), **options)
        if backend.name == "cxxrtl":
            backend.prepare()   # build now, so a failure is one clean line
        return backend
    except KeyError as error:
        raise CliError(error.args[0]) from None
    except BackendUnavailable as error:
        raise CliError(str(error)) from None


def _progress(iterable, args, total=None, unit="pos"):
    """tqdm on a terminal, silent in --json mode or when stderr is not a terminal."""
    if args.json or not sys.stderr.isatty():
        return iterable
    from tqdm import tqdm
    return tqdm(iterable, total=total, unit=unit, leave=False)


def cmd_tables(args):
    from ..tables import LAYOUTS, get_layout
    names = [args.layout] if args.layout else list(LAYOUTS)
    reports = [get_layout(name).report() for name in names]
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0]))
        return 0
    header = ("layout", "nodes", "word", "node ROM", "head ROM", "total", "iCE40 EBR", "ECP5 DP16KD")
    rows = [(r["layout"], r["nodes"], f'{r["word_bits"]} bit',
             f'{r["node_rom_depth"]} x {r["word_bits"]}', f'{r["head_rom_depth"]} x {r["head_word_bits"]}',
             f'{r["total_kbit"]} Kbit', f'{r["ice40_ebr"]} / 30', f'{r["ecp5_dp16kd"]} / 208') for r in reports]
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


def cmd_moves(args):
    positions = _positions(args)
    backend = _backend(args)
    if args.vcd:
        if args.backend != "pysim":
            raise CliError("--vcd needs --backend pysim")
        if len(positions) != 1:
            raise CliError("--vcd writes the waveform of one position: give --fen")
        backend.vcd_path = args.vcd
    results = []
    chunk = 256
    bar = _progress(range(0, len(positions), chunk), args, total=-(-len(positions) // chunk), unit="chunk")
    for first in bar:
        results.extend(backend.run([board for _, board in positions[first:first + chunk]]))
    for index, ((fen, _), result) in enumerate(zip(positions, results)):
        if args.json:
            print(json.dumps({"fen": fen, "moves": result.uci(), **result.counters()}), flush=True)
            continue
        if len(positions) > 1:
            print(("\n" if index else "") + f"# {fen}")
        for move in result.uci():
            print(move)
    return 0


def cmd_perft(args):
    from .perft import divide, perft
    if args.depth < 1:
        raise CliError(f"--depth must be at least 1, not {args.depth}")
    board = parse_fen(args.fen)
    backend = _backend(args)
    if args.divide:
        import time
        start = time.perf_counter()
        counts = divide(board, args.depth, backend.generate)
        nodes, seconds = sum(n for _, n in counts), time.perf_counter() - start
    else:
        counts = None
        nodes, seconds = perft(board, args.depth, backend.generate)
    if args.json:
        out = {"fen": board.fen(), "depth": args.depth, "backend": args.backend,
               "nodes": nodes, "seconds": round(seconds, 3)}
        if counts is not None:
            out["divide"] = dict(counts)
        print(json.dumps(out))
        return 0
    if counts is not None:
        for move, count in counts:
            print(f"{move}: {count}")
        print(f"\nNodes searched: {nodes}")
    else:
        print(nodes)
    return 0


def cmd_compare(args):
    from .compare import compare
    from .epd import bundled_suites, read_epd
    from .positions import random_boards
    if args.jobs < 1:
        raise CliError(f"--jobs must be at least 1, not {args.jobs}")
    if not 0 < args.ready <= 1:
        raise CliError(f"--ready must be a probability in (0, 1], not {args.ready}")
    if args.random is not None and args.random < 1:
        raise CliError(f"--random must be at least 1, not {args.random}")
    boards = [record.board for path in args.epd or [] for record in read_epd(path)]
    if args.random:
        boards += random_boards(args.random, seed=args.seed)
    if not args.epd and not args.random:
        boards = [record.board for record in bundled_suites()]
    if args.backend == "model":
        raise CliError("compare checks a hardware backend against the model: use cxxrtl or pysim")
    _backend(args, ready_probability=args.ready)   # validates, builds, and says if it falls back
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(boards), unit="pos", leave=False)
    try:
        summary = compare(boards, args.backend, args.layout, jobs=args.jobs, ready=args.ready,
                          seed=args.seed, progress=bar.update if bar else None)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    finally:
        if bar:
            bar.close()
    if args.json:
        print(json.dumps(summary.as_dict()))
    else:
        for mismatch in summary.mismatches[:5]:
            print(mismatch.report())
        if len(summary.mismatches) > 5:
            print(f"... and {len(summary.mismatches) - 5} more mismatches")
        rows = [
            ("backend", f"{summary.backend} ({summary.layout} layout)"),
            ("positions", summary.positions),
            ("moves", summary.moves),
            ("legal moves", summary.legal_moves),
            ("table steps", summary.steps),
            ("cycles", summary.cycles),
            ("stalls", summary.stalls),
            ("moves/cycle", f"{summary.moves_per_cycle:.4f}" if summary.cycles else "-"),
            ("mismatches", len(summary.mismatches)),
            ("seconds", f"{summary.seconds:.1f}"),
        ]
        _print_rows(rows, 13)
    return 1 if summary.mismatches else 0


def cmd_bench(args):
    from .bench import cpw_records, perft_rows, position_rows
    backend = _backend(args)
    if backend.name != "cxxrtl":
        raise CliError("bench measures the compiled backend: it needs a C++ compiler (g++)")
    records = cpw_records()
    positions = position_rows(backend, records, args.repeat)
    perfts = perft_rows(backend, args.depth)
    if args.json:
        print(json.dumps({"layout": args.layout, "positions": positions, "perft_depth": args.depth,
                          "perft": perfts}))
        return 0
    print(f"{'position':<20}{'moves':>6}{'steps':>7}{'cycles':>8}{'moves/cycle':>13}"
          f"{'sim cycles/s':>15}{'end to end':>13}")
    for row in positions:
        print(f"{row['name']:<20}{row['moves']:>6}{row['steps']:>7}{row['cycles']:>8}"
              f"{row['moves_per_cycle']:>13.3f}{row['sim_cycles_per_second']:>15,}"
              f"{row['end_to_end_cycles_per_second']:>13,}")
    total_moves = sum(r["moves"] for r in positions)
    total_cycles = sum(r["cycles"] for r in positions)
    print(f"{'all':<20}{total_moves:>6}{sum(r['steps'] for r in positions):>7}{total_cycles:>8}"
          f"{total_moves / total_cycles:>13.3f}")
    print(f"\nperft({args.depth}) from the start position")
    for row in perfts:
        print(f"  {row['generator']:<38}{row['nodes']:>10}{row['seconds']:>8.2f} s{row['nodes_per_second']:>12,} nodes/s")
    return 0


def cmd_synth(args):
    from ..boards.synth import SynthError, synth
    try:
        report = synth(args.target, layout=args.layout, build_dir=args.out)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    except SynthError as error:
        if args.json:
            print(json.dumps({"target": args.target, "layout": args.layout, "fits": False, "error": str(error)}))
        else:
            print(f"hwmovegen: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report))
        return 0
    path = report["critical_path"] or {}
    rows = [
        ("target", f'{report["target"]} ({report["layout"]} layout)'),
        ("fmax", f'{report["fmax_mhz"]} MHz routed (goal {report["goal_mhz"]} MHz, '
                 f'constraint {report["constraint_mhz"]} MHz)'),
        ("logic cells", f'{report["logic_cells"]} / {report["logic_cells_available"]} '
                        f'{report["logic_cell_kind"]} '
                        f'({100 * report["logic_cells"] / report["logic_cells_available"]:.1f}%)'),
        ("LUTs", report["luts"]),
        ("FFs", report["ffs"]),
        ("carry cells", report["carries"]),
        ("block RAMs", f'{report["brams"]} / {report["brams_available"]}'),
        ("critical path", f'{path.get("from")} -> {path.get("to")}'),
        ("", f'{path.get("delay_ns")} ns, {path.get("logic_levels")} logic levels'),
        ("seconds", report["seconds"]),
    ]
    _print_rows(rows, 14)
    return 0


def cmd_build(args):
    from ..boards.synth import SynthError
    from ..boards.top import build_board
    try:
        report = build_board(args.board, args.out, layout=args.layout, baud=args.baud)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    except SynthError as error:
        print(f"hwmovegen: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report))
        return 0
    print(f'{report["board"]} ({report["fpga"]}), {report["layout"]} layout, {report["baud"]} baud')
    print(f'clock {report["clock_mhz"]} MHz, routed fmax {report["fmax_mhz"]} MHz')
    print("utilization " + ", ".join(f"{cell} {used}" for cell, used in report["utilization"].items()))
    print(f'bitstream {report["bitstream"]}')
    return 0


def cmd_board(args):
    from ..boards.hostlink import HostClient, LinkError, SerialTransport, SimulatedBoard
    from .model import Position, generate
    if (args.port is None) == (not args.sim):
        raise CliError("give --port PORT (a board) or --sim (the simulated board)")
    positions = _positions(args)
    try:
        transport = SimulatedBoard(layout=args.layout) if args.sim else SerialTransport(args.port, args.baud)
        client = HostClient(transport, timeout=args.timeout)
        version, layout = client.ping()
        if not args.json:
            print(f"# board: protocol {version}, {layout} layout")
        failures = 0
        for fen, board in positions:
            position = Position.from_board(board, check=False)
            moves, counters = client.generate(position)
            expected = generate(position, layout).moves
            matches = moves == expected
            failures += not matches
            uci = [m.uci() for m in moves]
            if args.json:
                counts = {name: value for name, value in counters.items() if name != "moves"}
                print(json.dumps({"fen": fen, "moves": uci, **counts, "matches_model": matches}), flush=True)
                continue
            if len(positions) > 1:
                print(f"# {fen}")
            for move in uci:
                print(move)
            verdict = "matches the golden model" if matches else "MISMATCH with the golden model"
            print(f"# {verdict}: {len(moves)} moves, {counters['steps']} steps, {counters['cycles']} cycles, "
                  f"{counters['stalls']} stall cycles")
    except LinkError as error:
        print(f"hwmovegen: error: {error}", file=sys.stderr)
        return 1
    return 1 if failures else 0


def _add_position_args(parser):
    parser.add_argument("--fen", help="position in FEN (default: the start position)")
    parser.add_argument("--epd", metavar="FILE", help="one position per line; text after ';' is ignored")


def _add_backend_args(parser):
    parser.add_argument("--backend", default="cxxrtl",
                        help="cxxrtl (default; pysim if there is no C++ compiler), pysim or model")
    parser.add_argument("--layout", default="dense", help="ROM layout: dense (default) or butterfly")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def build_parser():
    parser = _Parser(prog="hwmovegen", description="Sandström table-driven chess move generator in hardware")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("tables", help="report the ROM layouts' sizes")
    p.add_argument("--layout", help="only this layout")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("moves", help="print the generated moves in emission order")
    _add_position_args(p)
    _add_backend_args(p)
    p.add_argument("--vcd", metavar="FILE", help="pysim only: write a waveform and a .gtkw save file beside it")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("perft", help="count leaf nodes with the generator at every node")
    p.add_argument("--fen", default=chess.STARTING_FEN)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="per-move counts, like Stockfish's go perft")
    _add_backend_args(p)
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("compare", help="hardware vs golden model (move for move) and python-chess")
    p.add_argument("--epd", metavar="FILE", action="append", help="positions to compare (repeatable)")
    p.add_argument("--random", type=int, metavar="N", help="add N positions from seeded random games")
    p.add_argument("--seed", type=int, default=1, help="seed of --random and of --ready (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--ready", type=float, default=1.0, metavar="P",
                   help="cxxrtl: random backpressure, ready with probability P each cycle (default 1)")
    _add_backend_args(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("bench", help="moves per cycle, simulated cycles per second, perft timings")
    p.add_argument("--depth", type=int, default=4, help="perft depth from the start position (default 4)")
    p.add_argument("--repeat", type=int, default=2000, help="generations per position for cycles/s")
    p.add_argument("--layout", default="dense")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench, backend="cxxrtl")

    p = sub.add_parser("synth", help="synthesize, place and route the core; report fmax and area")
    p.add_argument("--target", required=True, help="ice40-up5k or ecp5-85f")
    p.add_argument("--layout", default="dense")
    p.add_argument("--out", metavar="DIR", help="keep the build files here")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("build", help="build a board's bitstream (generator + UART host link)")
    p.add_argument("--board", required=True, help="icebreaker or ulx3s-85f")
    p.add_argument("--out", metavar="DIR", default="build", help="output folder (default build)")
    p.add_argument("--layout", default="dense")
    p.add_argument("--baud", type=int, default=115_200)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("board", help="generate on a board over its UART and check against the model")
    p.add_argument("--port", help="serial port of the board (needs pyserial)")
    p.add_argument("--sim", action="store_true", help="talk to the simulated board top instead")
    _add_position_args(p)
    p.add_argument("--baud", type=int, default=115_200)
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a reply")
    p.add_argument("--layout", default="dense", help="with --sim: the simulated board's layout")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_board)
    return parser


def main(argv=None):
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "layout", None) is not None:
            from ..tables import LAYOUTS
            if args.layout not in LAYOUTS:
                raise CliError(f"unknown layout {args.layout!r} (choose from {', '.join(LAYOUTS)})")
        return args.func(args)
    except (CliError, PositionError) as error:
        print(f"hwmovegen: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
