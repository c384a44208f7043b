"""Summer's tactics suites (2, 3 and 4 players): scripted players of the blunders and of the right moves score
0 and 1; with several seekers a one-square belief is still a sure find, but not for a seeker who has lost
whatever happens (behind another seeker in the last round, when only the child scores)."""

from __future__ import annotations

import copy

import pytest
from tactics_checks import check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1, shipped

from kakurega.agents.tactics import patterns as tactics_patterns
from kakurega.agents.tactics import replay
from kakurega.agents.tactics.generate import PLANS
from kakurega.agents.tactics.suite import find_suite
from kakurega.scripts.cli import main

TABLES = sorted(name for name in PLANS if name.startswith("summer_hide_and_seek"))


@pytest.mark.parametrize("name", TABLES)
def test_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(name):
    check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(name)


@pytest.mark.parametrize("name", ["summer_hide_and_seek-num_players=3", "summer_hide_and_seek-num_players=4"])
def test_the_sure_finds_of_several_seekers_come_from_seekers_of_every_place_in_the_turn(name):
    """Not only the first seeker of a turn: a later one whose predecessors placed elsewhere has the claim too
    (and no earlier piece of the turn is on the square)."""
    suite = shipped(name)
    places, envs = set(), {}
    for position in suite.positions:
        if position.category == "seek_certain":
            env = replay(suite.env, position, envs)
            state = env.game_state
            places.add(state.seekers_placed)
            assert position.claimed[0] - env.game.place_base not in state.pieces  # no earlier piece is there
    assert {0, 1} <= places


def _last_round(game, state, seeker_vp: int, other_vp: int, child_vp: int = 0):
    """``state`` made the last round (same child, same seeker to act) with these VP for the seeker, another
    seeker and the child."""
    last = copy.deepcopy(state)
    last.round = game.num_players - 1
    last.first_child = (state.child - last.round) % game.num_players
    me = game.current_player(state)
    assert (last.child, game.current_player(last)) == (state.child, me)
    other = next(seat for seat in range(game.num_players) if seat not in (me, state.child))
    last.vp = [0] * game.num_players
    last.vp[me], last.vp[other], last.vp[state.child] = seeker_vp, other_vp, child_vp
    return last


def _seek_position(name: str):
    """The first sure-find position of the suite: its claim, game and state."""
    suite = shipped(name)
    position = next(p for p in suite.positions if p.category == "seek_certain")
    env = replay(suite.env, position)
    assert env.game.current_player(env.game_state) != env.game_state.child
    return position, env.game, env.game_state


def test_a_seeker_who_has_lost_whatever_happens_gets_no_sure_find_claim():
    """In the last round only the child scores: a seeker behind another seeker loses whatever it places, so
    the position proves nothing; level with the leader (a find keeps the child from passing it), it does."""
    position, game, state = _seek_position("summer_hide_and_seek-num_players=3")
    level = tactics_patterns._su_seek_certain(game, _last_round(game, state, 100, 100))
    assert level is not None and list(level.moves) == position.claimed
    assert tactics_patterns._su_seek_certain(game, _last_round(game, state, 101, 100)) is not None
    assert tactics_patterns._su_seek_certain(game, _last_round(game, state, 99, 100)) is None


def test_the_options_pick_the_table_and_the_cli_verifies_it(capsys):
    assert find_suite("summer_hide_and_seek_v2", {"num_players": 2}).source.endswith("/summer_hide_and_seek.json")
    assert main(["tactics", "summer_hide_and_seek", "--option", "strict_moves=true", "--agents", "random"]) == 2
    err = capsys.readouterr().err
    assert "no tactics suite for summer_hide_and_seek_v2 with" in err and "summer_hide_and_seek-num_players=3.json" in err
    assert main(["tactics", "summer_hide_and_seek", "--option", "num_players=3", "--verify"]) == 0
    assert "summer_hide_and_seek-num_players=3.json: 70 positions, 0 problem(s)" in capsys.readouterr().out
