"""Tactics suites: every stored claim re-verifies through the rules, and the generator finds positions
that verify, for every game with a tactics plan.

The controls that show each check can fail (a claim with one move too many
caught by ``verify``, scripted players of the blunders and of the right moves
scoring 0 and 1, claims that leave out moves whose outcome hangs on hidden
cards), the scoring and the CLI are tested per game, in each game's
``test_tactics.py`` (machinery in ``tactics_checks.py``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from tactics_checks import shipped

from kakurega.agents.tactics import verify
from kakurega.agents.tactics.generate import PLANS, generate


@pytest.mark.parametrize("game", sorted(PLANS))
def test_every_stored_position_replays_and_its_claim_reverifies_through_the_rules(game):
    suite = shipped(game)
    assert suite.env == PLANS[game].env
    assert len(suite.positions) >= 50
    assert set(suite.categories()) == set(PLANS[game].quotas)  # every pattern of the game is represented
    assert len({(p.seed, len(p.moves)) for p in suite.positions}) == len(suite.positions)
    envs: dict = {}
    problems = [problem for position in suite.positions for problem in verify(suite.env, position, 1, envs=envs)]
    assert problems == []


@pytest.mark.parametrize("game", sorted(PLANS))
def test_the_generator_finds_positions_that_verify(game):
    plan = replace(PLANS[game], quotas={name: 1 for name in PLANS[game].quotas}, max_games=80)
    suite = generate(plan, seed=7, samples=2)
    assert [p.category for p in suite.positions] == list(plan.quotas)
    for position in suite.positions:
        assert verify(suite.env, position, samples=2) == []
        assert position.reason and len(position.named) == len(position.claimed)
