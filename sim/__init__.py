"""Simulation and verification, in rooms by role; each imports only the rooms above it here.

* :mod:`.model`: the golden model (generation, legality, order, perft, positions, EPD), written
  from :mod:`hwmovegen.tables` alone: the specification the hardware is compared with.
* :mod:`.harness`: what every simulator shares: the wire formats, cycle traces, tool paths and
  the cache, the pysim testbenches, and the interfaces (a generator backend, a perft simulator)
  whose capabilities are declared, never probed.
* :mod:`.cxxrtl`, :mod:`.verilator`: compiled simulators (CXXRTL models driven through ctypes;
  Verilator with cocotb for the exported netlist).
* :mod:`.peers`: the programs measured beside the hardware (Stockfish, Gigantua).
* :mod:`.backends`: the one registry: per backend name its generator, perft array and search
  engine, and the fallback where one cannot run.
* :mod:`.drivers`: what runs them: compare, bench, hardware perft, formal, the Dask tasks.
"""
