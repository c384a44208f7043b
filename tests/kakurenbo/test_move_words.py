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


def test_a_leg_pair_is_told_as_one_point():
    """A leg pair scores 1 ("Components" table): the words say "1 point", never "1 points"."""
    from kakurenbo.helpers import ScriptedRng, build, card

    game = make("kakurenbo_v1", wrapped=False, num_players=4).game
    before = build(game, {0: "K RLr Hr", 1: "RLb Cr", 2: "Hb Wr", 3: "Cb Wb"},
                   discarded={"RA": 3, "LA": 3, "LL": 3})
    action = game.curse_give_action(card("RLr"), 1)
    after = game.clone(before)
    game.apply_action(after, action, ScriptedRng())
    words = game.public_action_string(before, action, after, None)
    assert "player_1 discards the right leg pair (1 point to player_1)" in words, words


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


def _faces_told_apart(game, moves, words, redeals: int = 40) -> int:
    """How many (move, viewer) pairs get different card faces for the draw in re-deals the viewer cannot tell apart:
    the viewer's words with the drawn card's name masked are the same, the name differs."""
    import re

    import numpy as np

    found = 0
    for index, (before, action, _after) in enumerate(moves):
        drawer = game.current_player(before)
        for viewer in (s for s in range(game.num_players) if s != drawer):
            told: dict = {}
            for k in range(redeals):
                sample = game.resample_hidden(before, viewer, np.random.default_rng([index, viewer, k]))
                result = game.clone(sample)
                game.apply_action(result, action, np.random.default_rng([index, k]))
                text = words(sample, action, result, viewer)
                drawn = re.match(r"player_\d draws (.*?); ", text).group(1)
                told.setdefault(text.replace(drawn, "X", 1), set()).add(drawn)
            found += any(len(faces) > 1 for faces in told.values())
    return found


def test_the_draw_that_ends_phase_1_in_kurayami_names_no_card_its_flip_could_hide():
    """The last body part drawn, everyone flips and discards every pair at once, some held face down all along:
    which card was drawn stays unknown to the other seats (and to the drawer, who never saw it), though its pair
    may be among the discards. The words named it whenever its pair went ("player_1 draws left arm (blue)"), so
    re-deals a viewer cannot tell apart were told different faces (../shared/rules/kakurenbo.md, Kurayami); the
    generic leak check's re-deals rarely meet such a move's whole outcome, so this one compares the words alone."""
    from kakurega.envs.kakurenbo.rules import card_name

    raw = make("kakurenbo_v1", wrapped=False, variant="kurayami", num_players=4)
    game = raw.game
    curse = [(before, action, after) for before, action, after in move_transitions(game, seed=5, num_games=30, every=1)
             if any(event[0] == "takes the Curse" for event in after.events)]
    assert len(curse) >= 20
    assert _faces_told_apart(game, curse, game.public_action_string) == 0

    def old_words(before, action, after, viewer):  # the control: the face told wherever its pair was discarded
        card = before.pile[-1]
        text = game.public_action_string(before, action, after, viewer)
        if after.discarded_by[card >> 1] >= 0:
            text = text.replace(" draws a red card", f" draws {card_name(card)}", 1).replace(
                " draws a blue card", f" draws {card_name(card)}", 1)
        return text

    assert _faces_told_apart(game, curse, old_words) > 0


def test_the_draw_that_ends_phase_1_in_kakurenbo_names_no_card_to_the_others():
    """Kakurenbo phase 1 never forces a discard, so the drawer of the last body part may have held a pair all along;
    phase 2 then discards every pair at once (../shared/rules/kakurenbo.md, "Automatic discards"). The other seats
    see a card of a colour drawn and a pair discarded, not which card was drawn: seat 0 holding Wr Cb and drawing
    Wb, or holding the waist pair and drawing Cb, are the same to them. The words named the drawn card in the first
    deal only ("player_0 draws waist (blue)"), and with a head pair, whose open hand shows the rest, in both deals
    but different cards."""
    from kakurenbo.helpers import ScriptedRng, build

    game = make("kakurenbo_v1", wrapped=False, num_players=4).game
    others = "RAb LAr LAb RLr RLb LLr LLb"
    cases = [
        # seat 0 holds one card of the pair and draws the other, or holds the pair and draws the chest (blue)
        ({1: "Cr Hr", 2: "Hb RAr", 3: others}, ("Wr Cb", "Wb"), ("Wr Wb", "Cb")),
        ({1: "Cr Wr", 2: "Wb RAr", 3: others}, ("Hr Cb", "Hb"), ("Hr Hb", "Cb")),  # the head opens the hand
    ]
    for rest, *deals in cases:
        states = [build(game, {0: held, **rest}, pile=drawn) for held, drawn in deals]
        assert all(states[0].knowledge[s] == states[1].knowledge[s] for s in (1, 2, 3))
        assert states[0].colour_counts == states[1].colour_counts
        for viewer in (None, 1, 2, 3):
            told = set()
            for before in states:
                after = game.clone(before)
                game.apply_action(after, game.draw_action(), ScriptedRng())
                told.add(game.public_action_string(before, game.draw_action(), after, viewer).split(";")[0])
            assert told == {"player_0 draws a blue card"}, (deals, viewer, told)
    # the same over random games and re-deals each viewer cannot tell apart
    curse = [(before, action, after) for before, action, after in move_transitions(game, seed=5, num_games=30, every=1)
             if any(event[0] == "takes the Curse" for event in after.events)]
    assert len(curse) >= 20
    assert _faces_told_apart(game, curse, game.public_action_string) == 0


def test_the_kurayami_flip_tells_each_seat_the_hand_it_turned_up_before_its_pairs_go():
    """At Kurayami's flip every seat sees its own faces, then every pair is discarded: the flip's words list the
    hand that was turned up (its pairs included), as the discards that follow name them; they listed the hand left
    after the discards ("you hold waist (red)" to a seat that turned up both heads too)."""
    from kakurega.envs.kakurenbo.rules import KakurenboGame
    from kakurenbo.helpers import ScriptedRng, build

    game = KakurenboGame("kurayami", 3)
    before = build(game, {0: "Hr Wr", 1: "Cr Cb RAr RAb LAr", 2: "LAb RLr RLb LLr LLb Wb"}, pile="Hb")
    after = game.clone(before)
    game.apply_action(after, 0, ScriptedRng())
    assert ("flip",) in after.events
    told = {viewer: game.public_action_string(before, 0, after, viewer) for viewer in (0, 1, None)}
    assert "sees their faces: you hold head (red), head (blue), waist (red); you discard the head pair" in told[0]
    assert ("you hold chest (red), chest (blue), right arm (red), right arm (blue), left arm (red); player_0 "
            "discards the head pair") in told[1]
    assert "everyone flips their cards and sees their faces; player_0 discards the head pair" in told[None]
