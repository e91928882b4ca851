"""The command line's checks, shared by every command: each number's range, each output path,
and the limits beyond which a valid request would run for hours.

Everything here runs before any work starts (argparse types while the arguments are parsed,
``check_*`` right after), and every refusal is one line with exit code 2. The limits are the
constants below; docs/commands.md's Errors section states them.
"""

import argparse
import math
from pathlib import Path

from ..boards.devboards import MAX_BAUD, MIN_BAUD
from ..sim.backends import resolve
from ..sim.harness.toolchain import UnusablePath, check_output
from ..tables.contracts import MAX_PLIES

__all__ = ["CliError", "whole", "positive_int", "positive_float", "probability", "seconds", "baud", "output_file",
           "output_dir", "folder_for", "vcd_file", "add_force", "effective_backend", "check_perft_depth", "check_engines", "HOST_PERFT_DEPTH",
           "HARDWARE_PERFT_DEPTH", "MAX_PERFT_DEPTH", "LARGEST_ARRAY", "MAX_ENGINES",
           "MAX_RANDOM", "MAX_REPORT_RANDOM", "MAX_REPEAT", "MAX_TIMEOUT", "MAX_FORMAL_DEPTH", "MAX_SEED",
           "cluster_spec", "MAX_LOCAL_WORKERS"]

# perft: the deepest tree that finishes within minutes on the bundled positions (kiwipete is the
# busiest: perft(5) through the model or cxxrtl takes 10 to 17 minutes, in the hardware simulated by
# cxxrtl 5 minutes on three counting engines (the UP5K's streaming engine: 17), one ply more about 40
# times longer; pysim runs a few thousand cycles a second, kiwipete's perft(3) in one to two
# minutes); deeper needs --force.
HOST_PERFT_DEPTH = {"model": 5, "cxxrtl": 5, "verilator": 5, "pysim": 3}      # the host makes the moves
HARDWARE_PERFT_DEPTH = {"cxxrtl": 5, "verilator": 5, "pysim": 3}           # --in-hardware, board --sim --perft
MAX_PERFT_DEPTH = 15        # host-driven, even with --force: perft(15) of the start position is 2e21 leaves
# perft arrays: an engine with the leaf counter takes a quarter of the ECP5-85F's logic cells (the
# larger target; three fast ones 75%), a walker one a fifth (17,113 of 83,640), and the UP5K holds one
# engine without the counter, so no target holds more than 4 engines: a larger array needs --force.
# MAX_ENGINES bounds even that (bench perft looks for reports up to it).
LARGEST_ARRAY = 4
MAX_ENGINES = 64
MAX_RANDOM = 1_000_000          # compare --random: about 10 minutes and 1 GB of positions
MAX_REPORT_RANDOM = 100_000     # report --random: every position is plotted
MAX_REPEAT = 100_000            # bench --repeat: generations per position, held in memory
MAX_TIMEOUT = 86_400            # seconds, a day (board --timeout, formal --timeout)
MAX_FORMAL_DEPTH = 100          # the properties' own depths are at most 40
MAX_SEED = 2 ** 31 - 1          # nextpnr's placement seed is a C int
# --cluster local:N starts N Python worker processes on this machine, each holding its compiled
# model: a bound against a typo such as local:1000 (more machines: a scheduler and dask workers)
MAX_LOCAL_WORKERS = 64


class CliError(Exception):
    """Bad input: printed as one line, exit code 2."""


