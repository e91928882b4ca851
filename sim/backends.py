"""The one registry of simulators: per backend name, what it offers.

A backend name (``--backend``) stands for up to three things: a move generator
(:class:`~hwmovegen.sim.harness.backend.Backend`: ``model`` walks the tables in Python, the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``), a perft array
(:class:`~hwmovegen.sim.harness.backend.PerftSimulator`) and a search engine. :data:`REGISTRY`
says which of them each name offers; :func:`get_backend`,
:class:`~hwmovegen.sim.drivers.hwperft.HardwarePerft` and the command line's choices read it, and
:func:`resolve` is the one place a backend that cannot run here falls back to another (``cxxrtl``
to ``pysim`` without a C++ compiler). Every backend's ``name`` is the one that actually runs.

Search engines register themselves with :func:`register_search` (``hwmovegen search --backend``).
"""

from typing import Callable, NamedTuple

from ..tables.contracts import GeneratorConfig
from .cxxrtl import CxxrtlBackend, CxxrtlPerft
from .harness import toolchain
from .harness.backend import Backend, ModelBackend, PerftSimulator, PysimBackend, PysimPerft

__all__ = ["Backend", "ModelBackend", "PysimBackend", "PerftSimulator", "Offer", "REGISTRY", "BACKENDS",
           "HARDWARE_BACKENDS", "PERFT_BACKENDS", "DEFAULT_BACKEND", "offer", "resolve", "get_backend",
           "register_search"]


def _no_compiler():
    # through the module, so that a test can take the compiler away
    return None if toolchain.cxx_compiler() else "no C++ compiler found (g++)"


class Offer(NamedTuple):
    """What one backend name offers: a generator class (a :class:`Backend`), a perft array class
    (a :class:`PerftSimulator`, None: no perft in hardware), a search engine class (None: none
    registered); ``missing()``: why it cannot run on this machine (None: it can), and then the
    backend that runs instead (``fallback``, None: none, the run fails)."""
    generator: type
    perft: type | None = None
    search: type | None = None
    missing: Callable[[], str | None] = lambda: None
    fallback: str | None = None


REGISTRY = {
    "cxxrtl": Offer(CxxrtlBackend, CxxrtlPerft, missing=_no_compiler, fallback="pysim"),
    "pysim": Offer(PysimBackend, PysimPerft),
    "model": Offer(ModelBackend),
}
DEFAULT_BACKEND = "cxxrtl"
BACKENDS = tuple(REGISTRY)
HARDWARE_BACKENDS = tuple(name for name, entry in REGISTRY.items() if entry.generator.hardware)
PERFT_BACKENDS = tuple(name for name, entry in REGISTRY.items() if entry.perft)


def offer(name):
    """The :class:`Offer` of backend ``name`` (KeyError, one line, for a name not registered)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown backend {name!r} (choose from {', '.join(REGISTRY)})") from None


def resolve(name, log=None):
    """The backend that runs when ``name`` is asked for: ``name`` itself, or its fallback where it
    cannot run here (saying so through ``log``)."""
    entry = offer(name)
    why = entry.missing()
    if why is None or entry.fallback is None:
        return name
    if log:
        log(f"{why}: falling back to the {entry.fallback} backend")
    return resolve(entry.fallback, log)


def get_backend(name, config=GeneratorConfig(), log=None, ready_probability=1.0, seed=1):
    """A generator backend by name (:func:`resolve`: ``cxxrtl`` falls back to ``pysim``, saying so
    through ``log``, when no C++ compiler is found) for the generator ``config`` names (its
    ``legal``: the legal moves only, the hardware's legality stage or the model's rule; its
    ``order``: the moves ordered and flagged for check, the hardware's
    :class:`~hwmovegen.rtl.order.MoveOrderer` or the model's rule). ``ready_probability`` < 1
    applies random backpressure on the move stream (drawn from ``seed``), where the backend
    declares ``backpressure``."""
    name = resolve(name, log)
    generator = REGISTRY[name].generator
    if ready_probability < 1 and not generator.backpressure:
        with_it = [other for other, entry in REGISTRY.items() if entry.generator.backpressure]
        raise KeyError(f"backpressure (--ready) needs the {' or '.join(with_it)} backend")
    return generator(config, ready_probability=ready_probability, seed=seed, log=log)


def register_search(name, engine):
    """Give backend ``name`` its search engine class ``engine`` (its module calls this on import);
    the search command offers ``--backend`` for every name with one."""
    entry = REGISTRY.get(name)
    if entry is None:
        raise KeyError(f"unknown backend {name!r}: register its generator first")
    REGISTRY[name] = entry._replace(search=engine)
