"""Summer Hide and Seek's moves in public words: the leaky controls that the generic checks catch (words
and a picture that give the child's line away), and the words of announcements and finds."""

from __future__ import annotations

import pytest
from leak_checks import check_last_move_mark_leaks, move_transitions
from move_word_checks import (
    check_control_words_that_say_only_who_moved_are_caught,
    check_control_words_that_tell_the_movers_secret_are_caught,
    moves_of,
)

from kakurega.envs import make
from kakurega.envs.core.picture import Text


@pytest.mark.parametrize("name,config", [("summer_hide_and_seek_v2", {})])
def test_control_words_that_tell_the_movers_secret_are_caught(name, config):
    check_control_words_that_tell_the_movers_secret_are_caught(name, config)


@pytest.mark.parametrize("name,config", [("summer_hide_and_seek_v2", {})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    check_control_words_that_say_only_who_moved_are_caught(name, config)


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
