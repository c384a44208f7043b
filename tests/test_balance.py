"""The balance report (``kakurega balance``): its statistics on known cases, and a smoke run on every env."""

import re

import pytest

from kakurega.envs.registry import ENV_SPECS
from kakurega.scripts.balance import Estimate, Games, balance_report, bootstrap_interval, format_report, paired_gap


# ------------------------------------------------------------ statistics
def test_bootstrap_interval_of_a_constant_is_that_constant():
    assert bootstrap_interval([0.25] * 30) == (0.25, 0.25)


def test_bootstrap_interval_of_a_proportion_matches_the_normal_interval():
    # 120 successes in 400 independent deals: p = 0.3, normal 95% half-width 1.96 * sqrt(0.3 * 0.7 / 400) = 0.0449
    values = [1.0] * 120 + [0.0] * 280
    low, high = bootstrap_interval(values)
    assert low == pytest.approx(0.3 - 0.0449, abs=0.008) and high == pytest.approx(0.3 + 0.0449, abs=0.008)
    assert bootstrap_interval(values) == (low, high)  # a fixed seed: reproducible


def test_a_rate_equal_on_every_deal_gets_the_wilson_interval_over_deals():
    """No truncated game in 400 deals is no proof that truncation never happens: the rate gets [0, 0.0095] (the
    Wilson interval of 0 in 400), not the bootstrap's [0, 0]; a gap (not a rate) keeps the bootstrap's."""
    none = Estimate.of([0.0] * 400, rate=True)
    assert (none.value, none.low) == (0.0, 0.0) and none.high == pytest.approx(3.8415 / (400 + 3.8415), rel=1e-3)
    every = Estimate.of([1.0] * 50, rate=True)
    assert every.high == 1.0 and every.low == pytest.approx(50 / (50 + 3.8415), rel=1e-3)
    assert Estimate.of([0.0] * 400).high == 0.0  # the control: the bootstrap alone
    varied = [1.0] * 120 + [0.0] * 280  # a rate that varies keeps the bootstrap's interval
    assert (Estimate.of(varied, rate=True).low, Estimate.of(varied, rate=True).high) == bootstrap_interval(varied)


def test_rare_rates_over_few_deals_are_covered_about_as_often_as_said():
    """A rate of 0.05 over 20 deals: the percentile bootstrap alone held the true rate in about 64 % of such reports
    (36 % of the time no deal shows it and the interval is [0, 0]); with the Wilson interval there, at least 90 %."""
    import numpy as np

    rng = np.random.default_rng(7)
    true, deals, reports = 0.05, 20, 400
    held = bootstrap_held = 0
    for _ in range(reports):
        values = (rng.random(deals) < true).astype(float)
        estimate = Estimate.of(values, rate=True)
        held += estimate.low <= true <= estimate.high
        low, high = bootstrap_interval(values, resamples=500)
        bootstrap_held += low <= true <= high
    assert held / reports >= 0.9
    assert bootstrap_held / reports < 0.75  # the control: the bootstrap alone misses


def toy_games(rows, n=2):
    """``Games`` from ``(deal, lineup, winning seats)`` rows; 10 plies, first player seat 0."""
    games = Games(n)
    for deal, lineup, winners in rows:
        games.add(deal, lineup, [s in winners for s in range(n)], 10, False, 0)
    return games


def test_paired_gap_compares_the_same_seats_on_the_same_deals():
    # The hero A wins every game it plays; the baseline table of B's is won by seat 0 in deal 0, by seat 1 in deal 1.
    hero = toy_games([(0, ("A", "B"), {0}), (0, ("B", "A"), {1}), (1, ("A", "B"), {0}), (1, ("B", "A"), {1})])
    baseline = toy_games([(0, ("B", "B"), {0}), (0, ("B", "B"), {0}), (1, ("B", "B"), {1}), (1, ("B", "B"), {1})])
    gap = paired_gap(hero, baseline, "A")
    # per deal: A wins both seats (1.0) against B's 1.0 and 0.0 in those seats: mean 0.5, the same in both deals.
    # Every deal gives the same gap, so the bootstrap could not vary: the interval is Wilson's of (gap + 1) / 2 over
    # the 2 deals, never zero-wide (it once claimed [0.5, 0.5] from two deals)
    from kakurega.agents.tournament import wilson_interval

    low, high = wilson_interval(0.75 * 2, 2)
    assert gap.value == 0.5 and (gap.low, gap.high) == pytest.approx((2 * low - 1, 2 * high - 1))
    assert gap.low < 0.5 < gap.high
    # a deal only one group played does not count
    hero.add(2, ("A", "B"), [False, True], 10, False, 0)
    assert paired_gap(hero, baseline, "A").value == 0.5


def test_table_summary_counts_seats_first_players_lengths_and_truncation():
    games = Games(3)
    games.add(0, ("H",) * 3, [True, False, False], 10, False, 0)
    games.add(0, ("H",) * 3, [False, True, False], 20, True, 0)
    games.add(1, ("H",) * 3, [False, False, True], 30, False, 2)
    games.add(1, ("H",) * 3, [False, False, True], 40, True, 2)
    summary = games.summary()
    assert (summary["games"], summary["deals"]) == (4, 2)
    assert summary["first_player_win"].value == pytest.approx(0.75)  # deal 0: one of two; deal 1 (seat 2 first): both
    assert [e.value for e in summary["seat_win"]] == pytest.approx([0.25, 0.25, 0.5])
    assert (summary["plies_median"], summary["plies_p90"]) == (25.0, 37.0)
    assert summary["truncated"].value == 0.5
    assert Estimate(0.5, 0.25, 0.75).text(signed=True) == "+0.500 [+0.250, +0.750]"


