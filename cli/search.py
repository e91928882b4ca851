"""``hwmovegen search``: alpha-beta to a depth on a search backend, one result per position."""

import argparse
import json

from ..boards.synth import saved_report
from ..boards.targets import TARGETS
from ..sim.model import Position
from ..sim.model.search import SearchRequest, format_score
from ..sim.backends import get_search_backend, search_backends
from ..tables.contracts import GeneratorConfig
from ..tables.search import DEFAULT_QUIESCENCE, INF, MAX_DEPTH, MAX_QUIESCENCE, MAX_SEARCH_ENGINES
from .common import CliError, add_core, add_json, add_positions, log, positions, print_rows, progress
from .validate import positive_int, whole

__all__ = ["register", "run"]


def _score(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if not -INF <= value <= INF:
        raise argparse.ArgumentTypeError(f"must be from {-INF} to {INF}, not {value}")
    return value


def register(subparsers):
    p = subparsers.add_parser("search", help="search a position for its best move (alpha-beta)",
                              description="Fail-hard negamax alpha-beta to --depth plies, then quiescence "
                                          "(captures, and every evasion in check) to --quiescence plies more, "
                                          "on PeSTO's tapered evaluation; draws by the fifty-move rule from the "
                                          "FEN's halfmove clock and by repetition along the searched line. "
                                          "Prints the best move, the score (centipawns for the side to move, "
                                          "or mate in N moves), its bound, the principal variation and the "
                                          "counters.")
    add_positions(p, default_start=False)
    p.add_argument("--depth", type=whole(1, MAX_DEPTH), required=True, metavar="N",
                   help=f"full-width plies, 1 to {MAX_DEPTH}")
    p.add_argument("--backend", default="model", choices=search_backends(),
                   help="model: the golden model's search (default)")
    add_core(p)
    p.add_argument("--engines", type=whole(1, MAX_SEARCH_ENGINES), default=1, metavar="N",
                   help=f"search engines splitting the root moves, 1 to {MAX_SEARCH_ENGINES} (default 1): the first "
                        "root move alone, then the others shared out against its score (docs/search.md)")
    p.add_argument("--quiescence", type=whole(0, MAX_QUIESCENCE), default=DEFAULT_QUIESCENCE, metavar="Q",
                   help=f"quiescence plies below the horizon, 0 to {MAX_QUIESCENCE} (default {DEFAULT_QUIESCENCE})")
    p.add_argument("--window", type=_score, nargs=2, metavar=("ALPHA", "BETA"),
                   help=f"the root's window, alpha < beta (default: the full window, -{INF} {INF})")
    p.add_argument("--nodes", type=positive_int, metavar="N",
                   help="node limit: stop before the make that would exceed N nodes and report the best "
                        "root move completed (default: none)")
    p.add_argument("--hint", metavar="MOVE", help="a root move (UCI) to search first; ignored if not legal")
    p.add_argument("--target", default="ecp5-85f", choices=list(TARGETS),
                   help="hardware backends: whose saved 'synth --search' report's routed fmax projects nodes/s "
                        "(default ecp5-85f)")
    add_json(p)


def search_fmax(target, core, engines=1):
    """The routed fmax (MHz) of the last fitting ``synth --search [--engines N]`` of ``engines``
    engines on ``core`` for ``target``, or None."""
    report = saved_report(target, GeneratorConfig(core=core, search_engines=engines), search=True)
    return report["fmax_mhz"] if report and not report.get("does_not_fit") else None


def projection(result, fmax):
    """A hardware search's cycles per node and its nodes/s at ``fmax`` MHz (None without one)."""
    if not result.cycles:
        return {}
    out = {"cycles_per_node": round(result.cycles / result.nodes, 2)}
    if fmax:
        out.update(fmax_mhz=fmax, projected_nodes_per_s=round(result.nodes * fmax * 1e6 / result.cycles))
    return out


def result_rows(fen, result):
    """A search's answer as ``search`` prints it: the position, best move, score, PV, counters."""
    return [("position", fen), ("best", result.best.uci() if result.best else "(none)"),
            ("score", f"{format_score(result.score)} ({result.bound})"),
            ("pv", " ".join(move.uci() for move in result.pv) or "(empty)"),
            *((name, f"{value:,}") for name, value in result.counters().items())]


def run(args):
    records = positions(args, default_start=False)
    if not records:
        raise CliError("give a position: --fen FEN or --epd FILE")
    alpha, beta = args.window or (-INF, INF)
    if alpha >= beta:
        raise CliError(f"--window {alpha} {beta}: alpha must be below beta")
    try:
        chosen = get_search_backend(args.backend, core=args.core, log=log(args), engines=args.engines)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    fmax, routed = (search_fmax(args.target, args.core, args.engines) if chosen.hardware else None), True
    if chosen.hardware and fmax is None and args.engines > 1:     # the array not routed: one engine's fmax
        fmax, routed = search_fmax(args.target, args.core), False
    bar = progress(args, len(records))
    try:
        for index, record in enumerate(records):
            request = SearchRequest(Position.from_board(record.board, check=False), args.depth, alpha, beta,
                                    node_limit=args.nodes or 0, hint=args.hint,
                                    halfmove=record.board.halfmove_clock, quiescence=args.quiescence)
            result = chosen.run(request)
            bar.update()
            if args.json:
                out = {"fen": record.fen, "backend": chosen.name,
                       **({"engines": args.engines} if args.engines > 1 else {}), "depth": args.depth,
                       "quiescence": args.quiescence, "window": [alpha, beta], **result.as_dict(),
                       **projection(result, fmax), **({} if routed or not fmax else {"fmax_of": "one engine"})}
                if record.ops:
                    out["epd"] = record.ops
                print(json.dumps(out), flush=True)
                continue
            if index:
                print()
            rows = result_rows(record.fen, result)
            if args.engines > 1:
                rows.insert(1, ("engines", f"{args.engines}, splitting the root moves"))
            rated = projection(result, fmax)
            if rated:
                rows.append(("cycles/node", f'{rated["cycles_per_node"]:.2f}'))
                rows.append(("nodes/s", f'{rated["projected_nodes_per_s"] / 1e6:,.2f} M projected at the routed '
                                        f'{fmax} MHz ({args.target}, synth --search'
                                        f'{")" if routed else "; one engine: the array not routed)"}' if fmax else
                             f"- (no 'synth --search --target {args.target} --core {args.core}' report)"))
            if result.aborted:
                rows.append(("aborted", f"node limit {args.nodes:,} reached"))
            print_rows(rows)
    finally:
        bar.close()
    return 0
