"""The top-level ports of a component as a netlist shows them, with the bit fields of each, and
:func:`group`, which keeps them plain where a signature's members are a component's own.

A design written out as Verilog or RTLIL (``hwmovegen export``) has flat ports: one
vector per member of the component's signature, named by its path joined with ``__``
(as ``amaranth.back.verilog`` and ``amaranth.back.rtlil`` name them: ``load__rank_en``,
``moves__payload``), plus ``clk`` and ``rst`` of the ``sync`` domain. A member whose
shape is a layout (:mod:`.types`: ``Move``, ``Counters``, ``BoardState``...) keeps its
fields at the layout's offsets; :func:`describe` lists them from the layouts themselves.
"""

from dataclasses import dataclass, field

from amaranth import Shape
from amaranth.lib import data, wiring

__all__ = ["Field", "Port", "describe", "group", "CLOCK", "RESET", "GENERATOR_NOTES", "PERFT_NOTES"]

CLOCK, RESET = "clk", "rst"


@dataclass(frozen=True)
class Field:
    """A bit field of a port: bits ``lsb`` to ``msb`` (inclusive) hold ``name``."""
    name: str
    lsb: int
    width: int

    @property
    def msb(self):
        return self.lsb + self.width - 1


@dataclass(frozen=True)
class Port:
    name: str               # as in the netlist
    direction: str          # "input" or "output"
    width: int
    layout: str = ""        # the layout's name (``Move``), if the port has fields
    note: str = ""
    fields: tuple = field(default_factory=tuple)

    @property
    def path(self):
        """The member's path in the signature, dotted (``load.rank_en``)."""
        return self.name.replace("__", ".")


def group(owner, signature):
    """The members of ``signature`` that ``owner`` holds among its own ports, as one interface for
    ``wiring.connect``. A component lists such a group's members flat in its signature
    (``**ControlSignature().members``) so that a netlist keeps their plain names (``start``, not
    ``control__start``: the CXXRTL drivers, the Verilog export and the cocotb bench use them)."""
    members = owner.signature.members
    for name, member in signature.members.items():
        if members[name].flow != member.flow:
            raise TypeError(f"{name!r} of {owner!r} is {members[name].flow}, not {member.flow}")
    # the owner's own members (their signatures are its sub-interfaces'), no new signals
    return _Group(wiring.Signature({name: members[name] for name in signature.members}), owner)


class _Group:
    def __init__(self, signature, owner):
        self.signature = signature
        for name in signature.members:
            setattr(self, name, getattr(owner, name))


def _fields(shape, prefix=""):
    """The leaf fields of a layout, with their offsets, in bit order."""
    layout = data.Layout.cast(shape)
    out = []
    for key, member in layout:
        name = f"{prefix}[{key}]" if isinstance(layout, data.ArrayLayout) else f"{prefix}.{key}".lstrip(".")
        if isinstance(member.shape, data.Layout) or (isinstance(member.shape, type)
                                                     and issubclass(member.shape, data.View)):
            out.extend(Field(f.name, f.lsb + member.offset, f.width) for f in _fields(member.shape, name))
        else:
            out.append(Field(name, member.offset, Shape.cast(member.shape).width))
    return sorted(out, key=lambda f: f.lsb)


def _layout_name(shape):
    if isinstance(shape, type):
        return shape.__name__
    if isinstance(shape, data.ArrayLayout):
        return f"{shape.length} x {Shape.cast(shape.elem_shape).width} bits"
    return ""


def describe(component, notes=None):
    """The ports of ``component`` (a ``wiring.Component``) in signature order, after ``clk``
    and ``rst``; ``notes``: a one-line meaning per member path (``"load.clear"``)."""
    notes = notes or {}
    ports = [Port(CLOCK, "input", 1, note=notes.get(CLOCK, "")),
             Port(RESET, "input", 1, note=notes.get(RESET, ""))]
    for path, member, _ in component.signature.flatten(component):
        shape = member.shape
        is_layout = isinstance(shape, data.Layout) or (isinstance(shape, type) and issubclass(shape, data.View))
        ports.append(Port(
            name="__".join(map(str, path)),
            direction="input" if member.flow == wiring.In else "output",
            width=Shape.cast(shape).width,
            layout=_layout_name(shape) if is_layout else "",
            note=notes.get(".".join(map(str, path)), ""),
            fields=tuple(_fields(shape)) if is_layout else (),
        ))
    return ports


# The meaning of each port, one line, for the port tables (the components' docstrings say more).
_LOAD_NOTES = {
    CLOCK: "clock: every input is sampled, every output changes, at its rising edge",
    RESET: "synchronous reset, active high: empties the board, idles the design",
    "load.clear": "empty all 64 squares",
    "load.rank_en": "write the eight squares of rank `load__rank` from `load__rank_planes` (wins over clear)",
    "load.rank": "the rank to write (0: rank 1, 7: rank 8)",
    "load.rank_planes": "byte k: bit k of each square's piece code, file a in bit 0 (as the position image)",
    "load.state_en": "write the state registers from `load__state`",
    "load.state": "side to move, castling rights, en-passant square",
}

GENERATOR_NOTES = {
    **_LOAD_NOTES,
    "start": "generate the loaded position; taken in a cycle with `start_ready` high",
    "start_ready": "`start` is taken this cycle",
    "abort": "synchronous reset of the generator, not of the board",
    "busy": "a started position is not done",
    "done": "one cycle per started position, in start order, after its last move was taken",
    "moves.ready": "the consumer takes the move this cycle",
    "moves.valid": "a move is offered; it and the payload hold until taken",
    "moves.payload": "the move, in the golden model's order",
    "counters": "the counters of the current or last generation; read them with `done`",
    "all_moves": "sampled with `start`: this position's pseudo-legal moves, the legality stage bypassed",
}

PERFT_NOTES = {
    **_LOAD_NOTES,
    "depth": "plies to walk, from 1; sampled with `start`",
    "start": "walk the loaded position's tree; taken when not busy",
    "busy": "a walk is under way",
    "done": "one cycle at the end of a walk; `counters` hold its figures from then on",
    "counters": "the walk's figures: `nodes` is the perft count",
}
