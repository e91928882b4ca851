"""Invariants of the Sandström tables in every ROM layout."""

import random

import pytest

from hwmovegen.tables import LAYOUTS, TableKind, rays, get_layout, walk_chain, chain

from ..helpers import chains

LAYOUT_NAMES = list(LAYOUTS)
SQUARES = range(64)


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


def test_dense_layout_report():
    report = get_layout("dense").report()
    assert report["total_bits"] == report["node_rom_bits"] + report["head_rom_bits"] <= 64 * 1024
    assert report["nodes"] == sum(len(chain(k, s)) for k, s in chains()
                                  if k != TableKind.QUEEN)
