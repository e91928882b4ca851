"""Move-generator backends behind one interface.

A backend turns python-chess Boards into :class:`~hwmovegen.sim.model.Generation`
results (moves plus counters). ``model`` walks the tables in Python; the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``. Every
backend's ``name`` is the one that actually runs (``cxxrtl`` falls back to
``pysim`` without a C++ compiler).
"""

from ..tables.contracts import GeneratorConfig
from .harness.backend import Backend, ModelBackend, PysimBackend

__all__ = ["Backend", "ModelBackend", "PysimBackend", "BACKENDS", "HARDWARE_BACKENDS", "DEFAULT_BACKEND",
           "get_backend"]

BACKENDS = ("cxxrtl", "pysim", "model")
HARDWARE_BACKENDS = ("cxxrtl", "pysim")
DEFAULT_BACKEND = "cxxrtl"


def get_backend(name, config=GeneratorConfig(), log=None, ready_probability=1.0, seed=1):
    """A backend by name for the generator ``config`` names (its ``legal``: the legal moves
    only, the hardware's legality stage or the model's rule; its ``order``: the moves ordered
    and flagged for check, the hardware's :class:`~hwmovegen.rtl.order.MoveOrderer` or the
    model's rule). ``cxxrtl`` falls back to ``pysim`` (saying so through ``log``) when no C++
    compiler is found. ``ready_probability`` < 1 applies random backpressure on the hardware
    backends' move stream (cxxrtl only)."""
    if name == "model":
        return ModelBackend(config)
    if name == "pysim":
        if ready_probability < 1:
            raise KeyError("backpressure (--ready) needs the cxxrtl backend")
        return PysimBackend(config)
    if name == "cxxrtl":
        from .cxxrtl import CxxrtlBackend
        from .harness.toolchain import cxx_compiler
        if cxx_compiler() is None:
            if log:
                log("no C++ compiler found (g++): falling back to the pysim backend")
            return get_backend("pysim", config, log, ready_probability, seed)
        return CxxrtlBackend(config, ready_probability=ready_probability, seed=seed, log=log)
    raise KeyError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")
