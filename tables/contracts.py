"""The contracts the golden model and the hardware share, written once.

Everything here is a fact both sides must agree on: the cores and their timing terms, the
legality stage's setup, the ordering stage's latency and bins, the perft engines' depth and
move lists, promotion order, and the configuration value that names one generator. The model
(:mod:`hwmovegen.sim.model`) imports it as it imports the rest of :mod:`hwmovegen.tables`; the
RTL takes its parameters from it and asserts at elaboration where its own structure fixes a
figure (the legality sweep's length, the counter's pipeline); ``tests/tables/test_contracts.py``
measures the cycles in simulation against the timing terms.
"""

from dataclasses import dataclass, replace

from .geometry import PieceType
from .layouts import LAYOUTS
from .search import MAX_SEARCH_ENGINES

__all__ = ["CoreContract", "CORE_CONTRACTS", "core_contract", "CORE_NAMES", "LAYOUT_NAMES", "LAYOUT_IDS", "GeneratorConfig",
           "ORDERS", "ORDER_BINS", "CAPTURE_BINS", "capture_bin", "PROMOTION_BIN", "QUIET_BIN", "ORDER_LATENCY",
           "LEGAL_SETUP_CYCLES", "MAX_PLIES", "MAX_LEGAL_MOVES", "MAX_MOVES", "PROMOTION_ORDER", "SELECTABLE"]

# -- the perft engines -------------------------------------------------------------------------

MAX_PLIES = 8           # the engines' stacks: the deepest perft in hardware, the host link's depth limit
MAX_LEGAL_MOVES = 218   # the most legal moves of any position (the known maximum)
MAX_MOVES = 256         # a ply's move list: room for MAX_LEGAL_MOVES, a power of two

# -- moves -------------------------------------------------------------------------------------

# a promotion's four moves, in emission order: q, r, b, n
PROMOTION_ORDER = tuple(int(t) for t in (PieceType.QUEEN, PieceType.ROOK, PieceType.BISHOP, PieceType.KNIGHT))

# -- the legality stage ------------------------------------------------------------------------

LEGAL_SETUP_CYCLES = 1 + 8 + 7      # start, then a rank a cycle up the board and back down from the seventh

# -- the ordering stage ------------------------------------------------------------------------

ORDERS = ("square", "mvv-lva", "captures")      # by wire value (hwmovegen.rtl.order.Order)
ORDER_BINS = 32
CAPTURE_BINS = 30       # bins 0-29: captures (:func:`capture_bin`)
PROMOTION_BIN = 30      # a promotion without capture
QUIET_BIN = 31          # every other move
ORDER_LATENCY = 5       # cycles beyond its input's done and one an ordered move
SELECTABLE = "select"   # GeneratorConfig.order for a stage whose order is chosen per position (a port)


def capture_bin(victim, attacker):
    """A capture's bin: the most valuable victim first (no king is ever taken), then the least
    valuable attacker (piece types, :class:`~hwmovegen.tables.PieceType`)."""
    return (PieceType.QUEEN - victim) * PieceType.KING + attacker - PieceType.PAWN


assert capture_bin(PieceType.PAWN, PieceType.KING) == CAPTURE_BINS - 1


# -- the cores ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class CoreContract:
    """What the model, the CLI and the host link know of a core without its RTL.

    ``work``: what its ``steps`` counter counts (``Generation.steps``, the table nodes walked,
    or ``Generation.pieces``, the own pieces with moves). The cycle bound with ``ready`` held
    high (:func:`hwmovegen.sim.model.cycle_bound`): ``fixed + steps + per_promotion *
    promotion_nodes`` when ``latency`` is None; otherwise ``moves + latency``, or ``empty``
    for a position without moves. ``load_while_busy``: the core copies the board at ``start``,
    so the next position may be loaded while one runs, and positions stream back to back.
    """
    name: str
    protocol_id: int            # PONG's core byte
    work: str                   # "steps" or "pieces"
    work_name: str              # what the steps counter counts, for people
    load_while_busy: bool
    reads_rom: bool = True      # False: no table ROM, the same hardware with every layout
    fixed: int = 0
    per_promotion: int = 0
    latency: int = None
    empty: int = None


CORE_CONTRACTS = {
    # one cycle to sample start, one to read the first head, one to present it, one per table
    # node, one for the last move to leave the FIFO; a promotion node's four moves add three
    "walker": CoreContract("walker", 0, "steps", "table nodes", load_while_busy=False, fixed=4, per_promotion=3),
    # one move a cycle after the pipeline's latency, whatever the pieces without moves
    "fast": CoreContract("fast", 1, "pieces", "pieces with moves", load_while_busy=True, reads_rom=False,
                         latency=19, empty=5),
}
CORE_NAMES = tuple(CORE_CONTRACTS)
LAYOUT_NAMES = tuple(LAYOUTS)
LAYOUT_IDS = {"dense": 0, "butterfly": 1}       # PONG's layout byte
assert set(LAYOUT_IDS) == set(LAYOUT_NAMES)


def core_contract(name):
    """The :class:`CoreContract` of the core called ``name``."""
    _choices("core", name, CORE_NAMES, KeyError)
    return CORE_CONTRACTS[name]


def _choices(kind, value, names, error=ValueError):
    if value not in names:
        raise error(f"unknown {kind} {value!r} (choose from {', '.join(names)})")


@dataclass(frozen=True)
class GeneratorConfig:
    """One generator (and the perft array built on it), named once by the CLI and taken by the
    backends, drivers, synthesis and the RTL's ``from_config`` constructors.

    ``order``: None, no ordering stage; one of :data:`ORDERS`, the stage with that order fixed
    (a simulation model per order); :data:`SELECTABLE`, the stage with an ``order`` port (the
    host link's GENERATE flags choose it per position). ``perft_engines``: the engines of the
    perft array (0: none, a generator alone, as a board without ``--perft``).
    ``count_leaves``: the perft engines count the last ply instead of streaming it (the target
    decides; the UP5K has no room). ``search_engines``: the search engines splitting the root
    moves (1: the one :class:`~hwmovegen.rtl.search.SearchEngine`, built as it always was; more:
    a :class:`~hwmovegen.rtl.search.SearchArray`).
    """
    layout: str = "dense"
    core: str = "walker"
    legal: bool = False
    order: str = None
    perft_engines: int = 0
    max_plies: int = MAX_PLIES
    count_leaves: bool = True
    search_engines: int = 1

    def __post_init__(self):
        _choices("layout", self.layout, LAYOUT_NAMES)
        _choices("core", self.core, CORE_NAMES)
        if self.order is not None:
            _choices("order", self.order, ORDERS + (SELECTABLE,))
        if not 1 <= self.max_plies <= MAX_PLIES:
            raise ValueError(f"max_plies {self.max_plies} is outside 1 to {MAX_PLIES}")
        if self.perft_engines < 0:
            raise ValueError(f"perft_engines {self.perft_engines} is below 0")
        if not 1 <= self.search_engines <= MAX_SEARCH_ENGINES:
            raise ValueError(f"search_engines {self.search_engines} is outside 1 to {MAX_SEARCH_ENGINES}")

    @property
    def contract(self):
        """The core's :class:`CoreContract`."""
        return CORE_CONTRACTS[self.core]

    def replace(self, **changes):
        return replace(self, **changes)

    def canonical(self):
        """This configuration as its hardware is: a core that reads no ROM (the fast core) is the
        same hardware with every layout, named with the first. Compiled models and synthesis
        reports are keyed by it, so such configurations share one model and one synthesis."""
        return self if self.contract.reads_rom else replace(self, layout=LAYOUT_NAMES[0])
