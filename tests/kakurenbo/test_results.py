"""KAKURENBO's result in words (envs/kakurenbo/results.py): winners, a tie, the Curse holder, the scores."""

from __future__ import annotations

from endings import best_returns, endings, first, in_words_only


def test_kakurenbo_a_lone_winner_the_curse_holder_and_the_scores():
    game, state = first("kakurenbo_v1", lambda g, s: len(g.winners(s)) == 1 and s.scores[s.curse_holder] > 0,
                        num_players=3)
    (winner,), holder, scores = game.winners(state), state.curse_holder, game.final_scores(state)
    assert best_returns(game, state) == [winner] and game.returns(state)[winner] == 1  # the words tell the rewards
    words = game.result_words(state, None)
    assert words[0] == f"player_{winner} wins with {scores[winner]} point{'s' * (scores[winner] != 1)}."
    assert words[1] == (f"player_{holder} is left holding Kaku's Curse: its {state.scores[holder]} "
                        f"{'point is' if state.scores[holder] == 1 else 'points are'} void.")
    assert words[-1] == "Final scores: " + ", ".join(
        f"player_{s} {v}" + (" (Kaku's Curse)" if s == holder else "") for s, v in enumerate(scores)) + "."
    mine = game.result_words(state, winner)
    assert mine[0].startswith("You win with ") and f"you {scores[winner]}" in mine[-1]
    theirs = game.result_words(state, holder)
    assert theirs[1].startswith("You are left holding Kaku's Curse: your ")


def test_kakurenbo_a_tie_is_said_as_a_tie_and_pays_less_than_a_win():
    game, state = first("kakurenbo_v1", lambda g, s: len(g.winners(s)) == 2, num_players=4)
    winners, scores = game.winners(state), game.final_scores(state)
    assert game.result_words(state, None)[0] == (
        f"A tie: player_{winners[0]} and player_{winners[1]} share the win with {scores[winners[0]]} "
        f"point{'s' * (scores[winners[0]] != 1)} each.")
    assert best_returns(game, state) == winners and 0 < game.returns(state)[winners[0]] < 1  # zero-sum: less than a win
    assert game.result_words(state, winners[1])[0].startswith(f"A tie: player_{winners[0]} and you share the win")


def test_kurayami_wins_only_with_an_empty_hand_or_nobody_wins():
    game, state = first("kakurenbo_v1", lambda g, s: g.winners(s) and any(
        s.hands[p] and p != s.curse_holder for p in range(g.num_players)), variant="kurayami", num_players=4)
    words = game.result_words(state, None)
    still = [f"player_{p}" for p in range(4) if state.hands[p] and p != state.curse_holder]
    assert words[2].startswith("Only players with no cards left can win; ") and all(p in words[2] for p in still)
    assert all(not state.hands[p] for p in game.winners(state))
    game, state = first("kakurenbo_v1", lambda g, s: not g.winners(s), variant="kurayami", num_players=3,
                        seeds=range(2000))
    assert game.result_words(state, None)[0] == ("Nobody wins: only a player with no cards left can win, and every "
                                                 "player still holds cards.")
    assert not game.returns(state).any()


def test_kakurenbo_cut_off_by_the_step_limit_says_so():
    game, state = first("kakurenbo_v1", lambda g, s: g.is_truncated(s), max_steps=12, num_players=3)
    assert "The game reached its limit of 12 actions and was scored as it stood." in game.result_words(state, 0)


def test_the_older_version_tells_its_ending_in_words_too():
    game, state = next(endings("kakurenbo_v0", [1]))
    assert in_words_only(game.result_words(state, 0)) and in_words_only(game.result_words(state, None))


def test_one_void_point_is_said_in_the_singular():
    """'player_0 is left holding Kaku's Curse: its 1 point are void.'"""
    for viewer, whose in ((None, "its"), ("holder", "your")):
        game, state = first("kakurenbo_v1", lambda g, s: s.scores[s.curse_holder] == 1, num_players=5)
        seat = state.curse_holder if viewer == "holder" else None
        assert f": {whose} 1 point is void." in game.result_words(state, seat)[1]
