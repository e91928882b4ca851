"""``hwmovegen moves`` and ``hwmovegen perft``: generate on a backend, one position or a tree."""

import json
import sys
import time

import chess

from ..boards.synth import saved_report
from ..boards.targets import TARGETS, get_target
from ..sim.backends import PERFT_BACKENDS, REGISTRY, get_backend, offer, resolve
from ..sim.cxxrtl import BackendUnavailable
from ..sim.drivers.hwperft import HardwarePerft, projected_nodes_per_second
from ..sim.model import echo_fen, parse_fen
from ..sim.model.epd import read_epd_files
from ..sim.model.legality import no_moves_verdict
from ..sim.model import Position
from ..sim.model.perft import divide, perft
from .common import (CliError, FlowError, add_backend, add_cluster, add_core, add_json, add_layout, add_legal,
                     add_order, add_perft_engines, add_positions, backend, check_cluster, cluster_rows, cluster_session,
                     config, log, positions, progress, simulator)
from .validate import (HOST_PERFT_DEPTH, add_force, check_engines, check_perft_depth, effective_backend,
                       positive_float, positive_int, vcd_file)

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
    add_order(p)
    add_json(p)
    p.add_argument("--vcd", metavar="FILE", type=vcd_file,
                   help="pysim only: write the waveform of the position and a GTKWave save file beside it")

    p = subparsers.add_parser("perft", help="count the leaf nodes of the legal move tree",
                              description="perft through a backend: the backend generates every node's "
                                          "moves, the host keeps the position and filters legality (with "
                                          "--legal the backend's stream is legal, and the host only makes and "
                                          "unmakes moves).")
    p.add_argument("--fen", help="root position (default: the start position)")
    p.add_argument("--depth", type=positive_int, help="depth of the tree, at least 1 (required without --epd)")
    p.add_argument("--epd", metavar="FILE", nargs="+", action="extend",
                   help="run the perft counts of these position files' D1..D6 operations (the bundled suites' "
                        "form, ';D1 20 ;D2 400'), each checked against the file; '-' reads standard input")
    p.add_argument("--max-depth", type=positive_int, metavar="N",
                   help="with --epd: the deepest count run (default: the depth --depth takes without --force "
                        f"on the backend: {', '.join(f'{name} {depth}' for name, depth in HOST_PERFT_DEPTH.items())})")
    p.add_argument("--divide", action="store_true", help="node counts per root move, like Stockfish's go perft")
    add_backend(p)
    add_layout(p)
    add_core(p)
    add_legal(p)
    p.add_argument("--in-hardware", action="store_true",
                   help="walk the whole tree in the simulated hardware (a perft array: make/unmake, move "
                        "lists, bulk counting); the host loads the root and reads the counts")
    add_perft_engines(p, default=1, help="with --in-hardware: engines in the array (default 1)")
    p.add_argument("--fmax", type=positive_float, metavar="MHZ",
                   help="with --in-hardware: the clock for projected nodes/s (default: the routed fmax of the "
                        "last 'hwmovegen synth --perft-engines N' on --target)")
    p.add_argument("--target", default="ecp5-85f", choices=list(TARGETS),
                   help="with --in-hardware: whose synth report gives fmax (default ecp5-85f)")
    add_force(p)
    add_cluster(p)
    add_json(p)


def run(args):
    return {"moves": _moves, "perft": _perft}[args.command](args)


def _moves(args):
    records = positions(args)
    if args.vcd:
        if not offer(effective_backend(args.backend)).generator.waveforms:
            writers = [name for name, entry in REGISTRY.items() if entry.generator.waveforms]
            raise CliError(f"--vcd needs --backend {' or '.join(writers)}")
        if len(records) != 1:
            raise CliError("--vcd writes the waveform of one position: give --fen")
    chosen = backend(args)
    if args.vcd:
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
    say = log(args)
    for index, (record, result) in enumerate(zip(records, results)):
        end = _end(args, record.board, result)
        if args.json:
            out = {"fen": record.fen, "backend": chosen.name, "core": args.core, "legal": args.legal,
                   "moves": result.uci(),
                   **({"order": args.order, "check": [int(m.check) for m in result.moves]} if args.order else {}),
                   **({"end": end} if _ends_known(args) else {}),
                   **result.counters()}
            if record.ops:
                out["epd"] = record.ops
            print(json.dumps(out), flush=True)
            continue
        if len(records) > 1:
            print(("\n" if index else "") + f"# {record.fen}")
        if end and say:
            say(f"{end}: no legal moves in {record.fen}")
        for move in result.moves:
            # with --order, a move that gives check is marked as in SAN
            print(move.uci() + ("+" if move.check else ""))
    return 0


def _ends_known(args):
    """Whether an empty stream means no legal moves: legal moves, all of them (not the captures alone)."""
    return args.legal and args.order != "captures"


