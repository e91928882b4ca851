"""The ray probe: how far a piece on a square can go in every direction, one square per cycle.

For the square given in a cycle it reports, three cycles later, the type of the
piece on it (``piece_type``) and for each of the
king's eight directions (``hwmovegen.tables.slots.DIRECTIONS`` 0-7) the number of
empty squares before the first occupied square or the edge (``reach``) and whether
that first occupied square holds an opponent (``stop_opponent``), and for each of
the knight's eight jumps whether its target is on the board and not an own piece
(``jump_free``) and whether it holds an opponent (``jump_opponent``).

Stage 1 gathers the occupancy of the four lines through the square (its file,
rank, diagonal and anti-diagonal: 8 bits each, one 8:1 multiplexer per bit) and
the four ranks the knight's targets lie on; stage 2 finds the first blocked square
on each side of the square in each line (one-hot), and picks the knight's targets
from their ranks; stage 3 turns each stop into a distance. Each stage is a few
LUTs deep. The board must not change while a square is in flight.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables.slots import DIRECTIONS

__all__ = ["RayProbe", "ProbeResult", "LINE_OF_DIRECTION"]

# direction -> (line, upwards): lines are 0 file (indexed by rank), 1 rank (by file),
# 2 diagonal (by rank, file - rank constant), 3 anti-diagonal (by rank, file + rank constant)
LINE_OF_DIRECTION = {(0, 1): (0, True), (0, -1): (0, False), (1, 0): (1, True), (-1, 0): (1, False),
                     (1, 1): (2, True), (-1, -1): (2, False), (-1, 1): (3, True), (1, -1): (3, False)}


class ProbeResult(data.Struct):
    piece_type: 3                           # what stands on the square (python-chess type, 0 none)
    reach: data.ArrayLayout(3, 8)           # empty squares before the stop, per king direction
    stop_opponent: 8                        # the stop square holds an opponent
    jump_free: 8                            # knight jump: on the board and not an own piece
    jump_opponent: 8                        # knight jump: onto an opponent

JUMP_RANKS = (-2, -1, 1, 2)                 # the ranks a knight's targets lie on, relative to its own


class RayProbe(wiring.Component):
    def __init__(self, tag_shape=0):
        self.tag_shape = tag_shape
        super().__init__({
            "valid": In(1),
            "square": In(6),
            "diagonal": In(3),              # (file - rank) mod 8 of the square
            "anti_diagonal": In(3),         # (file + rank) mod 8 of the square
            "tag": In(tag_shape),           # carried along with the square
            "occupied": In(64),
            "own": In(64),
            "types": In(data.ArrayLayout(64, 3)),     # the board's piece-type bitplanes
            "out_valid": Out(1),
            "out_square": Out(6),
            "out_tag": Out(tag_shape),
            "result": Out(ProbeResult),
        })

    @staticmethod
    def diagonals(square):
        """The ``diagonal`` and ``anti_diagonal`` inputs for a square."""
        file, rank = square & 7, square >> 3
        return (file - rank) % 8, (file + rank) % 8

    def elaborate(self, platform):
        m = Module()
        file, rank = self.square[0:3], self.square[3:6]
        occupied, own = self.occupied, self.own
        opponent = occupied & ~own

        def rotated(byte, by):
            """rotated(byte, by)[k] == byte[(k + by) mod 8]: a select made free wiring."""
            return Cat(byte[(k + by) % 8] for k in range(8))

        # ---- stage 1: the four lines' occupied and opponent bits, each bit one 8:1 select
        # by a registered index; a diagonal's rank-i bit is on file (diagonal + i) mod 8, so
        # rotating rank i by i turns the select into a plain one (the anti-diagonal likewise)
        gathers = {n: [] for n in range(4)}
        for i in range(8):
            row_occ, row_opp = occupied[8 * i:8 * i + 8], opponent[8 * i:8 * i + 8]
            gathers[0].append((occupied.bit_select(8 * i + file, 1), opponent.bit_select(8 * i + file, 1)))
            gathers[1].append((occupied.bit_select(Cat(Const(i, 3), rank), 1),
                               opponent.bit_select(Cat(Const(i, 3), rank), 1)))
            gathers[2].append((rotated(row_occ, i).bit_select(self.diagonal, 1),
                               rotated(row_opp, i).bit_select(self.diagonal, 1)))
            gathers[3].append((rotated(row_occ, -i).bit_select(self.anti_diagonal, 1),
                               rotated(row_opp, -i).bit_select(self.anti_diagonal, 1)))
        lines = {n: (Cat(b for b, _ in gathers[n]), Cat(o for _, o in gathers[n])) for n in range(4)}
        # which ranks the diagonals through the square reach (a function of the square: a
        # constant table, two LUTs deep); off the board counts as blocked, never as an opponent
        inside = {}
        for line, column in ((2, lambda f, r, i: f - r + i), (3, lambda f, r, i: f + r - i)):
            inside[line] = Cat(Const(sum(1 << sq for sq in range(64) if 0 <= column(sq & 7, sq >> 3, i) <= 7),
                                     64).bit_select(self.square, 1) for i in range(8))
        blocked = {0: lines[0][0], 1: lines[1][0], 2: lines[2][0] | ~inside[2], 3: lines[3][0] | ~inside[3]}
        opp = {0: lines[0][1], 1: lines[1][1], 2: lines[2][1] & inside[2], 3: lines[3][1] & inside[3]}
        s1_blocked = [Signal(8, name=f"s1_line{n}_blocked") for n in range(4)]
        s1_lines_opp = [Signal(8, name=f"s1_line{n}_opponent") for n in range(4)]
        m.d.sync += [s1_blocked[n].eq(blocked[n]) for n in range(4)]
        m.d.sync += [s1_lines_opp[n].eq(opp[n]) for n in range(4)]
        # thermometers of the square's position in its lines: the positions above it
        s1_above = {"rank": Signal(8), "file": Signal(8)}
        m.d.sync += [s1_above["rank"].eq((Const(0xFF, 9) << (rank + 1))[:8]),
                     s1_above["file"].eq((Const(0xFF, 9) << (file + 1))[:8])]
        s1_file, s1_rank = Signal(3), Signal(3)
        s1_valid, s1_square, s1_tag = Signal(1), Signal(6), Signal(self.tag_shape)
        # the piece on the square: its rank of each type plane (stage 1), its file there (stage 2)
        s1_type_ranks = [Signal(8, name=f"s1_type_rank{bit}") for bit in range(3)]
        s2_type = Signal(3)
        m.d.sync += [s1_type_ranks[bit].eq(plane.word_select(rank, 8)) for bit, plane in enumerate(self.types)]
        m.d.sync += s2_type.eq(Cat(byte.bit_select(s1_file, 1) for byte in s1_type_ranks))
        # the knight's targets: the squares not holding an own piece on the four ranks they
        # lie on, each rank a select of a mask rotated by whole ranks
        free = ~own
        s1_jump_ranks = {dr: Signal(8, name=f"s1_jump_rank{dr + 2}") for dr in JUMP_RANKS}
        s1_jump_opp = {dr: Signal(8, name=f"s1_jump_opp{dr + 2}") for dr in JUMP_RANKS}
        for dr in JUMP_RANKS:
            row_inside = (rank + dr >= 0) if dr < 0 else (rank <= 7 - dr)
            for mask, byte in ((free, s1_jump_ranks[dr]), (opponent, s1_jump_opp[dr])):
                rows = Cat(mask[8 * ((k + dr) % 8):8 * ((k + dr) % 8) + 8] for k in range(8))
                m.d.sync += byte.eq(Mux(row_inside, rows.word_select(rank, 8), 0))
        m.d.sync += [s1_file.eq(file), s1_rank.eq(rank), s1_valid.eq(self.valid), s1_square.eq(self.square),
                     s1_tag.eq(self.tag)]

        # ---- stage 2: each ray's squares beyond the piece, in its own order (positions 1-7 of
        # the line seen from the piece's side: a ray never stops at position 0), then the first
        # blocked one (one-hot, 0 at the edge) and whether it holds an opponent
        s2_first = [Signal(7, name=f"s2_first_{d}") for d in range(8)]
        s2_p = {0: Signal(3), 1: Signal(3)}                                # rank, file
        s2_valid, s2_square, s2_tag = Signal(1), Signal(6), Signal(self.tag_shape)
        stop_opponent = Signal(8)
        for direction, (df, dr) in enumerate(DIRECTIONS[:8]):
            line, upwards = LINE_OF_DIRECTION[df, dr]
            mask = s1_above["file" if line == 1 else "rank"]
            line_blocked, line_opp = s1_blocked[line], s1_lines_opp[line]
            if not upwards:     # mirror the line: the ray runs upwards from the mirrored position
                mask = (~((mask >> 1) | 0x80))[:8][::-1]    # the positions below, mirrored
                line_blocked, line_opp = line_blocked[::-1], line_opp[::-1]
            beyond = (line_blocked & mask)[1:]
            first = Cat(beyond[i] & ~beyond[:i].any() if i else beyond[0] for i in range(7))
            m.d.sync += [s2_first[direction].eq(first),
                         stop_opponent[direction].eq((first & line_opp[1:]).any())]
        m.d.sync += [s2_p[0].eq(s1_rank), s2_p[1].eq(s1_file),
                     s2_valid.eq(s1_valid), s2_square.eq(s1_square), s2_tag.eq(s1_tag)]

        # ---- stage 3: reach = the stop's distance - 1 (the edge is at distance 8 - position)
        result = Signal(ProbeResult)
        for direction, (df, dr) in enumerate(DIRECTIONS[:8]):
            line, upwards = LINE_OF_DIRECTION[df, dr]
            p = s2_p[1] if line == 1 else s2_p[0]
            p = p if upwards else ~p            # 7 - p on a mirrored line
            first = s2_first[direction]
            index = Mux(first == 0, 8, Cat((first & sum(1 << (i - 1) for i in range(1, 8) if i >> b & 1)).any()
                                           for b in range(3)))
            m.d.sync += result.reach[direction].eq(index - p - 1)
        m.d.sync += [result.stop_opponent.eq(stop_opponent), result.piece_type.eq(s2_type)]

        # the knight's targets, picked from their ranks in stage 2 and passed on in stage 3
        s2_jumps, s2_jump_opp = Signal(8), Signal(8)
        for j, (df, dr) in enumerate(DIRECTIONS[8:]):
            inside = Const(sum(1 << f for f in range(8) if 0 <= f + df <= 7), 8).bit_select(s1_file, 1)
            m.d.sync += [s2_jumps[j].eq(inside & rotated(s1_jump_ranks[dr], df).bit_select(s1_file, 1)),
                         s2_jump_opp[j].eq(inside & rotated(s1_jump_opp[dr], df).bit_select(s1_file, 1))]
        m.d.sync += [result.jump_free.eq(s2_jumps), result.jump_opponent.eq(s2_jump_opp),
                     self.out_valid.eq(s2_valid), self.out_square.eq(s2_square), self.out_tag.eq(s2_tag)]
        m.d.comb += self.result.eq(result)
        return m
