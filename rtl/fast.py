"""The fast core: a move every cycle, each piece decided whole from the occupancy.

Where the walker visits one table node per clock, the fast core decides a whole
piece per clock and then only counts out its moves, so no cycle is spent on a node
that emits nothing. Its front end is feed-forward (no address depends on the
board) and fully pipelined; a serializer emits one move per cycle in the golden
model's order::

    start ─► snapshot of the board ─► MoverMask ─► PieceFeeder ─► RayProbe ─► SlotCounter
             (occupied, own, planes)   (pieces      (movers in     (reach per    (moves per
                                        with moves)  square order)  direction)    ray slot)
                                                                        │
     moves ◄─ PromotionFifo ◄─ StepEmitter ◄─ RayBuilder ◄─ RaySelector ◄─ piece FIFO (block RAM)
              (q r b n)        (one move      (first target, (next ray
                                per cycle)     step, flags)    with moves)

The chain order comes from :mod:`hwmovegen.tables.slots`: every kind has its rays in
a fixed slot order, and the non-empty slots are exactly the node tables' rays. The
mover mask (the first node of every ray, all squares at once) keeps pieces without
moves out of the pipeline, so with ``ready`` held high a position takes its moves
plus a fixed latency (:func:`hwmovegen.sim.model.cycle_bound`).

Positions stream back to back: the board is copied at ``start``, so the next
position can be loaded at once, and started (``start_ready``) as soon as the
previous one's pieces have left the snapshot's readers, while its moves still
drain. ``done`` pulses once per position, in start order, with its counters.

A core built with ``captures=True`` streams a position's captures alone when asked at
``start`` (a quiescence search's ``captures`` order): the mover mask keeps the pieces that
may capture, the slot counter cuts each ray to its capture (a slider's first target is the
capture square), and a :class:`CaptureHold` keeps the pieces without one out of the piece
FIFO, so the stream is the whole stream's captures, in its order, a cycle a move.
"""

from amaranth import Module, Shape, Signal, Cat, Const, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables import Layout, TableKind, castle_right_for, rays
from ..tables.contracts import core_contract
from ..tables.slots import DIRECTIONS, KIND_SLOTS, SLOTS, RayType, direction_step, slot_rays
from .board import BoardView, own_table_kind
from .core import CoreSignature
from .counters import StreamCount
from .feeder import PieceFeeder
from .fifo import RECORDS, FifoWriteSignature, PositionEntry, PromotionFifo, Queue
from .movers import MoverMask
from .options import Options
from .probe import ProbeResult, RayProbe
from .types import BoardState, Counters

__all__ = ["FastCore", "SlotCounter", "CaptureHold", "RaySelector", "Selected", "CreditSignature", "StepEmitter", "PositionTracker",
           "PieceEntry", "Ray", "NoRom"]

PIECE_FIFO_DEPTH = 16
IN_FLIGHT = 6               # pieces between the feeder and the piece FIFO's write port
# the slots whose ray can end in a capture, and those that can be an en-passant capture
# (no register is kept for a bit that is always 0)
CAPTURE_SLOTS = sorted({j for slots in KIND_SLOTS.values() for j, slot in enumerate(slots)
                        if slot.type in (RayType.SLIDE, RayType.CAPTURE)})
EP_SLOTS = sorted({j for slots in KIND_SLOTS.values() for j, slot in enumerate(slots)
                   if slot.type == RayType.CAPTURE})


# the most moves a slot's ray can hold, over every kind and square
COUNT_WIDTHS = [max(max(min(slot_rays(k, s)[j][1], 1 if slot.type == RayType.CASTLE else 7) for s in range(64))
                    for k, slots in KIND_SLOTS.items() for slot in slots[j:j + 1]).bit_length()
                for j in range(SLOTS)]


class PieceEntry(data.Struct):
    """A piece with its moves counted per slot (what the front end hands the serializer)."""
    frm: 6
    kind: 3
    count: data.StructLayout({f"slot{j}": width for j, width in enumerate(COUNT_WIDTHS)})
    capture: len(CAPTURE_SLOTS)     # the last move of the slot's ray is a capture
    en_passant: len(EP_SLOTS)       # the slot's move is the en-passant capture
    promotes: 1
    last: 1                         # the last piece of its position
    position: range(RECORDS)        # its position's record


def _counts(entry):
    return [entry.count[f"slot{j}"] for j in range(SLOTS)]


class Ray(data.Struct):
    """One ray's moves: ``count`` targets from ``to`` on, ``step`` apart."""
    frm: 6
    to: 6
    step: 6                 # added modulo 64
    count: 3
    type: 2                 # RayType
    capture: 1
    en_passant: 1
    promotes: 1
    last: 1                 # the last ray of its position
    position: range(RECORDS)


