"""Position files: EPD with opcodes, the perft suites' FEN;operations form, BOM, stdin, errors."""

import io
import re

import pytest

from hwmovegen.sim.model.epd import bundled_suites, cpw_records, parse_epd_line, read_epd
from hwmovegen.sim.model import PositionError


def test_standard_epd_with_opcodes():
    record = parse_epd_line('1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "WAC.001";')
    assert record.fen == "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1"
    assert record.ops == {"bm": "Qd1+", "id": "WAC.001"} and record.name == "WAC.001"


def test_perft_suite_lines_and_epd_depth_opcodes():
    record = parse_epd_line("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;id \"rook\"")
    assert record.depths == {1: 15, 2: 66} and record.name == "rook"
    record = parse_epd_line("4k3/8/8/8/8/8/8/4K2R w K - D1 15; D2 66;")
    assert record.depths == {1: 15, 2: 66} and record.fen == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"


def test_blank_and_comment_lines_are_skipped():
    assert parse_epd_line("") is None and parse_epd_line("   # a comment") is None


def test_byte_order_mark_and_standard_input(tmp_path, monkeypatch):
    path = tmp_path / "bom.epd"
    path.write_bytes("\ufeff4k3/8/8/8/8/8/8/4K2R w K - 0 1\n".encode("utf-8"))
    assert [r.fen for r in read_epd(path)] == ["4k3/8/8/8/8/8/8/4K2R w K - 0 1"]
    monkeypatch.setattr("sys.stdin", io.StringIO("4k3/8/8/8/8/8/8/4K2R w K -\n"))
    assert len(read_epd("-")) == 1


def test_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.epd"
    path.write_text("4k3/8/8/8/8/8/8/4K2R w K - 0 1\nxx/yy w - -\n")
    with pytest.raises(PositionError, match=f"{path}:2:"):
        read_epd(path)
    with pytest.raises(PositionError, match="cannot read EPD file"):
        read_epd(tmp_path / "missing.epd")


def test_a_file_without_positions_is_an_error(tmp_path):
    path = tmp_path / "empty.epd"
    path.write_text("# nothing here\n\n")
    with pytest.raises(PositionError, match="no positions"):
        read_epd(path)


def test_bundled_suites():
    suites = bundled_suites()
    assert len(suites) == 133 and all(1 in r.depths and 3 in r.depths for r in suites)
    assert [r.name for r in cpw_records()][:2] == ["initial", "kiwipete"]


@pytest.mark.parametrize("line, message", [
    ("4k3/8/8/8/8/8/8/4K3 w", "no castling or en passant fields (an EPD position has four)"),
    ("4k3/8/8/8/8/8/8/4K3 w Q - id \"x\";", "castling rights Q without"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5 ;D2 x", "'D2 x': D2 wants the perft count at depth 2, a whole number"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 9 bogus", "bad EPD operation '9'"),
    ("4k3/8/8/8/8/8/8/4K3 w - - D1 -5;", "'D1 -5'"),
])
def test_epd_positions_and_operations_are_validated(line, message):
    with pytest.raises(PositionError, match=re.escape(message)):
        parse_epd_line(line)
