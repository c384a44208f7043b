"""Deck and shape files: the defaults load, anything unplayable is refused naming field and value."""

import copy
import json

import pytest
import yaml
from conformance import play_random

from kakurega.envs.animal_chain.data import AnimalChainDataError, load_deck, load_shape
from kakurega.envs.animal_chain.rules import AnimalChainGame
from kakurega.envs.animal_chain_v0 import env as make_env

ANIMALS = [{"name": name, "label": label} for name, label in (("dog", "Dg"), ("cat", "Ct"), ("rabbit", "Rb"))]
SMALL_DECK = {  # 6 ordered pairs x 4 = 24 cards: enough for a 15-card board + 9 dealt
    "animals": ANIMALS,
    "cards": [{"left": a["name"], "right": b["name"], "copies": 4} for a in ANIMALS for b in ANIMALS if a != b],
}


def test_default_deck_is_two_copies_of_every_ordered_pair():
    deck = load_deck()
    assert deck.animals == ("dog", "cat", "rabbit", "bear", "pig", "fox")
    assert len(deck.card_types) == 30 and set(deck.copies) == {2} and deck.num_cards == 60
    assert all(left != right for left, right in deck.card_types)
    assert deck.type_label(0) == "Dg|Ct" and deck.type_label(29) == "Fx|Pg"


def test_default_shape():
    shape = load_shape()
    assert shape.row_sizes == (4, 5, 6, 7, 6, 5, 4) and shape.num_cards == 37 and shape.width == 14


def with_changes(base, **changes):
    data = copy.deepcopy(base)
    data.update(changes)
    return data


DECK_ERRORS = [
    # description,               deck mapping,                                                       expected message
    ("animals missing",          {"cards": SMALL_DECK["cards"]},                                     "field animals is missing"),
    ("one animal only",          with_changes(SMALL_DECK, animals=ANIMALS[:1]),                      "animals = .*expected a list of 2 to 64 animals"),
    ("label too long",           with_changes(SMALL_DECK, animals=[{"name": "dog", "label": "Dog"}] + ANIMALS[1:]),
                                                                                                     r"animals\[0\].label = 'Dog'"),
    ("duplicate label",          with_changes(SMALL_DECK, animals=ANIMALS + [{"name": "dingo", "label": "Dg"}]),
                                                                                                     r"animals\[3\].label = 'Dg': .*unique"),
    ("duplicate name",           with_changes(SMALL_DECK, animals=ANIMALS + [{"name": "dog", "label": "D2"}]),
                                                                                                     r"animals\[3\].name = 'dog'"),
    ("unknown animal in a card", with_changes(SMALL_DECK, cards=SMALL_DECK["cards"] + [{"left": "dog", "right": "emu"}]),
                                                                                                     r"cards\[6\].right = 'emu': expected one of the animals"),
    ("copies not positive",      with_changes(SMALL_DECK, cards=[{"left": "dog", "right": "cat", "copies": 0}]),
                                                                                                     r"cards\[0\].copies = 0"),
    ("copies not an integer",    with_changes(SMALL_DECK, cards=[{"left": "dog", "right": "cat", "copies": "2"}]),
                                                                                                     r"cards\[0\].copies = '2'"),
    ("card listed twice",        with_changes(SMALL_DECK, cards=SMALL_DECK["cards"] + [{"left": "dog", "right": "cat"}]),
                                                                                                     r"cards\[6\] = 'dog\|cat': this card is listed twice"),
    ("unknown field",            with_changes(SMALL_DECK, jokers=2),                                 "jokers = 2: unknown field"),
    ("cards not a list",         with_changes(SMALL_DECK, cards="all"),                              "cards = 'all'"),
]


@pytest.mark.parametrize("description,data,message", DECK_ERRORS, ids=[c[0] for c in DECK_ERRORS])
def test_bad_decks_are_refused(description, data, message):
    with pytest.raises(AnimalChainDataError, match=message):
        load_deck(data)


def test_a_deck_too_small_for_the_board_is_refused():
    deck = with_changes(SMALL_DECK, cards=[dict(c, copies=2) for c in SMALL_DECK["cards"]])  # 12 cards
    with pytest.raises(AnimalChainDataError, match="cards = 12 cards in all: too few .* expected at least 46"):
        AnimalChainGame(deck=deck)


SHAPE_ERRORS = [
    ("both forms",              {"rows": [1, 2, 1], "columns": [[0], [1]]},        "exactly one of the fields rows"),
    ("neither form",            {"name": "empty"},                                 "exactly one of the fields rows"),
    ("one row",                 {"rows": [3]},                                     "rows = \\[3\\]: expected a list of 2 to 45 card counts"),
    ("zero cards in a row",     {"rows": [2, 0, 2]},                               r"rows\[1\] = 0"),
    ("too many cards",          {"rows": [6, 7, 8, 9, 8, 7, 6]},                   "51 cards; the rules allow at most 45"),
    ("not a brick pattern",     {"rows": [4, 6, 4]},                               r"rows\[0..1\] = \[4, 6\]: neighbouring rows must be shifted half a card"),
    ("not the same from both sides", {"rows": [2, 3, 4]},                          "must look the same from both sides"),
    ("asymmetric columns",      {"columns": [[0, 2], [1, 3], [0, 4]]},             "must look the same from both sides"),
    ("overlapping cards",       {"columns": [[0, 1], [1]]},                        r"columns\[0\] = \[0, 1\]: expected ascending columns at least 2 apart"),
    ("mixed half-card grid",    {"columns": [[0, 3], [1]]},                        r"columns\[0\] = \[0, 3\]: all cards of a row"),
    ("not connected",           {"columns": [[0, 6], [1, 5], [0, 6]]},             "one connected piece"),
    ("negative column",         {"columns": [[-1], [0]]},                          r"columns\[0\] = \[-1\]"),
    ("unknown field",           {"rows": [1, 2, 1], "holes": 3},                   "holes = 3: unknown field"),
]


