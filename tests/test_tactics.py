"""Tactics suites: every stored claim re-verifies through the rules; the generator, the scoring and the CLI.

Controls show each check can fail: a claim with one move too many is caught
by ``verify``; a player that plays the blunders scores 0, one that plays the
right moves scores 1; claims leave out gives and moves whose outcome hangs on
cards the player to act cannot know.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from kakurega.agents.base import Agent
from kakurega.agents.specs import register_agent_kind
from kakurega.agents.tactics import load_suite, replay, score_agents, suite_path, verify
from kakurega.agents.tactics import patterns as tactics_patterns
from kakurega.agents.tactics.generate import PLANS, generate
from kakurega.agents.tactics.patterns import reverified_in
from kakurega.agents.tactics.suite import SuiteError, parse_suite
from kakurega.envs.registry import make
from kakurega.scripts.cli import main


def shipped(game: str):
    return load_suite(suite_path(PLANS[game].env))


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


def test_verify_catches_a_claim_the_rules_do_not_give():
    suite = shipped("hidden_rooms")
    for kind in ("good", "bad"):
        position = next(p for p in suite.positions if p.kind == kind)
        env = replay(suite.env, position)
        extra = next(a for a in env.legal_actions() if a not in position.claimed)
        problems = verify(suite.env, replace(position, claimed=sorted(position.claimed + [extra])), samples=1)
        assert any("the rules give" in p for p in problems)
        assert any(env.action_to_string(extra) in p for p in problems)  # the confirm step rejects the move too


def test_a_position_whose_moves_the_engine_refuses_is_reported_not_replayed():
    position = shipped("animal_chain").positions[0]
    moves = list(position.moves)
    moves[-1] = 10**6
    with pytest.raises(SuiteError, match=f"move {len(moves) - 1}"):
        replay("animal_chain_v1", replace(position, moves=moves))
    assert "not legal" in verify("animal_chain_v1", replace(position, moves=moves))[0]


@pytest.mark.parametrize("game", sorted(PLANS))
def test_the_generator_finds_positions_that_verify(game):
    plan = replace(PLANS[game], quotas={name: 1 for name in PLANS[game].quotas}, max_games=80)
    suite = generate(plan, seed=7, samples=2)
    assert [p.category for p in suite.positions] == list(plan.quotas)
    for position in suite.positions:
        assert verify(suite.env, position, samples=2) == []
        assert position.reason and len(position.named) == len(position.claimed)


class _Scripted(Agent):
    """Plays a fixed move per observation (a control: it knows the suite's answers)."""

    table: dict = {}

    def act(self, observation, sampler=None) -> int:
        return self.table[(observation["observation"].tobytes(), observation["action_mask"].tobytes())]


def _scripted_table(suite, right: bool) -> dict:
    table, envs = {}, {}
    for position in suite.positions:
        env = replay(suite.env, position, envs)
        observation = env.observe(position.seat)
        legal = env.legal_actions()
        if (position.kind == "good") == right:
            move = position.claimed[0]
        else:
            move = next(a for a in legal if a not in position.claimed)
        key = (observation["observation"].tobytes(), observation["action_mask"].tobytes())
        assert table.setdefault(key, move) == move
    return table


@pytest.mark.parametrize("game", ["kakurenbo", "hidden_rooms"])
def test_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(game):
    suite = shipped(game)

    class Blunders(_Scripted):
        table = _scripted_table(suite, right=False)

    class Right(_Scripted):
        table = _scripted_table(suite, right=True)

    register_agent_kind("test_tactics_blunders", lambda context, seed, options, argument: Blunders(context, seed))
    register_agent_kind("test_tactics_right", lambda context, seed, options, argument: Right(context, seed))
    result = score_agents(suite, ["test_tactics_blunders", "test_tactics_right"])
    blunders, right = result.scores
    assert blunders.share()[0] == 0.0 and len(blunders.failed) == len(suite.positions)
    assert right.share()[0] == 1.0 and right.failed == []


def test_random_solves_fewer_positions_than_the_heuristic():
    result = score_agents(shipped("kakurenbo"), ["random", "heuristic"], seed=3)
    random_player, heuristic = result.scores
    share_random, _, high_random, total = random_player.share()
    share_heuristic, low_heuristic, _, _ = heuristic.share()
    assert total == len(shipped("kakurenbo").positions)
    assert high_random < low_heuristic, (share_random, share_heuristic)


def test_kakurenbo_claims_leave_out_gives_whose_end_depends_on_cards_the_giver_has_not_located():
    """Control: in the true state some gives end the game, yet the giver cannot know it; no claim names them."""
    env = make("kakurenbo_v1", wrapped=False)
    rng = np.random.default_rng(0)
    hidden_ends = 0
    for seed in range(25):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            game, state = env.game, env.game_state
            sure = tactics_patterns._kk_sure_outcomes(game, state)
            if sure is not None:
                for action in game.legal_actions(state):
                    if tactics_patterns._kk_outcome(game, state, action) != "on" and action not in sure:
                        hidden_ends += 1
                        for claim in (tactics_patterns._kk_curse_win(game, state),
                                      tactics_patterns._kk_curse_loss(game, state)):
                            assert claim is None or action not in claim.moves
            env.step(int(rng.choice(env.legal_actions())))
    assert hidden_ends > 0


def test_animal_chain_claims_leave_out_moves_after_which_only_the_hidden_hand_can_win():
    """Control: the opponent's true hand often wins after a move that no claim calls a blunder (the hand is hidden)."""
    env = make("animal_chain_v1", wrapped=False)
    rng = np.random.default_rng(0)
    hidden_wins = claimed = 0
    for seed in range(6):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            game, state = env.game, env.game_state
            seat = game.current_player(state)
            if state.phase == 1 and not tactics_patterns._ac_wins(game, state, seat, game.legal_actions(state)):
                claim = tactics_patterns._ac_stop_win(game, state)
                bad = set(claim.moves) if claim else set()
                claimed += len(bad)
                for action in game.legal_actions(state):
                    if tactics_patterns._ac_confirm_stop(game, state, seat, action, rng) is None and action not in bad:
                        hidden_wins += 1
            env.step(int(rng.choice(env.legal_actions())))
    assert hidden_wins > claimed >= 0 and hidden_wins > 0


def test_a_malformed_suite_is_refused_in_words():
    good = shipped("kakurenbo").to_dict()
    with pytest.raises(SuiteError, match="format"):
        parse_suite({**good, "format": "something else"}, "x.json")
    with pytest.raises(SuiteError, match="env"):
        parse_suite({**good, "env": "chess_v0"}, "x.json")
    entry = dict(good["positions"][0])
    with pytest.raises(SuiteError, match="moves"):
        parse_suite({**good, "positions": [{**entry, "moves": ["left"]}]}, "x.json")
    with pytest.raises(SuiteError, match="exactly one of 'good'"):
        parse_suite({**good, "positions": [{**entry, "bad": [1]}]}, "x.json")
    with pytest.raises(SuiteError, match="appears twice"):
        parse_suite({**good, "positions": [entry, entry]}, "x.json")


def test_the_cli_prints_the_table_and_writes_the_figures(tmp_path, capsys):
    out = tmp_path / "tactics.json"
    assert main(["tactics", "kakurenbo", "--agents", "random", "heuristic", "--json", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "tactics: kakurenbo_v1" in text and "curse_win" in text and "curse_loss" in text
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith(("random", "heuristic"))}
    assert set(rows) == {"random", "heuristic"}
    figures = json.loads(out.read_text())
    for agent in figures["agents"]:
        assert agent["positions"] == len(shipped("kakurenbo").positions)
        assert agent["solved"] == sum(c["solved"] for c in agent["categories"].values())
        assert agent["positions"] - agent["solved"] == len(agent["failed"])
        assert f"{agent['solved']:>3}/{agent['positions']:<3} {agent['share']:.2f}" in rows[agent["agent"]]


def test_the_cli_says_what_is_wrong(tmp_path, capsys):
    assert main(["tactics", "animal_chain_v0", "--agents", "random"]) == 2  # other rules: no claim holds
    assert "no position of" in capsys.readouterr().err
    assert main(["tactics", "kakurenbo", "--suite", str(tmp_path / "none.json"), "--agents", "random"]) == 2
    assert "cannot read the file" in capsys.readouterr().err
    assert main(["tactics", "kakurenbo"]) == 2
    assert "--agents" in capsys.readouterr().err
    assert main(["tactics", "kakurenbo", "--agents", "human"]) == 2
    assert "needs a person" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "kakurega-tactics-suite", "version": 1, "env": "kakurenbo_v1", "positions": [}')
    assert main(["tactics", "--suite", str(broken), "--agents", "random"]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    tampered = shipped("kakurenbo")
    tampered.positions = tampered.positions[:2]
    tampered.positions[0] = replace(tampered.positions[0], claimed=[0])
    path = tampered.save(tmp_path / "tampered.json")
    assert main(["tactics", "--suite", str(path), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "kakurenbo-curse_win-01: the claimed action(s) [0] are not legal" in out and "2 positions, 1 problem" in out


def test_a_suite_replays_in_another_version_of_its_game_only_where_its_claims_hold_there():
    suite = shipped("kakurenbo")
    same_rules, left_out = reverified_in(suite, "kakurenbo_v0")  # v0 differs from v1 in its rewards only
    assert same_rules.env == "kakurenbo_v0" and left_out == 0 and len(same_rules.positions) == len(suite.positions)
    with pytest.raises(ValueError, match="re-verifies"):
        reverified_in(shipped("animal_chain"), "animal_chain_v0")  # v0: other base building, other turns
    with pytest.raises(ValueError, match="not of"):
        reverified_in(suite, "animal_chain_v1")
