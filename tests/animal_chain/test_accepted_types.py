"""``AnimalChainGame.accepted_types`` against a plain reading of the connection rule, for decks of any size.

../shared/rules/animal_chain.md, "Board geometry": "Two face-up cards *connect* when the animals on their facing
sides are equal: for a neighbour on my right side, my right animal equals its left animal; on my left side, my
left animal equals its right animal." ``accepted_types(left_match, right_match)`` is the bitmask of the card
types that connect at a position whose left-side neighbours show the animals of ``left_match`` (a bitmask of
animals) and whose right-side neighbours show those of ``right_match``: the types whose left animal is in
``left_match`` or whose right animal is in ``right_match``. The heuristic (``attack_mask``) and the rollouts
(``_exposure``) count attacks with it.

"Cards [decision]": "Six animals by default ... Deck content is data (configurable)", and a deck file may
name up to ``MAX_ANIMALS`` (64) animals. The engine reads the animal bitmasks a byte (8 animals) at a time,
so the default deck exercises only the first byte: decks of 10, 17 and 64 animals exercise the others.
"""

import numpy as np
import pytest

from kakurega.envs.animal_chain.data import MAX_ANIMALS, load_deck
from kakurega.envs.animal_chain.rules import AnimalChainGame


def deck_of(n: int, every_pair: bool = True):
    """A valid deck of ``n`` animals: one card of every ordered pair of different animals, or (a large ``n``)
    the pairs (a, a + 1) and (a, a + 5) around the ring (with their reversals as types, as for every deck)."""
    animals = [{"name": f"animal {i}", "label": f"{i:02d}"} for i in range(n)]
    if every_pair:
        pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    else:
        pairs = [(a, (a + d) % n) for a in range(n) for d in (1, 5)]
    cards = [{"left": f"animal {a}", "right": f"animal {b}"} for a, b in pairs]
    return load_deck({"animals": animals, "cards": cards})


DECKS = {
    "default (6 animals)": lambda: None,
    "10 animals": lambda: deck_of(10),
    "17 animals": lambda: deck_of(17),
    f"{MAX_ANIMALS} animals": lambda: deck_of(MAX_ANIMALS, every_pair=False),
}


def make_game(name) -> AnimalChainGame:
    deck = DECKS[name]()
    return AnimalChainGame() if deck is None else AnimalChainGame(deck=deck)


def reference(game: AnimalChainGame, left_match: int, right_match: int) -> int:
    """The connection rule read plainly: type t connects to a left-side neighbour showing animal a on its right
    half when t's left animal is a, to a right-side neighbour showing a on its left half when t's right animal is a."""
    mask = 0
    for t, (left, right) in enumerate(game.deck.card_types):
        if left_match >> left & 1 or right_match >> right & 1:
            mask |= 1 << t
    return mask


def animal_masks(num_animals: int, rng) -> list[int]:
    """No animal, each single animal, each pair of neighbouring animals, all of them, and random sets."""
    out = [0, (1 << num_animals) - 1]
    out += [1 << a for a in range(num_animals)]
    out += [3 << a for a in range(num_animals - 1)]
    out += [int(x) for x in rng.integers(0, 1 << min(num_animals, 62), size=40)]
    out += [sum(1 << int(a) for a in rng.choice(num_animals, size=3, replace=False)) for _ in range(40)]
    return out


@pytest.mark.parametrize("deck", list(DECKS))
def test_accepted_types_is_the_connection_rule(deck):
    game = make_game(deck)
    n = len(game.deck.animals)
    assert (n == 6) == (deck.startswith("default"))
    rng = np.random.default_rng(n)
    masks = animal_masks(n, rng)
    # one side at a time, every animal set
    for m in masks:
        assert game.accepted_types(m, 0) == reference(game, m, 0), (deck, "left", m)
        assert game.accepted_types(0, m) == reference(game, 0, m), (deck, "right", m)
    # both sides: every single animal against every single animal, then random pairs of sets
    for a in range(n):
        for b in range(n):
            assert game.accepted_types(1 << a, 1 << b) == reference(game, 1 << a, 1 << b), (deck, a, b)
    for _ in range(200):
        left, right = (masks[int(i)] for i in rng.integers(0, len(masks), size=2))
        assert game.accepted_types(left, right) == reference(game, left, right), (deck, left, right)


def side_neighbours(game: AnimalChainGame):
    """Per position, the face-up-able neighbours on its left side and on its right side, from the shape's cells
    ("Board geometry": left side faces x-2 in the row and x-1 in the rows next to it; right side x+2 and x+1)."""
    index = {cell: p for p, cell in enumerate(game.shape.cells)}
    out = []
    for r, x in game.shape.cells:
        left = [index[c] for c in ((r, x - 2), (r - 1, x - 1), (r + 1, x - 1)) if c in index]
        right = [index[c] for c in ((r, x + 2), (r - 1, x + 1), (r + 1, x + 1)) if c in index]
        out.append((left, right))
    return out


@pytest.mark.parametrize("deck", ["default (6 animals)", "10 animals"])
def test_accepted_types_on_the_positions_of_random_games(deck):
    """On every position of random games: the types ``accepted_types`` reports from the neighbours' facing animals
    are the types that, played there, would connect to at least one face-up neighbour."""
    game = make_game(deck)
    types = game.deck.card_types
    sides = side_neighbours(game)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(3):
        state = game.initial_state(rng)
        for _ in range(60):
            if game.is_terminal(state) or game.is_truncated(state):
                break
            tops = state.tops
            for p, (lefts, rights) in enumerate(sides):
                face_up_left = [tops[q] for q in lefts if tops[q] >= 0]
                face_up_right = [tops[q] for q in rights if tops[q] >= 0]
                if not face_up_left and not face_up_right:
                    continue
                left_match = sum({1 << types[t][1] for t in face_up_left})
                right_match = sum({1 << types[t][0] for t in face_up_right})
                expected = 0
                for t, (left, right) in enumerate(types):
                    on_left = any(types[q][1] == left for q in face_up_left)  # my left animal = its right animal
                    on_right = any(types[q][0] == right for q in face_up_right)  # my right animal = its left animal
                    if on_left or on_right:
                        expected |= 1 << t
                assert game.accepted_types(left_match, right_match) == expected, (deck, p)
                checked += 1
            game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)
    assert checked > 100
