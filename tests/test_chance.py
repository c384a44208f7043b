"""Explicit chance (envs/core/chance.py): the rules' own draws enumerated with their true probabilities."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from kakurega.envs.core.chance import (
    MAX_DRAWS_PER_STEP,
    ChanceNeeded,
    ChanceNotEnumerable,
    ChanceScript,
    Draw,
    Resolved,
    explicit_step,
)
from kakurega.envs.registry import make


def _enumerate(call):
    """Every complete outcome sequence of ``call(script)`` with its probability and result."""
    results = []

    def walk(outcomes, probability):
        script = ChanceScript(outcomes)
        try:
            value = call(script)
        except ChanceNeeded as needed:
            for outcome, p in needed.draw.outcomes:
                walk(outcomes + (outcome,), probability * p)
            return
        results.append((outcomes, probability, value))

    walk((), 1.0)
    return results


def test_integers_is_one_uniform_draw_per_value():
    results = _enumerate(lambda rng: int(rng.integers(2, 7)))
    assert sorted(v for _, _, v in results) == [2, 3, 4, 5, 6]
    assert all(p == pytest.approx(1 / 5) for _, p, _ in results)
    assert _enumerate(lambda rng: int(rng.integers(1))) == [((), 1.0, 0)]  # one value: no draw


@pytest.mark.parametrize("items", [[0, 1, 2, 3], [5, 5, 5, 7], [1, 1, 2, 2, 3]])
def test_a_permutation_gives_each_distinct_arrangement_its_share_of_all_orders(items):
    results = _enumerate(lambda rng: tuple(rng.permutation(items).tolist()))
    # brute force: every one of the n! orders is equally likely; equal items are not told apart
    orders = Counter(itertools.permutations(items))
    total = math.factorial(len(items))
    assert {v: p for _, p, v in results} == pytest.approx({order: count / total for order, count in orders.items()})
    assert len(results) == len(orders)


def test_shuffle_in_place_and_permutation_of_a_count():
    def shuffled(rng):
        items = [3, 3, 4]
        rng.shuffle(items)
        return tuple(items)

    assert sorted(v for _, _, v in _enumerate(shuffled)) == [(3, 3, 4), (3, 4, 3), (4, 3, 3)]
    results = _enumerate(lambda rng: tuple(rng.permutation(3).tolist()))
    assert len(results) == 6 and all(p == pytest.approx(1 / 6) for _, p, _ in results)


def test_draws_that_cannot_be_enumerated_are_refused_by_name():
    with pytest.raises(ChanceNotEnumerable, match=r"generator\.random\(\)"):
        ChanceScript().random()
    with pytest.raises(ChanceNotEnumerable, match="size"):
        ChanceScript().integers(3, size=2)
    with pytest.raises(ValueError, match="not one of this draw's outcomes"):
        ChanceScript([9]).integers(3)

    def endless(rng):
        while True:  # a re-roll loop that never ends along one branch
            rng.integers(1)

    with pytest.raises(ChanceNotEnumerable, match=str(MAX_DRAWS_PER_STEP)):
        endless(ChanceScript())


def test_explicit_deals_of_a_real_game_are_its_deals_with_their_probabilities():
    """Animal Chain on a 13-card deck of 12 + 1 cards: 13 orders (where the odd card lies), each 1/13.

    The odd card lies on one of the 4 board positions, in a hand (4 orders each: hands hold counts) or is
    the extra card drawn later: 7 deals, 5 of probability 1/13 and 2 of 4/13.
    """
    deck = {"animals": [{"name": "dog", "label": "Dg"}, {"name": "cat", "label": "Ct"}],
            "cards": [{"left": "dog", "right": "cat", "copies": 12}, {"left": "cat", "right": "dog", "copies": 1}]}
    game = make("animal_chain_v1", wrapped=False, deck=deck, shape={"rows": [1, 2, 1]}).game
    deals = []

    def walk(outcomes, probability):
        result = explicit_step(game, None, None, outcomes)
        if isinstance(result, Draw):
            assert sum(p for _, p in result.outcomes) == pytest.approx(1.0)
            for outcome, p in result.outcomes:
                walk(outcomes + (outcome,), probability * p)
        else:
            deals.append((game.fingerprint(result.state), probability))

    walk((), 1.0)
    assert [p for _, p in deals] == pytest.approx([1 / 13] * 13)
    by_deal = Counter()
    for fingerprint, p in deals:
        by_deal[fingerprint] += p
    assert sorted(by_deal.values()) == pytest.approx([1 / 13] * 5 + [4 / 13] * 2)


def test_a_step_runs_on_a_copy_and_its_draws_come_from_the_outcomes():
    env = make("animal_chain_v1", wrapped=False, shape={"rows": [1, 2, 1]},
               deck={"animals": [{"name": "dog", "label": "Dg"}, {"name": "cat", "label": "Ct"}],
                     "cards": [{"left": "dog", "right": "cat", "copies": 13}]})
    game = env.game
    state = explicit_step(game, None, None, ()).state  # one kind of card: the deal draws nothing
    before = game.fingerprint(state)
    for seat in (0, 1):  # both build their one-card base; the last decision draws the first player
        step = explicit_step(game, state, game.legal_actions(state)[-1], ())
        if seat == 0:
            state = step.state
    assert isinstance(step, Draw) and [p for _, p in step.outcomes] == [0.5, 0.5]
    assert game.fingerprint(explicit_step(game, None, None, ()).state) == before
    firsts = {game.current_player(explicit_step(game, state, game.legal_actions(state)[-1], (k,)).state) for k in (0, 1)}
    assert firsts == {0, 1}
    with pytest.raises(ValueError, match="drew only 1"):
        explicit_step(game, state, game.legal_actions(state)[-1], (0, 1))
    assert isinstance(explicit_step(game, state, game.legal_actions(state)[-1], (1,)), Resolved)


def test_the_seeded_generator_and_the_script_agree_on_a_deal():
    """The same rules code: a deal drawn by numpy is one of the enumerated deals."""
    game = make("kakurenbo_v1", wrapped=False, num_players=3).game
    seeded = game.initial_state(np.random.default_rng(3))
    outcomes = []
    while True:
        result = explicit_step(game, None, None, outcomes)
        if isinstance(result, Resolved):
            break
        # follow the seeded deal: the next card of the order is the next outcome
        position = len(outcomes)
        order = [c for hand in seeded.hands for c in hand] + seeded.pile[1:]  # the pile above the Curse
        outcomes.append(order[position])
    assert game.fingerprint(result.state) == game.fingerprint(seeded)