@pytest.mark.parametrize("description,data,message", SHAPE_ERRORS, ids=[c[0] for c in SHAPE_ERRORS])
def test_bad_shapes_are_refused(description, data, message):
    with pytest.raises(AnimalChainDataError, match=message):
        load_shape(data)


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(AnimalChainDataError, match="no such file"):
        load_deck(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("animals: [dog\n")
    with pytest.raises(AnimalChainDataError, match="broken.yaml: not valid YAML"):
        load_deck(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 1\n- 2\n")
    with pytest.raises(AnimalChainDataError, match="list.yaml: expected a mapping at the top level"):
        load_shape(listing)
    with pytest.raises(TypeError, match="expected a file path or a mapping"):
        load_shape(42)


def test_custom_files_make_a_playable_env(tmp_path):
    deck_file = tmp_path / "deck.yaml"
    deck_file.write_text(yaml.safe_dump(SMALL_DECK))
    shape_file = tmp_path / "shape.json"
    shape_file.write_text('{"columns": [[1, 3], [0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5]]}')
    game = AnimalChainGame(deck=deck_file, shape=shape_file)
    # a slanted board: rows of 2, 3, 3, 3, 2 cards, the same from both sides
    assert game.num_positions == 13 and game.base_size == 2 and game.num_types == 6
    assert game.num_actions == 6 * 2 + 1 + 6 * 13 + 1 + 13
    env = make_env(deck=str(deck_file), shape=str(shape_file))
    for seed in range(5):
        play_random(env, seed=seed)


def test_a_deck_missing_some_reversals_still_plays():
    # only dog|cat and cat|rabbit: player 1 sees them reversed, so the type space adds the reversals
    deck = {"animals": ANIMALS, "cards": [{"left": "dog", "right": "cat", "copies": 30},
                                          {"left": "cat", "right": "rabbit", "copies": 30}]}
    game = AnimalChainGame(deck=deck)
    assert game.num_types == 4 and sorted(game.deck.copies) == [0, 0, 30, 30]
    env = make_env(deck=deck)
    for seed in range(5):
        play_random(env, seed=seed)


def _many_animals(n: int) -> list[dict]:
    return [{"name": f"animal{i}", "label": f"{chr(65 + i // 26)}{chr(97 + i % 26)}"} for i in range(n)]


def test_a_deck_of_more_cards_than_the_bound_is_refused_before_any_env_is_built(tmp_path):
    # the env's spaces grow with the deck (env.state() with cards x card types): 64 animals' 4,032 ordered pairs
    # of 8 copies each (32,256 cards) once took 24 s and 2.4 GB to build an env; now refused in words, from a
    # mapping and from a file (whose values are not quoted back)
    from kakurega.envs.animal_chain.data import MAX_DECK_CARDS

    animals = _many_animals(64)
    pairs = [(a["name"], b["name"]) for a in animals for b in animals if a != b]
    huge = {"animals": animals, "cards": [{"left": a, "right": b, "copies": 8} for a, b in pairs]}
    with pytest.raises(AnimalChainDataError, match=f"expected a list of 1 to {MAX_DECK_CARDS} entries"):
        load_deck(huge)
    copies = {"animals": ANIMALS, "cards": [{"left": "dog", "right": "cat", "copies": MAX_DECK_CARDS},
                                            {"left": "cat", "right": "dog"}]}
    with pytest.raises(AnimalChainDataError, match=f"cards = {MAX_DECK_CARDS + 1} cards in all .* too many; "
                                                   f"expected at most {MAX_DECK_CARDS} cards"):
        load_deck(copies)
    deck_file = tmp_path / "deck.json"
    deck_file.write_text(json.dumps(copies))
    with pytest.raises(AnimalChainDataError, match=f"deck.json: cards = {MAX_DECK_CARDS + 1} cards in all"):
        make_env(deck=str(deck_file))
    # the control: a deck of exactly the bound, with as many card types as the bounds allow (2,000), plays
    lines = [{"left": a, "right": b} for a, b in pairs if a < b][:MAX_DECK_CARDS]
    game = AnimalChainGame(deck={"animals": animals, "cards": lines})
    assert (game.deck.num_cards, game.num_types) == (MAX_DECK_CARDS, 2 * MAX_DECK_CARDS)
    play_random(make_env(deck={"animals": animals, "cards": lines}), seed=0)
