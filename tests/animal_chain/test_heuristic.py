"""The heuristic player: wins at once, builds a safe base, beats random play."""

import random

import numpy as np
import pytest

from animal_chain.scenario import board_state, play
from kakurega.agents import rollouts
from kakurega.agents.base import AgentContext, RandomAgent, choose_action
from kakurega.agents.heuristics.animal_chain import AnimalChainHeuristic
from kakurega.envs import make
from kakurega.envs.animal_chain.rules import BUILD
from kakurega.envs.animal_chain_v0 import env as make_env


def observation_of(env, state):
    raw = env.unwrapped
    raw.game_state = state
    raw._after_transition()
    return raw.observe(raw.agent_selection)


def test_wins_at_once_when_it_can():
    env = make_env()
    env.reset(seed=0)
    agent = AnimalChainHeuristic(AgentContext.from_env(env, "animal_chain_v0"), seed=0)
    # player 1 to move: Dg|Rb onto r0c2 (player 0's base) links to r0c1's right Dg
    state = board_state(up={"r0c1": "Ct|Dg", "r0c2": "Br|Pg", "r4c2": "Ct|Dg"},
                        hands=((), ("Dg|Rb", "Dg|Fx")), to_move=1)
    action = agent.act(observation_of(env, state))
    assert action == play(state, 1, "Dg|Rb", "r0c2")


def test_base_building_ends_with_done_and_reduces_exposure():
    env = make_env()
    context = AgentContext.from_env(env, "animal_chain_v0")
    for seed in range(3):
        agent = AnimalChainHeuristic(context, seed=seed)
        env.reset(seed=seed)
        raw = env.unwrapped
        game = raw.game
        unseen = list(game.deck.copies)
        before = [raw.game_state.stacks[p][0] for p in game.base_positions[0]]
        for t in before + [t for t, n in enumerate(raw.game_state.hands[0]) for _ in range(n)]:
            unseen[t] -= 1
        steps = 0
        while raw.game_state.phase == BUILD and raw.game_state.to_move == 0:
            env.step(choose_action(agent, env, "player_0"))
            steps += 1
        assert steps <= game.max_swaps + 1
        after = [raw.game_state.stacks[p][0] for p in game.base_positions[0]]
        assert agent._exposure(after, unseen) <= agent._exposure(before, unseen)


def win_rate_against_random(num_games, name="animal_chain_v0"):
    env = make(name)
    context = AgentContext.from_env(env, name)
    wins = 0
    for game_index in range(num_games):
        heuristic_seat = game_index % 2
        agents = {f"player_{heuristic_seat}": AnimalChainHeuristic(context, seed=game_index),
                  f"player_{1 - heuristic_seat}": RandomAgent(context, seed=game_index)}
        env.reset(seed=1000 + game_index)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else choose_action(agents[name], env, name, obs))
        wins += env.unwrapped.game.returns(env.unwrapped.game_state)[heuristic_seat] > 0
    return wins / num_games


def test_beats_random_play():
    assert win_rate_against_random(80) >= 0.7


def test_beats_random_play_under_the_chain_rule():
    assert win_rate_against_random(30, "animal_chain_v1") >= 0.9  # 98-100 % in the balance runs


@pytest.mark.parametrize("options", [{}, {"attack_rule": "reach"}, {"connection_rule": "any"}])
def test_reads_the_v1_rules_from_the_context_or_the_registry(options):
    env = make("animal_chain_v1", **options)
    with_game = AgentContext.from_env(env, "animal_chain_v1", options)
    without = AgentContext(with_game.env_name, with_game.env_kwargs, with_game.layout, with_game.num_actions, with_game.num_players)
    for context in (with_game, without):
        game = AnimalChainHeuristic(context, seed=0).game
        assert game.options == env.unwrapped.game.options


def test_the_chain_rollout_policy_wins_when_it_can_and_cuts_chains_near_its_base():
    game = make("animal_chain_v1", wrapped=False).game
    P, B = game.num_positions, game.base_size
    draw = random.Random(0).random
    rng = np.random.default_rng(0)
    wins = cuts = 0
    for _ in range(40):
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)):
            seat, legal = state.to_move, game.legal_actions(state)
            action = rollouts.animal_chain(game, state, seat, legal, draw)
            plays = [a for a in legal if game.play_base <= a < game.pass_action]
            winning = [a for a in plays if (a - game.play_base) % P >= P - B]
            danger = state.linked[1 - seat] & game.near_base_bits[seat]
            cutting = [a for a in plays if danger >> game.to_frame(seat, (a - game.play_base) % P) & 1]
            if winning:
                assert action in winning
                wins += 1
            elif cutting:
                assert action in cutting
                cuts += 1
            game.apply_action(state, action, rng)
    assert wins >= 10 and cuts >= 10, (wins, cuts)


def test_plays_legally_on_other_decks_and_boards():
    from animal_chain.test_data import SMALL_DECK

    deck = dict(SMALL_DECK, cards=[dict(c, copies=6) for c in SMALL_DECK["cards"]])  # 36 cards
    options = {"deck": deck, "shape": {"rows": [3, 4, 5, 4, 3]}}
    env = make_env(**options)
    context = AgentContext.from_env(env, "animal_chain_v0", options)
    for seed in range(6):
        agents = {"player_0": AnimalChainHeuristic(context, seed=seed), "player_1": AnimalChainHeuristic(context, seed=seed)}
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else choose_action(agents[name], env, name, obs)
            assert action is None or obs["action_mask"][action]
            env.step(action)
