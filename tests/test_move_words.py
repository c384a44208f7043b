"""Every move in public words: each viewer learns what it may know of a move, and all of it.

The rules' ``public_action_string(before, action, after, viewer)`` is what the
terminal, replays, GIF captions and the web app's move log show. Leak check
(like the renders'): moves a viewer cannot tell apart get the same words,
beside a leaky control that the check catches. Completeness: moves told alike
leave every viewer knowing the same, so no public fact (the colour given, the
target, the dice, an announcement, the winner) is left out.
"""

from __future__ import annotations

import pytest
from conformance import registry_cases
from leak_checks import (
    check_last_move_mark_leaks,
    check_move_word_leaks,
    check_move_words_complete,
    move_transitions,
)

from kakurega.envs import make
from kakurega.envs.core.game import Game
from kakurega.envs.core.picture import Text

CASES = registry_cases()


def moves_of(raw, seed: int, num_games: int, every: int, count: int):
    moves = move_transitions(raw.game, seed=seed, num_games=num_games, every=every)
    return [moves[i * len(moves) // count] for i in range(count)] if len(moves) > count else moves


@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_each_viewer_only_what_it_knows(name, config):
    raw = make(name, wrapped=False, **config)
    check_move_word_leaks(raw.game, moves_of(raw, seed=31, num_games=2, every=2, count=12))


@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_every_public_fact(name, config):
    raw = make(name, wrapped=False, **config)
    check_move_words_complete(raw.game, moves_of(raw, seed=32, num_games=2, every=3, count=8), raw.render_state)


@pytest.mark.parametrize("name,config", CASES)
def test_the_last_move_is_outlined_only_as_far_as_the_viewer_may_know_it(name, config):
    raw = make(name, wrapped=False, **config)
    check_last_move_mark_leaks(raw.game, raw.picture, moves_of(raw, seed=33, num_games=2, every=3, count=6))


# ------------------------------------------------------------------ controls
def _own_words_for_everyone(game):
    """A leaky control: every viewer is told the move as its mover knows it."""
    return lambda before, action, after, viewer: game.public_action_string(before, action, after,
                                                                            game.current_player(before))


@pytest.mark.parametrize("name,config", [("kakurenbo_v1", {"num_players": 3}), ("summer_hide_and_seek_v2", {}),
                                         ("animal_chain_v1", {})])
def test_control_words_that_tell_the_movers_secret_are_caught(name, config):
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=34, num_games=2, every=1, count=30)
    with pytest.raises(AssertionError, match="differ between moves seat . cannot tell apart"):
        check_move_word_leaks(raw.game, moves, words=_own_words_for_everyone(raw.game))


@pytest.mark.parametrize("name,config", [("kakurenbo_v1", {"num_players": 3}), ("summer_hide_and_seek_v2", {}),
                                         ("animal_chain_v1", {}), ("hidden_rooms_v0", {})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    # the words of old ("player_1 moved") leave out every public fact
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=35, num_games=1, every=3, count=6)
    with pytest.raises(AssertionError, match="the words leave out a public fact"):
        check_move_words_complete(raw.game, moves, raw.render_state,
                                  words=lambda before, action, after, viewer: Game.public_action_string(
                                      raw.game, before, action, after, viewer))


class LineMarkedForEveryone:
    """A leaky control: the Summer child's last line is outlined in every view."""

    def __init__(self, picture, game):
        self.picture, self.game = picture, game

    def scene(self, state, view, last_move=None):
        scene = self.picture.scene(state, view, last_move)
        if last_move is not None and self.game.describe_action(last_move[1])[0] == "line":
            scene.add(Text(2, 2, f"line to {self.game.describe_action(last_move[1])[1]}", size=6, anchor="start"))
        return scene


def test_control_a_picture_that_outlines_the_childs_line_for_everyone_is_caught():
    raw = make("summer_hide_and_seek_v2", wrapped=False)
    moves = moves_of(raw, seed=36, num_games=1, every=1, count=12)
    check_last_move_mark_leaks(raw.game, raw.picture, moves)  # the honest picture passes
    with pytest.raises(AssertionError, match="the picture with the last move outlined"):
        check_last_move_mark_leaks(raw.game, LineMarkedForEveryone(raw.picture, raw.game), moves)


# ------------------------------------------------------------- public facts
def test_kakurenbo_words_name_who_gave_or_took_which_colour_and_faces_only_to_those_who_see_them():
    raw = make("kakurenbo_v1", wrapped=False, num_players=4)
    game = raw.game
    seen = set()
    for before, action, after in move_transitions(game, seed=37, num_games=3, every=1):
        spectator = game.public_action_string(before, action, after, None)
        for event in after.events:
            if event[0] in ("give", "take"):
                mover, other, colour = event[1], event[2], ("red", "blue")[event[3]]
                verb = "gives" if event[0] == "give" else "takes"
                linked = "to" if verb == "gives" else "from"
                assert f"player_{mover} {verb} a {colour} card {linked} player_{other}" in spectator
                third = next(s for s in range(4) if s not in (mover, other))
                if not after.open_hand[other] and not game.kurayami:
                    # the two players of the move see the card's face, the others only its colour
                    words = game.public_action_string(before, action, after, other)
                    assert f"a {colour} card" not in words, words
                    third_words = game.public_action_string(before, action, after, third)
                    assert f"player_{mover} {verb} " in third_words and f"({colour})" in third_words or (
                        f"player_{mover} {verb} a {colour} card" in third_words)
                    seen.add(verb)
            if event[0] == "discard":
                assert f"discards the {('head', 'chest', 'waist', 'right arm', 'left arm', 'right leg', 'left leg')[event[2]]} pair" in spectator
                seen.add("discard")
    assert seen >= {"gives", "takes", "discard"}


def test_summer_words_announce_the_childs_turn_and_where_it_was_found():
    raw = make("summer_hide_and_seek_v2", wrapped=False, num_players=3)
    game = raw.game
    announced = found = 0
    for before, action, after in move_transitions(game, seed=38, num_games=2, every=1):
        seeker = (after.child + 1) % 3
        words = game.public_action_string(before, action, after, seeker)
        if after.round == before.round and len(after.announcements) > len(before.announcements):
            cost, icons = after.announcements[-1]
            assert f"announces cost {cost} and icons: " in words
            assert all(game.map.icons[i].name in words for i in icons)
            announced += 1
        if after.round > before.round:
            child, stroke, gained, _turns, _how = after.history[-1]
            assert game.map.square_name(stroke[-1]) in words and f"{gained} VP" in words
            found += 1
        kind, square = game.describe_action(action)
        if kind == "line" and before.child != seeker:
            assert game.map.square_name(square) not in words.split(";")[0]  # the line itself stays secret
    assert announced and found


def test_animal_chain_words_show_the_play_and_mark_the_winning_move():
    raw = make("animal_chain_v0", wrapped=False)  # random players win often under version 0's rules
    game = raw.game
    plays = wins = 0
    for before, action, after in move_transitions(game, seed=39, num_games=6, every=1):
        seat = before.to_move
        kind, card_type, where = game.decode(seat, action)
        if kind != "play":
            continue
        for viewer in (None, 0, 1):
            frame = 0 if viewer is None else viewer
            words = game.public_action_string(before, action, after, viewer)
            verb = "you play" if viewer == seat else f"player_{seat} plays"
            assert f"{verb} {game.card_in_frame(frame, card_type)} onto {game.position_name(frame, where)}" in words
        plays += 1
        if after.winner == seat:
            assert "wins" in game.public_action_string(before, action, after, None)
            scene = raw.picture.scene(after, None, (seat, action))
            assert any(getattr(shape, "label", "") == "the winning move" for shape in scene.shapes)
            wins += 1
    assert plays and wins


@pytest.mark.slow
@pytest.mark.parametrize("name,config", CASES)
def test_move_words_tell_each_viewer_only_what_it_knows_long(name, config):
    raw = make(name, wrapped=False, **config)
    moves = moves_of(raw, seed=41, num_games=6, every=1, count=80)
    check_move_word_leaks(raw.game, moves)
    check_move_words_complete(raw.game, moves[::4], raw.render_state)
