"""The interface every core offers the generator's top level, and the generator control it
shares with the generator, the legality and ordering stages' wiring and the host link."""

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from . import types
from .fifo import RECORDS
from .types import BoardState, Counters, Move

__all__ = ["ControlSignature", "CoreSignature", "PLANES"]

# The board as the cores see it: four 64-bit bitplanes, bit k of every square's piece code in plane k.
PLANES = data.ArrayLayout(64, types.PLANES)


class ControlSignature(wiring.Signature):
    """Generator control, from the generator's side: ``start`` is taken in a cycle where
    ``start_ready`` is high; ``done`` pulses for a cycle once per started position, in start
    order, after its last move has been taken, and ``counters`` then hold that position's counts
    until the next ``done``. ``busy`` is high while a started position is not done. ``abort``:
    with a synchronous reset of the generator (the generator's own port; the signature its users
    connect leaves it out). ``options``: members sampled with ``start`` (a generator's
    ``all_moves``, ``order``)."""

    def __init__(self, abort=False, **options):
        super().__init__({
            "start": In(1),
            "start_ready": Out(1),
            **({"abort": In(1)} if abort else {}),
            "busy": Out(1),
            "done": Out(1),
            "moves": Out(stream.Signature(Move)),
            "counters": Out(Counters),
            **options,
        })


class CoreSignature(wiring.Signature):
    """Control (:class:`ControlSignature`), the board and the core's own ROMs.

    ``position`` names the position the move on the stream belongs to, ``next_position`` the
    name the next start gives its position: a core that runs positions back to back numbers them in start order modulo
    :data:`~.fifo.RECORDS` (at most that many are in flight); one that does not names them all 0.
    """

    def __init__(self, rom_signature):
        super().__init__({
            **ControlSignature().members,
            "position": Out(range(RECORDS)),
            "next_position": Out(range(RECORDS)),
            "planes": In(PLANES),
            "state": In(BoardState),
            "rom": Out(rom_signature),
        })
