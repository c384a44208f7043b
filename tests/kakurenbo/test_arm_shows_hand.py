"""An arm pair shows the discarder's hand to one neighbour, and the move record says so.

../shared/rules/kakurenbo.md, "Phase 2 — the Curse", card functions table: right arm — "D shows the current hand
to the player on the right (a one-time look)"; left arm — "... to the player on the left". Seats: the right of
seat i is i-1, its left i+1 ("Components"). "Hidden information": faces revealed by an arm show are private to
the viewer; the other players see only that the hand was shown, and to whom.
"""

import pytest

from kakurega.envs.kakurenbo.rules import KakurenboGame
from kakurenbo.helpers import ScriptedRng, build, card, hands_of, known_by

K4 = KakurenboGame("kakurenbo", 4)

# seat 0 gives the Curse with the red arm to seat 1, which holds the blue one: seat 1 (D) discards the arm pair
# at once and shows the rest of its hand (chest red, waist blue) to its right (seat 0) or left (seat 2) neighbour
ARM_CASES = [
    # part, the other arm (already discarded), viewer
    ("RA", "LA", 0),
    ("LA", "RA", 2),
]


def arm_discard(part, other_arm):
    before = build(
        K4,
        {0: f"K {part}r Hr", 1: f"{part}b Cr Wb", 2: "Hb Wr", 3: "Cb"},
        discarded={"RL": 3, "LL": 3, other_arm: 3},
    )
    action = K4.curse_give_action(card(part + "r"), 1)
    after = K4.clone(before)
    K4.apply_action(after, action, ScriptedRng())
    return before, action, after


@pytest.mark.parametrize("part,other_arm,viewer", ARM_CASES, ids=[c[0] for c in ARM_CASES])
def test_an_arm_pair_shows_the_hand_to_one_neighbour_and_the_record_says_so(part, other_arm, viewer):
    before, action, after = arm_discard(part, other_arm)
    assert hands_of(after)[1] == "Cr Wb K" and after.scores == [0, 2, 0, 0]
    # the move in each seat's words: the viewer is told and sees the faces
    words = {seat: K4.public_action_string(before, action, after, seat) for seat in range(4)}
    assert "player_1 shows you the hand: chest (red), waist (blue)" in words[viewer]
    assert f"you show the hand to player_{viewer}" in words[1]
    for seat in range(4):
        if seat not in (1, viewer):
            # told that the hand was shown and to whom, never its faces
            assert f"player_1 shows the hand to player_{viewer}" in words[seat]
            assert "chest (red)" not in words[seat] and "waist (blue)" not in words[seat]
    # the record of the move: seat 1 discards the pair, then shows its hand to the viewer
    assert ("discard", 1, ["H", "C", "W", "RA", "LA", "RL", "LL"].index(part)) in after.events
    assert ("shows hand", 1, viewer) in after.events
    # the look itself: the viewer now places both cards in seat 1's hand, the others do not
    assert known_by(after, viewer)[1] == "Cr Wb"
    for seat in range(4):
        if seat not in (1, viewer):
            assert 1 not in known_by(after, seat)


def test_the_look_names_the_hand_shown_then_even_when_a_leg_pair_of_the_same_move_swaps_it():
    """Phase 2 starts with several pairs to discard ("Automatic discards"): seat 0 draws the last body part, discards
    its right arm pair (shows its hand to seat 3, its right neighbour) and then its right leg pair (swaps hands with
    seat 3). The look was at the hand of that moment (head red and the right leg pair), not at the hand seat 0 ends
    the move with (seat 3's old cards); the swap gives seat 3 the head alone. Left of seat 2 likewise."""
    before = build(K4, {0: "RAr RAb RLr Hr", 1: "Hb Cr", 2: "LAr LAb LLr LLb Wb", 3: "Cb Wr"}, pile="RLb")
    after = K4.clone(before)
    K4.apply_action(after, K4.draw_action(), ScriptedRng())
    assert hands_of(after) == {0: "Cb Wr K", 1: "Hb Cr", 2: "Hr", 3: "Wb"}
    words = K4.public_action_string(before, K4.draw_action(), after, 3)
    assert "player_0 shows you the hand: head (red), right leg (red), right leg (blue);" in words
    assert "player_0 and you exchange hands (the Curse stays): you now hold head (red);" in words
    assert "player_2 shows you the hand: waist (blue), left leg (red), left leg (blue);" in words
    assert words.endswith("player_2 and you exchange hands (the Curse stays): you now hold waist (blue)")
    # the others are told that a hand was shown, never its faces
    for seat in (1, 2):
        other = K4.public_action_string(before, K4.draw_action(), after, seat)
        assert "player_0 shows the hand to player_3" in other and "right leg (red)" not in other
