"""Version 1's decisions: the child must move, truncation scores the standings, the turn order hides the lines.

On the small test map of ``helpers.py``::

         c0 c1 c2 c3 c4 c5
    r0    .  .  .  #  s  .
    r1    .  S  .  #  #  .
    r2    .  .  F  ~  .  S
    r3    #  ~  #  ~  #  .
    r4    .  #  f  .  S  .
"""

import numpy as np
import pytest

from kakurega.envs import summer_hide_and_seek_v0, summer_hide_and_seek_v1
from kakurega.envs.core.game import TERMINAL
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, FOUND_STUCK, OVER, SEEK, START

from .helpers import new_game, play, square

V1_RULES = summer_hide_and_seek_v1.DEFINITION.rules


def new_v1_game(**options):
    return new_game(**V1_RULES, **options)


# ------------------------------------------------------------- must move
def test_a_child_turn_without_a_line_is_refused_while_a_line_exists():
    game, state = new_v1_game()
    play(game, state, "start r0c0")
    stop = game.stop_action
    assert stop not in game.legal_actions(state) and game.legal_actions(state)
    assert "must draw at least one line this turn" in game.illegal_reason(state, stop)
    play(game, state, "line r0c1")
    assert stop in game.legal_actions(state), "the child may stop any time after the first line"
    play(game, state, "stop", "place r2c5")
    assert state.phase == CHILD and stop not in game.legal_actions(state), "every turn needs a line"


def test_version_0_still_lets_the_child_stop_at_once():
    game, state = new_game()
    play(game, state, "start r0c0", "stop", "place r2c5", "stop")
    assert state.phase == SEEK and state.announcements == [(0, ()), (0, ())]


def test_a_child_with_no_line_at_the_start_of_its_turn_is_stuck():
    game, state = new_v1_game()
    # from r4c5, once r3c5 is on the stroke, the only line left is the move to r4c4: a piece there
    play(game, state, "start r3c5", "line r4c5", "stop", "place r4c4")
    assert state.history == [(0, (square(game, "r3c5"), square(game, "r4c5")), 0, 2, FOUND_STUCK)]
    assert state.phase == START and state.child == 1


# ------------------------------------------------------------ paced turns
def test_a_shortcut_is_followed_by_a_forced_continue():
    game, state = new_v1_game()
    play(game, state, "start r0c2", "line r0c4")
    assert game.legal_actions(state) == [game.continue_action]
    assert "next decision is continue" in game.illegal_reason(state, game.stop_action)
    assert game.action_to_string(state, game.continue_action) == "continue (the second decision of a shortcut)"
    game.apply_action(state, game.continue_action, np.random.default_rng(0))
    assert game.stop_action in game.legal_actions(state) and game.continue_action not in game.legal_actions(state)
    assert "not one" in game.illegal_reason(state, game.continue_action)


def test_the_turn_ends_by_itself_when_the_budget_is_spent():
    game, state = new_v1_game()
    play(game, state, "start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2", "line r1c2")
    assert state.phase == SEEK and state.announcements == [(BUDGET, ())]


def test_the_action_space_of_version_1_adds_continue_only():
    v0 = summer_hide_and_seek_v0.raw_env()
    v1 = summer_hide_and_seek_v1.raw_env()
    assert v1.game.num_actions == v0.game.num_actions + 1 == 170
    assert v1.game.continue_action == 169 and v0.game.continue_action == -1
    assert v1.layout.size == v0.layout.size
    assert str(v1) == "summer_hide_and_seek_v1" and str(v0) == "summer_hide_and_seek_v0"


def child_decisions_by_turn(num_players, seed, num_games=30, **options):
    """(decisions, cost, ended stuck) of every child turn of random v1 games, as the seekers see them."""
    env = summer_hide_and_seek_v1.raw_env(num_players=num_players, **options)
    game = env.game
    rng = np.random.default_rng(seed)
    turns = []
    for g in range(num_games):
        env.reset(seed=seed + g)
        decisions = cost = 0
        while env.agents and not (any(env.terminations.values()) or any(env.truncations.values())):
            state = env.game_state
            child_acts = env.agent_selection == f"player_{state.child}" and state.phase == CHILD
            legal = env.legal_actions()
            a = int(rng.choice(legal))
            if child_acts:
                decisions += 1
                kind, q = game.describe_action(a)
                if kind == "line":
                    cost += game.line_between(state.square, q)[1]
            rounds = len(state.history)
            env.step(a)
            after = env.game_state
            if child_acts and (after.phase != CHILD or len(after.history) > rounds):
                stuck = len(after.history) > rounds
                turns.append((decisions, cost, stuck))
                decisions = cost = 0
    return turns


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_childs_number_of_decisions_depends_only_on_the_announced_cost(num_players):
    turns = child_decisions_by_turn(num_players, seed=num_players)
    assert len(turns) > 200
    for decisions, cost, stuck in turns:
        assert decisions == cost + (not stuck and cost < BUDGET), (decisions, cost, stuck)
    costs = {cost for _d, cost, _s in turns}
    assert {1, 2, 3, 4, 5} <= costs


def test_the_decision_count_control_version_0_reveals_the_lines():
    """The same count in v0 depends on the lines, not the cost alone: the test above would catch it."""
    env = summer_hide_and_seek_v0.raw_env(num_players=2)
    game = env.game
    rng = np.random.default_rng(1)
    by_cost: dict = {}
    for g in range(20):
        env.reset(seed=g)
        decisions = cost = 0
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            state = env.game_state
            a = int(rng.choice(env.legal_actions()))
            if state.phase == CHILD:
                decisions += 1
                kind, q = game.describe_action(a)
                cost += game.line_between(state.square, q)[1] if kind == "line" else 0
                if kind == "stop":
                    by_cost.setdefault(cost, set()).add(decisions)
                    decisions = cost = 0
            env.step(a)
    assert any(len(counts) > 1 for counts in by_cost.values())


# ------------------------------------------------------ truncation scoring
def play_until_truncated(module, reward, max_steps):
    env = module.raw_env(num_players=3, reward=reward, max_steps=max_steps)
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not any(env.truncations.values()):
        assert not any(env.terminations.values()), "the game ended before the step limit; raise the test's VP check"
        env.step(int(rng.choice(env.legal_actions())))
        for agent, r in env.rewards.items():
            totals[agent] += r
    return env, totals


@pytest.mark.parametrize("reward", ["win", "vp"])
def test_truncation_scores_the_standings(reward):
    env, totals = play_until_truncated(summer_hide_and_seek_v1, reward, max_steps=60)
    state, game = env.game_state, env.game
    assert game.is_truncated(state) and game.current_player(state) == TERMINAL and state.phase != OVER
    vp = state.vp
    assert max(vp) > 0
    if reward == "win":
        expected = [1.0 if v == max(vp) else -1.0 for v in vp]
    else:
        expected = [float(v) for v in vp]
    assert [totals[a] for a in env.possible_agents] == expected
    assert list(game.returns(state)) == expected
    assert "cut off by the step limit (60 steps), scored by the standings" in env.render_text(None)


def test_truncation_control_version_0_pays_nothing_in_win_mode():
    env, totals = play_until_truncated(summer_hide_and_seek_v0, "win", max_steps=60)
    assert max(env.game_state.vp) > 0 and set(totals.values()) == {0.0}
