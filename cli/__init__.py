"""The ``hwmovegen`` command line: one module per command family, each with ``register`` and ``run``."""

import signal
import sys
import threading
from importlib import metadata

from ..sim.model import PositionError
from ..sim.harness.toolchain import UnusablePath, cache_dir
from . import cluster, export, formal, fpga, generate, match, report, search, tables, uci, verify
from .common import CliError, FlowError, Parser, pick_backend

__all__ = ["main", "build_parser"]

FAMILIES = (tables, generate, search, uci, match, verify, formal, fpga, export, report, cluster)


def build_parser():
    parser = Parser(prog="hwmovegen",
                    description="A chess move generator built as hardware after Sandström's table-driven "
                                "algorithm: simulate it, compare it with the golden model, synthesize it.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {metadata.version('hwmovegen')}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for family in FAMILIES:
        before = set(sub.choices)
        family.register(sub)
        for name in set(sub.choices) - before:
            sub.choices[name].set_defaults(run=family.run)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised like Ctrl-C's KeyboardInterrupt so that the same ``finally`` blocks run
    (a compile's ``build-*`` folder in the cache, a synthesis's temporary folder are removed)."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv=None):
    # SIGTERM handled only for this call (main may run inside another program, a test)
    previous = signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        cache_dir()         # a cache folder that cannot be written is refused before any work
        pick_backend(args)
        return args.run(args)
    except (CliError, PositionError, UnusablePath) as error:
        print(f"hwmovegen: error: {error}", file=sys.stderr)
        return 2
    except FlowError as error:
        print(f"hwmovegen: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 128 + signal.SIGTERM
