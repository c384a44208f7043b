"""KAKURENBO's moves in public words: the leaky controls that the generic checks catch, and the words
of gives, takes and discards."""

from __future__ import annotations

import pytest
from leak_checks import move_transitions
from move_word_checks import (
    check_control_words_that_say_only_who_moved_are_caught,
    check_control_words_that_tell_the_movers_secret_are_caught,
)

from kakurega.envs import make


@pytest.mark.parametrize("name,config", [("kakurenbo_v1", {"num_players": 3})])
def test_control_words_that_tell_the_movers_secret_are_caught(name, config):
    check_control_words_that_tell_the_movers_secret_are_caught(name, config)


@pytest.mark.parametrize("name,config", [("kakurenbo_v1", {"num_players": 3})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    check_control_words_that_say_only_who_moved_are_caught(name, config)


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
