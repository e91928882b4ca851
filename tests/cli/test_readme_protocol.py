"""The host-link table of docs/protocol.md against rtl/protocol.py and rtl/types.py: every frame, its
type code, direction and payload length, the position image as the code lays it out, GENERATE's flags,
PONG's features, the Move bits and every error code, so that a host written from the docs speaks what
the hardware speaks."""

import re
from pathlib import Path

from amaranth.lib import data

from amaranth import Shape

from hwmovegen.rtl.order import Order
from hwmovegen.rtl.protocol import (DONE_LENGTH, ERROR_MEANINGS, FEATURE_LEGALITY, FEATURE_ORDER, FEATURE_SEARCH,
                                    GENERATE_LENGTH, HISTORY_LENGTH, MOVE_LENGTH, PERFT_DONE_LENGTH, PERFT_LENGTH,
                                    PERFT_MAX_DEPTH, PONG_LENGTH, PROTOCOL_VERSION, SEARCH_DONE_LENGTH, SEARCH_LENGTH,
                                    SEARCH_REQUEST_BYTES, SEARCH_RESULT_BYTES, ErrorCode, FrameType)
from hwmovegen.rtl.search import SEARCH_COUNTER_NAMES, SEARCH_COUNTER_WIDTH, SearchRequest, SearchResult
from hwmovegen.tables.search import BOUNDS, MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE
from hwmovegen.rtl.types import PLANE_BYTES, PLANES, POSITION_BYTES, BoardState, GenerateFlags, Move, byte_length

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
PLANES_WORDS = {4: "four"}

LENGTHS = {FrameType.PING: 0, FrameType.PONG: PONG_LENGTH, FrameType.GENERATE: GENERATE_LENGTH,
           FrameType.MOVE: MOVE_LENGTH, FrameType.DONE: DONE_LENGTH, FrameType.PERFT: PERFT_LENGTH,
           FrameType.PERFT_DONE: PERFT_DONE_LENGTH, FrameType.ERROR: 1, FrameType.SEARCH: SEARCH_LENGTH,
           FrameType.ABORT: 0, FrameType.HISTORY: HISTORY_LENGTH, FrameType.SEARCH_DONE: SEARCH_DONE_LENGTH}


def frame_rows():
    """The protocol page's frame table: {FrameType: (direction, payload text)}."""
    rows = {}
    for line in PROTOCOL.read_text().splitlines():
        match = re.match(r"\| `(\w+)` 0x([0-9A-F]{2}) \| (host to FPGA|FPGA to host) \| (.*) \|$", line)
        if match:
            frame = FrameType[match[1]]
            assert frame == int(match[2], 16), f"{match[1]} is 0x{frame:02X} in rtl/protocol.py"
            rows[frame] = (match[3], match[4])
    return rows


def test_every_frame_with_its_code_direction_and_length():
    rows = frame_rows()
    assert set(rows) == set(FrameType)
    for frame, (direction, payload) in rows.items():
        assert direction == ("host to FPGA" if frame < 0x80 else "FPGA to host"), frame.name
        length = LENGTHS[frame]
        if length:
            assert payload.startswith(f"{length} byte"), (frame.name, payload)
        else:
            assert payload.split(":")[0] == "none", (frame.name, payload)


def test_the_position_image_as_the_code_lays_it_out():
    generate = frame_rows()[FrameType.GENERATE][1]
    assert POSITION_BYTES == PLANES * PLANE_BYTES + byte_length(BoardState)
    assert f"the {PLANES_WORDS[PLANES]} bitplanes" in generate and f"{PLANE_BYTES} bytes each" in generate
    assert "two per byte" not in PROTOCOL.read_text()          # the image before the bitplanes
    assert f"{data.Layout.cast(BoardState).size} `BoardState` bits" in generate
    move = frame_rows()[FrameType.MOVE][1]
    assert f"{data.Layout.cast(Move).size} `Move` bits" in move
    perft = frame_rows()[FrameType.PERFT][1]
    assert f"depth (1 to {PERFT_MAX_DEPTH})" in perft
    pong = frame_rows()[FrameType.PONG][1]
    assert f"protocol version ({PROTOCOL_VERSION})" in pong


def test_every_error_code():
    error = frame_rows()[FrameType.ERROR][1]
    listed = {int(code) for code in re.findall(r"(?:^|, )(\d+) [a-z]", error.split(": ", 1)[1])}
    assert listed == {int(code) for code in ErrorCode} and set(ERROR_MEANINGS) == set(ErrorCode)


def test_the_flags_features_and_move_bits():
    generate = frame_rows()[FrameType.GENERATE][1]
    for name, field in data.Layout.cast(GenerateFlags):
        width = Shape.cast(field.shape).width
        bits = f"bit {field.offset}" if width == 1 else f"bits {field.offset}-{field.offset + width - 1}"
        assert f"{bits} `{name}`" in generate, name
    for order in Order:
        assert f"{order.value} {order.name.lower().replace('_', '-')}" in generate, order
    pong = frame_rows()[FrameType.PONG][1]
    for feature, stage in ((FEATURE_LEGALITY, "legality stage"), (FEATURE_ORDER, "ordering stage"),
                           (FEATURE_SEARCH, "search engine")):
        assert f"bit {feature.bit_length() - 1}: the {stage}" in pong
    move = frame_rows()[FrameType.MOVE][1]
    assert all(f"`{name}`" in move for name, _ in data.Layout.cast(Move))


def _fields_in_order(text, layout):
    """Every field of ``layout`` named in ``text`` with its width (1-bit fields bare), in bit order."""
    at = 0
    for name, field in data.Layout.cast(layout):
        width = Shape.cast(field.shape).width
        written = f"`{name}`" if width == 1 else f"`{name}` {width}"
        found = text.find(written, at)
        assert found >= 0, (name, written)
        at = found + len(written)


def test_the_search_frames():
    rows = frame_rows()
    request = rows[FrameType.SEARCH][1]
    assert f"the {SEARCH_REQUEST_BYTES} bytes of the search engine's `SearchRequest`" in request
    _fields_in_order(request, SearchRequest)
    assert f"`depth` 4 (1 to {MAX_DEPTH})" in request and f"`quiescence` 4 (0 to {MAX_QUIESCENCE})" in request
    assert f"(the HISTORY keys written, 0 to {MAX_HISTORY})" in request
    assert f"an index (0 to {MAX_HISTORY - 1})" in rows[FrameType.HISTORY][1]
    done = rows[FrameType.SEARCH_DONE][1]
    assert f"the {SEARCH_RESULT_BYTES} bytes of the `SearchResult`" in done
    _fields_in_order(done, SearchResult)
    assert ", ".join(f"{index} {bound}" for index, bound in enumerate(BOUNDS)) in done
    assert f"{SEARCH_COUNTER_WIDTH} bits each: " + ", ".join(name.replace("_", " ").replace("pv", "PV")
                                                          for name in SEARCH_COUNTER_NAMES) in done