class _Tag(data.Struct):
    """What travels through the probe beside the square."""
    last: 1
    position: range(RECORDS)
    state: BoardState
    en_passant: len(EP_SLOTS)       # a pawn's capture slot lands on the en-passant square


def _square_table(predicate):
    """A 64-bit constant: bit s is predicate(s)."""
    return Const(sum(1 << s for s in range(64) if predicate(s)), 64)


class SlotCounter(wiring.Component):
    """The probe's result and the piece's kind -> a PieceEntry (registered): per slot of the
    kind, the number of moves of its ray (see ``hwmovegen.tables.slots.RayType``).

    ``pieces`` never waits: the feeder lets a piece into the probe only while the piece FIFO
    has room for every piece in flight (``IN_FLIGHT``).

    Built with ``captures=True``, its ``captures`` input asks for the captures alone: a ray's
    count is 1 if it ends in a capture, else 0, except a slider's, which holds the capture's
    distance (its reach plus one: the ray builder's first target, :func:`capture_offsets`);
    pushes and castling count 0."""

    def __init__(self, *, captures=False):
        self.captures_port = captures
        super().__init__({
            "valid": In(1),
            "square": In(6),
            "tag": In(_Tag),
            "result": In(ProbeResult),
            **({"captures": In(1)} if captures else {}),
            "pieces": Out(stream.Signature(PieceEntry)),
        })

    def elaborate(self, platform):
        m = Module()
        square, state, result = self.square, self.tag.state, self.result
        # an own piece: a pawn has the side to move's colour
        kind = Signal(3)
        m.d.comb += kind.eq(own_table_kind(result.piece_type, state.white_to_move))
        entry = Signal(PieceEntry)
        rank = square[3:6]

        def exists(k, j):       # does slot j of kind k have a ray on this square
            return _square_table(lambda s: slot_rays(k, s)[j][1] > 0).bit_select(square, 1)

        for j in range(SLOTS):
            count, capture, en_passant = Signal(3, name=f"count{j}"), Signal(1, name=f"capture{j}"), \
                Signal(1, name=f"ep{j}")
            with m.Switch(kind):
                for k, slots in KIND_SLOTS.items():
                    if j >= len(slots):
                        continue
                    slot = slots[j]
                    with m.Case(k):
                        d = slot.direction
                        if slot.type == RayType.SLIDE and d >= 8:            # a knight's jump
                            m.d.comb += [count.eq(result.jump_free[d - 8]),
                                         capture.eq(result.jump_opponent[d - 8])]
                        elif slot.type == RayType.SLIDE and k == TableKind.KING:
                            m.d.comb += [count.eq((result.reach[d] != 0) | result.stop_opponent[d]),
                                         capture.eq((result.reach[d] == 0) & result.stop_opponent[d])]
                        elif slot.type == RayType.SLIDE:                     # a slider's ray
                            m.d.comb += [count.eq(result.reach[d] + result.stop_opponent[d]),
                                         capture.eq(result.stop_opponent[d])]
                        elif slot.type == RayType.PUSH:
                            double = _square_table(lambda s, k=k, j=j: slot_rays(k, s)[j][1] == 2)
                            m.d.comb += count.eq(Mux(result.reach[d] == 0, 0,
                                                     Mux((result.reach[d] >= 2) & double.bit_select(square, 1),
                                                         2, 1)))
                        elif slot.type == RayType.CAPTURE:
                            ep = self.tag.en_passant[EP_SLOTS.index(j)]
                            m.d.comb += [count.eq(((result.reach[d] == 0) & result.stop_opponent[d]) | ep),
                                         capture.eq(1), en_passant.eq(ep)]
                        else:                                                # castling
                            length = {slot_rays(k, s)[j][1] for s in range(64)} - {0}
                            right = castle_right_for(4 + 2 * DIRECTIONS[d][0])     # white's; black's << 2
                            held = Mux(state.white_to_move, state.castling.bit_select(right.bit_length() - 1, 1),
                                       state.castling.bit_select(right.bit_length() + 1, 1))
                            on_own_rank = Mux(state.white_to_move, rank == 0, rank == 7)
                            m.d.comb += count.eq(exists(k, j) & on_own_rank & held & (result.reach[d] >= max(length)))
            if self.captures_port:
                # the captures alone: the ray's capture, at its distance for a slider
                taken = Signal(3, name=f"taken{j}")
                with m.Switch(kind):
                    for k, slots in KIND_SLOTS.items():
                        if j < len(slots) and slots[j].type in (RayType.SLIDE, RayType.CAPTURE):
                            with m.Case(k):
                                slider = slots[j].type == RayType.SLIDE and slots[j].direction < 8 and \
                                    k != TableKind.KING
                                if slider:
                                    m.d.comb += taken.eq(Mux(capture, result.reach[slots[j].direction] + 1, 0))
                                elif slots[j].type == RayType.CAPTURE:     # (its flag is always set)
                                    m.d.comb += taken.eq(count)
                                else:                                       # a knight's jump, a king's step
                                    m.d.comb += taken.eq(capture)
                count = Mux(self.captures, taken, count)
            m.d.sync += _counts(entry)[j].eq(count)
            if j in CAPTURE_SLOTS:
                m.d.sync += entry.capture[CAPTURE_SLOTS.index(j)].eq(capture)
            if j in EP_SLOTS:
                m.d.sync += entry.en_passant[EP_SLOTS.index(j)].eq(en_passant)
        promotes = Signal(1)
        with m.Switch(kind):
            for k in (TableKind.WPAWN, TableKind.BPAWN):
                with m.Case(k):
                    m.d.comb += promotes.eq(_square_table(lambda s, k=k: any(
                        node.kind.is_promotion for ray in rays(k, s) for node in ray)).bit_select(square, 1))
        m.d.sync += [entry.frm.eq(square), entry.kind.eq(kind), entry.promotes.eq(promotes),
                     entry.last.eq(self.tag.last), entry.position.eq(self.tag.position),
                     self.pieces.valid.eq(self.valid)]
        m.d.comb += self.pieces.payload.eq(entry)
        return m


