"""Bitboard logic in Amaranth: 64-square sets moved, slid along lines, counted.

Everything here is wiring, short carry chains and adder trees in hardware. It is also
written in word-wide operations (shifts, masks, a subtraction per line) rather than one
square at a time, because the compiled simulation (CXXRTL, then g++) pays for every bit
slice: a 64-square permutation spelt bit by bit costs g++ minutes, as masked shifts grouped
by distance it costs a handful of operations, and both synthesize to the same wires.

The permutations of a slide are :class:`Permute` submodules named with :data:`SHARED`: they are
wires in hardware, and identical wherever they occur, so the compiled simulation keeps one C++
class of each (:mod:`hwmovegen.sim.cxxrtl`) instead of spelling out the same wiring dozens of
times, which is what g++ spends its time on.

A *slide* along a direction uses an *orientation* of the board in which every line of that
direction is a run of consecutive bits, in the order a slider moves along it (ranks as they
are; files by transposing; diagonals by rotating each file f by f ranks, which turns them into
two runs per rank; the opposite direction by reversing each byte). On a run, the squares each
seed reaches are ``o ^ (o - 2s)``: the borrow of a seed's bit runs over the empty squares and
stops at the first occupied one.
"""

from functools import lru_cache

from amaranth import Cat, Const, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..tables.lines import lines, step

__all__ = ["SHARED", "Permute", "wire", "permute", "flip_ranks", "shifted", "spread", "orient", "slide",
           "slide_support", "shift_support", "at_least_two", "popcount"]

ALL = (1 << 64) - 1
SHARED = "shared_"      # the prefix of submodules that are identical for identical parameters


def wire(m, value, name):
    """``value`` as a signal (itself if it is one already): a value used in many places is made
    once."""
    if isinstance(value, Signal):
        return value
    signal = Signal(len(Value.cast(value)), name=name)
    m.d.comb += signal.eq(value)
    return signal


def permute(bits, sources):
    """A 64-bit value whose bit ``i`` is ``bits[sources[i]]`` (0 where ``sources[i]`` is None):
    one masked shift per distance a bit moves."""
    by_distance = {}
    for target, source in enumerate(sources):
        if source is not None:
            by_distance[target - source] = by_distance.get(target - source, 0) | 1 << target
    out = Const(0, 64)
    for distance, mask in sorted(by_distance.items()):
        moved = bits << distance if distance >= 0 else bits >> -distance
        out = out | (moved[:64] & mask)
    return out


class Permute(wiring.Component):
    """``out`` bit ``i`` is ``bits[sources[i]]`` (0 where it is None): wiring."""

    bits: In(64)
    out: Out(64)

    def __init__(self, sources):
        self.sources = tuple(sources)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.out.eq(permute(self.bits, self.sources))
        return m


def _permuted(m, bits, sources, name):
    """``bits`` through a shared :class:`Permute` submodule."""
    m.submodules[f"{SHARED}{name}"] = unit = Permute(sources)
    m.d.comb += unit.bits.eq(bits)
    return unit.out


def flip_ranks(bits):
    """A bitboard mirrored top to bottom (rank r to rank 7 - r)."""
    return Cat(*[bits.word_select(7 - r, 8) for r in range(8)])


@lru_cache(maxsize=None)
def _step_sources(direction):
    sources = [None] * 64
    for square in range(64):
        target = step(square, direction)
        if target is not None:
            sources[target] = square
    return tuple(sources)


def shifted(bits, direction):
    """A bitboard moved one step of ``direction`` (a king step or knight jump); what leaves the
    board is dropped."""
    return permute(bits, _step_sources(direction))


def shift_support(direction):
    """The squares a step of ``direction`` can land on."""
    return sum(1 << t for t, s in enumerate(_step_sources(direction)) if s is not None)


def spread(bits, directions):
    """The union of ``bits`` moved by each of ``directions``."""
    out = Const(0, 64)
    for direction in directions:
        out = out | shifted(bits, direction)
    return out


# ---- orientations: permutations (position -> square) built from cheap ones

def _transpose(position):
    return (position & 7) * 8 + (position >> 3)


def _reverse_bytes(position):
    return (position & ~7) | (7 - (position & 7))


def _rotate(sign):
    """Rank r' of the result holds the squares of rank (r' + sign * f) mod 8 of each file f."""
    return lambda position: (((position >> 3) + sign * (position & 7)) % 8) * 8 + (position & 7)


