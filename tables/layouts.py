"""ROM layouts of the Sandström tables, built from :mod:`hwmovegen.tables.geometry`.

A layout has two ROMs:

* the **node ROM**: one word per table node, addressed by a node address;
* the **head ROM**: indexed by ``kind * 64 + square``, giving the node address of
  the first node of that piece's chain.

and one decoding rule, :meth:`Layout.decode`, which turns ``(address, word)`` into
a :class:`Decoded` node: its target square, its :class:`NodeKind`, and where the
walk goes next when the target square is empty (*nextpos*) or occupied
(*nextdir*), each with an *end* flag that says the chain is finished. The RTL
decoders (``hwmovegen.rtl.decode``) implement exactly this rule in hardware and
the golden model calls it in Python, so both read the same ROM image the same way.

Layouts:

``butterfly``
    GNU Chess 1.55's ``posdata[kind][from][to] = (nextpos, nextdir)``: the node
    address is ``plane << 12 | from << 6 | to``, so the word needs no target
    field. A pointer equal to ``from`` is the sentinel that ends the chain, as in
    GNU Chess. Plane 7 holds the castling rays of e1 and e8 (their path squares
    repeat target squares of the king plane); the last king node on e1/e8 links
    into it with the ``xplane`` bit. The head ROM materialises GNU Chess's diagonal
    entry ``posdata[kind][sq][sq].nextpos`` as a full node address.

``dense``
    A linked node list after Brades' dense index list. Each chain is a block of
    consecutive words and each ray a run of consecutive words, so *nextpos* is
    always ``address + 1`` and *nextdir* is ``address + skip``, where ``skip`` (the
    number of nodes left in the ray) is a 3-bit field instead of a pointer. The
    ``last`` bit marks the last ray of a block: leaving it ends the chain. A queen
    has no block of its own: every square's rook block is followed by its bishop
    block, the queen's head is the rook head, and ``qcont`` on the rook block tells
    a queen to walk on into the bishop block instead of ending.
"""

from collections import namedtuple

from .geometry import TableKind, rays, castle_rays

__all__ = ["Field", "Layout", "DenseLayout", "ButterflyLayout", "Decoded",
           "LAYOUTS", "get_layout"]

Field = namedtuple("Field", "name width")

Decoded = namedtuple("Decoded", "to kind pos_addr pos_end dir_addr dir_end")
Decoded.__doc__ = "A decoded table node: where the walk goes when the target is empty (pos) or occupied (dir)."

def _bits_for(n):
    return max(1, (n - 1).bit_length())


class Layout:
    """Base class: field packing and the size report. Subclasses build the images."""
    name = None
    description = None
    fields = ()

    def __init__(self):
        self.node_image = []
        self.head_image = [0] * (len(TableKind) * 64)
        self.has_chain = [False] * (len(TableKind) * 64)
        self._build()
        self._decoded = {}

    # -- word packing --------------------------------------------------------
    @property
    def word_width(self):
        return sum(f.width for f in self.fields)

    def pack(self, **values):
        word, shift = 0, 0
        for f in self.fields:
            value = int(values.get(f.name, 0))
            assert 0 <= value < (1 << f.width), (f.name, value)
            word |= value << shift
            shift += f.width
        return word

    def unpack(self, word):
        out, shift = {}, 0
        for f in self.fields:
            out[f.name] = (word >> shift) & ((1 << f.width) - 1)
            shift += f.width
        return out

    # -- geometry of the images ---------------------------------------------
    @property
    def addr_width(self):
        return _bits_for(len(self.node_image))

    @property
    def head_depth(self):
        return len(self.head_image)

    def head(self, kind, square):
        return self.head_image[int(kind) * 64 + square]

    def decode(self, addr, word, is_queen):
        raise NotImplementedError

    def decoded_table(self, is_queen):
        """``decode`` applied to every address (cached; the golden model's fast path)."""
        key = bool(is_queen)
        if key not in self._decoded:
            self._decoded[key] = [self.decode(a, w, key) for a, w in enumerate(self.node_image)]
        return self._decoded[key]

    @property
    def node_count(self):
        """Table nodes actually present (the butterfly's image is mostly unused)."""
        return self._node_count

    def roms(self):
        """The layout's ROMs as (name, depth, width); what they cost on a device is the
        target's business (``hwmovegen.boards.targets``)."""
        return [("node", len(self.node_image), self.word_width), ("head", self.head_depth, self.addr_width)]

    def report(self):
        """Size of the ROM images, independent of any device."""
        node_bits = len(self.node_image) * self.word_width
        head_bits = self.head_depth * self.addr_width
        return {
            "layout": self.name,
            "nodes": self.node_count,
            "node_rom_depth": len(self.node_image),
            "word_bits": self.word_width,
            "fields": {f.name: f.width for f in self.fields},
            "node_rom_bits": node_bits,
            "head_rom_depth": self.head_depth,
            "head_word_bits": self.addr_width,
            "head_rom_bits": head_bits,
            "total_bits": node_bits + head_bits,
            "total_kbit": round((node_bits + head_bits) / 1024, 1),
        }


