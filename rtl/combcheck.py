"""Amaranth's check for combinational cycles, answered a cell at a time where it can be.

Amaranth 0.5 checks every netlist it builds for a combinational cycle bit by bit, and each output bit of
an adder, a comparison, a shift or a priority match depends on every bit of its inputs: on the larger
designs here the check walks tens of millions of edges, a quarter to a third of the conversion to RTLIL
(the search engine 5.9 of 20.7 processor-seconds, the three-engine perft array 9.2 of 29.9). A cycle of
bits runs through cells that form a cycle of their own, so a walk over the cells, each taken to depend
on every net it reads combinationally, that finds no cycle proves that the bits have none; it visits
each cell once. Where it finds a cycle among cells (which need not be one among bits), or meets a cell
it does not know, Amaranth's own check runs and decides, with its own message.
"""

from amaranth.hdl import _nir

__all__ = ["install", "cells_are_acyclic"]


def _reads(cell):
    """The nets ``cell``'s outputs may depend on combinationally (every net its ``comb_edges_to``
    can yield, for any bit), or None for a cell this module does not know."""
    kind = type(cell)
    if kind is _nir.Operator:
        return [net for value in cell.inputs for net in value]
    if kind is _nir.AssignmentList:
        nets = list(cell.default)
        for assign in cell.assignments:
            nets.append(assign.cond)
            nets.extend(assign.value)
        return nets
    if kind is _nir.Part:
        return [*cell.value, *cell.offset]
    if kind is _nir.Matches:
        return list(cell.value)
    if kind is _nir.PriorityMatch:
        return [cell.en, *cell.inputs]
    if kind is _nir.FlipFlop:
        return [cell.clk, cell.arst]
    if kind is _nir.AsyncReadPort:
        return list(cell.addr)
    if kind is _nir.IOBuffer:
        return [] if cell.dir is _nir.IODirection.Input else [*cell.o, cell.oe]
    if kind in _NO_COMB_EDGES:
        return []
    return None


# cells whose outputs depend on no net combinationally, or that have no outputs at all
_NO_COMB_EDGES = (_nir.Top, _nir.SyncReadPort, _nir.Initial, _nir.AnyValue, _nir.Instance, _nir.Memory,
                  _nir.SyncWritePort, _nir.AsyncPrint, _nir.SyncPrint, _nir.AsyncProperty, _nir.SyncProperty)


def cells_are_acyclic(netlist):
    """True if the graph of ``netlist``'s cells (and its late nets) has no cycle; False if it has one
    or holds a cell :func:`_reads` does not know. A net is an int: 0 and 1 constants, a late net
    negative, a cell's output ``cell << 16 | bit``."""
    cells = netlist.cells
    count = len(cells)
    late, late_nets = {}, []      # a late net -> its node (numbered after the cells); the nets in that order

    def node(net):
        if net >= 2:
            return net >> 16
        if net >= 0:
            return None
        if net not in late:
            late[net] = count + len(late_nets)
            late_nets.append(net)
        return late[net]

    edges = []
    for cell in cells:
        nets = _reads(cell)
        if nets is None:
            return False
        edges.append({node(net) for net in nets} - {None})
    while len(edges) < count + len(late_nets):     # a late net's one edge, to the net it stands for
        edges.append({node(netlist.connections[late_nets[len(edges) - count]])} - {None})
    state = bytearray(len(edges))     # 0 not seen, 1 on the walk's path, 2 done
    for root in range(len(edges)):
        if state[root]:
            continue
        state[root] = 1
        path = [(root, iter(edges[root]))]
        while path:
            at, targets = path[-1]
            for target in targets:
                if state[target] == 1:
                    return False
                if not state[target]:
                    state[target] = 1
                    path.append((target, iter(edges[target])))
                    break
            else:
                state[at] = 2
                path.pop()
    return True


_amaranths_check = _nir.Netlist.check_comb_cycles


def _check_comb_cycles(self):
    if not cells_are_acyclic(self):
        return _amaranths_check(self)


def install():
    """Answer Amaranth's check by :func:`cells_are_acyclic` first (for this process; the package
    installs it when ``hwmovegen.rtl`` is imported)."""
    _nir.Netlist.check_comb_cycles = _check_comb_cycles
