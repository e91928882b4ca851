"""Invariants of the Sandström tables in every ROM layout."""

import random

import pytest

from hwmovegen.tables import (LAYOUTS, TableKind, NodeKind, chain, rays, get_layout,
                              walk_chain, castle_rays)

LAYOUT_NAMES = list(LAYOUTS)
SQUARES = range(64)


def chains():
    for kind in TableKind:
        for square in SQUARES:
            if rays(kind, square):
                yield kind, square


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


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_empty_board_walk_visits_every_node_in_order(name):
    layout = get_layout(name)
    for kind, square in chains():
        visited = [(n.to, n.kind) for n in walk_chain(layout, kind, square, lambda n: True)]
        assert visited == [(n.to, n.kind) for n in chain(kind, square)], (kind, square)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_blocked_walk_visits_the_first_node_of_each_ray(name):
    layout = get_layout(name)
    for kind, square in chains():
        visited = [n.to for n in walk_chain(layout, kind, square, lambda n: False)]
        assert visited == [ray[0].to for ray in rays(kind, square)], (kind, square)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_random_walks_terminate_and_agree_with_geometry(name):
    """Blocking at random, each ray is entered at its first node and left where blocked."""
    layout, rng = get_layout(name), random.Random(7)
    for kind, square in chains():
        for _ in range(5):
            blocked = {to for to in SQUARES if rng.random() < 0.3}
            expected = []
            for ray in rays(kind, square):
                for node in ray:
                    expected.append(node.to)
                    if node.to in blocked:
                        break
            got = [n.to for n in walk_chain(layout, kind, square, lambda n: n.to not in blocked)]
            assert got == expected, (kind, square)


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


def test_heads_and_sentinels_agree_across_layouts():
    dense, butterfly = get_layout("dense"), get_layout("butterfly")
    assert dense.has_chain == butterfly.has_chain
    for kind, square in chains():
        first = chain(kind, square)[0].to
        for layout in (dense, butterfly):
            node = layout.decoded_table(kind == TableKind.QUEEN)[layout.head(kind, square)]
            assert node.to == first
        # GNU Chess's diagonal entry holds the first target
        diagonal = butterfly.node_image[butterfly.address(kind, square, square)]
        assert butterfly.unpack(diagonal)["nextpos"] == first
    # the dense queen reuses the rook block and walks on into the bishop block
    for square in SQUARES:
        assert dense.head(TableKind.QUEEN, square) == dense.head(TableKind.ROOK, square)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_pack_unpack_round_trip(name):
    layout = get_layout(name)
    for word in layout.node_image[:500]:
        assert layout.pack(**layout.unpack(word)) == word


def test_dense_layout_fits_up5k_with_room_to_spare():
    report = get_layout("dense").report()
    assert report["total_bits"] <= 64 * 1024
    assert report["ice40_ebr"] <= 20       # of the UP5K's 30
    assert report["nodes"] == sum(len(chain(k, s)) for k, s in chains()
                                  if k != TableKind.QUEEN)