class DenseLayout(Layout):
    name = "dense"
    description = "linked node list, rays as runs of words, queen = rook block + bishop block"
    fields = (Field("to", 6), Field("skip", 3), Field("last", 1), Field("kind", 3), Field("qcont", 1))

    def _emit_block(self, block_rays, qcont):
        start = len(self.node_image)
        for index, ray in enumerate(block_rays):
            last = index == len(block_rays) - 1
            for position, node in enumerate(ray):
                self.node_image.append(self.pack(to=node.to, skip=len(ray) - position, last=last,
                                                 kind=node.kind, qcont=qcont))
        return start

    def _build(self):
        def set_head(kind, square, address):
            self.head_image[kind * 64 + square] = address
            self.has_chain[kind * 64 + square] = True

        for kind in (TableKind.WPAWN, TableKind.BPAWN, TableKind.KNIGHT, TableKind.KING):
            for square in range(64):
                block = rays(kind, square)
                if block:
                    set_head(kind, square, self._emit_block(block, qcont=False))
        for square in range(64):
            rook = self._emit_block(rays(TableKind.ROOK, square), qcont=True)
            bishop = self._emit_block(rays(TableKind.BISHOP, square), qcont=False)
            set_head(TableKind.ROOK, square, rook)
            set_head(TableKind.QUEEN, square, rook)
            set_head(TableKind.BISHOP, square, bishop)
        self._node_count = len(self.node_image)

    def decode(self, addr, word, is_queen):
        w = self.unpack(word)
        leaves = bool(w["last"]) and not (is_queen and w["qcont"])
        return Decoded(w["to"], w["kind"], addr + 1, leaves and w["skip"] == 1, addr + w["skip"], leaves)


class ButterflyLayout(Layout):
    name = "butterfly"
    description = "GNU Chess posdata[kind][from][to] = (nextpos, nextdir); plane 7 holds castling"
    fields = (Field("nextpos", 6), Field("nextdir", 6), Field("kind", 3), Field("xplane", 1))
    CASTLE_PLANE = 7

    @staticmethod
    def address(plane, frm, to):
        return plane << 12 | frm << 6 | to

    def _link(self, plane, square, block_rays, end_target, end_xplane):
        """Write one plane's chain for ``square``; return the address of its first node."""
        firsts = [ray[0].to for ray in block_rays[1:]] + [end_target]
        for index, ray in enumerate(block_rays):
            next_dir = firsts[index]
            dir_x = end_xplane and index == len(block_rays) - 1
            for position, node in enumerate(ray):
                if position + 1 < len(ray):
                    next_pos, pos_x = ray[position + 1].to, False
                else:
                    next_pos, pos_x = next_dir, dir_x
                assert pos_x == dir_x or next_pos == next_dir
                self.node_image[self.address(plane, square, node.to)] = self.pack(
                    nextpos=next_pos, nextdir=next_dir, kind=node.kind, xplane=dir_x or pos_x)
                self._node_count += 1
        first = block_rays[0][0].to
        # GNU Chess keeps the first target at the diagonal entry [kind][sq][sq].
        self.node_image[self.address(plane, square, square)] = self.pack(nextpos=first, nextdir=first)
        return self.address(plane, square, first)

    def _build(self):
        self.node_image = [0] * (8 * 64 * 64)
        self._node_count = 0
        for kind in TableKind:
            for square in range(64):
                block = rays(kind, square)
                if not block:
                    continue
                castling = castle_rays(square) if kind == TableKind.KING else []
                if castling:
                    block = block[:len(block) - len(castling)]
                    self._link(self.CASTLE_PLANE, square, castling, square, False)
                    head = self._link(kind, square, block, castling[0][0].to, True)
                else:
                    head = self._link(kind, square, block, square, False)
                self.head_image[kind * 64 + square] = head
                self.has_chain[kind * 64 + square] = True

    def decode(self, addr, word, is_queen):
        frm = (addr >> 6) & 63
        w = self.unpack(word)
        next_plane = self.CASTLE_PLANE if w["xplane"] else addr >> 12
        base = self.address(next_plane, frm, 0)
        return Decoded(addr & 63, w["kind"],
                       base | w["nextpos"], not w["xplane"] and w["nextpos"] == frm,
                       base | w["nextdir"], not w["xplane"] and w["nextdir"] == frm)


LAYOUTS = {cls.name: cls for cls in (DenseLayout, ButterflyLayout)}
_CACHE = {}


def get_layout(name="dense"):
    """The layout called ``name`` (built once per process)."""
    if name not in LAYOUTS:
        raise KeyError(f"unknown layout {name!r} (choose from {', '.join(LAYOUTS)})")
    if name not in _CACHE:
        _CACHE[name] = LAYOUTS[name]()
    return _CACHE[name]
