"""``hwmovegen match``: games through UCI between our engine and an opponent, scored with error bars."""

import json
import math
import sys

import chess.engine

from ..sim.backends import search_backends
from ..sim.drivers.match import Adjudication, MatchError, Player, load_openings, play_game, score_summary
from ..sim.drivers.hwperft import projected_nodes_per_second
from ..sim.peers.stockfish import find_stockfish
from ..tables.search import MAX_DEPTH
from .common import FlowError, add_core, add_json, log, print_rows, progress
from .validate import positive_float, positive_int, whole

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser("match", help="play games through UCI against Stockfish or the model, with error bars",
                              description="Play --games games through UCI between 'hwmovegen uci' (--backend, at "
                                          "--depth or --nodes per move) and an opponent: Stockfish when one is "
                                          "found (at its lowest UCI_Elo, or at --stockfish-nodes), else the "
                                          "golden model's search at --opponent-depth. Openings: the balanced "
                                          "ECO main lines shipped with the project, each played with both "
                                          "colours. Prints wins/draws/losses, the score with its 95%% error "
                                          "bars and the Elo difference. See docs/play.md.")
    p.add_argument("--games", type=positive_int, default=10, metavar="N", help="games to play (default 10)")
    p.add_argument("--backend", default="model", choices=search_backends(),
                   help="our engine's search backend (default: model)")
    add_core(p)
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--depth", type=whole(1, MAX_DEPTH), metavar="N",
                        help="our engine's depth per move (default 2)")
    budget.add_argument("--nodes", type=positive_int, metavar="N", help="our engine's node budget per move")
    p.add_argument("--opponent", choices=["auto", "stockfish", "model"], default="auto",
                   help="auto: Stockfish if found ($HWMOVEGEN_STOCKFISH or PATH), else the model (default)")
    p.add_argument("--opponent-depth", type=whole(1, MAX_DEPTH), default=2, metavar="N",
                   help="the model opponent's depth per move (default 2)")
    p.add_argument("--stockfish-nodes", type=positive_int, metavar="N",
                   help="Stockfish at full strength on N nodes a move (default: UCI_LimitStrength at its "
                        "lowest UCI_Elo, 100 ms a move)")
    p.add_argument("--max-plies", type=positive_int, default=Adjudication.max_plies, metavar="N",
                   help=f"adjudicate a draw after N plies past the opening (default {Adjudication.max_plies})")
    p.add_argument("--decisive-cp", type=positive_int, default=Adjudication.decisive_cp, metavar="CP",
                   help=f"adjudicate a win when both engines score one side CP ahead ... "
                        f"(default {Adjudication.decisive_cp})")
    p.add_argument("--decisive-moves", type=positive_int, default=Adjudication.decisive_moves, metavar="N",
                   help=f"... for N consecutive moves each (default {Adjudication.decisive_moves})")
    p.add_argument("--fmax", type=positive_float, metavar="MHZ",
                   help="the search engine's clock for the projected nodes/s (hardware backends; default: none)")
    p.add_argument("--pgn", metavar="FILE", help="write the games as PGN")
    add_json(p)


def _ours(args):
    command = [sys.executable, "-m", "hwmovegen", "uci", "--backend", args.backend, "--core", args.core]
    if args.nodes:
        return Player(f"hwmovegen ({args.backend}, {args.nodes} nodes)", command, chess.engine.Limit(nodes=args.nodes))
    depth = args.depth or 2
    return Player(f"hwmovegen ({args.backend}, depth {depth})", command, chess.engine.Limit(depth=depth))


def _opponent(args):
    """(Player, the line saying who it is)."""
    wants_stockfish = args.opponent in ("auto", "stockfish")
    path = find_stockfish() if wants_stockfish else None
    if args.opponent == "stockfish" and path is None:
        raise FlowError("--opponent stockfish: no stockfish on PATH (or $HWMOVEGEN_STOCKFISH)")
    if path is None:
        command = [sys.executable, "-m", "hwmovegen", "uci", "--backend", "model"]
        why = "no Stockfish found: " if args.opponent == "auto" else ""
        return (Player(f"model (depth {args.opponent_depth})", command, chess.engine.Limit(depth=args.opponent_depth)),
                f"{why}the golden model's search at depth {args.opponent_depth}")
    player = Player("stockfish", [path], chess.engine.Limit(time=0.1)).open()
    name = player.engine.id.get("name", "Stockfish")
    options = {"Threads": 1} if "Threads" in player.engine.options else {}
    if args.stockfish_nodes:
        player.limit = chess.engine.Limit(nodes=args.stockfish_nodes)
        player.name, line = name, f"{name}, full strength, {args.stockfish_nodes} nodes a move"
    else:
        elo_option = player.engine.options.get("UCI_Elo")
        if elo_option is None or "UCI_LimitStrength" not in player.engine.options:
            player.close()
            raise FlowError(f"{name} has no UCI_LimitStrength/UCI_Elo: give --stockfish-nodes")
        options.update({"UCI_LimitStrength": True, "UCI_Elo": elo_option.min})
        player.name, line = f"{name} (Elo {elo_option.min})", f"{name}, UCI_Elo {elo_option.min} (its lowest), 100 ms a move"
    player.engine.configure(options)
    return player, line


