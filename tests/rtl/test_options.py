# amaranth: UnusedElaboratable=no
"""The public components take their options by keyword and refuse bad ones at construction,
every problem in one error."""

import pytest
from amaranth.hdl import Fragment

from hwmovegen.rtl.fast import FastCore
from hwmovegen.rtl.hostlink import HostLink
from hwmovegen.rtl.movegen import MoveGenerator
from hwmovegen.rtl.order import Order
from hwmovegen.rtl.perft import PerftArray, PerftEngine
from hwmovegen.rtl.protocol import CORE_IDS
from hwmovegen.rtl.walker import WalkerCore
from hwmovegen.tables import get_layout
from hwmovegen.tables.contracts import MAX_PLIES, SELECTABLE


def test_good_options_build():
    for order in (None, SELECTABLE, Order.CAPTURES):
        assert MoveGenerator(layout="butterfly", core="fast", legal=True, order=order).ordered == (order is not None)
    assert MoveGenerator(layout=get_layout("dense")).layout is get_layout("dense")
    array = PerftArray(engines=2, max_depth=3, count_leaves=False)
    Fragment.get(array, None)       # elaborated, so its engines are used (no UnusedElaboratable at exit)
    assert len(array.engines) == 2
    assert HostLink(layout_id=1, core_id=CORE_IDS["fast"], idle_timeout=5, perft_engines=255).perft_engines == 255


def test_every_problem_in_one_error():
    with pytest.raises(ValueError) as error:
        MoveGenerator(layout="sparse", core="slow", legal=1, order=True, positions=None)
    message = str(error.value)
    assert message.startswith("MoveGenerator: ")
    for problem in ("layout must be", "unknown core 'slow'", "legal must be True or False, not 1",
                    "order must be None, an Order or 'select', not True", "positions must be"):
        assert problem in message
    assert "editable" not in message
    with pytest.raises(ValueError, match=f"PerftArray: engines must be an integer at least 1, not 0; "
                                         f"max_depth must be an integer from 1 to {MAX_PLIES}, not {MAX_PLIES + 1}"):
        PerftArray(engines=0, max_depth=MAX_PLIES + 1)
    with pytest.raises(ValueError, match="PerftEngine: count_leaves must be True or False"):
        PerftEngine(count_leaves="yes")
    with pytest.raises(ValueError, match="HostLink: unknown layout_id 7 .*idle_timeout .* not 0; perft_engines"):
        HostLink(layout_id=7, core_id=0, idle_timeout=0, perft_engines=256)
    for core in (WalkerCore, FastCore):
        with pytest.raises(ValueError, match=f"{core.__name__}: layout must be a Layout, not 'dense'"):
            core(layout="dense")


def test_options_are_keywords():
    with pytest.raises(TypeError):
        MoveGenerator("dense", "fast")
    with pytest.raises(TypeError):
        PerftArray("dense", "walker", 2)
    with pytest.raises(TypeError):
        HostLink(0, 0, 10)
    with pytest.raises(TypeError):
        WalkerCore(get_layout("dense"))