def whole(low=1, high=None):
    """An argparse type: a whole number from ``low`` to ``high``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {value:,}")
        return value
    parse.__name__ = "whole number"
    return parse


positive_int = whole(1)


def _number(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None


def positive_float(text):
    """A finite number above 0."""
    value = _number(text)
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be positive and finite, not {text}")
    return value


def seconds(text):
    """A timeout: above 0, at most MAX_TIMEOUT."""
    value = positive_float(text)
    if value > MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_TIMEOUT:,} seconds (a day), not {text}")
    return value


def probability(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a probability in (0, 1], not {text!r}")
    return value


def baud(text):
    """``board --baud``: a rate ``build --baud`` makes bitstreams for (boards.devboards.MIN_BAUD
    to MAX_BAUD)."""
    value = positive_int(text)
    if not MIN_BAUD <= value <= MAX_BAUD:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_BAUD:,} and at most {MAX_BAUD:,} (the rates "
                                         f"'build --baud' makes bitstreams for), not {value:,}")
    return value


def cluster_spec(text):
    """``--cluster``: a Dask scheduler's address, ``local`` or ``local:N`` (N from 1 to
    MAX_LOCAL_WORKERS)."""
    from ..sim.drivers.cluster import parse_spec      # the Dask tasks' module: only with --cluster
    try:
        kind, workers = parse_spec(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if kind == "local" and text != "local" and workers > MAX_LOCAL_WORKERS:
        raise argparse.ArgumentTypeError(f"local:N starts N worker processes on this machine: at most "
                                         f"{MAX_LOCAL_WORKERS}, not {workers:,} (for more, start a scheduler "
                                         "and dask workers on several machines)")
    return text


def output_file(text):
    """A file to write: not a folder, in an existing writable folder."""
    try:
        check_output(text)
    except UnusablePath as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def folder_for(*files):
    """An argparse type: a folder to write into (and to write ``files`` in), a writable folder
    or a new one in an existing writable folder."""
    def parse(text):
        try:
            check_output(text, folder=True, files=files)
        except UnusablePath as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return text
    parse.__name__ = "folder"
    return parse


output_dir = folder_for()


def vcd_file(text):
    """A waveform to write, and the GTKWave save file beside it (.gtkw)."""
    output_file(str(Path(text).with_suffix(".gtkw")))
    return output_file(text)


def add_force(parser):
    parser.add_argument("--force", action="store_true",
                        help="run a request refused as taking hours (a perft deeper than finishes in minutes, "
                             "a perft array larger than any target holds), with a progress bar")


def effective_backend(name):
    """The backend that will run (the registry's :func:`~hwmovegen.sim.backends.resolve`: cxxrtl
    falls back to pysim without a C++ compiler)."""
    return resolve(name)


def check_perft_depth(depth, backend, in_hardware=False, force=False, option="--depth"):
    """Refuse a perft depth the engines cannot hold, or one that would run for hours
    (unless ``force``). ``backend``: the one asked for (cxxrtl falls back to pysim without g++)."""
    backend = effective_backend(backend)
    if in_hardware:
        if depth > MAX_PLIES:
            raise CliError(f"depth {depth} is outside what the perft engines hold (1 to {MAX_PLIES} plies)")
        limit, how = HARDWARE_PERFT_DEPTH[backend], f"in the hardware simulated by {backend}"
    else:
        if depth > MAX_PERFT_DEPTH:
            raise CliError(f"{option} {depth}: at most {MAX_PERFT_DEPTH} (perft({MAX_PERFT_DEPTH}) of the start "
                           "position has about 2e21 leaves)")
        limit, how = HOST_PERFT_DEPTH[backend], f"through {backend}"
    if depth > limit and not force:
        raise CliError(f"perft to depth {depth} {how} can take hours (depth {limit} finishes within minutes on the "
                       f"bundled positions, each ply more takes 20 to 40 times longer): use {option} {limit} or "
                       "less, or --force to run it anyway with a progress bar")


def check_engines(engines, force=False, option="--perft-engines", doing="simulate"):
    """Refuse (unless ``force``) a perft array larger than any target holds."""
    if engines and engines > LARGEST_ARRAY and not force:
        raise CliError(f"{option} {engines}: no target holds more than {LARGEST_ARRAY} engines (three fast "
                       f"engines take 75% of the ECP5-85F): use {LARGEST_ARRAY} or fewer, or --force to {doing} "
                       "it anyway")
