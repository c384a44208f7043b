"""Summer's move features (``SummerMoveFeatures``) against the tactics suite's proven claims and the heuristic:
the sure find is marked on the one square of a one-square belief, a line that leaves the child stuck is marked
stuck, and the features' best action is the heuristic's child move. The leak check of every game's features
(tests/test_move_features.py) catches, on Summer's states, features that read the child's true square."""

from __future__ import annotations

import numpy as np
import pytest
from conformance import random_states
from leak_checks import check_move_feature_leaks

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.heuristics.summer_features import SummerMoveFeatures
from kakurega.agents.specs import make_agent
from kakurega.agents.tactics import load_suite, replay, suite_path
from kakurega.envs import make

ENV, CONFIG = "summer_hide_and_seek_v2", {"num_players": 2}
#: columns of a row (see the class docstring)
IN_BELIEF, SURE, STUCK, BEST = 1, 2, 2, 7


@pytest.fixture(scope="module")
def positions():
    """(position, its features as rows, its legal actions) for every position of the shipped suite."""
    suite = load_suite(suite_path(ENV))
    envs: dict = {}
    features = None
    rows = []
    for position in suite.positions:
        env = replay(suite.env, position, envs)
        if features is None:
            features = SummerMoveFeatures(AgentContext.from_env(env, ENV, position.options))
        observation = env.observe(position.seat)
        values = features(observation).reshape(env.game.num_actions, SummerMoveFeatures.PER_ACTION)
        rows.append((position, values, np.flatnonzero(observation["action_mask"])))
    return rows


def test_the_sure_find_is_the_one_place_action_with_sure_feature_one(positions):
    checked = 0
    for position, values, legal in positions:
        if position.category != "seek_certain":
            continue
        (sure,) = position.claimed
        assert values[sure, SURE] == 1 and values[sure, IN_BELIEF] == 1
        others = [a for a in legal if a != sure]
        assert values[others, SURE].max() < 1 and not values[others, IN_BELIEF].any()
        checked += 1
    assert checked >= 30


def test_lines_that_leave_the_child_stuck_are_marked_stuck(positions):
    checked = 0
    for position, values, legal in positions:
        if position.category != "child_stuck":
            continue
        assert (values[position.claimed, STUCK] == 1).all(), position.id
        # another choice is not stuck (the claim's premise) and the features' best action is not a blunder
        assert any(values[a, STUCK] == 0 for a in legal if a not in position.claimed)
        best = np.flatnonzero(values[:, BEST] == 1)
        assert best.size and not set(best.tolist()) & set(position.claimed), position.id
        checked += 1
    assert checked >= 30


