"""The geometry every layout is built from: rays, node kinds, castling."""

from hwmovegen.tables import (CastleRight, Direction, PieceType, TableKind, NodeKind, castle_right_for, chain, rays,
                              castle_rays, rights_kept)
from hwmovegen.tables.contracts import CAPTURE_BINS, capture_bin
from hwmovegen.tables.geometry import KING_DIRECTIONS

from ..helpers import chains

SQUARES = range(64)


def independent_targets(kind, square):
    """Geometric targets by brute force over all 64 squares (no ray code shared)."""
    f0, r0 = square % 8, square // 8
    out = set()
    for to in SQUARES:
        if to == square:
            continue
        df, dr = to % 8 - f0, to // 8 - r0
        rook = df == 0 or dr == 0
        bishop = abs(df) == abs(dr)
        if kind == TableKind.ROOK and rook or kind == TableKind.BISHOP and bishop \
                or kind == TableKind.QUEEN and (rook or bishop) \
                or kind == TableKind.KNIGHT and {abs(df), abs(dr)} == {1, 2} \
                or kind == TableKind.KING and max(abs(df), abs(dr)) == 1:
            out.add(to)
        if kind in (TableKind.WPAWN, TableKind.BPAWN):
            forward = 1 if kind == TableKind.WPAWN else -1
            start = 1 if forward == 1 else 6
            if dr == forward and abs(df) <= 1 or dr == 2 * forward and df == 0 and r0 == start:
                out.add(to)
    return out


def test_each_geometric_target_once_in_ray_order():
    for kind, square in chains():
        plain = [n.to for n in chain(kind, square)
                 if n.kind not in (NodeKind.CASTLE_PATH, NodeKind.CASTLE)]
        assert len(plain) == len(set(plain)), (kind, square)
        assert set(plain) == independent_targets(kind, square), (kind, square)
        for ray in rays(kind, square):
            if ray[0].kind in (NodeKind.CASTLE_PATH, NodeKind.CASTLE):
                continue
            distances = [max(abs(n.to % 8 - square % 8), abs(n.to // 8 - square // 8)) for n in ray]
            assert distances == sorted(distances) and len(set(distances)) == len(distances)
            if len(ray) > 1:  # a slider ray or the push ray: a straight line outwards
                steps = {ray[i + 1].to - ray[i].to for i in range(len(ray) - 1)}
                assert len(steps) == 1 and steps.pop() == ray[0].to - square, (kind, square)


def test_pawn_node_kinds():
    for square in range(8, 56):
        white = rays(TableKind.WPAWN, square)
        push = white[0]
        assert push[0].to == square + 8
        assert push[0].kind == (NodeKind.PROMO_PUSH if square >= 48 else NodeKind.PUSH)
        assert [n.kind for n in push[1:]] == ([NodeKind.DOUBLE] if square < 16 else [])
        for ray in white[1:]:
            assert len(ray) == 1 and ray[0].kind == (
                NodeKind.PROMO_CAPTURE if square >= 48 else NodeKind.CAPTURE)
    assert rays(TableKind.WPAWN, 3) == [] and rays(TableKind.BPAWN, 60) == []


def test_castling_rays_only_on_e1_and_e8():
    for square in SQUARES:
        assert bool(castle_rays(square)) == (square in (4, 60))
    assert [[n.to for n in ray] for ray in castle_rays(4)] == [[5, 6], [3, 1, 2]]


def test_piece_types_are_python_chess_types():
    import chess
    assert [int(t) for t in PieceType] == [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN,
                                           chess.KING]
    assert [t.name for t in PieceType] == [chess.piece_name(t).upper() for t in chess.PIECE_TYPES]
    # the tables a non-pawn walks are numbered by its type
    assert all(TableKind[t.name] == t for t in PieceType if t != PieceType.PAWN)


def test_directions_name_their_steps():
    steps = {"N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1), "S": (0, -1), "SW": (-1, -1), "W": (-1, 0),
             "NW": (-1, 1)}
    assert {d.name: KING_DIRECTIONS[d] for d in Direction} == steps


def test_castle_rights_are_the_state_register_bits():
    assert [castle_right_for(to) for to in (6, 2, 62, 58)] == [CastleRight.WHITE_KINGSIDE,
                                                               CastleRight.WHITE_QUEENSIDE,
                                                               CastleRight.BLACK_KINGSIDE,
                                                               CastleRight.BLACK_QUEENSIDE]
    assert [int(right) for right in CastleRight] == [1, 2, 4, 8]
    assert rights_kept(4) == CastleRight.BLACK_KINGSIDE | CastleRight.BLACK_QUEENSIDE
    assert rights_kept(63) == 0b1111 & ~CastleRight.BLACK_KINGSIDE
    assert rights_kept(27) == 0b1111


def test_capture_bins_order_victims_then_attackers():
    bins = {(victim, attacker): capture_bin(victim, attacker)
            for victim in PieceType if victim != PieceType.KING for attacker in PieceType}
    assert sorted(bins.values()) == list(range(CAPTURE_BINS))
    assert bins[PieceType.QUEEN, PieceType.PAWN] == 0
    assert bins[PieceType.QUEEN, PieceType.KING] < bins[PieceType.ROOK, PieceType.PAWN]
