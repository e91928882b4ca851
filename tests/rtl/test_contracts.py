"""The contracts of hwmovegen.tables.contracts measured on the RTL in pysim: each core's cycle
terms, the legality stage's setup and the ordering stage's latency are the cycles the hardware
takes, not only bounds it keeps; the registry, the protocol ids and the order names agree."""

import chess
import pytest

from hwmovegen.rtl import CORES
from hwmovegen.tables import get_layout
from hwmovegen.rtl.order import Order
from hwmovegen.rtl.protocol import CORE_IDS, LAYOUT_IDS, PERFT_MAX_DEPTH
from hwmovegen.sim.harness import pysim as tb
from hwmovegen.sim.backends import PysimBackend
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.tables.contracts import (CORE_CONTRACTS, CORE_NAMES, LAYOUT_NAMES, LEGAL_SETUP_CYCLES, MAX_PLIES,
                                        ORDER_LATENCY, ORDERS, GeneratorConfig, core_contract)

from ..helpers import KIWIPETE

LONE_KINGS = "k7/8/8/8/8/8/8/K7 w - - 0 1"
PAWN_ENDING = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
PROMOTIONS = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"
NO_MOVES = "k7/8/8/8/8/8/8/8 w - - 0 1"     # the side to move has no piece


def positions(*fens):
    return [Position.from_board(chess.Board(fen), check=False) for fen in fens]


@pytest.mark.parametrize("core", CORE_NAMES)
def test_each_cores_cycles_are_its_contracts_terms(core):
    terms = core_contract(core)
    plain = positions(LONE_KINGS, KIWIPETE, PAWN_ENDING)
    for position, result in zip(plain, tb.simulate(plain, GeneratorConfig(core=core))):
        model = generate(position)
        # without promotions the bound is the cycles taken, to the cycle
        assert result.cycles == cycle_bound(model, core), position
        if terms.latency is not None:
            assert result.cycles == len(model.moves) + terms.latency
        else:
            assert result.cycles == model.steps + terms.fixed
    # promotions: at most per_promotion more a promotion node, and not less than without them
    promotion = positions(PROMOTIONS)[0]
    model = generate(promotion)
    result = tb.simulate([promotion], GeneratorConfig(core=core))[0]
    assert model.promotion_nodes > 0 and result.moves == model.moves
    assert cycle_bound(model, core) - terms.per_promotion * model.promotion_nodes <= result.cycles \
        <= cycle_bound(model, core)
    if terms.empty is not None:
        empty = positions(NO_MOVES)
        cycles = tb.simulate(empty, GeneratorConfig(core=core))[0].cycles
        assert cycles == terms.empty == cycle_bound(generate(empty[0]), core)


def test_the_legality_setup_is_the_contracts():
    # the walker's first move waits in its FIFO; the stage passes it the cycle after its setup
    for fen in (LONE_KINGS, KIWIPETE):
        plain, samples = PysimBackend(GeneratorConfig(core="walker")).trace(chess.Board(fen))
        legal, legal_samples = PysimBackend(GeneratorConfig(core="walker", legal=True)).trace(chess.Board(fen))
        first = next(i for i, sample in enumerate(legal_samples) if sample["moves_valid"])
        assert first == LEGAL_SETUP_CYCLES + 1, fen
        assert next(i for i, sample in enumerate(samples) if sample["moves_valid"]) < LEGAL_SETUP_CYCLES


@pytest.mark.parametrize("legal", [False, True])
def test_the_ordering_latency_is_the_contracts(legal):
    chosen = positions(LONE_KINGS, KIWIPETE, PAWN_ENDING)
    for position, result in zip(chosen, tb.simulate(chosen, GeneratorConfig(core="fast", legal=legal, order="mvv-lva"))):
        model = generate(position, legal=legal, order="mvv-lva")
        unordered = generate(position, legal=legal)
        assert result.moves == model.moves
        assert result.cycles == cycle_bound(unordered, "fast") + len(model.moves) + ORDER_LATENCY, position


def test_the_registry_the_protocol_and_the_orders_follow_the_contracts():
    assert tuple(CORES) == CORE_NAMES
    for name, spec in CORES.items():
        assert spec.contract is CORE_CONTRACTS[name] and CORE_IDS[name] == spec.contract.protocol_id
    assert sorted(CORE_IDS.values()) == list(range(len(CORE_IDS)))
    assert set(LAYOUT_IDS) == set(LAYOUT_NAMES) and PERFT_MAX_DEPTH == MAX_PLIES
    assert [order.value for order in Order] == list(range(len(ORDERS)))


def test_a_configuration_refuses_what_does_not_exist():
    assert GeneratorConfig(core="fast", legal=True, order="mvv-lva").contract is CORE_CONTRACTS["fast"]
    for bad in ({"core": "slow"}, {"layout": "sparse"}, {"order": "random"}, {"max_plies": MAX_PLIES + 1},
                {"perft_engines": -1}):
        with pytest.raises(ValueError, match="unknown|outside|below"):
            GeneratorConfig(**bad)
    with pytest.raises(KeyError, match="unknown core 'slow'"):
        core_contract("slow")


def test_configurations_of_one_hardware_are_one_canonical_configuration():
    """A core that reads no ROM is the same hardware with every layout: one model, one synthesis."""
    for layout in LAYOUT_NAMES:
        for core, spec in CORES.items():
            assert bool(spec.rom.roms(get_layout(layout))) == spec.contract.reads_rom
            config = GeneratorConfig(layout, core, legal=True, perft_engines=2)
            expected = config if spec.contract.reads_rom else config.replace(layout=LAYOUT_NAMES[0])
            assert config.canonical() == expected
    assert GeneratorConfig("butterfly", "fast").canonical() == GeneratorConfig("dense", "fast")
    assert GeneratorConfig("butterfly", "walker").canonical().layout == "butterfly"
