"""Summer Hide-and-Seek's result in words (envs/summer_hide_and_seek/results.py): VP, where and by whom."""

from __future__ import annotations

from endings import best_returns, endings, first, in_words_only

from .helpers import new_game, play, square


def test_summer_where_and_by_whom_the_child_was_found():
    game, state = new_game(num_players=3)
    play(game, state, "start r0c0", "line r0c1", "stop", "place r2c5", "place r0c1")
    assert state.found_by == [(2,)]
    assert game.round_words(state, None) == [
        "Round 1: player_0 hid as the child for 1 turn and gained 0 VP; found on r0c1 by player_2. "
        "The stroke: r0c0 - r0c1."]
    assert game.round_words(state, 2)[0].endswith("found on r0c1 by you. The stroke: r0c0 - r0c1.")
    assert game.round_words(state, 0)[0].startswith("Round 1: you hid as the child")
    game, state = new_game()
    # r0c0 is a dead end once r0c1, r1c1 and r1c0 are on the stroke
    play(game, state, "start r0c1", "line r1c1", "line r1c0", "line r0c0")
    assert game.round_words(state, 1) == [
        "Round 1: player_0 hid as the child for 1 turn and gained 1 VP; stuck on r0c0 (stuck counts as found). "
        "The stroke: r0c1 - r1c1 - r1c0 - r0c0."]
    assert state.found_by == [()] and square(game, "r0c0") == state.history[0][1][-1]


def test_summer_the_most_vp_wins_a_tie_is_a_tie():
    game, state = first("summer_hide_and_seek_v2", lambda g, s: len(g.winners(s)) == 1 and g.is_terminal(s),
                        num_players=3)
    (winner,) = game.winners(state)
    words = game.result_words(state, None)
    assert words[0] == f"player_{winner} wins with {state.vp[winner]} VP." and best_returns(game, state) == [winner]
    assert words[1:-1] == game.round_words(state, None) and len(words[1:-1]) == 3
    assert words[-1] == "VP: " + ", ".join(f"player_{s} {v}" for s, v in enumerate(state.vp)) + "."
    game, state = first("summer_hide_and_seek_v2", lambda g, s: len(g.winners(s)) == 2 and g.is_terminal(s),
                        num_players=2)
    assert game.result_words(state, 1)[0] == f"A tie: player_0 and you share the win with {state.vp[0]} VP each."
    assert not game.returns(state).any()  # two players tied: zero-sum pays 0 each


def test_summer_cut_off_says_how_it_is_scored_and_no_stroke_of_the_round_under_way():
    game, state = first("summer_hide_and_seek_v2", lambda g, s: g.is_truncated(s) and s.stroke, max_steps=9)
    words = game.result_words(state, None)
    assert any(line.startswith("The game reached its limit of 9 actions") and "scored from the VP" in line
               for line in words)
    rounds = len(state.history)
    assert sum(line.startswith("Round ") for line in words) == rounds  # the round under way is not told
    game, state = first("summer_hide_and_seek_v0", lambda g, s: g.is_truncated(s), max_steps=9)
    assert any("nobody wins" in line for line in game.result_words(state, None))


def test_the_older_version_tells_its_ending_in_words_too():
    game, state = next(endings("summer_hide_and_seek_v1", [1]))
    assert in_words_only(game.result_words(state, 0)) and in_words_only(game.result_words(state, None))


def test_a_cut_off_v0_game_in_vp_mode_does_not_say_it_pays_nothing():
    """v0 with ``reward="vp"`` pays every VP as it is scored, a cut-off game too: its words may say that
    nobody wins, not that the version pays nothing (that is so in "win" mode only)."""
    game, state = first("summer_hide_and_seek_v0", lambda g, s: g.is_truncated(s) and any(s.vp), max_steps=9,
                        reward="vp")
    assert game.returns(state).tolist() == [float(vp) for vp in state.vp] and any(state.vp)  # VP were paid
    words = game.result_words(state, None)
    assert not any("pays nothing" in line for line in words)
    assert any(line.startswith("The game reached its limit of 9 actions") and "the VP were paid as scored" in line
               for line in words)
    game, state = first("summer_hide_and_seek_v0", lambda g, s: g.is_truncated(s), max_steps=9)  # "win" mode
    assert not game.returns(state).any() and any("pays nothing" in line for line in game.result_words(state, None))