def _end(args, board, result):
    """``checkmate`` or ``stalemate`` for a position the legality stage finds no move in, else None."""
    if not _ends_known(args) or result.moves:
        return None
    return no_moves_verdict(Position.from_board(board, check=False))


def _perft(args):
    check_cluster(args)
    if args.epd:
        return _perft_suite(args)
    if args.max_depth:
        raise CliError("--max-depth caps the depths of --epd's D<n> operations: give --epd, or --depth alone")
    if args.depth is None:
        raise CliError("give --depth N (or --epd FILE to run a suite's D<n> counts)")
    board = parse_fen(args.fen or chess.STARTING_FEN)
    if args.in_hardware:
        return _perft_in_hardware(args, board)
    if args.perft_engines != 1 or args.fmax:
        raise CliError("--perft-engines and --fmax go with --in-hardware")
    check_perft_depth(args.depth, args.backend, force=args.force)
    chosen = backend(args)
    start = time.perf_counter()
    cluster = None
    if args.cluster:
        nodes, seconds, counts, cluster = _perft_on_cluster(args, board, chosen)
    else:
        bar = progress(args, None, unit="move")
        try:
            counts = divide(board, args.depth, chosen.generate, args.legal, progress=_steps(bar))
        finally:
            bar.close()
        nodes, seconds = sum(n for _, n in counts), time.perf_counter() - start
    if not args.divide:
        counts = None
    if args.json:
        out = {"fen": echo_fen(board), "depth": args.depth, "backend": chosen.name, "core": args.core,
               "legal": args.legal, "nodes": nodes, "seconds": round(seconds, 3)}
        if counts is not None:
            out["divide"] = dict(counts)
        if cluster:
            out["cluster"] = cluster
        print(json.dumps(out))
        return 0
    if counts is not None:
        for move, count in counts:
            print(f"{move}: {count}")
        print(f"\nNodes searched: {nodes}")
    else:
        print(nodes)
    if cluster:
        _print_cluster(cluster)
    return 0


def _perft_suite(args):
    """``perft --epd``: every position's D<n> counts up to ``--max-depth``, each checked; a line
    per position and depth, then a summary; exit 1 on a mismatch."""
    for given, option in ((args.fen, "--fen"), (args.depth, "--depth"), (args.divide, "--divide"),
                          (args.in_hardware, "--in-hardware"), (args.cluster, "--cluster")):
        if given:
            raise CliError(f"{option} does not go with --epd (its positions' D<n> operations give the depths; "
                           "--max-depth caps them)")
    cap = args.max_depth or HOST_PERFT_DEPTH[effective_backend(args.backend)]
    check_perft_depth(cap, args.backend, force=args.force, option="--max-depth")
    records = read_epd_files(args.epd)
    runs = [(record, depth) for record in records for depth in sorted(record.depths) if depth <= cap]
    skipped = sum(depth > cap for record in records for depth in record.depths)
    if not runs:
        raise CliError(f"no D<n> operations up to depth {cap} in {', '.join(args.epd)}: nothing to check"
                       + (f" ({skipped} deeper; raise --max-depth)" if skipped else ""))
    chosen = backend(args)
    start = time.perf_counter()
    wrong = nodes_total = 0
    bar = progress(args, len(runs), unit="count")
    try:
        for record, depth in runs:
            nodes, seconds = perft(record.board, depth, chosen.generate, args.legal)
            bar.update()
            expected = record.depths[depth]
            wrong += nodes != expected
            nodes_total += nodes
            if args.json:
                print(json.dumps({"fen": record.fen, "name": record.name, "depth": depth, "nodes": nodes,
                                  "expected": expected, "matches": nodes == expected, "seconds": round(seconds, 3),
                                  "backend": chosen.name, "core": args.core, "legal": args.legal}), flush=True)
            else:
                verdict = "ok" if nodes == expected else f"MISMATCH: the EPD says {expected:,}"
                print(f"{record.name or record.fen}  D{depth}  {nodes:,}  {verdict}", flush=True)
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    positions = len({id(record) for record, _ in runs})
    if args.json:
        print(json.dumps({"summary": {"positions": positions, "counts": len(runs), "mismatches": wrong,
                                      "skipped_deeper": skipped, "max_depth": cap, "nodes": nodes_total,
                                      "seconds": round(seconds, 3), "backend": chosen.name, "core": args.core,
                                      "legal": args.legal}}))
    else:
        print(f"# {len(runs)} count{'s' if len(runs) != 1 else ''} on {positions} position"
              f"{'s' if positions != 1 else ''} through {chosen.name}: "
              + (f"{wrong} MISMATCH{'ES' if wrong != 1 else ''}" if wrong else "all match")
              + f"; {nodes_total:,} nodes in {seconds:.1f} s"
              + (f"; {skipped} deeper than --max-depth {cap} not run" if skipped else ""))
    return 1 if wrong else 0


