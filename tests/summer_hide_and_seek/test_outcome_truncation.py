"""A Summer Hide-and-Seek game cut off by the step limit is the rules' call only where they score it
(``score_truncation``); otherwise its returns (0 each) make it a draw (``agents/outcome.py``)."""

from __future__ import annotations

import pytest

from kakurega.agents.outcome import DRAW, SHARED, WIN, classify_outcome, rules_winners
from kakurega.agents.tournament import run_tournament
from kakurega.envs.registry import make


@pytest.mark.parametrize("env, scored", [("summer_hide_and_seek_v0", False), ("summer_hide_and_seek_v2", True)])
def test_a_game_cut_off_by_the_step_limit_is_the_rules_call_only_where_they_score_it(env, scored):
    options = {"max_steps": 10}
    game = make(env, wrapped=False, **options).game
    assert game.score_truncation == scored
    cut = []

    def on_game(record):
        if record.truncated:
            cut.append((record.winners, record.returns))
            assert record.winners == rules_winners(game, record.final_state)

    run_tournament(env, ["random", "heuristic"], options, 24, 3, on_game=on_game)
    assert cut
    for winners, returns in cut:
        if scored:  # the standings are paid: the winners are the seats the returns put on top
            assert winners == tuple(s for s in range(2) if classify_outcome(returns, s) in (WIN, SHARED))
        else:  # not scored (every return 0): judged by the returns, a draw
            assert winners is None and classify_outcome(returns, 0) == DRAW


def test_evaluate_counts_the_games_cut_off_by_the_step_limit(tmp_path):
    """A tournament says how many of each agent's games the step limit cut off (its table, JSON and CSV): such
    games are scored as the rules say, or drawn, and a staller could not be told from an honest draw. Counted
    from the games' own truncation flags, recorded or not; a table with none cut off says nothing of it."""
    import csv

    cut = []
    result = run_tournament("summer_hide_and_seek_v0", ["random", "heuristic"], {"max_steps": 30}, 20, 3,
                            on_game=lambda record: cut.append(record.truncated))
    assert sum(cut) > 0
    # in a 2-player table both agents play every game, so each was cut off in every truncated game
    assert [row["truncated"] for row in result.per_agent] == [sum(cut)] * 2
    assert "cut off by the step limit" in result.table()
    assert f"random {sum(cut)} of 20" in result.table()
    result.to_csv(tmp_path / "t.csv")
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert [int(r["truncated"]) for r in rows] == [sum(cut)] * 2
    unrecorded = run_tournament("summer_hide_and_seek_v0", ["random", "heuristic"], {"max_steps": 30}, 20, 3)
    assert [row["truncated"] for row in unrecorded.per_agent] == [sum(cut)] * 2
    # the control: the default limit cuts none of these games off, and the table says nothing of it
    whole = run_tournament("summer_hide_and_seek_v0", ["random", "heuristic"], {}, 20, 3)
    assert [row["truncated"] for row in whole.per_agent] == [0, 0] and "cut off" not in whole.table()
