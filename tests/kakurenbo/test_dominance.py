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


def test_version_0_features_prove_nothing_so_the_old_bots_play_as_they_did():
    options = {"variant": "kakurenbo", "num_players": 4}
    env = make("kakurenbo_v1", wrapped=False, **options)
    env.reset(seed=0)
    features = KakurenboMoveFeatures(AgentContext.from_env(env, "kakurenbo_v1", options), version=0)
    assert features.dominated(env.observe(env.agent_selection)) is None


@pytest.mark.parametrize("options", [{"num_players": 3}, {"variant": "kurayami"}], ids=["3p", "kurayami"])
def test_the_shipped_bot_solves_its_suite_pruned_and_not_without_pruning(options):
    """The control: the same network with ``prune=false`` fails positions of the same suite."""
    suite = find_suite("kakurenbo_v1", options)
    result = score_agents(suite, ["pretrained", "pretrained:prune=false"])
    pruned, network = result.scores
    assert pruned.failed == []
    assert len(network.failed) > 0
