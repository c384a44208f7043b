"""The KAKURENBO heuristic, Kurayami: a dice take that surely ends the game with the taker among the losers
is avoided when another take keeps the game going (it used to take the pair and lose at once).

The positions are the Kurayami tactics suites': each claim re-verified through the rules in every state the
taker cannot tell apart (tests/test_tactics.py); random games reach one about twice per thousand games."""

from __future__ import annotations

import pytest

from kakurega.agents.heuristics import kakurenbo as heuristic_module
from kakurega.agents.tactics.score import score_agents
from kakurega.agents.tactics.suite import find_suite

TABLES = [{"variant": "kurayami"}, {"variant": "kurayami", "num_players": 5}]


@pytest.mark.parametrize("options", TABLES, ids=["4p", "5p"])
def test_the_heuristic_avoids_every_sure_losing_take_of_the_suite(options):
    suite = find_suite("kakurenbo_v1", options)
    assert {p.category for p in suite.positions} == {"take_loss"}
    result = score_agents(suite, ["heuristic"])
    score = result.scores[0]
    assert score.failed == [], f"sure losing takes played: {score.failed}"


def test_control_without_the_penalty_the_heuristic_takes_the_pair_and_loses(monkeypatch):
    monkeypatch.setattr(heuristic_module, "SURE_LOSS_PENALTY", 0.0)
    suite = find_suite("kakurenbo_v1", TABLES[0])
    result = score_agents(suite, ["heuristic"])
    score = result.scores[0]
    assert len(score.failed) > len(suite.positions) // 2

