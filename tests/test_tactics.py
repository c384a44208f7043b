"""Tactics suites: every stored claim re-verifies through the rules, and the generator finds positions
that verify, for every table with a tactics plan; ``--option`` picks a table's suite; the first suites stay
byte for byte what the docs quote.

The controls that show each check can fail (a claim with one move too many
caught by ``verify``, scripted players of the blunders and of the right moves
scoring 0 and 1, claims that leave out moves whose outcome hangs on hidden
cards), the scoring and the CLI are tested per game, in each game's
``test_tactics.py`` (machinery in ``tactics_checks.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from tactics_checks import shipped

from kakurega.agents.tactics import verify
from kakurega.agents.tactics.generate import PLANS, generate, plan_for
from kakurega.agents.tactics.patterns import game_of
from kakurega.agents.tactics.suite import DIRECTORY, find_suite, shipped_suites
from kakurega.scripts.cli import main

#: sha256 of each game's first suite: its positions are quoted in docs/strength.md and must not change
FIRST_SUITES = json.loads((Path(__file__).parent / "tactics_first_suites.json").read_text())
#: games for the generator test where a pattern is rare: the kurayami take (about 2 positions in 1,000 games);
#: a stop-win under connection_rule=any (most games end on the first play)
GENERATOR_GAMES = {"kakurenbo-variant=kurayami": 1500, "kakurenbo-num_players=5-variant=kurayami": 1500,
                   "animal_chain-connection_rule=any": 400}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_stored_position_replays_and_its_claim_reverifies_through_the_rules(name):
    suite = shipped(name)
    assert suite.env == PLANS[name].env
    assert len(suite.positions) >= 50
    assert all(p.options == PLANS[name].options for p in suite.positions)  # one table per file
    assert set(suite.categories()) == set(PLANS[name].quotas)  # every pattern of the table is represented
    assert len({(p.seed, len(p.moves)) for p in suite.positions}) == len(suite.positions)
    assert all(p.id.startswith(f"{name}-{p.category}-") for p in suite.positions)  # ids differ between tables
    envs: dict = {}
    problems = [problem for position in suite.positions for problem in verify(suite.env, position, 1, envs=envs)]
    assert problems == []


def test_every_suite_file_has_a_plan_named_after_its_table():
    assert {path.stem for path in shipped_suites()} == set(PLANS)
    for name, plan in PLANS.items():
        game = game_of(plan.env)
        options = "".join(f"-{key}={value}" for key, value in sorted(plan.options.items()))
        assert name == game or name == game + options, name  # a game's first table, or the table's options


def test_the_first_suites_are_unchanged_byte_for_byte():
    for game, digest in FIRST_SUITES.items():
        assert hashlib.sha256((DIRECTORY / f"{game}.json").read_bytes()).hexdigest() == digest, game


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_generator_finds_positions_that_verify(name):
    plan = replace(PLANS[name], quotas={category: 1 for category in PLANS[name].quotas},
                   max_games=GENERATOR_GAMES.get(name, 80))
    suite = generate(plan, seed=7, samples=2)
    assert [p.category for p in suite.positions] == list(plan.quotas)
    for position in suite.positions:
        assert verify(suite.env, position, samples=2) == []
        assert position.reason and len(position.named) == len(position.claimed)


#: the first KAKURENBO suite was made before phase 2 determinizations drew only pair-free deals: the generator's
#: checks now draw other samples and find other positions first (every stored claim still re-verifies)
MADE_BY_AN_OLDER_ENGINE = pytest.mark.xfail(strict=True, reason="kakurenbo.json predates the pair-free "
                                            "determinizations; it is kept as the docs quote it")


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(name, marks=MADE_BY_AN_OLDER_ENGINE) if name == "kakurenbo" else name
                                  for name in sorted(PLANS)])
def test_generate_rebuilds_each_shipped_suite_byte_for_byte(name, tmp_path):
    path = generate(PLANS[name], name=name).save(tmp_path / f"{name}.json")
    assert path.read_bytes() == (DIRECTORY / f"{name}.json").read_bytes()


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_options_of_a_table_pick_its_suite(name):
    plan = PLANS[name]
    suite = find_suite(plan.env, plan.options) if plan.options else find_suite(plan.env, {})
    assert suite.source == str(DIRECTORY / f"{name}.json")
    assert plan_for(plan.env, plan.options) == name


def test_without_options_a_game_keeps_its_first_suite_and_a_default_option_spelled_out_picks_it_too():
    for game in FIRST_SUITES:
        env_name = PLANS[game].env
        assert find_suite(env_name).source == str(DIRECTORY / f"{game}.json")
        assert plan_for(env_name) == game
        # the defaults spelled out pick it too
        assert find_suite(env_name, PLANS[game].options).source == str(DIRECTORY / f"{game}.json")


def test_a_bad_option_or_a_missing_game_is_refused_in_words(capsys):
    env_name = PLANS[sorted(FIRST_SUITES)[0]].env
    with pytest.raises(TypeError, match="no option 'players'"):
        plan_for(env_name, {"players": 3})
    assert main(["tactics", env_name, "--option", "num_players", "--verify"]) == 2
    assert "error: --option 'num_players': expected KEY=VALUE" in capsys.readouterr().err
    assert main(["tactics", "--option", "num_players=3", "--generate"]) == 2
    assert "needs a game" in capsys.readouterr().err


def test_the_tables_solved_count_is_the_positions_solved():
    """The table's ``solved/total`` cell shows the number of positions solved (the share times the total, rounded:
    15 of 22 reads 15/22, though 15/22 * 22 is not 15 exactly in floats) in every column, for every count."""
    import re

    from kakurega.agents.tactics.score import AgentScore, TacticsResult

    env = PLANS[sorted(PLANS)[0]].env
    for total in range(1, 41):
        for solved in range(total + 1):
            score = AgentScore("scripted")
            for i in range(total):
                score.add("first" if i % 2 else "second", i < solved, f"p{i}")
            firsts = sum(1 for i in range(solved) if i % 2)
            row = TacticsResult(env=env, categories=["first", "second"], scores=[score]).table().splitlines()[3]
            counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+)", row)]
            assert counts == [(firsts, total // 2), (solved - firsts, total - total // 2), (solved, total)], row


def test_a_positions_verdict_depends_neither_on_the_agents_place_nor_on_the_positions_asked_before():
    """Each agent's draws start anew from the seed and the position's id: ``random`` keeps its verdicts whether
    listed first or second and whether the whole suite or one category is asked (seeded once by its place in
    ``--agents`` and drawing on through the suite, it solved 31/35 of a category in a whole run, 22/35 alone)."""
    from kakurega.agents.tactics.score import score_agents

    suite = find_suite("kakurenbo_v1", {})
    category = suite.positions[0].category

    def verdicts(specs, categories=None, spec="random"):
        score = next(s for s in score_agents(suite, specs, seed=0, categories=categories).scores if s.spec == spec)
        return dict(score.solved), sorted(score.failed)

    alone = verdicts(["random"])
    assert verdicts(["heuristic", "random"]) == alone
    one_category = verdicts(["random"], [category])
    assert one_category[1] == [p for p in alone[1] if f"-{category}-" in p]
    assert one_category[0][category] == alone[0][category]
    assert alone[1], "the control: random fails some positions, so its draws decide verdicts"
    assert verdicts(["random"]) == alone  # and the same seed gives the same verdicts
