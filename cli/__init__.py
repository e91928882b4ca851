"""The ``hwmovegen`` command line: one module per command family, each with ``register`` and ``run``."""

import sys
from importlib import metadata

from ..sim import hwsearch  # noqa: F401  (registers the hardware search backends: cxxrtl, pysim)
from ..sim.model import PositionError
from ..sim.toolchain import UnusablePath, cache_dir
from . import export, formal, fpga, generate, report, search, tables, verify
from .common import CliError, FlowError, Parser

__all__ = ["main", "build_parser"]

FAMILIES = (tables, generate, search, verify, formal, fpga, export, report)


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


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        cache_dir()         # a cache folder that cannot be written is refused before any work
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
