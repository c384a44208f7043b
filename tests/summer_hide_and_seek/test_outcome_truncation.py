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
