"""The move-table ROM: node ROM and head ROM of a :mod:`hwmovegen.tables` layout."""

from collections import namedtuple

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .feeder import HEAD_INDEX_WIDTH

__all__ = ["RomSignature", "MoveTableROM", "RomUse"]

RomUse = namedtuple("RomUse", "name depth width read_ports")
RomUse.__doc__ = "A ROM a component instantiates, for a target to count its block RAMs."


class RomSignature(wiring.Signature):
    """The walker's view of the ROM: every port reads synchronously (block RAM).

    Two node ports, A and B, let the walker read both successors of a node
    (nextpos and nextdir) in the same cycle.
    """

    def __init__(self, layout):
        super().__init__({
            "node_a_addr": Out(layout.addr_width),
            "node_a_data": In(layout.word_width),
            "node_b_addr": Out(layout.addr_width),
            "node_b_data": In(layout.word_width),
            "head_index": Out(HEAD_INDEX_WIDTH),
            "head_en": Out(1),
            "head_addr": In(layout.addr_width),
        })


class MoveTableROM(wiring.Component):
    """Node ROM (one word per table node) and head ROM ([kind][square] -> node address).

    Both are :class:`~amaranth.lib.memory.Memory` with synchronous read ports, so
    synthesis maps them to block RAM (iCE40 EBR, ECP5 DP16KD). The node ROM has
    two read ports; what that costs depends on the device (``hwmovegen.boards.targets``).
    """

    def __init__(self, layout):
        self.layout = layout
        super().__init__({"bus": In(RomSignature(layout))})

    @staticmethod
    def roms(layout):
        """The ROMs this component instantiates."""
        (node, node_depth, node_width), (head, head_depth, head_width) = layout.roms()
        return [RomUse(node, node_depth, node_width, 2), RomUse(head, head_depth, head_width, 1)]

    def elaborate(self, platform):
        m = Module()
        layout = self.layout
        m.submodules.nodes = nodes = Memory(shape=layout.word_width, depth=len(layout.node_image),
                                            init=layout.node_image)
        m.submodules.heads = heads = Memory(shape=layout.addr_width, depth=layout.head_depth,
                                            init=layout.head_image)
        port_a = nodes.read_port()
        port_b = nodes.read_port()
        head_port = heads.read_port()
        m.d.comb += [
            port_a.addr.eq(self.bus.node_a_addr),
            self.bus.node_a_data.eq(port_a.data),
            port_b.addr.eq(self.bus.node_b_addr),
            self.bus.node_b_data.eq(port_b.data),
            head_port.addr.eq(self.bus.head_index),
            head_port.en.eq(self.bus.head_en),
            self.bus.head_addr.eq(head_port.data),
        ]
        return m
