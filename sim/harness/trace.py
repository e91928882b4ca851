"""Cycle traces: what a simulation saw on a MoveGenerator's handshake, one sample per clock.

A sample is a dict of the :class:`~hwmovegen.rtl.types.CycleSample` fields. The CXXRTL driver
records one per simulated cycle (``CxxrtlBackend.trace``), the pysim testbench one per cycle
of a generation (``testbench.run(..., trace=...)``); both sample where the counters are
counted, so a trace and the counters of the same generation must agree: :func:`check`.
"""

from ...rtl.types import CycleSample, unpack

__all__ = ["SAMPLE_FIELDS", "sample_from_word", "window", "transfers", "stalls", "check"]

SAMPLE_FIELDS = tuple(name for name, _ in CycleSample.as_shape())


def sample_from_word(word):
    """A sample from the bits of a CycleSample word (the CXXRTL driver's trace)."""
    return unpack(CycleSample, word)


def window(samples):
    """The cycles of one generation: from the cycle that takes ``start`` to its ``done``."""
    first = next((i for i, s in enumerate(samples) if s["start"] and s["start_ready"]), None)
    if first is None:
        raise RuntimeError("the trace holds no cycle that takes start")
    last = next((i for i in range(first, len(samples)) if samples[i]["done"]), None)
    if last is None:
        raise RuntimeError("the trace ends before done")
    return samples[first:last + 1]


def transfers(samples):
    """Indices of the cycles in which a move left (valid and ready)."""
    return [i for i, s in enumerate(samples) if s["moves_valid"] and s["moves_ready"]]


def stalls(samples):
    """Indices of the cycles in which a move waited (valid, not ready)."""
    return [i for i, s in enumerate(samples) if s["moves_valid"] and not s["moves_ready"]]


def check(generation, samples):
    """Raise RuntimeError unless the generation's window (``samples``) agrees with its counters:
    ``cycles`` from the start cycle to the one before done, ``moves`` transfers, ``stalls``."""
    problems = []
    if len(samples) - 1 != generation.cycles:
        problems.append(f"{len(samples) - 1} cycles from start to done, the counter says {generation.cycles}")
    if len(transfers(samples)) != len(generation.moves):
        problems.append(f"{len(transfers(samples))} moves left, the stream holds {len(generation.moves)}")
    if len(stalls(samples)) != generation.stalls:
        problems.append(f"{len(stalls(samples))} stall cycles, the counter says {generation.stalls}")
    if problems:
        raise RuntimeError("the trace disagrees with the counters: " + "; ".join(problems))
