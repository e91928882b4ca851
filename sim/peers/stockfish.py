"""Stockfish's ``go perft`` as a yardstick, through its UCI protocol.

The binary is found at run time (``$HWMOVEGEN_STOCKFISH``, else ``stockfish`` on PATH);
nothing installs it. Its perft is single-threaded, with bulk counting at the last ply.
The time is the CPU time its threads spent from ``go perft`` to its ``Nodes searched``
line (Linux's per-thread ``schedstat``, nanoseconds), so a busy machine does not slow it
down on paper; where that is not available, the wall time.
"""

import os
import shutil
import subprocess
import threading
import time

__all__ = ["StockfishError", "find_stockfish", "stockfish_perft", "thread_cpu_seconds"]


class StockfishError(RuntimeError):
    """Stockfish is absent, failed or timed out (message is one line)."""


def thread_cpu_seconds(pid):
    """CPU time of a process's threads so far (Linux's schedstat, nanoseconds), or None where
    /proc has none."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        return sum(int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0]) for task in tasks) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def find_stockfish():
    """The path of a Stockfish binary, or None."""
    chosen = os.environ.get("HWMOVEGEN_STOCKFISH")
    if chosen:
        return shutil.which(chosen) or (chosen if os.access(chosen, os.X_OK) else None)
    return shutil.which("stockfish")


class _Engine:
    def __init__(self, path, timeout):
        self.timeout = timeout
        try:
            self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as error:
            raise StockfishError(f"cannot run {path}: {error.strerror}") from None
        self.lines = []
        self.ready = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.ready:
                self.lines.append(line.strip())
                self.ready.notify_all()
        with self.ready:
            self.lines.append(None)
            self.ready.notify_all()

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + self.timeout
        with self.ready:
            while True:
                while self.lines:
                    line = self.lines.pop(0)
                    if line is None:
                        raise StockfishError(f"stockfish exited while {what}")
                    if predicate(line):
                        return line
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StockfishError(f"stockfish did not finish {what} within {self.timeout:g} s")
                self.ready.wait(remaining)

    def cpu_seconds(self):
        return thread_cpu_seconds(self.process.pid)

    def close(self):
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def stockfish_perft(fen, depth, path=None, timeout=300.0):
    """(nodes, seconds, version line, clock) of Stockfish's ``go perft depth`` from ``fen``;
    ``clock`` says whether ``seconds`` is CPU time ("cpu") or wall time ("wall")."""
    path = path or find_stockfish()
    if path is None:
        raise StockfishError("no stockfish binary on PATH (or $HWMOVEGEN_STOCKFISH)")
    engine = _Engine(path, timeout)
    try:
        engine.send("uci")
        name = engine.wait_for(lambda line: line.startswith("id name"), "starting").removeprefix("id name ")
        engine.wait_for(lambda line: line == "uciok", "starting")
        engine.send("setoption name Threads value 1")
        engine.send(f"position fen {fen}")
        engine.send("isready")
        engine.wait_for(lambda line: line == "readyok", "loading the position")
        start, cpu_start = time.perf_counter(), engine.cpu_seconds()
        engine.send(f"go perft {depth}")
        line = engine.wait_for(lambda line: line.startswith("Nodes searched"), f"perft {depth}")
        seconds, cpu_end = time.perf_counter() - start, engine.cpu_seconds()
    finally:
        engine.close()
    if cpu_start is not None and cpu_end is not None and cpu_end > cpu_start:
        return int(line.split(":")[1]), cpu_end - cpu_start, name, "cpu"
    return int(line.split(":")[1]), seconds, name, "wall"
