"""Base building in Animal Chain v1 (``building="per_position"``): one keep-or-swap decision per base position."""

import numpy as np
import pytest

from kakurega.envs.animal_chain.rules import BUILD, PLAY, AnimalChainGame
from kakurega.envs.animal_chain_v1 import raw_env

GAME = AnimalChainGame(connection_rule="chain", building="per_position")
B = GAME.base_size


def build_sequence(seed, choose):
    """Play base building of a v1 env with ``choose(legal, rng)``; the acting agents, in order."""
    env = raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    acting = []
    while env.game_state.phase == BUILD:
        acting.append(env.agent_selection)
        env.step(choose(env.legal_actions(), rng))
    return env, acting


CHOOSERS = {
    "always keep": lambda legal, rng: legal[-1],
    "always swap": lambda legal, rng: legal[0],
    "random": lambda legal, rng: int(rng.choice(legal)),
}


@pytest.mark.parametrize("chooser", list(CHOOSERS))
def test_every_deal_has_exactly_one_decision_per_base_position(chooser):
    # so the turn order, which the opponent sees, says nothing about the swaps
    for seed in range(40):
        env, acting = build_sequence(seed, CHOOSERS[chooser])
        assert acting == ["player_0"] * B + ["player_1"] * B
        assert env.game_state.phase == PLAY


def test_the_decision_offers_swaps_with_the_current_position_only_and_keep():
    rng = np.random.default_rng(3)
    for _ in range(30):
        state = GAME.initial_state(rng)
        while state.phase == BUILD:
            seat, j = state.to_move, state.building_position
            kept = state.stacks[GAME.own_base_in_frame[seat][j]][0]
            legal = GAME.legal_actions(state)
            assert legal[-1] == GAME.done_action
            expected = {GAME.swap_action(seat, t, j) for t in range(GAME.num_types) if state.hands[seat][t] and t != kept}
            assert set(legal[:-1]) == expected and legal == sorted(legal)
            assert GAME.legal_flags(state) == bytes(1 if a in legal else 0 for a in range(GAME.num_actions))
            GAME.apply_action(state, int(rng.choice(legal)), rng)


def test_a_swap_exchanges_the_base_card_and_moves_on_and_a_card_swapped_out_can_come_back():
    rng = np.random.default_rng(0)
    state = GAME.initial_state(rng)
    base = GAME.own_base_in_frame[0]
    first, second = state.stacks[base[0]][0], state.stacks[base[1]][0]
    t = next(t for t, n in enumerate(state.hands[0]) if n and t != first)
    GAME.apply_action(state, GAME.swap_action(0, t, 0), rng)
    assert state.stacks[base[0]] == [t] and state.hands[0][first] >= 1 and state.building_position == 1
    if first != second:  # the card swapped out at position 0 may go to position 1
        action = GAME.swap_action(0, first, 1)
        assert action in GAME.legal_actions(state)
        GAME.apply_action(state, action, rng)
        assert state.stacks[base[1]] == [first]
    else:
        GAME.apply_action(state, GAME.done_action, rng)
    assert state.building_position == 2 and state.to_move == 0
    assert GAME.action_to_string(state, GAME.done_action) == "keep own base card r0c2"


def test_a_swap_with_another_position_is_refused_with_words():
    env = raw_env()
    env.reset(seed=1)
    game, state = env.game, env.game_state
    t = next(t for t, n in enumerate(state.hands[0]) if n)
    with pytest.raises(ValueError, match="base building decides own base card r0c0 now: swap a hand card with it, or keep it"):
        env.step(game.swap_action(0, t, 2))


def test_player_1_decides_in_its_own_frame():
    env2 = raw_env()
    env2.reset(seed=0)
    game = env2.game
    for _ in range(B):
        env2.step(game.done_action)
    state = env2.game_state
    assert state.to_move == 1 and state.building_position == 0
    # player 1's base card 0 (its left) is absolute position P - 1
    t = next(t for t, n in enumerate(state.hands[1]) if n and t != state.stacks[game.num_positions - 1][0])
    env2.step(game.swap_action(1, t, 0))
    assert env2.game_state.stacks[game.num_positions - 1] == [t]


def _base_rows(game, state):
    """Every base row player 0 can end its building with from ``state`` (as ordered tuples of card types)."""
    rows, seen = set(), set()

    def walk(s):
        key = (tuple(s.stacks[p][0] for p in game.base_positions[0]), tuple(s.hands[0]), s.to_move, s.building_position,
               s.swaps_used)
        if key in seen:
            return
        seen.add(key)
        if s.to_move != 0 or s.phase != BUILD:
            rows.add(key[0])
            return
        for action in game.legal_actions(s):
            after = game.clone(s)
            game.apply_action(after, action, np.random.default_rng(0))
            walk(after)

    walk(state)
    return rows


def test_what_per_position_building_reaches_as_the_card_says():
    # the v1 card: a base card stays, goes to the hand, or moves to a later position, never to an earlier
    # one; about a third of the rows the rules page's free exchange allows (353 of 1,020 in this deal)
    from itertools import permutations

    state = GAME.initial_state(np.random.default_rng(0))
    base = tuple(state.stacks[p][0] for p in GAME.base_positions[0])
    cards = list(base) + [t for t in range(GAME.num_types) for _ in range(state.hands[0][t])]
    every = set(permutations(cards, B))
    rows = _base_rows(GAME, state)
    assert rows <= every and (len(rows), len(every)) == (353, 1020)
    for row in every:
        # reached exactly when no base card shows only at an earlier position (a card dealt twice excepted)
        later_or_gone = all(base[k] not in row[:k] or base[k] in row[k:] or cards.count(base[k]) > 1 for k in range(B))
        assert (row in rows) == later_or_gone
    assert (base[3], base[1], base[2], base[0]) not in rows
    # the control: v0's free building, same deal, reaches every row
    free = AnimalChainGame(building="free")
    assert _base_rows(free, free.initial_state(np.random.default_rng(0))) == every
