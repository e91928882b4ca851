"""rtl/combcheck.py: Amaranth's combinational-cycle check answered a cell at a time where the cells
have no cycle, Amaranth's own check wherever they have one."""

import pytest
from amaranth import Module, Signal
from amaranth.back import rtlil
from amaranth.hdl import _nir
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hwmovegen.rtl import combcheck
from hwmovegen.rtl.movegen import MoveGenerator
from hwmovegen.tables.contracts import GeneratorConfig


class _Wires(wiring.Component):
    """``loop``: ``a`` and ``b`` drive each other (a cycle of bits); otherwise the bit 1 of ``x`` is its
    bit 0, whose driver is the input: a cycle of cells (``x``'s one assignment cell reads its own
    output) but none of bits."""
    i: In(1)
    o: Out(2)

    def __init__(self, loop):
        self._loop = loop
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        if self._loop:
            a, b = Signal(), Signal()
            m.d.comb += [a.eq(b ^ self.i), b.eq(a), self.o.eq(b)]
        else:
            x = Signal(2)
            m.d.comb += [x[0].eq(self.i), x[1].eq(x[0]), self.o.eq(x)]
        return m


@pytest.fixture
def verdicts(monkeypatch):
    """The pre-check's answers during the conversions of the test."""
    seen = []

    def recorded(netlist):
        seen.append(answer := acyclic(netlist))
        return answer
    acyclic = combcheck.cells_are_acyclic
    monkeypatch.setattr(combcheck, "cells_are_acyclic", recorded)
    return seen


def test_installed_with_the_package():
    assert _nir.Netlist.check_comb_cycles is combcheck._check_comb_cycles


def test_a_cycle_of_bits_is_still_refused(verdicts):
    with pytest.raises(_nir.CombinationalCycle, match="Combinational cycle detected"):
        rtlil.convert(_Wires(loop=True))
    assert verdicts == [False]      # Amaranth's own check refused it, with its message


def test_a_cycle_of_cells_alone_goes_to_amaranths_check(verdicts):
    assert "module" in rtlil.convert(_Wires(loop=False))
    assert verdicts == [False]


def test_a_generator_is_answered_a_cell_at_a_time_and_converts_as_before(verdicts, monkeypatch):
    design = lambda: MoveGenerator.from_config(GeneratorConfig(core="fast", legal=True))     # noqa: E731
    fast = rtlil.convert(design())
    assert verdicts == [True]
    monkeypatch.setattr(_nir.Netlist, "check_comb_cycles", combcheck._amaranths_check)
    assert rtlil.convert(design()) == fast and verdicts == [True]
