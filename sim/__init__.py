"""Simulation and verification, in rooms by role; each imports only the rooms above it here.

* :mod:`.model`: the golden model (generation, legality, order, perft, positions, EPD), written
  from :mod:`hwmovegen.tables` alone: the specification the hardware is compared with.
* :mod:`.harness`: what every simulator shares: the wire formats, cycle traces, tool paths and
  the cache, and the pysim testbenches.
* :mod:`.cxxrtl`, :mod:`.verilator`: compiled simulators (CXXRTL models driven through ctypes;
  Verilator with cocotb for the exported netlist).
* :mod:`.peers`: the programs measured beside the hardware (Stockfish, Gigantua).
* :mod:`.backends`: the backend interface and its one registry.
* :mod:`.drivers`: what runs them: compare, bench, hardware perft, formal, the Dask tasks.
"""
