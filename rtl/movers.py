"""The movers mask: which pieces of the side to move have at least one move, all 64 squares at once.

A piece has a move exactly when the first node of one of its non-castling rays
emits (a castling move needs the king's step onto the path square, which then
emits too; a double push needs the single push). So the mask is the first node
of every ray of every (kind, square) in :mod:`hwmovegen.tables`, evaluated for
all squares in parallel: a core that takes only these pieces spends no cycle on
a piece without moves.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import NodeKind, TableKind, rays

__all__ = ["MoverMask"]


class MoverMask(wiring.Component):
    """``movers`` (registered) from the side to move's ``own`` pieces, the ``occupied``
    squares, the pieces' ``types`` and the en-passant square, a cycle after they are given.

    The first nodes are grouped as the geometry groups them (the rook's, the bishop's,
    the knight's and each pawn's first nodes), so a queen or king shares the rook's and
    bishop's terms.
    """

    def __init__(self, *, captures=False):
        self.captures_port = captures
        super().__init__({
            "types": In(data.ArrayLayout(64, 3)),      # the piece-type bitplanes
            "white_to_move": In(1),
            "occupied": In(64),
            "own": In(64),
            "capturable": In(64),                   # opponents and the en-passant square
            **({"captures": In(1)} if captures else {}),
            "movers": Out(64),
        })

    def elaborate(self, platform):
        m = Module()
        planes = self.types
        free, empty, capturable = ~self.own, ~self.occupied, self.capturable
        emits = {NodeKind.NORMAL: free, NodeKind.PUSH: empty, NodeKind.PROMO_PUSH: empty,
                 NodeKind.CAPTURE: capturable, NodeKind.PROMO_CAPTURE: capturable}
        # a first node that captures: a step or jump onto an opponent, a pawn's capture node
        opponent = self.occupied & ~self.own
        takes = {NodeKind.NORMAL: opponent, NodeKind.CAPTURE: capturable, NodeKind.PROMO_CAPTURE: capturable}

        def first_emits(kind, square, emits=emits):
            firsts = [ray[0] for ray in rays(kind, square)
                      if ray[0].kind not in (NodeKind.CASTLE_PATH, NodeKind.CASTLE) and ray[0].kind in emits]
            return Cat(emits[node.kind][node.to] for node in firsts).any() if firsts else Const(0, 1)

        def first_takes(kind, square):
            return first_emits(kind, square, takes)

        movers = Signal(64)
        for square in range(64):
            piece_type = Cat(planes[0][square], planes[1][square], planes[2][square])
            rook, bishop = first_emits(TableKind.ROOK, square), first_emits(TableKind.BISHOP, square)
            pawn = Mux(self.white_to_move, first_emits(TableKind.WPAWN, square),
                       first_emits(TableKind.BPAWN, square))
            knight, king = first_emits(TableKind.KNIGHT, square), rook | bishop
            if self.captures_port:
                pawn = Mux(self.captures, Mux(self.white_to_move, first_takes(TableKind.WPAWN, square),
                                              first_takes(TableKind.BPAWN, square)), pawn)
                knight = Mux(self.captures, first_takes(TableKind.KNIGHT, square), knight)
                king = Mux(self.captures, first_takes(TableKind.ROOK, square) | first_takes(TableKind.BISHOP, square),
                           king)
            with m.Switch(piece_type):
                for kind, term in ((TableKind.ROOK, rook), (TableKind.BISHOP, bishop),
                                   (TableKind.QUEEN, rook | bishop), (TableKind.KING, king),
                                   (TableKind.KNIGHT, knight), (1, pawn)):
                    with m.Case(kind):
                        m.d.sync += movers[square].eq(self.own[square] & term)
                with m.Default():
                    m.d.sync += movers[square].eq(0)
        m.d.comb += self.movers.eq(movers)
        return m
