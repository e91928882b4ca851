"""Node decoder: the hardware form of ``Layout.decode`` for each ROM layout.

Each decoder is purely combinational: from the current node address and the
word the ROM returned, it gives the node's target square and kind, and the
addresses the walk goes to next with their end flags. The golden model calls
``Layout.decode`` in Python; these must compute the same function.
"""

from amaranth import Module, Mux, Cat, Const
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import ButterflyLayout, DenseLayout

__all__ = ["NodeDecoder"]


class NodeDecoder(wiring.Component):
    def __init__(self, layout):
        self.layout = layout
        aw = layout.addr_width
        self.word_layout = data.StructLayout({f.name: f.width for f in layout.fields})
        super().__init__({
            "addr": In(aw), "word": In(layout.word_width), "is_queen": In(1),
            "to": Out(6), "kind": Out(3),
            "pos_addr": Out(aw), "pos_end": Out(1),
            "dir_addr": Out(aw), "dir_end": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        word = data.View(self.word_layout, self.word)
        if isinstance(self.layout, DenseLayout):
            # nextpos = addr + 1, nextdir = addr + skip; leaving the last ray ends the
            # chain unless a queen walks on from its rook block into the bishop block.
            leaves = word.last & ~(self.is_queen & word.qcont)
            m.d.comb += [
                self.to.eq(word.to),
                self.kind.eq(word.kind),
                self.pos_addr.eq(self.addr + 1),
                self.dir_addr.eq(self.addr + word.skip),
                self.dir_end.eq(leaves),
                self.pos_end.eq(leaves & (word.skip == 1)),
            ]
        elif isinstance(self.layout, ButterflyLayout):
            # address = plane << 12 | from << 6 | to; a pointer equal to `from` ends the chain
            frm, plane = self.addr[6:12], self.addr[12:15]
            next_plane = Mux(word.xplane, Const(ButterflyLayout.CASTLE_PLANE, 3), plane)
            m.d.comb += [
                self.to.eq(self.addr[0:6]),
                self.kind.eq(word.kind),
                self.pos_addr.eq(Cat(word.nextpos, frm, next_plane)),
                self.dir_addr.eq(Cat(word.nextdir, frm, next_plane)),
                self.pos_end.eq(~word.xplane & (word.nextpos == frm)),
                self.dir_end.eq(~word.xplane & (word.nextdir == frm)),
            ]
        else:
            raise TypeError(f"no hardware decoder for layout {self.layout.name!r}")
        return m
