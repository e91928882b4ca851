"""``hwmovegen uci``: a UCI engine on standard input and output, searching on a search backend, on a
board over its host link (``--port``) or on the simulated board's whole top level (``--sim``)."""

import sys

from ..boards.client import BoardSearch, CompiledDevBoard, HostClient, LinkError, NotAPort, SerialTransport
from ..sim.backends import get_search_backend, search_backends
from ..sim.cxxrtl import BackendUnavailable
from ..sim.drivers.uci import UciEngine
from ..sim.harness.toolchain import ToolMissing
from ..tables.search import MAX_SEARCH_ENGINES
from .common import CliError, add_core, config
from .validate import baud, whole

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser("uci", help="a UCI engine on stdin/stdout (for GUIs and scripts)",
                              description="Speak UCI on standard input and output: iterative deepening and "
                                          "the clock in the host, each iteration a search request to the "
                                          "backend (or a SEARCH over a board's host link), stop and isready "
                                          "answered while it searches. Load it into a GUI as the command "
                                          "'hwmovegen uci'. See docs/play.md.")
    p.add_argument("--backend", default=None, choices=search_backends(),
                   help="model: the golden model's search (default)")
    p.add_argument("--port", help="search on the board at this serial port (a bitstream built with --search)")
    p.add_argument("--sim", action="store_true",
                   help="search on the simulated board: its whole top level with the search engine, compiled "
                        "with Verilator (CXXRTL without it), over the host link")
    p.add_argument("--baud", type=baud, default=115_200, help="with --port: baud rate (default 115200)")
    p.add_argument("--engines", type=whole(1, MAX_SEARCH_ENGINES), default=1, metavar="N",
                   help=f"search engines splitting the root moves, 1 to {MAX_SEARCH_ENGINES} (default 1; the "
                        "Engines option changes it): --backend only, a board has one")
    add_core(p)


def _board_backend(args, say):
    """The board's search engine over its host link: the simulated top (--sim) or a real board."""
    if args.sim:
        transport, name = CompiledDevBoard(config(args), log=say), "sim"
    else:
        transport, name = SerialTransport(args.port, args.baud), "board"
    backend = BoardSearch(HostClient(transport, timeout=2.0, retries=0 if args.sim else 3), name)
    backend.prepare()
    return backend


def run(args):
    def write(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    if args.backend is not None and (args.port is not None or args.sim):
        raise CliError("give --backend, --port or --sim, not more than one")
    if args.port is not None and args.sim:
        raise CliError("give --port (a board) or --sim (the simulated board), not both")
    if args.engines > 1 and (args.port is not None or args.sim):
        raise CliError(f"--engines {args.engines}: a board's bitstream has one search engine (use --backend)")
    say = lambda text: write(f"info string {text}")
    split = None
    try:
        if args.port is not None or args.sim:
            backend = _board_backend(args, say)
        else:
            def split(engines):     # (a compiled model is built at its first search)
                return get_search_backend(args.backend or "model", core=args.core, log=say, engines=engines)
            backend = split(args.engines)
    except KeyError as error:
        raise CliError(error.args[0]) from None
    except (NotAPort, ToolMissing, BackendUnavailable, LinkError) as error:
        raise CliError(str(error)) from None
    engine = UciEngine(backend, write, backend_name=backend.name, split=split, engines=args.engines)
    try:
        while True:
            line = sys.stdin.readline()
            if not line:
                engine.close()
                break
            if not engine.handle(line):
                break
    except KeyboardInterrupt:
        engine.close()
    return 0
