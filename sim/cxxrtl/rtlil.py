"""The RTLIL a CXXRTL model is built from: Amaranth's, without source locations, with identical
submodules made one module (:func:`share_identical`), so that g++ compiles each unit once."""

import re

from amaranth.back import rtlil

from ...rtl.bitboards import SHARED

__all__ = ["design_rtlil", "share_identical"]


def design_rtlil(design, copies=(), share=True):
    """The design's RTLIL, named ``top``, with its shareable submodules shared (see
    :func:`share_identical`; not with ``share`` false: Verilator flattens the design anyway);
    ``copies``: names of top-level submodules that are identical instances of one elaboratable (a
    perft array's engines), which must all be shared."""
    text = rtlil.convert(design, name="top")
    # Source locations would tie the cache key to where the package is installed; the
    # generator's name would sit between modules.
    text = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("attribute \\src", "attribute \\generator")))
    return share_identical(text, copies) if share else text


_PORT = re.compile(r"port\$(\d+)\$")      # Amaranth's names for ports it adds: numbered design-wide
_CELL = re.compile(r"(?m)^  cell (\\\S+) (\\\S+)\n")
_CONNECT = re.compile(r"(?m)^(    connect \\)port\$(\d+)\$")


def share_identical(text, copies=()):
    """RTLIL where identical submodules are one module, instantiated where each was.

    Amaranth writes a module per instance, so a design that repeats a unit (a perft array's
    engines, the leaf counter's board permutations, :data:`hwmovegen.rtl.bitboards.SHARED`)
    would be compiled as often as it occurs, flattened into one function g++ takes minutes
    (for the counter's wiring, a quarter of an hour) over. The candidates are the submodules
    named with that prefix and the top-level ``copies``; from the deepest up, each candidate's
    tree (its module and the descendants that are not candidates themselves), with its own
    name, the numbers of the ports Amaranth adds and the shared modules it instantiates
    normalised, is compared with the others'. A copy is dropped with its tree, its instances
    pointed at the first, whose hierarchy is kept (``keep_hierarchy``), so that CXXRTL makes
    one class of it. The ``copies`` must all turn out identical.
    """
    head, *blocks = re.split(r"(?m)^(?=module )", text)
    names = [block.split("\n", 1)[0].split()[1] for block in blocks]
    modules = dict(zip(names, blocks))
    wanted = [f"\\top.{name}" for name in copies]
    candidates = [name for name in names if name.rsplit(".", 1)[-1].startswith(SHARED) or name in wanted]
    candidates.sort(key=lambda name: -name.count("."))
    is_candidate = set(candidates)
    replaced = {}           # a dropped copy -> (the module kept, its port numbers -> the kept module's)
    kept = {}               # normalised tree -> (module, its port numbers -> their order)
    token = {}              # a kept module -> its name in normalised text

    def pointed(block, renaming):
        """``block`` with its cells of dropped copies instantiating the kept modules (named
        ``renaming(kept module)``), their port numbers changed to the kept module's."""
        out, position = [], 0
        for match in _CELL.finditer(block):
            module = match[1]
            if module in replaced:
                first, renumber = replaced[module]
                end = block.index("  end\n", match.start())
                cell = _CONNECT.sub(lambda m: f"{m[1]}port${renumber[m[2]]}$", block[match.end():end])
                out += [block[position:match.start()], f"  cell {renaming(first)} {match[2]}\n", cell]
                position = end
            elif module in token and renaming(module) != module:
                out += [block[position:match.start()], f"  cell {renaming(module)} {match[2]}\n"]
                position = match.end()
        return "".join(out) + block[position:]

    def tree(name):
        return [n for n in names if n == name or (n.startswith(name + ".") and not _inside_candidate(n, name))]

    def _inside_candidate(n, root):
        parts = n[len(root) + 1:].split(".")
        return any(f"{root}.{'.'.join(parts[:i + 1])}" in is_candidate for i in range(len(parts)))

    for name in candidates:
        text_ = "".join(pointed(modules[n], lambda module: token.get(module, module)).rstrip() + "\n"
                        for n in tree(name))
        text_ = text_.replace(name + ".", "#.").replace(name + "\n", "#\n")
        order = {}
        for number in _PORT.findall(text_):
            order.setdefault(number, len(order))
        normal = _PORT.sub(lambda m: f"port$#{order[m[1]]}$", text_)
        if normal in kept:
            first, first_order = kept[normal]
            number_at = {index: number for number, index in first_order.items()}
            replaced[name] = (first, {number: number_at[index] for number, index in order.items()})
        else:
            kept[normal] = (name, order)
            token[name] = f"@{len(token)}"
    if wanted:
        for name in wanted[1:]:
            if replaced.get(name, (None,))[0] != wanted[0]:
                raise RuntimeError(f"submodule {name[5:]} is not a copy of {copies[0]}: cannot share its simulation")
    shared = {first for first, _ in replaced.values()}
    dropped = {n for name in replaced for n in tree(name)}
    out = [head]
    for name, block in zip(names, blocks):
        if name in dropped:
            continue
        block = pointed(block, lambda module: module)
        out.append("attribute \\keep_hierarchy 1\n" + block if name in shared else block)
    return "".join(out)
