"""Animal Chain's result in words (envs/animal_chain/results.py): whose chain won, or why it is a draw."""

from __future__ import annotations

from endings import best_returns, endings, first, in_words_only


def test_animal_chain_the_winner_reached_the_other_base_row():
    game, state = first("animal_chain_v1", lambda g, s: s.winner == 1)
    assert best_returns(game, state) == [1]
    assert game.result_words(state, None) == [
        f"player_1 wins: player_1's chain reached player_0's base row (after {state.turn} turns)."]
    assert game.result_words(state, 0) == [f"player_1 wins: player_1's chain reached your base row "
                                           f"(after {state.turn} turns)."]
    assert game.result_words(state, 1)[0].startswith("You win: your chain reached player_0's base row")


def test_animal_chain_draws_by_passes_and_by_the_turn_limit():
    game, state = first("animal_chain_v1", lambda g, s: g.is_truncated(s), max_turns=6)
    assert game.result_words(state, 0) == ["A draw: the game reached its limit of 6 turns."]
    state.phase, state.winner, state.turn = 2, -1, 5  # both passed without drawing (OVER, no winner; by hand)
    assert game.is_terminal(state) and not game.returns(state).any()
    assert game.result_words(state, None) == ["A draw: both players passed without drawing, one after the other "
                                              "(after 5 turns)."]


def test_the_older_version_tells_its_ending_in_words_too():
    game, state = next(endings("animal_chain_v0", [1]))
    assert in_words_only(game.result_words(state, 0)) and in_words_only(game.result_words(state, None))
