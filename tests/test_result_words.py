"""Results in words: every game tells who won and why, for each way it can end, with the figures of the state.

Endings are seeded random games played to the end, or states finished by hand
where random play rarely reaches an ending (a Hidden Rooms escape). The words
are checked against the game's own facts (winners, scores, returns), not
against copied text alone. That the words tell each viewer only what it may
know is checked over every env in ``test_hidden_information.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from summer_hide_and_seek.helpers import new_game, play, square

from kakurega.envs import make
from kakurega.envs.core.game import TERMINAL


def finish(game, state, rng) -> None:
    """Play ``state`` to its end with uniformly random legal moves."""
    while game.current_player(state) != TERMINAL:
        game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)


def endings(name: str, seeds, **options):
    """``(game, state)`` at the end of a random game for each seed."""
    for seed in seeds:
        raw = make(name, wrapped=False, **options)
        raw.reset(seed=seed)
        state = raw.game.clone(raw.game_state)
        finish(raw.game, state, np.random.default_rng(seed))
        yield raw.game, state


def first(name: str, condition, seeds=range(300), **options):
    """The first random ending (of ``seeds``) that ``condition(game, state)`` holds for."""
    found = next(((g, s) for g, s in endings(name, seeds, **options) if condition(g, s)), None)
    assert found is not None, f"no ending of {name} {options} in {seeds} satisfies the condition"
    return found


def best_returns(game, state) -> list[int]:
    returns = game.returns(state)
    return [seat for seat, r in enumerate(returns) if r == returns.max()]


# ------------------------------------------------------------------- KAKURENBO
def test_kakurenbo_a_lone_winner_the_curse_holder_and_the_scores():
    game, state = first("kakurenbo_v1", lambda g, s: len(g.winners(s)) == 1 and s.scores[s.curse_holder] > 0,
                        num_players=3)
    (winner,), holder, scores = game.winners(state), state.curse_holder, game.final_scores(state)
    assert best_returns(game, state) == [winner] and game.returns(state)[winner] == 1  # the words tell the rewards
    words = game.result_words(state, None)
    assert words[0] == f"player_{winner} wins with {scores[winner]} point{'s' * (scores[winner] != 1)}."
    assert words[1] == (f"player_{holder} is left holding Kaku's Curse: its {state.scores[holder]} "
                        f"point{'s' * (state.scores[holder] != 1)} are void.")
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


# ---------------------------------------------------------------- Animal Chain
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


# ---------------------------------------------------------------- Hidden Rooms
def hidden_rooms_ending(results, episode="match"):
    """A Hidden Rooms episode finished by hand with these round outcomes (random play never escapes)."""
    from kakurega.envs.hidden_rooms.rules import ESCAPED, OVER

    raw = make("hidden_rooms_v0", wrapped=False, episode=episode)
    raw.reset(seed=3)
    state = raw.game.clone(raw.game_state)
    state.results = list(results)
    state.escapes = sum(r == ESCAPED for r in results)
    state.fails = len(results) - state.escapes
    state.phase = OVER
    return raw.game, state


def test_hidden_rooms_each_way_a_round_ends():
    from kakurega.envs.hidden_rooms.rules import CAUGHT, ESCAPED, MONSTER_EXITED, TURN_LIMIT

    game, state = hidden_rooms_ending([ESCAPED], episode="round")
    assert game.result_words(state, 0) == ["You escaped."]
    assert game.result_words(state, None) == ["The child escaped."]
    monster = game.monsters[state.monster].name
    game, state = hidden_rooms_ending([CAUGHT], episode="round")
    assert game.result_words(state, 0) == [f"You lost the round: {monster} caught you."]
    assert game.result_words(state, None) == [f"The child lost the round: {monster} caught the child."]
    game, state = hidden_rooms_ending([MONSTER_EXITED], episode="round")
    assert game.result_words(state, 0) == [f"You lost the round: {monster} walked its whole path."]
    game, state = hidden_rooms_ending([TURN_LIMIT], episode="round")
    assert game.result_words(state, 0) == ["You lost the round: the turn limit (60 turns) was reached."]


def test_hidden_rooms_a_match_counts_escapes_and_fails_round_by_round():
    from kakurega.envs.hidden_rooms.rules import CAUGHT, ESCAPED, MONSTER_EXITED

    game, state = hidden_rooms_ending([ESCAPED, CAUGHT, ESCAPED])
    assert game.result_words(state, 0) == [
        "You won the match: 2 escapes and 1 fail (2 escapes win it).",
        "In the last round you escaped.",
        "Round 1: you escaped (1 escape, 0 fails so far).",
        "Round 2: the monster caught you (1 escape, 1 fail so far).",
        "Round 3: you escaped (2 escapes, 1 fail so far).",
    ]
    game, state = hidden_rooms_ending([CAUGHT, MONSTER_EXITED, ESCAPED, CAUGHT])
    words = game.result_words(state, 0)
    assert words[0] == "You lost the match: 1 escape and 3 fails (3 fails lose it)."
    assert words[1] == f"In the last round {game.monsters[state.monster].name} caught you."
    assert game.round_words(state, 0) == words[2:] and len(words[2:]) == 4


def test_hidden_rooms_a_real_ending_agrees_with_its_returns():
    for game, state in endings("hidden_rooms_v0", range(3)):
        won = game.returns(state)[0] > 0
        assert game.result_words(state, 0)[0].startswith("You won the match" if won else "You lost the match")
        assert len(game.round_words(state, 0)) == len(state.results) == state.escapes + state.fails


# ---------------------------------------------------------- Summer Hide-and-Seek
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


@pytest.mark.parametrize("name", ["kakurenbo_v0", "animal_chain_v0", "summer_hide_and_seek_v1"])
def test_older_versions_tell_their_endings_too(name):
    game, state = next(endings(name, [1]))
    words = game.result_words(state, 0)
    assert words and all(isinstance(line, str) and line for line in words)
    assert "+1" not in " ".join(words) and "terminated" not in " ".join(words)
