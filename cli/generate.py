"""``hwmovegen moves`` and ``hwmovegen perft``: generate on a backend, one position or a tree."""

import json
import time

import chess

from ..sim.model import parse_fen
from ..sim.perft import divide, perft
from .common import (CliError, add_backend, add_core, add_json, add_layout, add_legal, add_positions, backend,
                     positive_int, positions, progress)

__all__ = ["register", "run"]

CHUNK = 256     # positions per call into a backend (progress granularity)


def register(subparsers):
    p = subparsers.add_parser("moves", help="print the generated moves in emission order",
                              description="Generate the pseudo-legal (with --legal: the legal) moves of each "
                                          "position and print them in the hardware's emission order, one UCI "
                                          "move per line.")
    add_positions(p)
    add_backend(p)
    add_layout(p)
    add_core(p)
    add_legal(p)
    add_json(p)
    p.add_argument("--vcd", metavar="FILE",
                   help="pysim only: write the waveform of the position and a GTKWave save file beside it")

    p = subparsers.add_parser("perft", help="count the leaf nodes of the legal move tree",
                              description="perft through a backend: the backend generates every node's "
                                          "moves, the host keeps the position and filters legality (with "
                                          "--legal the backend's stream is legal, and the host only makes and "
                                          "unmakes moves).")
    p.add_argument("--fen", default=chess.STARTING_FEN, help="root position (default: the start position)")
    p.add_argument("--depth", type=positive_int, required=True, help="depth of the tree, at least 1")
    p.add_argument("--divide", action="store_true", help="node counts per root move, like Stockfish's go perft")
    add_backend(p)
    add_layout(p)
    add_core(p)
    add_legal(p)
    add_json(p)


def run(args):
    return {"moves": _moves, "perft": _perft}[args.command](args)


def _moves(args):
    records = positions(args)
    chosen = backend(args)
    if args.vcd:
        if chosen.name != "pysim":
            raise CliError("--vcd needs --backend pysim")
        if len(records) != 1:
            raise CliError("--vcd writes the waveform of one position: give --fen")
        chosen.vcd_path = args.vcd
    results = []
    bar = progress(args, len(records))
    try:
        for first in range(0, len(records), CHUNK):
            chunk = records[first:first + CHUNK]
            results.extend(chosen.run([record.board for record in chunk]))
            bar.update(len(chunk))
    finally:
        bar.close()
    for index, (record, result) in enumerate(zip(records, results)):
        if args.json:
            out = {"fen": record.fen, "backend": chosen.name, "core": args.core, "legal": args.legal,
                   "moves": result.uci(),
                   **result.counters()}
            if record.ops:
                out["epd"] = record.ops
            print(json.dumps(out), flush=True)
            continue
        if len(records) > 1:
            print(("\n" if index else "") + f"# {record.fen}")
        for move in result.uci():
            print(move)
    return 0


def _perft(args):
    board = parse_fen(args.fen)
    chosen = backend(args)
    start = time.perf_counter()
    if args.divide:
        counts = divide(board, args.depth, chosen.generate, args.legal)
        nodes, seconds = sum(n for _, n in counts), time.perf_counter() - start
    else:
        counts = None
        nodes, seconds = perft(board, args.depth, chosen.generate, args.legal)
    if args.json:
        out = {"fen": board.fen(), "depth": args.depth, "backend": chosen.name, "core": args.core,
               "legal": args.legal, "nodes": nodes, "seconds": round(seconds, 3)}
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