def _slot_tables():
    """Per (kind, slot): the ray's type, its step, and its first target's offset (castling: two steps)."""
    types, steps, offsets = {}, {}, {}
    for k, slots in KIND_SLOTS.items():
        for j, slot in enumerate(slots):
            step = direction_step(slot.direction)
            types[k, j] = slot.type
            steps[k, j] = step % 64
            offsets[k, j] = (2 * step if slot.type == RayType.CASTLE else step) % 64
    return types, steps, offsets


class Selected(data.Struct):
    """A slot with moves of a piece, as the selector issues it to the builder."""
    piece: PieceEntry
    slot: SLOTS                     # one-hot
    index: range(SLOTS)             # ... and its number
    last: 1                         # the last slot of a piece marked last


class CreditSignature(wiring.Signature):
    """Room downstream, from the side that grants it: ``issue`` (a register) allows one more
    item this cycle, ``issued`` says it was used."""

    def __init__(self):
        super().__init__({
            "issue": Out(1, init=1),
            "issued": In(1),
        })


class RaySelector(wiring.Component):
    """Piece entries -> the next slot with moves, one per cycle while ``credit.issue`` allows,
    with no gap between pieces: the next entry is taken in the cycle the current one's last slot
    goes. Its decisions depend on registers only (``issue`` comes registered from the emitter).

    Members
    -------
    pieces : In(stream.Signature(PieceEntry))
        The piece FIFO's head; ``ready`` only with ``valid`` (taken at once).
    credit : In(CreditSignature())
        Room for one more ray downstream.
    slots : Out(stream.Signature(Selected, always_ready=True))
        The selected slots (the credit is the backpressure).
    """

    def __init__(self):
        super().__init__({
            "pieces": In(stream.Signature(PieceEntry)),
            "credit": In(CreditSignature()),
            "slots": Out(stream.Signature(Selected, always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        piece = Signal(PieceEntry)
        remaining = Signal(SLOTS)
        has, single = Signal(1), Signal(1)      # remaining != 0, remaining has one bit: registered
        lowest = Cat(remaining[j] & ~remaining[:j].any() if j else remaining[0] for j in range(SLOTS))
        issuing = has & self.credit.issue
        take = (~has | (issuing & single)) & self.pieces.valid
        m.d.comb += [self.credit.issued.eq(issuing), self.pieces.ready.eq(take)]
        out = self.slots.payload
        m.d.sync += self.slots.valid.eq(issuing)
        with m.If(issuing):
            m.d.sync += [out.piece.eq(piece), out.slot.eq(lowest),
                         out.index.eq(Cat((lowest & sum(1 << j for j in range(SLOTS) if j >> b & 1)).any()
                                          for b in range(Shape.cast(range(SLOTS)).width))),
                         out.last.eq(piece.last & single)]
        # the next mask, and its flags, made beside each other for both cases
        loaded = Cat(c != 0 for c in _counts(self.pieces.payload))
        left = remaining & ~lowest
        with m.If(take):
            m.d.sync += [piece.eq(self.pieces.payload), remaining.eq(loaded), has.eq(loaded != 0),
                         single.eq(_exactly_one(loaded))]
        with m.Elif(issuing):
            m.d.sync += [remaining.eq(left), has.eq(left != 0), single.eq(_exactly_one(left))]
        return m


def _exactly_one(bits):
    """One bit set: halves with none and one, combined (a few LUTs deep, no carry chain)."""
    if len(bits) <= 2:
        return bits.xor() if len(bits) == 2 else bits[0]
    half = len(bits) // 2
    low, high = bits[:half], bits[half:]
    return (_exactly_one(low) & ~high.any()) | (~low.any() & _exactly_one(high))


def capture_offsets():
    """Per (kind, slot): the offsets of the ray's first eight targets, ``step x n`` modulo 64 for
    n = 0..7 packed six bits each (the capture of a slider's ray is ``n`` steps away)."""
    _, steps, _ = _slot_tables()
    return {key: sum((step * n % 64) << (6 * n) for n in range(8)) for key, step in steps.items()}


class RayBuilder(wiring.Component):
    """A selected slot -> its Ray, in two registered stages: the slot's type, step and first
    offset from the (kind, slot) tables and its count and flags, then the first target.

    Built with ``captures=True``, its ``captures`` input says the counts are the slot counter's
    captures (:class:`SlotCounter`): each ray one move, ``count`` steps from the piece."""

    def __init__(self, *, captures=False):
        self.captures_port = captures
        super().__init__({
            "slots": In(stream.Signature(Selected, always_ready=True)),
            **({"captures": In(1)} if captures else {}),
            "rays": Out(stream.Signature(Ray, always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        types, steps, offsets = _slot_tables()
        selected = self.slots.payload
        piece, slot, index = selected.piece, selected.slot, selected.index
        select = Cat(index, piece.kind)
        entries = 1 << len(select)

        def table(values, width):
            return Const(sum(values.get((k, j), 0) << (width * (j | k << len(index))) for k, j in values),
                         width * entries).word_select(select, width)

        a_valid, a_ray, a_offset = Signal(1), Signal(Ray), Signal(6)
        count, offset = _select(slot, _counts(piece)), table(offsets, 6)
        if self.captures_port:
            count, offset = (Mux(self.captures, count != 0, count),
                             Mux(self.captures, table(capture_offsets(), 48).word_select(count[:3], 6), offset))
        m.d.sync += [
            a_valid.eq(self.slots.valid),
            a_offset.eq(offset),
            a_ray.frm.eq(piece.frm),
            a_ray.step.eq(table(steps, 6)),
            a_ray.count.eq(count),
            a_ray.type.eq(table(types, 2)),
            a_ray.capture.eq(Cat(slot[j] & piece.capture[i] for i, j in enumerate(CAPTURE_SLOTS)).any()),
            a_ray.en_passant.eq(Cat(slot[j] & piece.en_passant[i] for i, j in enumerate(EP_SLOTS)).any()),
            a_ray.promotes.eq(piece.promotes),
            a_ray.last.eq(selected.last),
            a_ray.position.eq(piece.position),
        ]
        m.d.sync += [self.rays.valid.eq(a_valid), self.rays.payload.eq(a_ray),
                     self.rays.payload.to.eq(a_ray.frm + a_offset)]
        return m


def _select(one_hot, values):
    """The value whose one-hot bit is set (AND-OR)."""
    out = 0
    for j in range(len(one_hot)):
        out = out | Mux(one_hot[j], values[j], 0)
    return out


RAY_QUEUE = 5               # rays waiting at the emitter; the selector holds as many credits (its
                            # loop: issue, two builder stages, the queue, the take: five cycles)


class StepEmitter(wiring.Component):
    """Rays -> one move per cycle into the PromotionFifo (``write``/``commit``), waiting only
    while the FIFO is almost full. Rays wait in a small queue; the selector may issue while it
    holds a credit (``credit.issue``, a register), and gets one back for every ray taken here."""

    def __init__(self):
        super().__init__({
            "rays": In(stream.Signature(Ray, always_ready=True)),
            "credit": Out(CreditSignature()),
            "fifo": Out(FifoWriteSignature(PositionEntry)),
        })

    def elaborate(self, platform):
        m = Module()
        queue = [Signal(Ray, name=f"ray{i}", reset_less=True) for i in range(RAY_QUEUE)]
        head_ptr, tail_ptr = Signal(range(RAY_QUEUE)), Signal(range(RAY_QUEUE))
        queued = Signal(range(RAY_QUEUE + 1))
        head = Signal(Ray)
        with m.Switch(head_ptr):
            for i in range(RAY_QUEUE):
                with m.Case(i):
                    m.d.comb += head.eq(queue[i])
        with m.If(self.rays.valid):
            with m.Switch(tail_ptr):
                for i in range(RAY_QUEUE):
                    with m.Case(i):
                        m.d.sync += queue[i].eq(self.rays.payload)
            m.d.sync += tail_ptr.eq(Mux(tail_ptr == RAY_QUEUE - 1, 0, tail_ptr + 1))

        current, valid = Signal(Ray), Signal(1)
        to, left, second = Signal(6), Signal(3), Signal(1)
        final = left == 1
        entry, move = self.fifo.entry, self.fifo.entry.move
        m.d.comb += [
            move.frm.eq(current.frm), move.to.eq(to),
            move.capture.eq(current.capture & final),
            move.double.eq((current.type == RayType.PUSH) & second),
            move.en_passant.eq(current.en_passant),
            move.castle.eq(current.type == RayType.CASTLE),
            move.promotes.eq(current.promotes),
            entry.last.eq(current.last & final),
            entry.position.eq(current.position),
            self.fifo.write.eq(valid),
        ]
        advance = valid & ~self.fifo.almost_full
        m.d.comb += self.fifo.commit.eq(advance)
        take = ((advance & final) | ~valid) & (queued != 0)
        with m.If(advance & ~final):
            m.d.sync += [to.eq(to + current.step), left.eq(left - 1), second.eq(1)]
        with m.If((advance & final) | ~valid):
            m.d.sync += [valid.eq(queued != 0), current.eq(head), to.eq(head.to), left.eq(head.count),
                         second.eq(0)]
        with m.If(take):
            m.d.sync += head_ptr.eq(Mux(head_ptr == RAY_QUEUE - 1, 0, head_ptr + 1))
        m.d.sync += queued.eq(queued + self.rays.valid - take)
        # rays issued and not yet taken (the two in flight to the queue included): a ray issued
        # next cycle has room if this stays within the queue; the check leaves out this cycle's
        # take, so that it depends on registers and the selector's decision only
        credits = Signal(range(RAY_QUEUE + 1), init=RAY_QUEUE)
        m.d.sync += [credits.eq(credits - self.credit.issued + take),
                     self.credit.issue.eq((credits > self.credit.issued) | take)]     # credits left after this cycle
        return m


class CaptureHold(wiring.Component):
    """Between the slot counter and the piece FIFO of a core built for captures: in the
    ``captures`` mode, only the pieces with a capture go on, and their position's ``last`` with
    them. Such a piece waits here until the next one with a capture takes its place, or its
    position's last piece comes (which marks it last); a position whose pieces have none ends
    with ``none`` instead. Otherwise the pieces pass in the cycle they come. Neither side waits:
    the core takes a position only when the last one is done, so pieces never meet here."""

    def __init__(self):
        super().__init__({
            "captures": In(1),
            "i": In(stream.Signature(PieceEntry)),
            "o": Out(stream.Signature(PieceEntry)),
            "none": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        held, holding = Signal(PieceEntry), Signal(1)
        piece = self.i.payload
        has = Cat(c != 0 for c in _counts(piece)).any()
        closing = self.i.valid & ~has & piece.last        # the last piece, without a capture
        m.d.comb += self.i.ready.eq(1)
        with m.If(~self.captures):
            m.d.comb += [self.o.valid.eq(self.i.valid), self.o.payload.eq(piece)]
        with m.Else():
            m.d.comb += [self.o.valid.eq(holding & (held.last | (self.i.valid & has) | closing)),
                         self.o.payload.eq(held), self.o.payload.last.eq(held.last | closing),
                         self.none.eq(~holding & closing)]
            with m.If(self.i.valid & has):
                m.d.sync += [held.eq(piece), holding.eq(1)]
            with m.Elif(self.o.valid):
                m.d.sync += holding.eq(0)
        return m


class PositionTracker(wiring.Component):
    """Positions in flight, in start order: what the front end counted for each, the moves and
    stalls at the output, ``done`` and the counters of each finished position. ``captures``:
    the ``assembled_none`` input (a captures core's)."""

    def __init__(self, *, captures=False):
        self.captures_port = captures
        super().__init__({
            "start": In(1),             # a position is started
            "opening": In(1),           # ... was started a cycle ago
            "opened": In(1),            # ... two cycles ago: its movers are known now
            "empty": In(1),             # ... it has none
            "assembled": In(1),         # a piece left the SlotCounter
            "assembled_last": In(1),    # ... the last of its position
            "assembled_promotions": In(range(SLOTS + 1)),
            **({"assembled_none": In(1)} if captures else {}),  # a captures position's pieces have none
            "valid": In(1),             # the move stream
            "ready": In(1),
            "last_transfer": In(1),     # the last move of a position left
            "busy": Out(1),
            "full": Out(1),
            "done": Out(1),
            "counters": Out(Counters),
            "tail": Out(range(RECORDS)),    # the record the next started position opens
        })

    def elaborate(self, platform):
        m = Module()
        steps = [Signal(7, name=f"steps{i}") for i in range(RECORDS)]
        promotions = [Signal(5, name=f"promotions{i}") for i in range(RECORDS)]
        complete = Signal(RECORDS)
        empty = Signal(RECORDS)
        head, fill, tail = Signal(range(RECORDS)), Signal(range(RECORDS)), self.tail
        count = Signal(range(RECORDS + 1))

        # the oldest incomplete record takes the SlotCounter's pieces; a complete (empty)
        # record in its way is stepped over (pieces come many cycles after their record opens)
        for i in range(RECORDS):
            with m.If(self.assembled & (fill == i)):
                m.d.sync += [steps[i].eq(steps[i] + 1), promotions[i].eq(promotions[i] + self.assembled_promotions)]
                with m.If(self.assembled_last):
                    m.d.sync += complete[i].eq(1)
            if self.captures_port:          # ... or none of them had a capture: empty
                with m.If(self.assembled_none & (fill == i)):
                    m.d.sync += [complete[i].eq(1), empty[i].eq(1)]
        advance = (self.assembled & self.assembled_last) | ((fill != tail) & complete.bit_select(fill, 1))
        if self.captures_port:
            advance = (self.assembled & self.assembled_last) | self.assembled_none | \
                ((fill != tail) & complete.bit_select(fill, 1))
        with m.If(advance):
            m.d.sync += fill.eq(fill + 1)

        # a started position opens a record; an empty one is complete at once
        with m.If(self.opened):
            for i in range(RECORDS):
                with m.If(tail == i):
                    m.d.sync += [steps[i].eq(0), promotions[i].eq(0), complete[i].eq(self.empty),
                                 empty[i].eq(self.empty)]
            m.d.sync += tail.eq(tail + 1)

        # The head record is done with its last move, or at once if it has none. The event is
        # registered (``finished``) before it acts on the counters and the head, so that its
        # own logic stays off the hundreds of counter flip-flops.
        head_complete = complete.bit_select(head, 1)
        head_empty = empty.bit_select(head, 1)
        finished = Signal(1)
        finishing = (count != 0) & ~finished & head_complete & (head_empty | self.last_transfer)
        m.d.sync += finished.eq(finishing)
        with m.If(finished):
            m.d.sync += head.eq(head + 1)
        m.d.sync += count.eq(count + self.opened - finished)

        # The counters of the current segment. Segments tile time from the first start to the
        # last done: one ends with its ``finished`` cycle (its done is the next cycle, as the
        # walker's) and the next begins after it; cycles with nothing started are not counted.
        active = (count != 0) | self.start | self.opening | self.opened
        seg = StreamCount(m, self.valid, self.ready, restart=finished, cycle=active, carry=True, name="seg_")
        # one register for all counters, the port driven whole from it (CXXRTL: one eval a clock)
        result = Signal(Counters)
        with m.If(finished):
            m.d.sync += [
                result.cycles.eq(seg.cycles + 1),
                result.steps.eq(Mux(head_empty, 0, _pick(steps, head))),
                result.moves.eq(seg.moves),
                result.stalls.eq(seg.stalls),
                result.promotion_nodes.eq(Mux(head_empty, 0, _pick(promotions, head))),
            ]
        m.d.sync += self.done.eq(finished)
        m.d.comb += [
            self.counters.eq(result),
            self.busy.eq((count != 0) | self.opening | self.opened),
            self.full.eq(count >= RECORDS - 1),
        ]
        return m


def _pick(values, index):
    out = values[0]
    for i in range(1, len(values)):
        out = Mux(index == i, values[i], out)
    return out


class NoRom(wiring.Component):
    """The fast core reads no table ROM (its tables are logic)."""

    def __init__(self, layout):
        super().__init__({"bus": In(wiring.Signature({}))})

    @staticmethod
    def roms(layout):
        return []

    def elaborate(self, platform):
        return Module()


class FastCore(wiring.Component):
    """Snapshot, mover mask, feeder, probe, slot counter, piece FIFO, serializer, tracker.

    Parameters
    ----------
    layout : Layout
        Kept for the generator's sake; the core reads no ROM (its tables are logic).
    captures : bool
        A ``captures_only`` input, sampled with ``start``: that position's captures alone, in
        the same order (each ray cut to its capture, the pieces without one left out; ``steps``
        then counts the pieces with a capture, ``promotion_nodes`` their promotions). Such a
        core takes a position only when the one before is done.

    Members
    -------
    The :class:`~.core.CoreSignature`'s, with an empty ``rom`` port; ``captures_only`` with
    ``captures=True``.
    """
    contract = core_contract("fast")        # its timing terms and protocol id

    def __init__(self, *, layout, captures=False):
        options = Options("FastCore")
        options.check(isinstance(layout, Layout), f"layout must be a Layout, not {layout!r}")
        options.flag("captures", captures)
        options.done()
        self.layout = layout
        self.captures = captures
        signature = CoreSignature(wiring.Signature({}))
        if captures:
            signature = wiring.Signature({**signature.members, "captures_only": In(1)})
        super().__init__(signature)

    def elaborate(self, platform):
        m = Module()
        planes, state = self.planes, self.state
        captures = self.captures
        m.submodules.movers = movers = MoverMask(captures=captures)
        m.submodules.feeder = feeder = PieceFeeder(0)
        m.submodules.probe = probe = RayProbe(_Tag)
        m.submodules.counter = counter = SlotCounter(captures=captures)
        m.submodules.pieces = pieces = Queue(shape=PieceEntry, depth=PIECE_FIFO_DEPTH)
        m.submodules.selector = selector = RaySelector()
        m.submodules.builder = builder = RayBuilder(captures=captures)
        m.submodules.emitter = emitter = StepEmitter()
        m.submodules.fifo = fifo = PromotionFifo(positions=True)
        m.submodules.tracker = tracker = PositionTracker(captures=captures)

        # ---- start: copy the board (the next position may be loaded at once) and find the movers
        view = BoardView(planes, state)
        occupied, own = view.occupied, view.own
        # the piece types (three planes), the occupied and own squares: the colour plane is not kept
        snap_types, snap_state = Signal(data.ArrayLayout(64, 3)), Signal(BoardState)
        snap_occupied, snap_own, snap_capturable = Signal(64), Signal(64), Signal(64)
        # the squares of the pawns whose capture slots land on the en-passant square
        ep_from = [Signal(7, name=f"ep_from{i}") for i in range(len(EP_SLOTS))]     # square, valid
        copied = Signal(1)          # the cycle after start: the mover mask reads the snapshot
        loading = Signal(1)         # the next: the movers are known, the feeder starts
        probe_in_valid = Signal(1)
        # registers only: the snapshot is free once the last mover has left for the probe
        start_ready = ~copied & ~loading & ~feeder.busy & ~probe_in_valid & ~tracker.full
        if captures:                # one position at a time (CaptureHold)
            start_ready = start_ready & ~tracker.busy
        starting = self.start & start_ready
        # a captures core's mode for the position under way (the only one: see start_ready)
        capturing = Signal(1) if captures else Const(0, 1)
        if captures:
            with m.If(starting):
                m.d.sync += capturing.eq(self.captures_only)
            m.d.comb += [movers.captures.eq(capturing), counter.captures.eq(capturing),
                         builder.captures.eq(capturing)]
        m.d.comb += [movers.types.eq(snap_types), movers.white_to_move.eq(snap_state.white_to_move),
                     movers.occupied.eq(snap_occupied), movers.own.eq(snap_own),
                     movers.capturable.eq(snap_capturable),
                     self.start_ready.eq(start_ready)]
        with m.If(starting):
            m.d.sync += [snap_types.eq(view.types), snap_state.eq(state),
                         snap_occupied.eq(occupied),
                         snap_capturable.eq((occupied & ~own) | Mux(state.ep_valid, Const(1, 64) << state.ep_square, 0)),
                         snap_own.eq(own)]
        m.d.sync += [copied.eq(starting), loading.eq(copied)]
        # the record of the position whose pieces are fed: the tracker's tail when its start was
        # taken (it opens that record two cycles later, and no start comes in between)
        feeding = Signal(range(RECORDS))
        with m.If(starting):
            m.d.sync += feeding.eq(tracker.tail)
        ep_file = state.ep_square[0:3]
        for i, j in enumerate(EP_SLOTS):
            sources = []
            for k in (TableKind.WPAWN, TableKind.BPAWN):
                df, _ = DIRECTIONS[KIND_SLOTS[k][j].direction]
                on_board = (ep_file >= df) & (ep_file <= 7 + df) if df > 0 else (ep_file <= 7 + df)
                sources.append(Cat((state.ep_square - direction_step(KIND_SLOTS[k][j].direction))[:6],
                                   state.ep_valid & on_board))
            with m.If(starting):
                m.d.sync += ep_from[i].eq(Mux(state.white_to_move, sources[0], sources[1]))

        # ---- feeder: the movers in square order, one per cycle while the piece FIFO has room
        room = pieces.level <= PIECE_FIFO_DEPTH - IN_FLIGHT
        if captures:                # (a captures position's piece may wait in the CaptureHold too)
            room = pieces.level <= Mux(capturing, PIECE_FIFO_DEPTH - IN_FLIGHT - 1, PIECE_FIFO_DEPTH - IN_FLIGHT)
        consume = feeder.first_valid & room
        m.d.comb += [feeder.start.eq(loading), feeder.run.eq(~loading), feeder.pieces.eq(movers.movers),
                     feeder.types.eq(snap_types), feeder.white_to_move.eq(snap_state.white_to_move),
                     feeder.consume.eq(consume)]

        # ---- probe input register, then the probe and the slot counter
        tag = Signal(_Tag)
        square, diagonal, anti = Signal(6), Signal(3), Signal(3)
        # whether a pawn's capture slots land on the en-passant square: compared here with the
        # pawn squares worked out at start, ahead of the probe and off the slot counter's path
        for i, source in enumerate(ep_from):
            m.d.sync += tag.en_passant[i].eq(source[6] & (feeder.first.square == source[:6]))
        m.d.sync += [probe_in_valid.eq(consume), square.eq(feeder.first.square), diagonal.eq(feeder.first.diagonal),
                     anti.eq(feeder.first.anti_diagonal),
                     tag.last.eq(feeder.first_last), tag.position.eq(feeding), tag.state.eq(snap_state)]
        m.d.comb += [probe.valid.eq(probe_in_valid), probe.square.eq(square), probe.diagonal.eq(diagonal),
                     probe.anti_diagonal.eq(anti), probe.tag.eq(tag), probe.occupied.eq(snap_occupied),
                     probe.own.eq(snap_own), probe.types.eq(snap_types),
                     counter.valid.eq(probe.out_valid), counter.square.eq(probe.out_square),
                     counter.tag.eq(probe.out_tag), counter.result.eq(probe.result)]

        # ---- piece FIFO, serializer, output
        assembled, none = counter.pieces, Const(0, 1)
        if captures:                # the pieces without a capture left out
            m.submodules.hold = hold = CaptureHold()
            m.d.comb += hold.captures.eq(capturing)
            wiring.connect(m, counter.pieces, hold.i)
            assembled, none = hold.o, hold.none
        entry = assembled.payload
        # the tracker hears of assembled pieces a cycle later, through registers; only pawns
        # promote, so only their slots are counted
        pawn_slots = range(len(KIND_SLOTS[TableKind.WPAWN]))
        asm_valid, asm_last, asm_promotions = Signal(1), Signal(1), Signal(range(SLOTS + 1))
        asm_none = Signal(1, name="asm_none") if captures else None
        m.d.sync += [asm_valid.eq(assembled.valid), asm_last.eq(entry.last),
                     *([asm_none.eq(none)] if captures else []),
                     asm_promotions.eq(Mux(entry.promotes, sum(_counts(entry)[j] != 0 for j in pawn_slots), 0))]
        # the serializer's stages, each handing the next a stream (the emitter grants the
        # selector credit for the rays it has room for)
        wiring.connect(m, assembled, pieces.i)
        wiring.connect(m, pieces.o, selector.pieces)
        wiring.connect(m, selector.slots, builder.slots)
        wiring.connect(m, builder.rays, emitter.rays)
        wiring.connect(m, emitter.credit, selector.credit)
        wiring.connect(m, emitter.fifo, fifo.write_port)
        wiring.connect(m, wiring.flipped(self.moves), fifo.moves)
        m.d.comb += [
            # positions
            tracker.start.eq(starting), tracker.opening.eq(copied), tracker.opened.eq(loading), tracker.empty.eq(movers.movers == 0),
            tracker.assembled.eq(asm_valid), tracker.assembled_last.eq(asm_last),
            tracker.assembled_promotions.eq(asm_promotions),
            *([tracker.assembled_none.eq(asm_none)] if captures else []),
            tracker.valid.eq(fifo.moves.valid), tracker.ready.eq(self.moves.ready),
            tracker.last_transfer.eq(fifo.last_transfer),
            self.busy.eq(tracker.busy), self.done.eq(tracker.done), self.counters.eq(tracker.counters),
            self.position.eq(fifo.position), self.next_position.eq(tracker.tail),
        ]
        return m