def _elo_text(summary):
    if summary["elo"] is None:
        sign, bound = summary["elo_bound"]
        return f"{sign} {bound:+.0f} (the score is {summary['score']:.0%}: a 97.5% one-sided bound)"
    low, high = summary["elo_low"], summary["elo_high"]
    low = "-inf" if math.isinf(low) else f"{low:+.0f}"
    high = "+inf" if math.isinf(high) else f"{high:+.0f}"
    return f"{summary['elo']:+.0f} (95%: {low} to {high})"


def run(args):
    openings = load_openings()
    adjudication = Adjudication(args.max_plies, args.decisive_cp, args.decisive_moves)
    say = log(args)
    ours = _ours(args)
    theirs, opponent_line = _opponent(args)
    if say:
        say(f"opponent: {opponent_line}")
    records = []
    bar = progress(args, args.games, unit="game")
    try:
        ours.open()
        if theirs.engine is None:
            theirs.open()
        for index in range(args.games):
            opening = openings[(index // 2) % len(openings)]
            record = play_game(ours, theirs, opening, ours_white=index % 2 == 0, adjudication=adjudication,
                               round_number=index + 1, event="hwmovegen match")
            records.append(record)
            bar.update()
    except MatchError as error:
        raise FlowError(str(error)) from None
    finally:
        bar.close()
        ours.close()
        theirs.close()
    wins = sum(record.points == 1 for record in records)
    draws = sum(record.points == 0.5 for record in records)
    losses = len(records) - wins - draws
    summary = score_summary(wins, draws, losses)
    if args.pgn:
        try:
            with open(args.pgn, "w") as handle:
                for record in records:
                    print(record.pgn, file=handle, end="\n\n")
        except OSError as error:
            raise FlowError(f"cannot write {args.pgn}: {error.strerror}") from None
    nps = ours.nodes / ours.seconds if ours.seconds else None
    hardware = ours.cycles > 0
    projected = projected_nodes_per_second(ours.cycle_nodes, ours.cycles, args.fmax) if hardware else None
    if args.json:
        print(json.dumps({
            "engine": ours.name, "opponent": theirs.name, "opponent_note": opponent_line, "games": len(records),
            "wins": wins, "draws": draws, "losses": losses, "score": summary["score"], "margin": summary["margin"],
            "elo": summary["elo"], "elo_low": summary.get("elo_low"), "elo_high": summary.get("elo_high"),
            "elo_bound": summary.get("elo_bound"), "nodes": ours.nodes, "seconds": ours.seconds,
            "nodes_per_second": nps, "simulated_hardware": hardware,
            "cycles": ours.cycles if hardware else None, "projected_nodes_per_second": projected,
            "adjudication": vars(adjudication),
            "results": [{"round": n, "eco": r.opening.eco, "opening": r.opening.name, "white": r.ours_white,
                         "result": r.result, "reason": r.reason, "plies": r.plies}
                        for n, r in enumerate(records, 1)]}).replace("Infinity", "null"))
        return 0
    for number, record in enumerate(records, 1):
        colour = "white" if record.ours_white else "black"
        print(f"{number:3d}  {record.opening.eco} {record.opening.name:<34} ours {colour:<5}  {record.result:<7}  "
              f"{record.plies:3d} plies  {record.reason}")
    print()
    if nps is None:
        speed = "none (no time reported)"
    else:
        speed = f"{nps:,.0f} ({ours.nodes:,} nodes in {ours.seconds:,.1f} s, wall clock)"
    if hardware:
        speed += f", the hardware simulated by {args.backend}"
        if projected:
            speed_projected = f"{projected:,.0f} at {args.fmax:g} MHz ({ours.cycles:,} cycles, last iterations)"
        else:
            speed_projected = "none: no routed fmax of the search engine given (--fmax MHZ)"
    else:
        speed += ", the model in Python: no hardware simulated"
        speed_projected = "none (the model backend simulates no hardware)"
    print_rows([
        ("engine", ours.name),
        ("opponent", opponent_line),
        ("games", f"{len(records)} from {min(len(openings), (len(records) + 1) // 2)} of the {len(openings)} "
                  "openings, each with both colours"),
        ("result", f"+{wins} ={draws} -{losses} (wins, draws, losses of {ours.name})"),
        ("score", f"{summary['score']:.1%} +- {summary['margin']:.1%} (95%)"),
        ("elo", _elo_text(summary)),
        ("nodes/s", speed),
        ("projected", speed_projected),
        *([("pgn", args.pgn)] if args.pgn else []),
    ])
    return 0
