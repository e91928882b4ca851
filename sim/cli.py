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


def _backend(args):
    from .backends import get_backend
    try:
        return get_backend(args.backend, layout=args.layout)
    except KeyError as error:
        raise CliError(error.args[0]) from None


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


def _add_position_args(parser):
    parser.add_argument("--fen", help="position in FEN (default: the start position)")
    parser.add_argument("--epd", metavar="FILE", help="one position per line; text after ';' is ignored")


def _add_backend_args(parser):
    parser.add_argument("--backend", default="model", help="model (default) or pysim")
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