_BASIC = {"transpose": _transpose, "reverse": _reverse_bytes, "rotate+": _rotate(1), "rotate-": _rotate(-1)}
# per direction (N, NE, E, SE, S, SW, W, NW), the basic permutations applied in order
_ORIENTATIONS = {
    0: ("transpose",), 1: ("rotate+",), 2: (), 3: ("rotate-",),
    4: ("transpose", "reverse"), 5: ("rotate+", "reverse"), 6: ("reverse",), 7: ("rotate-", "reverse"),
}


@lru_cache(maxsize=None)
def _orientation(direction):
    """(the basic permutations as source tables, their inverses in reverse order, and the runs
    (start, length) of the oriented word, which tile it)."""
    forward, inverse = [], []
    square_at = list(range(64))             # position in the oriented word -> square
    for name in _ORIENTATIONS[direction]:
        table = [_BASIC[name](p) for p in range(64)]
        forward.append(tuple(table))
        inverse.append(tuple(table.index(p) for p in range(64)))
        square_at = [square_at[table[p]] for p in range(64)]
    position_of = {square: p for p, square in enumerate(square_at)}
    runs = []
    for line in lines(direction):
        positions = [position_of[s] for s in line]
        assert positions == list(range(positions[0], positions[0] + len(positions))), \
            f"direction {direction}: a line is not a run of its orientation"
        runs.append((positions[0], len(positions)))
    runs.sort()
    assert sum(length for _, length in runs) == 64 and all(
        a + n == b for (a, n), (b, _) in zip(runs, runs[1:])), "the runs do not tile the word"
    return tuple(forward), tuple(reversed(inverse)), tuple(runs)


def orient(m, bits, direction, name):
    """``bits`` in ``direction``'s orientation (a signal)."""
    forward, _, _ = _orientation(direction)
    for index, table in enumerate(forward):
        bits = _permuted(m, bits, table, f"{name}_o{index}")
    return wire(m, bits, f"{name}_oriented")


def slide(m, occupied, seeds, direction, name, oriented_occupied=None):
    """The squares the ``seeds`` reach moving along ``direction``: each runs over empty squares
    and stops on the first occupied one, which it includes. The seeds must be occupied.
    ``oriented_occupied`` (from :func:`orient`) spares orienting the same occupancy twice."""
    _, inverse, runs = _orientation(direction)
    o = oriented_occupied if oriented_occupied is not None else orient(m, occupied, direction, f"{name}_occ")
    s = orient(m, seeds, direction, f"{name}_seeds")
    reach = []
    for start, length in runs:
        run_o, run_s = o[start:start + length], s[start:start + length]
        reach.append((run_o ^ (run_o - (run_s << 1)[:length])[:length]) if length > 1 else Const(0, 1))
    bits = wire(m, Cat(*reach), f"{name}_reach")
    for index, table in enumerate(inverse):
        bits = _permuted(m, bits, table, f"{name}_r{index}")
    return wire(m, bits, f"{name}_back")


def slide_support(direction):
    """The squares a slide along ``direction`` can reach: all but the first of each line."""
    return sum(1 << s for line in lines(direction) for s in line[1:])


def at_least_two(bits):
    """More than one bit set (halves with any and at least two, combined); ``bits`` a signal."""
    if len(bits) == 1:
        return Const(0, 1)
    if len(bits) == 2:
        return bits[0] & bits[1]
    half = len(bits) // 2
    low, high = bits[:half], bits[half:]
    return at_least_two(low) | at_least_two(high) | (low.any() & high.any())


def popcount(m, sets, name, stages):
    """The number of set bits in ``sets`` (a list of values), by an adder tree: groups of three
    bits (a full adder each), then sums of pairs, level by level, registered after ``stages``
    evenly spaced levels (the last one the root), so that the result is ``stages`` cycles
    behind ``sets``. Returns the root's register."""
    terms = []                              # (value, the most it can be)
    for bits in sets:
        for start in range(0, len(bits), 3):
            group = [bits[i] for i in range(start, min(start + 3, len(bits)))]
            terms.append((sum(group[1:], group[0]), len(group)))
    depth = max(len(terms) - 1, 1).bit_length()
    cuts = {round(depth * (k + 1) / stages) for k in range(stages)}
    assert len(cuts) == stages, "fewer adder levels than registers"
    for level in range(depth + 1):
        if level:
            terms = [(terms[i][0] + terms[i + 1][0], terms[i][1] + terms[i + 1][1]) if i + 1 < len(terms)
                     else terms[i] for i in range(0, len(terms), 2)]
        if level in cuts:
            registered = []
            for index, (value, most) in enumerate(terms):
                reg = Signal(range(most + 1), name=f"{name}{level}_{index}")
                m.d.sync += reg.eq(value)
                registered.append((reg, most))
            terms = registered
    (root, _), = terms
    return root
