"""Every ``--games`` is a whole number from 1 to 1,000,000, refused by the parser before any work; a tournament
plays its games without first holding its whole schedule in memory."""

from __future__ import annotations

import tracemalloc

import pytest

from kakurega.agents.tournament import MAX_GAMES, check_games, run_tournament, schedule
from kakurega.agents.training.config import SCHEMA

COMMANDS = [
    ["evaluate", "animal_chain_v1", "--agents", "random", "heuristic"],
    ["balance", "animal_chain_v1"],
    ["exploit", "animal_chain_v1", "--target", "random"],
    ["harden", "configs/bots/animal_chain.yaml"],
    ["quickstart"],
]
BAD = ["0", "-3", "1000001", "99999999999999999999", "many", "2.5", "9" * 5000]


def test_the_bound_is_the_training_configs_bound_on_evaluation_games():
    assert MAX_GAMES == SCHEMA["evaluation"]["games"].maximum == 1_000_000


@pytest.fixture
def no_work(monkeypatch):
    """Every command's work replaced by a failure: a refusal must come from the parser, before any of it."""
    import kakurega.agents.exploit as exploit_module
    import kakurega.agents.harden as harden_module
    import kakurega.agents.tournament as tournament
    import kakurega.scripts.balance as balance
    import kakurega.scripts.cli as cli

    def started(*args, **kwargs):
        raise AssertionError("the command started its work")

    monkeypatch.setattr(tournament, "run_tournament", started)
    monkeypatch.setattr(exploit_module, "exploit", started)
    monkeypatch.setattr(harden_module, "harden", started)
    monkeypatch.setattr(balance, "balance_report", started)
    monkeypatch.setattr(cli, "_run_training", started)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("games", BAD, ids=lambda g: g[:24])
def test_every_command_refuses_games_out_of_bounds_before_any_work(no_work, capsys, command, games):
    from kakurega.scripts.cli import main

    with pytest.raises(SystemExit) as refused:
        main([*command, "--games", games])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "argument --games: expected a whole number of games from 1 to 1,000,000" in err
    assert "Traceback" not in err and len(err) < 2000  # a 5000-digit number is not echoed whole


def test_balance_bounds_its_ismcts_games_too(no_work, capsys):
    from kakurega.scripts.cli import main

    with pytest.raises(SystemExit):
        main(["balance", "animal_chain_v1", "--ismcts-games", "1000001"])
    assert "argument --ismcts-games: expected a whole number of games from 1 to 1,000,000" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["clairvoyant", "exact_exploitability"])
def test_the_research_scripts_refuse_games_out_of_bounds_before_any_work(monkeypatch, capsys, module):
    import importlib

    if module == "exact_exploitability":
        pytest.importorskip("pyspiel")
    script = importlib.import_module(f"kakurega.scripts.{module}")

    def started(*args, **kwargs):
        raise AssertionError("the script started its work")

    monkeypatch.setattr(script, "run", started)
    argv = (["kakurenbo_v0"] if module == "clairvoyant" else ["--game", "summer_tiny"]) + ["--games", "1000001"]
    with pytest.raises(SystemExit) as refused:
        script.main(argv)
    assert refused.value.code == 2
    assert "argument --games: expected a whole number of games from 1 to 1,000,000" in capsys.readouterr().err


def test_the_bound_itself_is_accepted(no_work):
    """Control: 1 and 1,000,000 parse (and reach the work, here a failure)."""
    from kakurega.scripts.cli import main

    for games in ("1", "1000000"):
        with pytest.raises(AssertionError, match="started its work"):
            main(["evaluate", "animal_chain_v1", "--agents", "random", "heuristic", "--games", games, "--quiet"])


def test_the_library_refuses_games_out_of_bounds_in_words():
    for bad in (0, -1, MAX_GAMES + 1, 10**20, 2.5, "10", True):
        with pytest.raises(ValueError, match="games must be at least 1 and at most 1,000,000"):
            check_games(bad)
    assert check_games(MAX_GAMES) == MAX_GAMES


class _Stop(Exception):
    """Raised from a tournament's progress callback: it stops the tournament at its first game."""


def test_a_tournament_refuses_too_many_games_before_playing():
    def first_game(done, total):
        raise _Stop  # without the bound the first game is played (after the schedule is built)

    with pytest.raises(ValueError, match="games must be at least 1 and at most 1,000,000"):
        run_tournament("animal_chain_v1", ["random", "heuristic"], games=MAX_GAMES + 1, progress=first_game)


def test_a_tournament_at_the_bound_starts_at_once_without_holding_its_schedule():
    seen = []

    def first_game(done, total):
        seen.append((done, total))
        raise _Stop

    tracemalloc.start()
    try:
        with pytest.raises(_Stop):
            run_tournament("animal_chain_v1", ["random", "heuristic"], games=MAX_GAMES, progress=first_game)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == [(1, MAX_GAMES)]  # one pairing of MAX_GAMES games
    assert peak < 50_000_000  # the list of 1,000,000 scheduled games alone takes hundreds of megabytes


def test_the_lazy_schedule_is_the_schedule():
    from kakurega.agents.tournament import iter_schedule, schedule_length

    for k, players, pairings in ((2, 2, [(0, 1)]), (2, 3, [(0, 1), (1, 0)]), (3, 1, [(0,), (1,), (2,)])):
        games = schedule(k, players, 3, 7, pairings)
        assert list(iter_schedule(k, players, 3, 7, pairings)) == games
        assert schedule_length(k, players, 3, pairings) == len(games)
