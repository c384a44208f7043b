"""KAKURENBO's tactics suites (3, 4 and 5 players, both variants): scripted players of the blunders and of the
right moves score 0 and 1, random solves fewer positions than the heuristic, claims leave out gives and takes
whose end the mover cannot know, a wrong Kurayami claim is caught, Kurayami's winning take is always forced; a
malformed suite is refused in words; the CLI; the suite replays in version 0 (same rules) and in no other game."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from tactics_checks import check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1, shipped

from kakurega.agents.tactics import patterns as tactics_patterns
from kakurega.agents.tactics import replay, score_agents, verify
from kakurega.agents.tactics.generate import PLANS
from kakurega.agents.tactics.patterns import reverified_in
from kakurega.agents.tactics.suite import Position, SuiteError, find_suite, parse_suite
from kakurega.envs.kakurenbo import rules as kr
from kakurega.envs.kakurenbo.winning import winning_note
from kakurega.envs.registry import make
from kakurega.scripts.cli import main
from tests.kakurenbo.helpers import random_env_positions

TABLES = sorted(name for name in PLANS if name.startswith("kakurenbo"))
KURAYAMI = [name for name in TABLES if "kurayami" in name]


@pytest.mark.parametrize("name", TABLES)
def test_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(name):
    check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(name)


def test_random_solves_fewer_positions_than_the_heuristic():
    result = score_agents(shipped("kakurenbo"), ["random", "heuristic"], seed=3)
    random_player, heuristic = result.scores
    share_random, _, high_random, total = random_player.share()
    share_heuristic, low_heuristic, _, _ = heuristic.share()
    assert total == len(shipped("kakurenbo").positions)
    assert high_random < low_heuristic, (share_random, share_heuristic)


def test_kakurenbo_claims_leave_out_gives_whose_end_depends_on_cards_the_giver_has_not_located():
    """Control: in the true state some gives end the game, yet the giver cannot know it; no claim names them."""
    hidden_ends = 0
    for game, state, legal in random_env_positions(make("kakurenbo_v1", wrapped=False), games=25, seed=0):
        sure = tactics_patterns._kk_sure_outcomes(game, state)
        if sure is not None:
            for action in legal:
                if tactics_patterns._kk_outcome(game, state, action) != "on" and action not in sure:
                    hidden_ends += 1
                    for claim in (tactics_patterns._kk_curse_win(game, state),
                                  tactics_patterns._kk_curse_loss(game, state)):
                        assert claim is None or action not in claim.moves
    assert hidden_ends > 0


def _partner_of_last_card(state) -> int | None:
    """At a dice take by the Curse holder with one other card X, where the victim's only card of the colour of
    X's partner is that partner and a card of the other colour is there too: the partner (else None)."""
    me, victim = state.actor, state.target
    body = [c for c in state.hands[me] if c != kr.CURSE]
    if state.stage != kr.DICE_TAKE or state.curse_holder != me or len(body) != 1:
        return None
    partner = body[0] ^ 1
    counts = state.colour_counts
    if partner not in state.hands[victim] or counts[2 * victim + (partner & 1)] != 1:
        return None
    return partner if counts[2 * victim + 1 - (partner & 1)] else None


def test_kurayami_claims_leave_out_takes_of_a_partner_the_taker_has_not_located():
    """Control: taking the victim's only card of that colour ends the game at once when it is the partner of the
    taker's last card; a claim names that take only when the taker has located the partner, never otherwise."""
    env = make("kakurenbo_v1", wrapped=False, variant="kurayami", num_players=3)
    hidden = 0
    for game, state, legal in random_env_positions(env, games=300, seed=0):
        partner = _partner_of_last_card(state)
        if partner is not None and game.known_row(state, state.actor)[partner] != state.target:
            take = next(a for a in legal if game.decode[a][1] == partner & 1)
            assert tactics_patterns._kk_outcome(game, state, take) in ("loss", "no winner")
            assert tactics_patterns._kk_take_loss(game, state) is None
            hidden += 1
    assert hidden > 5


def test_kurayami_with_3_players_a_take_that_ends_the_game_with_a_winner_is_always_forced():
    """Why 3-player Kurayami has no suite: a winner needs an empty hand; if the third hand is empty, every card
    left pairs with one in the other hand, so a victim facing a taker with the Curse and one card holds one card."""
    env = make("kakurenbo_v1", wrapped=False, variant="kurayami", num_players=3)
    ends = 0
    for game, state, legal in random_env_positions(env, games=300, seed=2):
        if state.stage == kr.DICE_TAKE:
            outcomes = [tactics_patterns._kk_outcome(game, state, a) for a in legal]
            if any(outcome in ("win", "tie", "loss") for outcome in outcomes):
                ends += 1
                assert len(legal) == 1
            assert tactics_patterns._kk_take_loss(game, state) is None
    assert ends > 20


