"""The compiled models' C interface through ctypes, and the base of the Python wrappers.

Every driver exports ``hwmg_create(seed)`` and ``hwmg_destroy``; the wrappers
(:mod:`.models`) build or find their library on first use (:meth:`CompiledModel.prepare`) and
free the simulator with the object.
"""

import ctypes

from .build import build_model

__all__ = ["CompiledModel", "open_model", "generator_library", "generator_functions", "perft_functions",
           "hostlink_functions", "search_functions"]

_LIBRARIES = {}


def open_model(path, clock=False):
    """A compiled model's library with the signatures every driver shares (``clock``: and its
    cycle count)."""
    lib = ctypes.CDLL(str(path))
    lib.hwmg_create.restype = ctypes.c_void_p
    lib.hwmg_create.argtypes = [ctypes.c_uint64]
    lib.hwmg_destroy.argtypes = [ctypes.c_void_p]
    if clock:
        lib.hwmg_clock_cycles.restype = ctypes.c_uint64
        lib.hwmg_clock_cycles.argtypes = [ctypes.c_void_p]
    return lib


def perft_functions(path):
    """The perft driver's library at ``path`` (perft_driver.cc, with either simulator's model of a
    perft array or of its netlist) loaded with its C signatures."""
    lib = open_model(path, clock=True)
    lib.hwmg_perft_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.hwmg_perft_run.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p]
    return lib


def hostlink_functions(path):
    """The host-link driver's library at ``path`` (hostlink_driver.cc, with either simulator's model
    of a dev board's top level or of its netlist) loaded with its C signatures."""
    lib = open_model(path, clock=True)
    lib.hwmg_set_divisor.argtypes = [ctypes.c_void_p, ctypes.c_long]
    lib.hwmg_hierarchical.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.hwmg_board_reset.argtypes = [ctypes.c_void_p]
    lib.hwmg_run.restype = ctypes.c_long
    lib.hwmg_run.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_long]
    lib.hwmg_idle.restype = ctypes.c_long
    lib.hwmg_idle.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long, ctypes.c_long,
                              ctypes.POINTER(ctypes.c_long)]
    lib.hwmg_busy.restype = ctypes.c_int
    lib.hwmg_busy.argtypes = [ctypes.c_void_p]
    return lib


def search_functions(path):
    """The search driver's library at ``path`` (search_driver.cc, with either simulator's model of a
    search engine or of its netlist) loaded with its C signatures."""
    lib = open_model(path, clock=True)
    lib.hwmg_search.restype = ctypes.c_int
    lib.hwmg_search.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_uint64]
    return lib


def generator_library(config, log=None, simulator="cxxrtl"):
    """The compiled model (of ``simulator``) loaded with its C signatures (once per process)."""
    key = config.canonical().layout, config.core, config.legal, config.order, simulator
    if key in _LIBRARIES:
        return _LIBRARIES[key]
    lib = _LIBRARIES[key] = generator_functions(build_model(config, log=log, simulator=simulator))
    return lib


def generator_functions(path):
    """The generator driver's library at ``path`` (cxxrtl_driver.cc, with either simulator's model
    of a generator or of its netlist) loaded with its C signatures."""
    lib = open_model(path, clock=True)
    lib.hwmg_generate.restype = ctypes.c_long
    lib.hwmg_generate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                                  ctypes.c_uint32, ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_uint64)]
    lib.hwmg_trace.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    lib.hwmg_hierarchical.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.hwmg_trace_length.restype = ctypes.c_long
    lib.hwmg_trace_length.argtypes = [ctypes.c_void_p]
    return lib


class CompiledModel:
    """A compiled model loaded on first use: subclasses give :meth:`library` (the loaded
    library with its signatures) and ``seed``; :meth:`prepare` creates the simulator. ``simulator``
    builds the model (:data:`~.build.SIMULATORS`); ``name`` is the backend's."""
    name = "cxxrtl"
    simulator = "cxxrtl"
    seed = 0
    _lib = _handle = _draws = None

    def library(self):
        raise NotImplementedError

    def created(self):
        """Called once the simulator exists (subclasses read sizes from the library)."""

    def prepare(self):
        """Build (or find in the cache) and load the compiled model; called on first use."""
        if self._handle is None:
            self._lib = self.library()
            self._handle = self._lib.hwmg_create(self.seed if self._draws is None else self._draws)
            self.created()

    def reset(self, seed=None):
        """Free the simulator: the next use starts a fresh one (the library stays loaded) whose
        random draws start from ``seed`` (default: the model's own ``seed``)."""
        if self._handle is not None and self._lib is not None:
            self._lib.hwmg_destroy(self._handle)
            self._handle = None
        self._draws = seed

    def __del__(self):
        self.reset()
