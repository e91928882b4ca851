"""The golden model: the hardware's specification, written from :mod:`hwmovegen.tables` alone
(python-chess referees it from outside and parses FEN; it never generates a move here).

:mod:`.movegen` generates a position's moves in the hardware's emission order with its counters and
cycle bounds; :mod:`.legality` and :mod:`.order` are the legality stage's and the ordering stage's
specifications; :mod:`.perft`, :mod:`.positions` and :mod:`.epd` walk trees, make test positions
and read suites.
"""

from .movegen import *                 # noqa: F401,F403 (the model's names, as before the split)
from .movegen import __all__ as _names, castling_bits

__all__ = [*_names, "castling_bits"]
