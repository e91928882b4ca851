"""Per-position performance counters, shared by every core."""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .types import Counters, COUNTER_NAMES

__all__ = ["PerfCounters"]


class PerfCounters(wiring.Component):
    """Counts a generation: ``start`` clears them (and counts its own cycle), then
    every ``busy`` cycle, every transfer and stall on the move stream (``valid`` /
    ``ready``), every ``step`` of the core's unit of work, every ``promotion`` node.

    ``promotion`` lands a cycle later through a 1-bit register (not a deep enable on
    a 32-bit counter); a core raises it at least a cycle before it finishes.
    """

    start: In(1)
    busy: In(1)
    valid: In(1)
    ready: In(1)
    step: In(1)
    promotion: In(1)
    counters: Out(Counters)

    def elaborate(self, platform):
        m = Module()
        # one register for all counters, the port driven whole from it (a port whose bits
        # mix flip-flops and logic costs CXXRTL a second eval per clock)
        register = Signal(Counters)
        count = {name: register[name] for name in COUNTER_NAMES}
        m.d.comb += self.counters.eq(register)
        promoted = Signal(1)
        m.d.sync += promoted.eq(self.promotion)
        with m.If(promoted):
            m.d.sync += count["promotion_nodes"].eq(count["promotion_nodes"] + 1)
        # start counts its own cycle: 0 + 1, so that no bit of the register has a reset
        # value of its own (a split register would leave the port with mixed drivers)
        with m.If(self.busy | self.start):
            m.d.sync += count["cycles"].eq(Mux(self.start, 0, count["cycles"]) + 1)
        with m.If(self.busy):
            with m.If(self.valid & self.ready):
                m.d.sync += count["moves"].eq(count["moves"] + 1)
            with m.If(self.valid & ~self.ready):
                m.d.sync += count["stalls"].eq(count["stalls"] + 1)
            with m.If(self.step):
                m.d.sync += count["steps"].eq(count["steps"] + 1)
        with m.If(self.start):
            m.d.sync += [count[name].eq(0) for name in COUNTER_NAMES if name != "cycles"]
        return m
