"""KAKURENBO: the moves a sure ending beats, and the bots that never play them unless asked (``prune=false``).

A sole win pays the most any seat can get and a place among the losers the least, so a sure sole win beats
every other move and a sure loss is beaten by any move that is not one (``kakurenbo_endings.dominated``). The
sure endings themselves are checked against played outcomes and in determinizations in test_endings.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.kakurenbo import KakurenboMoveFeatures
from kakurega.agents.heuristics.kakurenbo_endings import LOSS, SHARE, WIN, dominated, sure_endings
from kakurega.agents.policy import context_for, load
from kakurega.agents.pretrained import find
from kakurega.agents.tactics.patterns import reverified_in
from kakurega.agents.tactics.score import score_agents
from kakurega.agents.tactics.suite import find_suite
from kakurega.envs.registry import make


def test_the_rule_a_sole_win_beats_everything_a_loss_is_beaten_by_anything_else():
    legal = [3, 5, 8]
    assert dominated({5: WIN}, legal) == [3, 8]
    assert dominated({5: WIN, 8: LOSS}, legal) == [3, 8]
    assert dominated({3: LOSS, 8: LOSS}, legal) == [3, 8]
    assert dominated({3: LOSS, 5: LOSS, 8: LOSS}, legal) == []  # nothing beats a loss when every move is one
    assert dominated({5: SHARE, 8: LOSS}, legal) == [8]  # a shared win is not the most a seat can get
    assert dominated({}, legal) == []


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_over_random_games_pruning_keeps_a_legal_move_and_removes_only_what_a_sure_ending_beats(variant):
    pruned = 0
    for players in (3, 4, 5):
        options = {"variant": variant, "num_players": players}
        env = make("kakurenbo_v1", wrapped=False, **options)
        context = AgentContext.from_env(env, "kakurenbo_v1", options)
        features = KakurenboMoveFeatures(context)
        rng = np.random.default_rng(players)
        for game in range(25):
            env.reset(seed=100 * players + game)
            while not any(env.terminations.values()) and not any(env.truncations.values()):
                observation = env.observe(env.agent_selection)
                legal = np.asarray(observation["action_mask"], dtype=bool)
                mask = features.dominated(observation)
                assert mask.shape == legal.shape and not (mask & ~legal).any()
                assert (legal & ~mask).any()
                endings = sure_endings(features._heuristic.game, context.layout, observation, np.flatnonzero(legal))
                kept = {endings.get(int(a)) for a in np.flatnonzero(legal & ~mask)}
                if mask.any():
                    pruned += 1
                    assert kept == {WIN} or LOSS not in kept
                env.step(int(rng.choice(np.flatnonzero(legal))))
    if variant == "kakurenbo":
        assert pruned > 0  # Curse gives onto a located partner come up in random games


def test_the_rule_is_the_games_not_a_features_version():
    """Version 0 features (the inputs of the ``kakurenbo_v0`` 4p bot) prove the same dominated moves as the
    newest, so that bot is pruned like the new ones."""
    options = {"variant": "kakurenbo", "num_players": 4}
    env = make("kakurenbo_v0", wrapped=False, **options)
    context = AgentContext.from_env(env, "kakurenbo_v0", options)
    old, new = KakurenboMoveFeatures(context, version=0), KakurenboMoveFeatures(context)
    bot = load(find("kakurenbo_v0", options), context=context)
    assert bot.move_features.version == 0
    rng = np.random.default_rng(3)
    pruned = 0
    for deal in range(30):
        env.reset(seed=deal)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            observation = env.observe(env.agent_selection)
            mask = old.dominated(observation)
            np.testing.assert_array_equal(mask, new.dominated(observation))
            if mask.any():
                pruned += 1
                assert not mask[bot.act(observation)]
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert pruned > 0


def test_a_network_without_move_features_is_pruned_by_the_games_features():
    """The ``kakurenbo_v0`` Kurayami bot reads no features; pruned, it avoids every sure-losing take of the
    Kurayami suite (replayed in v0, whose rules are v1's but for the rewards), and without pruning it does not."""
    suite, left_out = reverified_in(find_suite("kakurenbo_v1", {"variant": "kurayami"}), "kakurenbo_v0")
    assert left_out == 0
    options = {"variant": "kurayami", "num_players": 4}
    bot = load(find("kakurenbo_v0", options), context=context_for("kakurenbo_v0", options))
    assert bot.move_features is None and bot.prune
    pruned, network = score_agents(suite, ["pretrained", "pretrained:prune=false"]).scores
    assert pruned.failed == []
    assert len(network.failed) > 0


@pytest.mark.parametrize("options", [{"num_players": 3}, {"variant": "kurayami"}], ids=["3p", "kurayami"])
def test_the_shipped_bot_solves_its_suite_pruned_and_not_without_pruning(options):
    """The control: the same network with ``prune=false`` fails positions of the same suite."""
    suite = find_suite("kakurenbo_v1", options)
    result = score_agents(suite, ["pretrained", "pretrained:prune=false"])
    pruned, network = result.scores
    assert pruned.failed == []
    assert len(network.failed) > 0


def test_points_rewards_prove_nothing():
    """``reward="points"`` pays a seat its own points: the sure sole win of the suite's first curse_win position
    pays the giver its points, not the most a seat can get (going on may score it more pairs), so nothing is pruned
    there; the default rewards prune every other give (a control)."""
    from dataclasses import replace

    from kakurega.agents.move_features import proves_dominance
    from kakurega.agents.tactics import replay

    position = next(p for p in find_suite("kakurenbo_v1").positions if p.category == "curse_win")
    for reward, proved in (("zero_sum", True), ("points", False)):
        options = {**position.options, "reward": reward}
        raw = replay("kakurenbo_v1", replace(position, options=options))
        game, state = raw.game, raw.game_state
        mask = KakurenboMoveFeatures(AgentContext.from_env(raw, "kakurenbo_v1", options)).dominated(
            raw.observe(position.seat))
        assert (mask is not None and mask.any()) == proved == proves_dominance("kakurenbo_v1", options)
        after = game.clone(state)
        game.apply_action(after, position.claimed[0], np.random.default_rng(0))
        assert after.over and game.winners(after) == [state.actor]
        assert (game.returns(after)[state.actor] == game.return_bounds()[1]) == proved
