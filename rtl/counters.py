"""Per-position performance counters, shared by every core, and the stream counts every core
and stage keeps (:class:`StreamCount`)."""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .types import COUNTER_WIDTH, Counters, COUNTER_NAMES

__all__ = ["PerfCounters", "StreamCount"]


class StreamCount:
    """The cycles, moves (transfers) and stalls (``valid`` without ``ready``) counted at a
    stream, in segments: the one definition of :class:`~.types.Counters`' stream fields.

    Parameters
    ----------
    m : Module
        The module the registers are driven in.
    valid, ready : Value
        The stream's handshake.
    restart : Value
        A segment begins this cycle: ``cycles`` restarts at ``first_cycle``, ``moves`` and
        ``stalls`` at 0, or with ``carry`` at this cycle's transfer and stall (the cycle counted
        into the new segment).
    cycle : Value
        Outside ``restart``, the cycle counts.
    watch : Value, optional
        Outside ``restart``, the stream's transfer or stall counts (by default: always).
    first_cycle : int
        What ``cycles`` restarts at: 1 counts the ``restart`` cycle itself.
    carry : bool
        See ``restart``.
    registers : tuple of Value, optional
        The three registers (``cycles``, ``moves``, ``stalls``), if the caller keeps them in a
        wider one; by default new signals named ``<name>cycles`` and so on.
    name : str
        The prefix of the new signals' names.

    Members
    -------
    cycles, moves, stalls : Signal(COUNTER_WIDTH)
        The counts of the current segment, up to the cycle before this one.
    transfer, stall : Value
        This cycle's.
    """

    def __init__(self, m, valid, ready, *, restart, cycle, watch=None, first_cycle=0, carry=False, registers=None,
                 name=""):
        if first_cycle not in (0, 1):
            raise ValueError(f"first_cycle must be 0 or 1, not {first_cycle!r}")
        if registers is None:
            registers = tuple(Signal(COUNTER_WIDTH, name=f"{name}{field}") for field in ("cycles", "moves", "stalls"))
        self.cycles, self.moves, self.stalls = registers
        self.transfer, self.stall = valid & ready, valid & ~ready
        with m.If(restart):
            m.d.sync += [self.cycles.eq(first_cycle),
                         self.moves.eq(self.transfer if carry else 0),
                         self.stalls.eq(self.stall if carry else 0)]
        with m.Else():
            with m.If(cycle):
                m.d.sync += self.cycles.eq(self.cycles + 1)
            counts = [self.moves.eq(self.moves + self.transfer), self.stalls.eq(self.stalls + self.stall)]
            if watch is None:
                m.d.sync += counts
            else:
                with m.If(watch):
                    m.d.sync += counts

    def through_this_cycle(self):
        """(cycles, moves, stalls) with this cycle counted: a segment's figures as it ends."""
        return self.cycles + 1, self.moves + self.transfer, self.stalls + self.stall


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
        # start counts its own cycle, so that no bit of the register has a reset value of its
        # own (a split register would leave the port with mixed drivers)
        StreamCount(m, self.valid, self.ready, restart=self.start, cycle=self.busy, watch=self.busy, first_cycle=1,
                    registers=(count["cycles"], count["moves"], count["stalls"]))
        with m.If(self.busy):
            with m.If(self.step):
                m.d.sync += count["steps"].eq(count["steps"] + 1)
        with m.If(self.start):
            m.d.sync += [count["steps"].eq(0), count["promotion_nodes"].eq(0)]
        return m