def test_kurayami_a_located_partner_take_that_ends_with_no_winner_is_no_blunder():
    """With no empty hand at the end nobody wins and every seat gets 0 (zero-sum rewards), more than a loss; the
    take that ends the game so is no blunder, and no claim names it."""
    position = Position(id="no-winner", category="take_loss", options={"num_players": 3, "variant": "kurayami"},
                        seed=1801597158, moves=[0, 38, 0, 41, 0, 43, 0, 40, 0, 39, 0, 39, 0, 36, 0, 40, 0, 36, 0, 43,
                                                0, 72, 43, 73, 41, 72], seat="player_1", kind="bad", claimed=[43],
                        reason="a take of the located partner")
    env = replay("kakurenbo_v1", position)
    game, state = env.game, env.game_state
    partner = _partner_of_last_card(state)
    assert partner is not None and game.known_row(state, state.actor)[partner] == state.target  # located
    (take,) = position.claimed
    after = game.clone(state)
    game.apply_action(after, take, np.random.default_rng(0))
    assert after.over and game.winners(after) == [] and game.returns(after).tolist() == [0.0, 0.0, 0.0]
    assert all(after.hands)  # nobody's hand is empty
    assert tactics_patterns._kk_outcome(game, state, take) == "no winner"
    assert tactics_patterns._kk_take_loss(game, state) is None
    assert verify("kakurenbo_v1", position, samples=2) == [
        "no-winner: in the true state the take_loss pattern does not hold",
        "no-winner: in determinization 1 the take_loss pattern does not hold",
        "no-winner: in determinization 2 the take_loss pattern does not hold"]


def test_kurayami_a_claim_naming_the_take_that_keeps_the_game_going_is_caught():
    suite = shipped("kakurenbo-variant=kurayami")
    position = suite.positions[0]
    env = replay(suite.env, position)
    (other,) = [a for a in env.legal_actions() if a not in position.claimed]
    problems = verify(suite.env, replace(position, claimed=[other]), samples=2)
    assert f"the rules give bad {position.claimed}, the suite says bad [{other}]" in problems[0]
    assert any("the give ends as 'on', not 'loss'" in problem for problem in problems)
    assert verify(suite.env, position, samples=2) == []


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_kurayami_a_take_that_wins_at_once_is_always_the_only_legal_move(num_players):
    """Why Kurayami has no "wins at once" category: the victim holds the Curse and one card, one colour to name."""
    env = make("kakurenbo_v1", wrapped=False, variant="kurayami", num_players=num_players)
    winning = 0
    for game, state, legal in random_env_positions(env, games=300, seed=1):
        marked = [a for a in legal if winning_note(game, state, a)]
        if marked:
            winning += 1
            assert state.stage == kr.DICE_TAKE and marked == legal == [marked[0]]
    assert winning > 20


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
    with pytest.raises(ValueError, match="not of"):
        reverified_in(suite, "animal_chain_v1")


def test_the_options_pick_the_table_and_a_table_without_a_suite_is_refused_in_words():
    assert find_suite("kakurenbo_v1", {"num_players": 4, "variant": "kakurenbo"}).source.endswith("/kakurenbo.json")
    # another version of the game finds the same files (its positions are then re-verified there)
    assert find_suite("kakurenbo_v0", {"variant": "kurayami"}).source.endswith("/kakurenbo-variant=kurayami.json")
    with pytest.raises(ValueError, match=r"num_players=3, variant=kurayami; the tables with one: num_players=4, "
                                         r"variant=kakurenbo \(kakurenbo.json\); num_players=3, variant=kakurenbo"):
        find_suite("kakurenbo_v1", {"num_players": 3, "variant": "kurayami"})  # no provable position there
    with pytest.raises(ValueError, match="from 3 to 5, got 6"):
        find_suite("kakurenbo_v1", {"num_players": 6})


def test_the_cli_scores_the_table_asked_and_names_it(tmp_path, capsys):
    out = tmp_path / "tactics.json"
    argv = ["tactics", "kakurenbo", "--option", "num_players=5", "--option", "variant=kurayami",
            "--agents", "random", "--json", str(out), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "tactics: kakurenbo_v1, num_players=5, variant=kurayami," in text and "take_loss" in text
    figures = json.loads(out.read_text())
    assert figures["options"] == {"num_players": 5, "variant": "kurayami"}
    assert figures["agents"][0]["positions"] == len(shipped("kakurenbo-num_players=5-variant=kurayami").positions)


@pytest.mark.parametrize("name", TABLES)
def test_every_position_is_asked_of_a_freshly_reset_agent(name):
    """An agent that plays right only when reset since its last move solves every position of each table."""
    from tactics_checks import check_every_position_is_asked_of_a_freshly_reset_agent

    check_every_position_is_asked_of_a_freshly_reset_agent(name)


def test_a_filtered_run_lists_only_the_categories_asked():
    """A run restricted to some categories scores and lists only those."""
    from tactics_checks import check_a_filtered_run_lists_only_the_categories_asked

    check_a_filtered_run_lists_only_the_categories_asked("kakurenbo")
