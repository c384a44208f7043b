"""Hidden Rooms' tactics suite: ``verify`` catches a claim the rules do not give; scripted players of the
blunders and of the right moves score 0 and 1."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tactics_checks import check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1, shipped

from kakurega.agents.tactics import replay, verify
from kakurega.agents.tactics.suite import find_suite


def test_verify_catches_a_claim_the_rules_do_not_give():
    suite = shipped("hidden_rooms")
    for kind in ("good", "bad"):
        position = next(p for p in suite.positions if p.kind == kind)
        env = replay(suite.env, position)
        extra = next(a for a in env.legal_actions() if a not in position.claimed)
        problems = verify(suite.env, replace(position, claimed=sorted(position.claimed + [extra])), samples=1)
        assert any("the rules give" in p for p in problems)
        assert any(env.action_to_string(extra) in p for p in problems)  # the confirm step rejects the move too


def test_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1():
    check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1("hidden_rooms")


def test_a_table_without_a_suite_is_refused_naming_the_tables_with_one():
    with pytest.raises(ValueError, match=r"no tactics suite for hidden_rooms_v0 with episode=match; the tables "
                                         r"with one: episode=round \(hidden_rooms.json\)"):
        find_suite("hidden_rooms_v0", {"episode": "match"})
