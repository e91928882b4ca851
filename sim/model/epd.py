"""Position files: standard EPD lines with opcodes, and full FENs followed by ``;``-operations.

Both forms appear in the wild: ``... w - - bm Qg6; id "WAC.001";`` (EPD, parsed by
python-chess's ``Board.from_epd``) and the perft suites' ``<FEN> ;D1 20 ;D2 400``
(a six-field FEN, then operations). Blank lines and ``#`` lines are skipped, a
UTF-8 byte-order mark is ignored, and ``-`` reads standard input.
"""

import re
import sys
from dataclasses import dataclass, field
from importlib import resources

import chess

from .movegen import FEN_FIELDS, PositionError, check_board, echo_fen, parse_fen

__all__ = ["EpdRecord", "read_epd", "read_epd_files", "parse_epd_line", "bundled_suites", "bundled_path",
           "cpw_records"]

BUNDLED = ("cpw-perft.epd", "perftsuite.epd")
_DEPTH = re.compile(r"^D(\d+)$")
_OPCODE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,14}$")


@dataclass
class EpdRecord:
    fen: str
    board: object                               # chess.Board
    depths: dict = field(default_factory=dict)  # {depth: perft count} from 'D<n> <count>' operations
    name: str = ""                              # the 'id' operation
    ops: dict = field(default_factory=dict)     # every operation, operands as text or numbers


def _is_full_fen(tokens):
    return len(tokens) >= 6 and tokens[4].isdigit() and tokens[5].rstrip(";").isdigit()


def _suite_ops(text):
    """The perft suites' operations: ';D1 20 ;D2 400 ;id "initial"'."""
    ops = {}
    for part in text.split(";"):
        part = part.strip()
        if part:
            opcode, _, operand = part.partition(" ")
            operand = operand.strip()
            ops[opcode] = operand[1:-1] if operand.startswith('"') and operand.endswith('"') else (
                int(operand) if operand.lstrip("-").isdigit() else operand)
    return _checked_ops(ops)


def _checked_ops(ops):
    """``ops`` if every opcode is one (EPD: a letter, then up to 14 letters, digits or '_') and every
    ``D<n>`` a whole count at a depth of at least 1; :class:`PositionError` otherwise (a typo
    must not turn a perft count into an unchecked operation)."""
    for opcode, operand in ops.items():
        if not _OPCODE.match(opcode):
            raise PositionError(f"bad EPD operation {opcode!r}: an opcode is a letter, then up to 14 letters, "
                                "digits or '_'")
        depth = _DEPTH.match(opcode)
        if depth and (int(depth.group(1)) < 1 or not isinstance(operand, int) or operand < 0):
            shown = f"{opcode} {'' if operand is None else operand}".strip()
            raise PositionError(f"bad EPD operation '{shown}': "
                                f"{opcode} wants the perft count at depth {depth.group(1)}, a whole number "
                                "(depths from 1)")
    return ops


def _operand_text(board, value):
    if isinstance(value, list):     # bm/am: moves, written back in SAN
        return " ".join(board.san(move) for move in value)
    if isinstance(value, chess.Move):
        return board.san(value)
    return value


def parse_epd_line(line):
    """A :class:`EpdRecord` for one line, or None for a blank or '#' line."""
    text = line.strip().lstrip("\ufeff")
    if not text or text.startswith("#"):
        return None
    head, _, rest = text.partition(";")
    tokens = head.split()
    if _is_full_fen(tokens):
        board = parse_fen(" ".join(tokens[:6]))
        ops = _suite_ops(" ".join(tokens[6:]) + ";" + rest)
    else:
        if len(tokens) < 4:     # an EPD position has the FEN's first four fields, no clocks
            missing = FEN_FIELDS[len(tokens):4]
            raise PositionError(f"bad EPD {text!r}: no {', '.join(missing[:-1]) + ' or ' if len(missing) > 1 else ''}"
                                f"{missing[-1]} field{'s' if len(missing) > 1 else ''} (an EPD position has four)")
        try:
            board, parsed = chess.Board.from_epd(text)
        except ValueError as error:
            raise PositionError(f"bad EPD {text!r}: {error}") from None
        check_board(board, castling=tokens[2])
        ops = _checked_ops({opcode: _operand_text(board, value) for opcode, value in parsed.items()})
    depths = {int(_DEPTH.match(op).group(1)): value for op, value in ops.items() if _DEPTH.match(op)}
    return EpdRecord(echo_fen(board), board, depths, str(ops.get("id", "")), ops)


def read_epd(path):
    """All records of a position file (``-``: standard input); :class:`PositionError`
    names the file and line of a bad one, and a file without positions is an error too."""
    name = "standard input" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(path, encoding="utf-8-sig") as handle:
                lines = handle.read().splitlines()
    except OSError as error:
        raise PositionError(f"cannot read EPD file {name}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise PositionError(f"cannot read EPD file {name}: not UTF-8 text") from None
    records = []
    for number, line in enumerate(lines, 1):
        try:
            record = parse_epd_line(line)
        except PositionError as error:
            raise PositionError(f"{name}:{number}: {error}") from None
        if record is not None:
            records.append(record)
    if not records:
        raise PositionError(f"no positions in {name}")
    return records


def read_epd_files(paths):
    return [record for path in paths for record in read_epd(path)]


def bundled_path(name):
    return resources.files(__package__).joinpath("data", name)


def _bundled(name):
    with resources.as_file(bundled_path(name)) as path:
        return read_epd(path)


def cpw_records():
    """The seven positions of the Chess Programming Wiki's perft page."""
    return _bundled(BUNDLED[0])


def bundled_suites():
    """The perft suites shipped with the package: CPW positions, then perftsuite."""
    return [record for name in BUNDLED for record in _bundled(name)]
