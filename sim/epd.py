"""EPD files: one position per line; text after ';' is operations (perft counts, id)."""

import re
from dataclasses import dataclass, field
from importlib import resources

from .model import PositionError, parse_fen

__all__ = ["Record", "read_epd", "parse_epd_line", "bundled_suites", "bundled_path"]

BUNDLED = ("cpw-perft.epd", "perftsuite.epd")


@dataclass
class Record:
    fen: str
    board: object                               # chess.Board
    depths: dict = field(default_factory=dict)  # {depth: perft count} from ';D<n> <count>'
    name: str = ""


def parse_epd_line(line):
    """A :class:`Record` for one EPD line, or None for a blank or '#' line."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fen, _, ops = text.partition(";")
    board = parse_fen(fen.strip())
    depths = {int(d): int(n) for d, n in re.findall(r"\bD(\d+)\s+(\d+)", ops)}
    name = re.search(r'\bid\s+"([^"]*)"', ops)
    return Record(board.fen(), board, depths, name.group(1) if name else "")


def read_epd(path):
    """All records of an EPD file; PositionError names the file and line of a bad one."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
    except OSError as error:
        raise PositionError(f"cannot read EPD file {path}: {error.strerror}") from None
    records = []
    for number, line in enumerate(lines, 1):
        try:
            record = parse_epd_line(line)
        except PositionError as error:
            raise PositionError(f"{path}:{number}: {error}") from None
        if record is not None:
            records.append(record)
    return records


def bundled_path(name):
    return resources.files(__package__).joinpath("data", name)


def bundled_suites():
    """The perft suites shipped with the package: CPW positions, then perftsuite."""
    records = []
    for name in BUNDLED:
        with resources.as_file(bundled_path(name)) as path:
            records.extend(read_epd(path))
    return records
