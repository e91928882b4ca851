"""The move-table ROM: node ROM and head ROM of a :mod:`hwmovegen.tables` layout."""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables import get_layout, TableKind

__all__ = ["RomSignature", "MoveTableROM"]

HEAD_INDEX_WIDTH = 9    # kind (3 bits) * 64 + square (6 bits)


class RomSignature(wiring.Signature):
    """The sequencer's view of the ROM: both ports read synchronously (block RAM)."""

    def __init__(self, layout):
        super().__init__({
            "node_addr": Out(layout.addr_width),
            "node_en": Out(1),
            "node_data": In(layout.word_width),
            "head_index": Out(HEAD_INDEX_WIDTH),
            "head_en": Out(1),
            "head_addr": In(layout.addr_width),
        })


class MoveTableROM(wiring.Component):
    """Node ROM (one word per table node) and head ROM ([kind][square] -> node address).

    Both are :class:`~amaranth.lib.memory.Memory` with synchronous read ports, so
    synthesis maps them to block RAM (iCE40 EBR, ECP5 DP16KD).
    """

    def __init__(self, layout="dense"):
        self.layout = get_layout(layout) if isinstance(layout, str) else layout
        super().__init__({"bus": In(RomSignature(self.layout))})

    def elaborate(self, platform):
        m = Module()
        layout = self.layout
        m.submodules.nodes = nodes = Memory(shape=layout.word_width, depth=len(layout.node_image),
                                            init=layout.node_image)
        m.submodules.heads = heads = Memory(shape=layout.addr_width, depth=len(TableKind) * 64,
                                            init=layout.head_image)
        node_port = nodes.read_port()
        head_port = heads.read_port()
        m.d.comb += [
            node_port.addr.eq(self.bus.node_addr),
            node_port.en.eq(self.bus.node_en),
            self.bus.node_data.eq(node_port.data),
            head_port.addr.eq(self.bus.head_index),
            head_port.en.eq(self.bus.head_en),
            self.bus.head_addr.eq(head_port.data),
        ]
        return m
