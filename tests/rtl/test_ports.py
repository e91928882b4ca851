# amaranth: UnusedElaboratable=no
"""Signatures whose members a component holds flat: joined with wiring.connect, the names kept."""

import pytest
from amaranth import Module
from amaranth.lib import wiring

from hwmovegen.rtl.core import ControlSignature
from hwmovegen.rtl.hostlink import HostLink, LinkSignature
from hwmovegen.rtl.movegen import MoveGenerator, control_signature
from hwmovegen.rtl.ports import group
from hwmovegen.rtl.protocol import CORE_IDS
from hwmovegen.tables.contracts import SELECTABLE


def test_the_generator_keeps_its_plain_port_names():
    """The CXXRTL drivers, the Verilog export and the cocotb bench name these ports."""
    generator = MoveGenerator(legal=True, order=SELECTABLE)
    assert list(generator.signature.members) == ["load", "start", "start_ready", "abort", "busy", "done", "moves",
                                                 "counters", "all_moves", "order"]
    control = generator.control
    assert control.start is generator.start and control.moves is generator.moves
    assert "abort" not in control.signature.members


def test_a_group_connects_to_the_other_side_of_its_signature():
    generator = MoveGenerator(legal=True)
    driver = control_signature(legal=True).flip().create(path=("driver",))
    wiring.connect(Module(), driver, generator.control)     # raises if the members differ
    with pytest.raises(wiring.ConnectionError):
        wiring.connect(Module(), control_signature().flip().create(), generator.control)    # no all_moves


def test_a_group_of_the_wrong_flows_is_refused():
    generator = MoveGenerator()
    with pytest.raises(TypeError, match="'start'"):
        group(generator, ControlSignature().flip())


def test_the_host_link_takes_what_its_generator_offers():
    """The link's generator side is exactly the control of the generator built with the same options."""
    for legal, order in ((False, False), (True, False), (True, True)):
        link = HostLink(layout_id=0, core_id=CORE_IDS["walker"], idle_timeout=10, legality=legal, ordering=order)
        assert link.signature.members["generator"].signature.flip().members == \
            control_signature(legal, order).members
        assert set(LinkSignature(legal, order).members) <= set(link.signature.members)
