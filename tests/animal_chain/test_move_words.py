"""Animal Chain's moves in public words: the leaky controls that the generic checks catch, and the words
of a play and of the winning move."""

from __future__ import annotations

import pytest
from leak_checks import move_transitions
from move_word_checks import (
    check_control_words_that_say_only_who_moved_are_caught,
    check_control_words_that_tell_the_movers_secret_are_caught,
)

from kakurega.envs import make


@pytest.mark.parametrize("name,config", [("animal_chain_v1", {})])
def test_control_words_that_tell_the_movers_secret_are_caught(name, config):
    check_control_words_that_tell_the_movers_secret_are_caught(name, config)


@pytest.mark.parametrize("name,config", [("animal_chain_v1", {})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    check_control_words_that_say_only_who_moved_are_caught(name, config)


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
