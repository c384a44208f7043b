"""Random-play fuzzing: invariants of the rules and of knowledge, at every step of many seeded games.

The default run plays a few hundred games per configuration; ``-m slow``
(``make fuzz``) plays thousands.
"""

import numpy as np
import pytest

from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.rules import CURSE_GIVE, POINTS, KakurenboGame, count_colours
from kakurega.envs.kakurenbo_v0 import env as make_env

CONFIGS = [(v, n) for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)]


def check_invariants(game: KakurenboGame, state) -> None:
    """Everything that must hold in every reachable state."""
    n = game.num_players
    discarded = [2 * p + i for p in range(7) if state.discarded_by[p] >= 0 for i in (0, 1)]
    everything = sorted([c for h in state.hands for c in h] + state.pile + discarded)
    assert everything == list(range(15)), "the 15 cards are not conserved"
    assert all(h == sorted(h) for h in state.hands)
    # the incremental colour counts equal a recount of the hands
    assert state.colour_counts == count_colours(state.hands)
    assert not state.pile or state.pile[0] == CURSE or state.phase == 2
    # scores: the points of the discarded pairs, wherever the card functions sent them
    assert sum(state.scores) == sum(POINTS[p] for p in range(7) if state.discarded_by[p] >= 0)
    holder = state.curse_holder
    assert (holder >= 0) == (state.phase == 2)
    if holder >= 0:
        assert CURSE in state.hands[holder] and not state.pile
    where = {c: s for s, h in enumerate(state.hands) for c in h}
    for observer in range(n):
        row = state.knowledge[observer]
        for c in range(14):
            if row[c] >= 0:
                assert where.get(c) == row[c], f"seat {observer} 'knows' card {c} where it is not"
            if state.aware[c] >> observer & 1:
                assert row[c] == where[c]
        for c, seat in enumerate(game.known_row(state, observer)):
            if seat >= 0:
                assert where.get(c) == seat, f"counting placed card {c} wrongly for seat {observer}"
        own = [c for c in state.hands[observer] if c != CURSE]
        if game.faces_visible(state):
            assert all(row[c] == observer for c in own), "a player does not know its own faces"
        else:
            assert all(k == -1 for k in row), "a face was seen in Kurayami phase 1"
    for seat in range(n):
        if state.open_hand[seat]:
            assert all(state.knowledge[o][c] == seat for c in state.hands[seat] if c != CURSE for o in range(n))
    if state.phase == 2 and not state.over:
        for hand in state.hands:  # phase 2 never leaves a pair in a hand
            assert not any(c != CURSE and c ^ 1 in hand for c in hand)
        if not game.kurayami:
            assert state.stage == CURSE_GIVE and state.actor == holder
    if state.over:
        assert state.hands[holder] == [CURSE]


def fuzz(variant, n, games, seed):
    game = KakurenboGame(variant, n)
    rng = np.random.default_rng(seed)
    lengths = []
    for _ in range(games):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            check_invariants(game, state)
            legal = game.legal_actions(state)
            assert legal and legal == sorted(set(legal))
            assert all(0 <= a < game.num_actions for a in legal)
            game.apply_action(state, int(rng.choice(legal)), rng)
        check_invariants(game, state)
        assert state.steps <= game.max_steps
        returns = game.returns(state)
        assert set(returns.tolist()) <= {1.0, -1.0}
        winners = game.winners(state)
        assert returns.tolist() == [1.0 if s in winners else -1.0 for s in range(n)]
        if state.over:
            assert state.curse_holder not in winners
        lengths.append(state.steps)
    return lengths


@pytest.mark.parametrize("variant,n", CONFIGS)
def test_random_play_keeps_every_invariant(variant, n):
    lengths = fuzz(variant, n, games=250, seed=n)
    assert max(lengths) <= 200


@pytest.mark.slow
@pytest.mark.parametrize("variant,n", CONFIGS)
def test_random_play_keeps_every_invariant_long(variant, n):
    fuzz(variant, n, games=5000, seed=100 + n)


def env_fuzz(variant, n, games, seed, max_steps=200, reward="win"):
    """Through the wrapped env: masks equal the rules' list, ends within the limit, rewards add up."""
    env = make_env(variant=variant, num_players=n, max_steps=max_steps, reward=reward)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    outcomes = {"terminated": 0, "truncated": 0}
    for g in range(games):
        env.reset(seed=seed * 10_000 + g)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter():
            obs, reward_value, term, trunc, info = env.last()
            totals[agent] += reward_value
            if term or trunc:
                outcomes["terminated" if term else "truncated"] += 1
                env.step(None)
                continue
            legal = raw.game.legal_actions(raw.game_state)
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            env.step(int(rng.choice(legal)))
            steps += 1
        assert steps <= max_steps
        final = raw.game.returns(raw.game_state)
        assert [totals[a] for a in env.possible_agents] == pytest.approx(final.tolist())
        if reward == "points":
            assert final.tolist() == raw.game.final_scores(raw.game_state)
    return outcomes


@pytest.mark.parametrize("variant,n", CONFIGS)
def test_env_random_play_masks_and_rewards(variant, n):
    env_fuzz(variant, n, games=60, seed=n)


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_env_random_play_with_a_short_limit_truncates(variant):
    outcomes = env_fuzz(variant, 4, games=40, seed=7, max_steps=12, reward="points")
    assert outcomes["truncated"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("variant,n", CONFIGS)
def test_env_random_play_masks_and_rewards_long(variant, n):
    env_fuzz(variant, n, games=2000, seed=50 + n)
    env_fuzz(variant, n, games=500, seed=80 + n, max_steps=25, reward="points")
