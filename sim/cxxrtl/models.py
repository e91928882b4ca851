"""The Python wrappers of the CXXRTL models: a generator as a backend (:class:`CxxrtlBackend`),
a perft array (:class:`CxxrtlPerft`), the leaf counter (:class:`CxxrtlLeafCounter`); the
wrappers themselves are the compiled models' (:mod:`..harness.compiled`)."""

from ..harness.compiled import CompiledGenerator, CompiledLeafCounter, CompiledPerft
from .build import CXXRTL

__all__ = ["CxxrtlBackend", "CxxrtlPerft", "CxxrtlLeafCounter"]


class CxxrtlBackend(CompiledGenerator):
    __doc__ = CompiledGenerator.__doc__
    simulator = CXXRTL


class CxxrtlPerft(CompiledPerft):
    __doc__ = CompiledPerft.__doc__
    simulator = CXXRTL


class CxxrtlLeafCounter(CompiledLeafCounter):
    __doc__ = CompiledLeafCounter.__doc__
    simulator = CXXRTL