def test_the_features_best_child_move_is_mostly_the_heuristics():
    env = make(ENV, **CONFIG)
    context = AgentContext.from_env(env, ENV, CONFIG)
    features = SummerMoveFeatures(context)
    players = {a: make_agent("heuristic", context, i) for i, a in enumerate(env.possible_agents)}
    agree = total = 0
    for game in range(4):
        env.reset(seed=game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = choose_action(players[agent], env, agent, observation)
            phase = int(np.argmax(context.layout.view(observation["observation"], "phase")))
            if phase == 1 and observation["action_mask"].sum() > 1:
                rows = features(observation).reshape(-1, SummerMoveFeatures.PER_ACTION)
                agree += rows[action, BEST] == 1
                total += 1
            env.step(action)
    # the heuristic breaks near-ties at random and follows the plan it made at the turn's start
    assert total > 50 and agree / total > 0.9, (agree, total)


def test_the_same_observation_gives_the_same_features():
    raw = make(ENV, wrapped=False, **CONFIG)
    features = SummerMoveFeatures(AgentContext.from_env(raw, ENV, CONFIG))
    raw.reset(seed=3)
    first = {}
    for step in range(40):
        agent = raw.agent_selection
        observation = raw.observe(agent)
        first[step] = (observation, features(observation))
        legal = np.flatnonzero(observation["action_mask"])
        raw.step(int(legal[step % legal.size]))
        if raw.terminations[raw.agent_selection]:
            break
    for observation, values in reversed(list(first.values())):  # asked again, in another order: no memory
        assert np.array_equal(features(observation), values)


class PeekingChildFeatures:
    """A leaky control: besides the observation it reads the child's true square (the seekers' secret)."""

    def __init__(self, raw, honest):
        self.raw, self.honest, self.size = raw, honest, honest.size

    def __call__(self, observation):
        values = self.honest(observation).copy()
        square = self.raw.game_state.square
        values[-1] = (square % 2) if square >= 0 else 0
        return values


def test_the_leak_check_catches_features_that_read_the_childs_square():
    raw = make(ENV, wrapped=False, **CONFIG)
    honest = SummerMoveFeatures(AgentContext.from_env(raw, ENV, CONFIG))
    raw.reset(seed=0)
    states = random_states(raw.game, seed=1, num_games=20, every=2)
    check_move_feature_leaks(raw, honest, states)  # the honest features pass on the same states
    with pytest.raises(AssertionError, match="move features changed"):
        check_move_feature_leaks(raw, PeekingChildFeatures(raw, honest), states)


def child_observations(games: int = 4):
    """Observations of the child's decisions in seeded games of the heuristic (positions repeat across games)."""
    env = make(ENV, **CONFIG)
    context = AgentContext.from_env(env, ENV, CONFIG)
    heuristic = make_agent("heuristic", context, seed=0)
    found = []
    for seed in range(games):
        env.reset(seed=seed % 3)  # the fourth game replays the first
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if int(np.argmax(context.layout.view(observation["observation"], "phase"))) == 1:
                found.append({key: np.array(value, copy=True) for key, value in observation.items()})
            env.step(choose_action(heuristic, env, name, observation))
    return context, found


def differing_from_fresh(features, context, observations) -> int:
    """How many observations get other features from ``features`` than from a fresh instance (nothing cached)."""
    return sum(features(obs).tobytes() != SummerMoveFeatures(context)(obs).tobytes() for obs in observations)


def test_the_remembered_child_rows_are_the_measured_ones():
    context, observations = child_observations()
    features = SummerMoveFeatures(context)
    assert len(observations) > 50
    assert differing_from_fresh(features, context, observations + observations[:20]) == 0
    assert 0 < len(features._child_cache) < len(observations)  # positions came back, and were looked up


def test_control_a_wrong_remembered_row_is_caught():
    context, observations = child_observations(games=1)
    features = SummerMoveFeatures(context)
    for observation in observations:
        features(observation)
    for _legal, rows in features._child_cache.values():
        rows[:, 4] += 0.5  # every cached chance of being found is off
    assert differing_from_fresh(features, context, observations) > 0


def test_the_remembered_child_positions_and_announcements_are_capped(monkeypatch):
    from kakurega.agents.heuristics import summer_features

    monkeypatch.setattr(summer_features, "CHILD_CACHE_SIZE", 3)
    monkeypatch.setattr(summer_features, "ANNOUNCEMENTS_CACHE_SIZE", 2)
    context, observations = child_observations(games=2)
    features = SummerMoveFeatures(context)
    assert differing_from_fresh(features, context, observations) == 0
    assert len(features._child_cache) == 3 and len(features._announcement_walks) == 2


def reference_child_rows(features, observation) -> np.ndarray:
    """The child's rows by the plain search: every plan scored as it is met, the turn's walks made afresh."""
    from kakurega.agents.heuristics.summer_hide_and_seek import FUTURE_VALUE, MOBILITY, Walks, read_stroke
    from kakurega.envs.summer_hide_and_seek.rules import BUDGET

    game = features.game

    def piece(observation, name):  # one layout view per piece, as the plain code read them
        return features.layout.view(observation["observation"], name)

    rows = np.zeros((game.num_actions, features.PER_ACTION), dtype=np.float32)
    mask = np.asarray(observation["action_mask"], dtype=bool)
    rows[mask, 0] = 1
    belief = features._belief(observation)
    stroke, visited, drawn = read_stroke(game, piece(observation, "stroke")[features._rows, features._cols])
    pieces = (piece(observation, "pieces").sum(axis=0)[features._rows, features._cols] > 0).astype(float)
    blocked = sum(1 << int(s) for s in np.flatnonzero(pieces))
    budget = int(round(float(piece(observation, "budget_left")[0])))
    icons = tuple(sorted(features._counts(observation, "turn_icons")))
    walks = Walks(features._weights, features._public_weights(observation, belief), pieces)
    best: dict = {}

    def found_at(q, cost, reached):
        return min(1.0, features._seekers * float(walks.heard(cost, tuple(sorted(reached)))[q]))

    def evaluate(action, q, cost, reached, exits, gain):
        found = 1.0 if not exits else found_at(q, cost, reached)
        value = gain + (1.0 - found) * FUTURE_VALUE + MOBILITY * min(exits, 4) if exits else gain
        if action not in best or value > best[action][0]:
            best[action] = (value, found)

    def search(action, p, vis, drw, left, cost, reached, gain):
        options = game.open_lines(p, vis, drw, blocked, BUDGET)
        evaluate(action, p, cost, reached, len(options), gain)
        for q, bit, lid, k in options:
            if k <= left:
                icon = game.icon_of[q]
                search(action, q, vis | bit, drw | (1 << lid), left - k, cost + k,
                       reached + (icon,) if icon >= 0 else reached, gain + game.square_vp[q])

    p, spent = stroke[-1], BUDGET - budget
    options = game.open_lines(p, visited, drawn, blocked, BUDGET)
    if mask[game.stop_action]:
        evaluate(game.stop_action, p, spent, icons, len(options), 0.0)
        rows[game.stop_action, 3] = min(len(options), 4) / 4
        rows[game.stop_action, 4] = best[game.stop_action][1]
    for q, bit, lid, k in options:
        action = game.line_base + q
        if k > budget or not mask[action]:
            continue
        icon = game.icon_of[q]
        reached = icons + (icon,) if icon >= 0 else icons
        vis, drw = visited | bit, drawn | (1 << lid)
        exits = len(game.open_lines(q, vis, drw, blocked, BUDGET))
        rows[action, 1] = game.square_vp[q] / features._max_vp
        rows[action, 2] = float(exits == 0)
        rows[action, 3] = min(exits, 4) / 4
        rows[action, 4] = 1.0 if not exits else found_at(q, spent + k, reached)
        search(action, q, vis, drw, budget - k, spent + k, reached, float(game.square_vp[q]))
    features._plan_columns(best, rows)
    return rows.ravel()


def child_decisions(env_name, config, games):
    """Observations of every child decision but the forced continue, in game order, of seeded heuristic games."""
    env = make(env_name, **config)
    context = AgentContext.from_env(env, env_name, config)
    heuristic = make_agent("heuristic", context, seed=0)
    found = []
    for seed in range(games):
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            phase = int(np.argmax(context.layout.view(observation["observation"], "phase")))
            if phase == 1 and not (legal.size == 1 and legal[0] == env.unwrapped.game.continue_action):
                found.append({key: np.array(value, copy=True) for key, value in observation.items()})
            env.step(choose_action(heuristic, env, name, observation))
    return context, found


@pytest.mark.parametrize("env_name,config", [(ENV, {"num_players": 4}), (ENV, {"num_players": 3}),
                                             ("summer_hide_and_seek_v1", {"num_players": 2})])
def test_the_child_rows_from_the_turns_plans_are_the_plain_searchs(env_name, config):
    """Later decisions of a turn read the plans of its first one (v1: a first line required, paced turns)."""
    context, observations = child_decisions(env_name, config, games=2)
    features = SummerMoveFeatures(context)
    later = 0
    for observation in observations:
        later += features._kept_turn is not None and features.layout.view(observation["observation"], "budget_left")[0] < 5
        assert features(observation).tobytes() == reference_child_rows(features, observation).tobytes()
    assert len(observations) > 40 and later > 10


def test_control_later_decisions_read_the_kept_plans_and_a_wrong_one_is_caught():
    """Control: the chances of the kept plans made wrong after each turn's first decision show in the later ones."""
    context, observations = child_decisions(ENV, {"num_players": 4}, games=1)
    features = SummerMoveFeatures(context)
    differ = 0
    for observation in observations:
        kept = features._kept_turn
        differ += features(observation).tobytes() != reference_child_rows(features, observation).tobytes()
        if features._kept_turn is not kept:  # a turn's first decision: its plans were just made
            features._kept_turn[4][:] = 0.5 * features._kept_turn[4]
    assert differ > 0
