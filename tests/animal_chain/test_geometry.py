"""Board geometry: the six neighbours, which animals face, the default shape and the two frames."""

import pytest

from animal_chain.scenario import GAME, board_state, card, play, pos
from kakurega.envs.animal_chain.rules import DIRECTIONS

CENTRE = "r3c3"  # half-card column 6 of the 7-card middle row

# direction | neighbour of r3c3 | neighbour card | connecting card | non-connecting card
# W/NW/SW face my LEFT animal (their right animal must equal it);
# E/NE/SE face my RIGHT animal (their left animal must equal it).
SIX_DIRECTIONS = [
    ("W",  "r3c2", "Ct|Dg", "Dg|Rb", "Rb|Dg"),
    ("E",  "r3c4", "Dg|Ct", "Rb|Dg", "Dg|Rb"),
    ("NW", "r4c2", "Ct|Dg", "Dg|Rb", "Rb|Dg"),
    ("NE", "r4c3", "Dg|Ct", "Rb|Dg", "Dg|Rb"),
    ("SW", "r2c2", "Ct|Dg", "Dg|Rb", "Rb|Dg"),
    ("SE", "r2c3", "Dg|Ct", "Rb|Dg", "Dg|Rb"),
]


@pytest.mark.parametrize("direction,neighbour,neighbour_card,connecting,not_connecting", SIX_DIRECTIONS)
def test_each_direction_connects_through_the_facing_animals(direction, neighbour, neighbour_card, connecting, not_connecting):
    assert GAME.neighbour_in[pos(CENTRE)][direction] == pos(neighbour)
    state = board_state(up={neighbour: neighbour_card}, hands=((connecting, not_connecting), ()))
    legal = GAME.legal_actions(state)
    assert play(state, 0, connecting, CENTRE) in legal
    assert play(state, 0, not_connecting, CENTRE) not in legal
    dog = GAME.deck.animals.index("dog")
    assert GAME.connections(state, card(connecting), pos(CENTRE)) == [(pos(neighbour), dog)]
    assert GAME.connections(state, card(not_connecting), pos(CENTRE)) == []


def test_direction_table_matches_the_rules_page():
    # (row step, half-card column step, side of the played card facing it)
    assert DIRECTIONS == {
        "W": (0, -2, 0), "E": (0, 2, 1),
        "NW": (1, -1, 0), "NE": (1, 1, 1),
        "SW": (-1, -1, 0), "SE": (-1, 1, 1),
    }


@pytest.mark.parametrize(
    "where,expected",
    [
        ("r3c3", {"W": "r3c2", "E": "r3c4", "NW": "r4c2", "NE": "r4c3", "SW": "r2c2", "SE": "r2c3"}),
        ("r0c0", {"W": None, "E": "r0c1", "NW": "r1c0", "NE": "r1c1", "SW": None, "SE": None}),
        ("r3c0", {"W": None, "E": "r3c1", "NW": None, "NE": "r4c0", "SW": None, "SE": "r2c0"}),
        ("r6c3", {"W": "r6c2", "E": None, "NW": None, "NE": None, "SW": "r5c3", "SE": "r5c4"}),
    ],
)
def test_neighbours_at_the_centre_and_the_edges(where, expected):
    found = {d: (None if q is None else GAME.position_names[q]) for d, q in GAME.neighbour_in[pos(where)].items()}
    assert found == expected


def test_default_shape_is_the_double_pyramid():
    assert GAME.shape.row_sizes == (4, 5, 6, 7, 6, 5, 4)
    assert GAME.num_positions == 37
    # rows are centred and shifted half a card against each other
    starts = [min(GAME.column_of[p] for p in range(37) if GAME.row_of[p] == r) for r in range(7)]
    assert starts == [3, 2, 1, 0, 1, 2, 3]
    assert GAME.base_positions == ([0, 1, 2, 3], [33, 34, 35, 36])


OPPOSITE = {"W": "E", "E": "W", "NW": "SE", "SE": "NW", "NE": "SW", "SW": "NE"}


def test_player_1_frame_is_the_board_turned_half_round():
    assert GAME.position_name(1, pos("r6c3")) == "r0c0"  # player 1's own base, from its left
    assert GAME.position_name(1, pos("r0c0")) == "r6c3"
    assert GAME.card_in_frame(1, card("Dg|Ct")) == "Ct|Dg"
    for p in range(GAME.num_positions):
        for direction, q in GAME.neighbour_in[p].items():
            if q is not None:
                assert GAME.neighbour_in[GAME.to_frame(1, p)][OPPOSITE[direction]] == GAME.to_frame(1, q)


def test_a_connection_looks_the_same_from_both_frames():
    # absolute Rb|Dg west of Dg|Ct connects; player 1 sees the card as Dg|Rb
    state = board_state(up={"r3c4": "Dg|Ct"}, hands=((), ("Rb|Dg",)), to_move=1)
    action = play(state, 1, "Rb|Dg", "r3c3")
    assert action in GAME.legal_actions(state)
    assert GAME.action_to_string(state, action) == "play Dg|Rb onto r3c3"  # r3c3 is its own mirror image