def _fmax(args):
    """(MHz, where it came from) for the projection, or (None, why not)."""
    if args.fmax:
        return args.fmax, "--fmax"
    report = saved_report(args.target, config(args))
    command = f"hwmovegen synth --perft-engines {args.perft_engines} --target {args.target} --core {args.core}"
    if report is None:
        return None, f"no routed figure: run '{command}' or give --fmax"
    if report.get("does_not_fit"):
        return None, f"the array does not fit the {args.target} (last '{command}')"
    return report["fmax_mhz"], f"routed, '{command}' ({report.get('saved', 'undated')})"


def _steps(bar):
    """A ``progress(done, total)`` for a bar whose total is known once the walk starts."""
    def step(done, total):
        bar.total = total
        bar.update(1)
    return step


def _perft_in_hardware(args, board):
    if offer(args.backend).perft is None:
        raise CliError(f"--in-hardware runs the simulated hardware: --backend {' or '.join(PERFT_BACKENDS)}")
    check_perft_depth(args.depth, args.backend, in_hardware=True, force=args.force)
    check_engines(args.perft_engines, args.force)
    args.backend = resolve(args.backend, log(args))     # a fallback said once
    # the engine --target builds
    array = HardwarePerft(args.backend, get_target(args.target).engines_of(config(args)), log=log(args))
    try:
        array.check_depth(args.depth)
    except ValueError as error:
        raise CliError(str(error)) from None
    try:
        array.prepare()
    except BackendUnavailable as error:
        raise FlowError(str(error)) from None
    bar = progress(args, None, unit="subtree" if args.cluster else "cycle")
    cluster = None
    try:
        if args.cluster:
            with cluster_session(args) as session:
                run, cluster = session.hardware_perft(array, board, args.depth, divide=args.divide,
                                                      progress=bar.update, total=bar.reset, log=log(args))
        elif args.divide:
            root_moves = _hardware_root_moves(args, board)
            run = array.divide(board, args.depth, root_moves, progress=bar.update)
        else:
            run = array.perft(board, args.depth, progress=bar.update)
    finally:
        bar.close()
    fmax, source = _fmax(args)
    projected = projected_nodes_per_second(run.nodes, run.cycles, fmax)
    if args.json:
        out = {"fen": echo_fen(board), "depth": args.depth, "backend": array.name, "core": args.core,
               "in_hardware": True, "engines": args.perft_engines, "nodes": run.nodes, "seconds": round(run.seconds, 3),
               "cycles": run.cycles, "counters": run.counters, "balance": round(run.balance, 4),
               "fmax_mhz": fmax, "fmax_source": source,
               "projected_nodes_per_s": projected and round(projected)}
        if args.divide:
            out["divide"] = dict(run.divide)
        if cluster:
            out["cluster"] = cluster
        print(json.dumps(out))
        return 0
    if args.divide:
        for move, count in run.divide:
            print(f"{move}: {count}")
        print(f"\nNodes searched: {run.nodes}")
    else:
        print(run.nodes)
    if cluster:
        _print_cluster(cluster)
    counters = run.counters
    print(f"# {run.cycles:,} cycles on {args.perft_engines} engine{'s' if args.perft_engines > 1 else ''} "
          f"({run.nodes / run.cycles:.3f} nodes/cycle, engines busy {100 * run.balance:.1f}%); "
          f"generating {counters['generate_cycles']:,}, make/unmake {counters['apply_cycles']:,} engine cycles"
          + (f"; {counters['leaf_parents']:,} leaf parents counted" if counters.get('leaf_parents') else "")
          if run.cycles else "# depth 1: the root's moves, no walk", file=sys.stderr)
    print(f"# projected {projected / 1e6:,.1f} M nodes/s at {fmax} MHz ({source})" if projected
          else f"# projected nodes/s: {source}", file=sys.stderr)
    return 0


def _perft_on_cluster(args, board, chosen):
    """Host-driven perft with its subtrees counted on the cluster: (nodes, seconds, counts, report)."""
    bar = progress(args, None, unit="subtree")
    try:
        with cluster_session(args) as session:
            return session.perft(chosen, board, args.depth, divide=args.divide, progress=bar.update,
                                 total=bar.reset)
    finally:
        bar.close()


def _print_cluster(cluster):
    """The cluster's figures on stderr, beside the count on stdout."""
    below = {0: "the root", 1: "the root's moves", 2: "the nodes at ply 2"}[cluster["split_ply"]]
    (_, where), *workers = cluster_rows(cluster, "subtree", "subtrees")
    print(f"# cluster {where} (below {below}; cycles summed over their walks)", file=sys.stderr)
    for name, value in workers:
        print(f"#   {name.strip()}: {value}", file=sys.stderr)


def _hardware_root_moves(args, board):
    """The root's legal moves from the hardware's legality stage, as python-chess Moves (on the
    simulator picked for that generator when --backend was not given)."""
    generator_config = config(args, legal=True, perft_engines=0)
    generator = get_backend(simulator(args, generator_config), generator_config, log=log(args))
    return [move.to_chess() for move in generator.generate(board).moves]
