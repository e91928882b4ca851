"""Chess geometry -> Sandström move tables and ROM images (pure Python, no Amaranth)."""

from .geometry import (PieceType, Direction, TableKind, NodeKind, Node, CastleRight, chain, rays, castle_rays,
                       castle_right_for, castle_rook_move, rights_kept, square_name, table_kind, piece_code, code_type,
                       code_is_black, EMPTY, BLACK)
from .layouts import Layout, DenseLayout, ButterflyLayout, Decoded, LAYOUTS, get_layout

__all__ = ["PieceType", "Direction", "TableKind", "NodeKind", "Node", "CastleRight", "chain", "rays", "castle_rays",
           "castle_right_for", "castle_rook_move", "rights_kept", "square_name", "table_kind", "piece_code", "code_type", "code_is_black",
           "EMPTY", "BLACK", "Layout", "DenseLayout", "ButterflyLayout", "Decoded", "LAYOUTS", "get_layout",
           "walk_chain"]


def walk_chain(layout, kind, square, follow_pos, limit=4096):
    """Walk the chain of ``kind`` on ``square`` through ``layout``'s ROM images.

    ``follow_pos(decoded)`` decides each step: True follows *nextpos* (target
    empty), False follows *nextdir* (target occupied). Yields the decoded nodes in
    visit order. Raises ``RuntimeError`` if the walk does not end within ``limit``.
    """
    table = layout.decoded_table(kind == TableKind.QUEEN)
    addr = layout.head(kind, square)
    for _ in range(limit):
        node = table[addr]
        yield node
        if follow_pos(node):
            if node.pos_end:
                return
            addr = node.pos_addr
        else:
            if node.dir_end:
                return
            addr = node.dir_addr
    raise RuntimeError(f"walk of {kind.name} on {square_name(square)} does not terminate")
