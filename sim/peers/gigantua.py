"""Gigantua's perft as a yardstick: the fastest CPU perft we know (bitboards, PEXT, popcount).

Gigantua (Daniel Inführ, github.com/Gigantua/Gigantua) is found at run time
(``$HWMOVEGEN_GIGANTUA``, else ``gigantua`` on PATH); nothing installs it. Run as
``gigantua FEN DEPTH`` it counts depths 1 to DEPTH, one line each (``Perft d: nodes ...``),
then waits for a key. It is single-threaded and counts the last ply without making it.

The time is CPU time (Linux's per-thread ``schedstat``, nanoseconds), read while it waits
at its closing prompt: the least of a run to DEPTH less the least of a run to DEPTH - 1, which
is its perft of DEPTH alone (start-up and the shallower depths cancel). Where /proc has no
schedstat, its own timer around the call (a steady clock).
"""

import os
import pty
import re
import select
import shutil
import subprocess
import time

from .stockfish import thread_cpu_seconds

__all__ = ["GigantuaError", "find_gigantua", "gigantua_perft"]

_LINE = re.compile(r"Perft (\d+): (\d+) (\d+)ms (\S+) MNodes/s")


class GigantuaError(RuntimeError):
    """Gigantua is absent, failed or timed out (message is one line)."""


def find_gigantua():
    """The path of a Gigantua binary, or None."""
    chosen = os.environ.get("HWMOVEGEN_GIGANTUA")
    if chosen:
        return shutil.which(chosen) or (chosen if os.access(chosen, os.X_OK) else None)
    return shutil.which("gigantua")


def _run(path, fen, depth, timeout):
    """(nodes at ``depth``, the CPU seconds of the whole run once it waits at its closing prompt
    (None without schedstat), its own time for ``depth``)."""
    leader, follower = pty.openpty()
    try:
        # stdin on the terminal too: its C library flushes the prompt (no newline) when it
        # reads its key, so "Press any key" marks the end of the counting.
        process = subprocess.Popen([path, fen, str(depth)], stdin=follower, stdout=follower,
                                   stderr=subprocess.DEVNULL)
    except OSError as error:
        os.close(leader)
        os.close(follower)
        raise GigantuaError(f"cannot run {path}: {error.strerror}") from None
    os.close(follower)
    deadline = time.monotonic() + timeout
    text = ""
    try:
        while "Press any key" not in text:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise GigantuaError(f"gigantua did not finish perft {depth} within {timeout:g} s")
            ready, _, _ = select.select([leader], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(leader, 4096).decode(errors="replace")
            except OSError:
                chunk = ""
            if not chunk:
                last = text.strip().splitlines()[-1:] or ["no output"]
                raise GigantuaError(f"gigantua stopped before perft {depth}: {last[0]}")
            text += chunk
        cpu = thread_cpu_seconds(process.pid)          # it waits for a key now: idle
        os.write(leader, b"\n")                        # the key its closing getchar() waits for
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        raise GigantuaError("gigantua did not exit after its prompt") from None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    lines = {int(match[1]): match for match in _LINE.finditer(text)}
    if depth not in lines:
        raise GigantuaError(f"gigantua printed no count for perft {depth}")
    line = lines[depth]
    return int(line[2]), cpu, int(line[2]) / (float(line[4]) * 1e6)


def gigantua_perft(fen, depth, path=None, runs=3, timeout=300.0):
    """(nodes, seconds, clock) of Gigantua's perft of ``depth`` from ``fen``, best of ``runs``.
    ``seconds`` is CPU time (``clock`` "cpu"): the least CPU time of a run to ``depth`` less the
    least of a run to ``depth - 1`` (the same start-up and shallower perfts in both); without
    schedstat, its own timer's best (``clock`` "timer")."""
    path = path or find_gigantua()
    if path is None:
        raise GigantuaError("no gigantua binary on PATH (or $HWMOVEGEN_GIGANTUA)")
    deep = [_run(path, fen, depth, timeout) for _ in range(runs)]
    shallow = [_run(path, fen, depth - 1, timeout) for _ in range(runs)] if depth > 1 else []
    nodes = deep[0][0]
    cpu_deep = [cpu for _, cpu, _ in deep]
    cpu_shallow = [cpu for _, cpu, _ in shallow]
    if None not in cpu_deep + cpu_shallow:
        seconds = min(cpu_deep) - (min(cpu_shallow) if shallow else 0)
        if seconds > 0:
            return nodes, seconds, "cpu"
    return nodes, min(own for _, _, own in deep), "timer"
