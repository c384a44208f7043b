"""Random-play fuzz: no exception, cards conserved, invariants kept, every game ends within the limit."""

from collections import Counter

import numpy as np
import pytest
from conformance import play_random

from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, AnimalChainGame
from kakurega.envs.animal_chain_v0 import env as make_env
from kakurega.envs.animal_chain_v1 import env as make_env_v1
from kakurega.envs.core.game import Game

GAME = AnimalChainGame()


def check_invariants(game, state):
    held = Counter(state.deck)
    for hand in state.hands:
        held.update({t: n for t, n in enumerate(hand) if n})
    for stack in state.stacks:  # board stacks; cards taken from the board are in the hands
        held.update(stack)
    assert [held.get(t, 0) for t in range(game.num_types)] == list(game.deck.copies), "cards not conserved"
    assert all(n >= 0 for hand in state.hands for n in hand)
    for p, stack in enumerate(state.stacks):
        if state.face_down[p]:
            assert len(stack) == 1
        owner = state.double_owner[p]
        if owner == NO_SEAT:
            assert state.double_foundations[p] == ()
        else:  # a double still rests on uncovered foundations it connects to
            linked = {q for q, _ in game.connections(state, stack[-1], p)}
            assert len(state.double_foundations[p]) >= 2 and set(state.double_foundations[p]) <= linked
    fresh = game.clone(state)
    game.refresh(fresh)
    for cache in ("tops", "links", "blocked", "hand_sizes", "linked"):
        assert getattr(fresh, cache) == getattr(state, cache), f"stale derived cache {cache}"
    # the flags the env's mask views agree with the legal list (Game's default builds them from it)
    assert game.legal_flags(state) == Game.legal_flags(game, state), "legal_flags disagrees with legal_actions"


#: the rules options of version 1 (the chain rule, one decision per base position)
V1 = {"connection_rule": "chain", "building": "per_position"}


def run_games(num_games, seed, pass_probability, max_turns=200, attack_rule="rules_page", **options):
    """Play on the rules engine; a pass-happy policy reaches empty decks, holes and drawn games."""
    game = AnimalChainGame(max_turns=max_turns, attack_rule=attack_rule, **options)
    rng = np.random.default_rng(seed)
    limit = 2 * (game.max_swaps + 1) + max_turns
    endings = Counter()
    for _ in range(num_games):
        state = game.initial_state(rng)
        check_invariants(game, state)
        steps = 0
        while not (game.is_terminal(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            passes = [a for a in legal if a >= game.pass_action]
            if state.phase != BUILD and passes and rng.random() < pass_probability:
                action = int(rng.choice(passes))
            else:
                action = int(rng.choice(legal))
            game.apply_action(state, action, rng)
            steps += 1
            check_invariants(game, state)
            if steps % 8 == 0:  # every action id, one at a time (the OpenSpiel bridge's check of a move)
                assert [a for a in range(game.num_actions) if game.is_legal(state, a)] == game.legal_actions(state)
            assert steps <= limit, "the game outlived its limit"
        endings["win" if state.winner != NO_SEAT else "drawn" if game.is_terminal(state) else "truncated"] += 1
        endings["holes"] += any(not s for s in state.stacks)
    return endings


def test_random_games_conserve_cards_and_end():
    endings = run_games(150, seed=0, pass_probability=0.0)
    assert endings["win"] > 100


def test_reach_rule_games_keep_the_caches_in_sync():
    # under "reach" the base rows' links differ per seat (links inside a base row count
    # only for its owner): both bookkeeping paths (a face-down card turned, a card covered) run
    endings = run_games(80, seed=4, pass_probability=0.3, attack_rule="reach")
    assert endings["win"] > 40


def test_pass_heavy_games_reach_holes_draws_and_truncation():
    endings = run_games(60, seed=1, pass_probability=0.9)
    assert endings["holes"] > 0 and endings["drawn"] > 0 and endings["win"] > 0
    assert run_games(20, seed=2, pass_probability=0.97, max_turns=20)["truncated"] > 0


@pytest.mark.parametrize("attack_rule", ["rules_page", "reach"])
def test_v1_games_keep_the_caches_in_sync(attack_rule):
    # mostly plays (chains grow, get covered and cut), some passes (holes, empty decks)
    endings = run_games(12, seed=6, pass_probability=0.2, attack_rule=attack_rule, **V1)
    assert endings["win"] + endings["drawn"] + endings["truncated"] == 12
    assert run_games(6, seed=7, pass_probability=0.9, attack_rule=attack_rule, **V1)["holes"] > 0


@pytest.mark.parametrize("make", [make_env, make_env_v1], ids=["v0", "v1"])
def test_wrapped_env_random_play_ends_within_the_limit(make):
    env = make()
    for seed in range(40):
        trajectory = play_random(env, seed=seed, agent_seed=seed, max_steps=2 * 9 + 200 + 2)
        assert trajectory[-1][4] or trajectory[-1][5]


@pytest.mark.slow
def test_many_random_games():
    run_games(3000, seed=2, pass_probability=0.0)
    run_games(1500, seed=3, pass_probability=0.8, max_turns=120)
    run_games(1500, seed=5, pass_probability=0.3, attack_rule="reach")
    run_games(600, seed=8, pass_probability=0.2, **V1)
    run_games(600, seed=9, pass_probability=0.5, attack_rule="reach", **V1)
    run_games(300, seed=10, pass_probability=0.2, connection_rule="any", building="per_position")
