"""Rule scenarios at the edges of the rules page (absolute names: player 0's frame; see ``scenario.py``)."""

from animal_chain.scenario import GAME, board_state, play, pos, step, top
from kakurega.envs.animal_chain.rules import NO_SEAT, AnimalChainGame


def test_only_the_same_animal_neighbours_are_foundations_and_covering_another_neighbour_keeps_the_double():
    """Rules page, "Double": a card connecting *with the same animal* to two or more face-up neighbours is a
    double, those neighbours are its foundation cards, and it stops being a double only when one of *them* is
    covered. Here Dg|Rb at r3c3 connects its Dg to r3c2 and r4c2 (the foundations) and its Rb to r3c4 (one
    card, no foundation): covering r3c4 leaves the double standing; covering r4c2 ends it."""
    state = board_state(
        up={"r3c2": "Ct|Dg", "r4c2": "Br|Dg", "r3c4": "Rb|Ct"},
        hands=(("Dg|Rb", "Fx|Pg"), ("Rb|Fx", "Dg|Fx")),
        deck=("Pg|Br",) * 4,
    )
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.double_owner[pos("r3c3")] == 0
    assert state.double_foundations[pos("r3c3")] == (pos("r3c2"), pos("r4c2"))
    step(state, play(state, 1, "Rb|Fx", "r3c4"))  # player 1 covers the Rb neighbour (its Rb meets r3c3's Rb)
    assert top(state, "r3c4") == "Rb|Fx"
    assert state.double_owner[pos("r3c3")] == 0, "covering a neighbour that is no foundation ended the double"
    assert state.double_foundations[pos("r3c3")] == (pos("r3c2"), pos("r4c2"))
    assert play(state, 1, "Dg|Fx", "r3c3") not in GAME.legal_actions(state)
    step(state, GAME.pass_action)  # player 0 draws
    step(state, play(state, 1, "Dg|Fx", "r4c2"))  # a foundation covered (its Dg meets r3c2's right Dg)
    assert state.double_owner[pos("r3c3")] == NO_SEAT and state.double_foundations[pos("r3c3")] == ()


TWIN_ANIMALS = [
    {"name": name, "label": label}
    for name, label in (("dog", "Dg"), ("cat", "Ct"), ("rabbit", "Rb"), ("pig", "Pg"), ("fox", "Fx"))
]
#: every ordered pair, twins such as Dg|Dg included (a deck is data: the rules page leaves its cards to it)
TWIN_DECK = {
    "animals": TWIN_ANIMALS,
    "cards": [{"left": a["name"], "right": b["name"], "copies": 2} for a in TWIN_ANIMALS for b in TWIN_ANIMALS],
}


def test_a_card_showing_one_animal_twice_is_a_double_when_it_meets_that_animal_on_both_sides():
    """Rules page, "Double": the test is one animal connecting to two or more face-up neighbours, whatever
    side they are on. Dg|Dg at r3c3 meets r3c2's right Dg on its left and r3c4's left Dg on its right: two
    connections with the same animal, so a double with both as foundations; a Dg|Ct there connects with two
    different animals (Dg on the left, none on the right) and is none."""
    game = AnimalChainGame(deck=TWIN_DECK)
    up = {"r3c2": "Ct|Dg", "r3c4": "Dg|Rb"}
    state = board_state(up=up, hands=(("Dg|Dg",), ()), game=game)
    step(state, play(state, 0, "Dg|Dg", "r3c3", game=game), game=game)
    assert state.double_owner[pos("r3c3", game)] == 0
    assert state.double_foundations[pos("r3c3", game)] == (pos("r3c2", game), pos("r3c4", game))
    control = board_state(up=up, hands=(("Dg|Ct",), ()), game=game)
    step(control, play(control, 0, "Dg|Ct", "r3c3", game=game), game=game)
    assert control.double_owner[pos("r3c3", game)] == NO_SEAT


def test_a_game_of_another_deck_on_the_same_board_reads_its_own_action_ids():
    """Rules page, "Cards": deck content is data. Games of different decks on one board have different card
    types (and action spaces), so each decodes its own action ids, for both seats, whichever game was built
    first in the process (here the default deck's ``GAME``)."""
    game = AnimalChainGame(deck=TWIN_DECK)
    assert (game.num_types, game.num_positions) == (25, GAME.num_positions) and GAME.num_types == 30
    for seat in (0, 1):
        for t in range(game.num_types):
            for p in range(game.num_positions):
                assert game.decode(seat, game.play_action(seat, t, p)) == ("play", t, p)
            for j in range(game.base_size):
                assert game.decode(seat, game.swap_action(seat, t, j)) == ("swap", t, j)
        assert game.decode(seat, game.pass_action) == ("pass", -1, -1)
        assert game.decode(seat, game.take_action(seat, 3)) == ("take", -1, 3)