def test_a_shared_top_place_scores_its_share_and_counts_as_a_tie():
    games = Games(2)
    games.add(0, ("H",) * 2, [0.5, 0.5], 10, False, 0)  # a tie: each seat scores half, as the zero-sum reward pays
    games.add(0, ("H",) * 2, [1.0, 0.0], 10, False, 0)
    summary = games.summary()
    assert [e.value for e in summary["seat_win"]] == pytest.approx([0.75, 0.25])
    assert summary["tied"].value == pytest.approx(0.5)


def test_the_ismcts_gap_is_paired_over_every_deal_ismcts_played():
    """More IS-MCTS games than --games: the gap once rested on the heuristic table's deals alone (1 of 3 here)
    while the report named all the IS-MCTS games; the heuristic is now played on every deal of the IS-MCTS group."""
    from kakurega.scripts.balance import play

    options, ismcts = {"num_players": 4}, "ismcts:simulations=2"
    report = balance_report("kakurenbo_v1", options, games=4, seed=3, ismcts_budget=2, ismcts_games=12)
    assert (report["games"], report["ismcts_games"]) == (4, 12)
    hero = play("kakurenbo_v1", options, [ismcts, "heuristic"], 12, 3, focal=ismcts)
    heuristic = play("kakurenbo_v1", options, ["heuristic"], 12, 3)
    assert len(hero.by_deal) == len(heuristic.by_deal) == 3
    expected = paired_gap(hero, heuristic, ismcts)
    first_deal_only = paired_gap(hero, play("kakurenbo_v1", options, ["heuristic"], 4, 3), ismcts)
    assert expected.value != first_deal_only.value  # the case tells the two apart
    gap = report["gaps"]["IS-MCTS vs heuristic"]["gap"]
    assert (gap.value, gap.low, gap.high) == (expected.value, expected.low, expected.high)
    # the table of the report is still the --games table
    assert report["tables"]["heuristic"]["games"] == 4


# ------------------------------------------------------------- smoke runs
@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_balance_report_runs_on_every_registered_env(env_name):
    report = balance_report(env_name, games=2, seed=1, ismcts_budget=2, ismcts_games=1)
    n = report["num_players"]
    for table in report["tables"].values():
        assert table["games"] >= 1 and len(table["seat_win"]) == n
        assert 0 <= table["first_player_win"].value <= 1 and 0 <= table["truncated"].value <= 1
        assert table["plies_median"] >= 1 and table["plies_p90"] >= table["plies_median"]
    assert set(report["gaps"]) == {"heuristic vs random", "IS-MCTS vs heuristic"}
    for entry in report["gaps"].values():
        assert -1 <= entry["gap"].value <= 1
    text = format_report(report)
    assert env_name in text and "truncated" in text and "heuristic vs random" in text


def test_balance_command_line(capsys, tmp_path):
    from kakurega.scripts.cli import main

    out = tmp_path / "balance.json"
    assert main(["balance", "kakurenbo", "--games", "3", "--ismcts-budget", "0", "--config", "num_players=3",
                 "--json", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "first player score" in text and "top place shared" in text and "IS-MCTS" not in text
    import json

    assert json.loads(out.read_text())["options"] == {"num_players": 3}
    # --option, as evaluate, exploit and tactics name it; --config above is its older name
    assert main(["balance", "kakurenbo", "--games", "3", "--ismcts-budget", "0", "--option", "num_players=5",
                 "--option", "variant=kurayami", "--json", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["options"] == {"num_players": 5, "variant": "kurayami"}
    with pytest.raises(SystemExit) as refused:  # refused by the parser, before any game
        main(["balance", "kakurenbo", "--games", "0"])
    assert refused.value.code == 2
    assert "argument --games: expected a whole number of games from 1 to 1,000,000, got '0'" in capsys.readouterr().err



# ------------------------------------------------------------- the page
def option_rows(text: str) -> dict[str, str]:
    """``{flag: default as written}`` of docs/balance.md's option table (``| `--games N` | 200 | ... |``)."""
    return {flag: default.strip() for flag, default in re.findall(r"^\| `(--[a-z-]+)[^`]*` \| ([^|]+) \|", text, re.M)}


def table_errors(rows: dict[str, str], parser) -> list[str]:
    """Where the table and ``parser`` disagree: an option the table lacks or the parser lacks, or another default
    (the table writes None, "" and [] as none, False as off, and a default taken from another option as that option)."""
    actions = {action.option_strings[0]: action for action in parser._actions
               if action.option_strings and action.option_strings[0] != "-h"}
    errors = [f"the table lacks {flag}" for flag in actions if flag not in rows]
    errors += [f"the parser has no {flag}" for flag in rows if flag not in actions]
    for flag, written in rows.items():
        if flag in actions:
            default = actions[flag].default
            said = "none" if default in (None, "", []) else "off" if default is False else str(default)
            if written.strip("`") != said and not (default is None and written.strip("`") in actions):
                errors.append(f"{flag}: the table says {written}, the parser {default!r}")
    return errors


def test_the_page_s_option_table_is_the_command_s():
    from pathlib import Path

    from kakurega.scripts.balance import build_parser

    page = (Path(__file__).resolve().parent.parent / "docs" / "balance.md").read_text(encoding="utf-8")
    rows = option_rows(page)
    assert len(rows) >= 9, rows
    assert table_errors(rows, build_parser()) == []
    wrong = {**rows, "--games": "400", "--gamez": "1"}
    del wrong["--quiet"]
    assert table_errors(wrong, build_parser()) == [  # the control
        "the table lacks --quiet", "the parser has no --gamez", "--games: the table says 400, the parser 200"]
