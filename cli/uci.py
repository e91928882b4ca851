"""``hwmovegen uci``: a UCI engine on standard input and output, searching on a search backend."""

import sys

from ..sim.backends import get_search_backend, search_backends
from ..sim.drivers.uci import UciEngine
from .common import CliError, add_core

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser("uci", help="a UCI engine on stdin/stdout (for GUIs and scripts)",
                              description="Speak UCI on standard input and output: iterative deepening and "
                                          "the clock in the host, each iteration a search request to the "
                                          "backend, stop and isready answered while it searches. Load it "
                                          "into a GUI as the command 'hwmovegen uci'. See docs/play.md.")
    p.add_argument("--backend", default="model", choices=search_backends(),
                   help="model: the golden model's search (default)")
    add_core(p)


def run(args):
    def write(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    try:
        backend = get_search_backend(args.backend, core=args.core,
                                     log=lambda text: write(f"info string {text}"))
    except KeyError as error:
        raise CliError(error.args[0]) from None
    engine = UciEngine(backend, write, backend_name=backend.name)
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
