"""Rule scenarios that pin sentences of ../shared/rules/kakurenbo.md the other rule tests leave loose.

Card shorthand (see helpers.py): H head, C chest, W waist, RA/LA right/left
arm, RL/LL right/left leg, then r(ed)/b(lue); K is Kaku's Curse. Seats are
clockwise: the left of seat i is i+1, its right i-1.
"""

import numpy as np
import pytest

from kakurega.envs.kakurenbo.rules import GIVE_CARD, HEAD, MAIN, TAKE, KakurenboGame
from kakurenbo.helpers import ScriptedRng, build, card, hands_of

K3 = KakurenboGame("kakurenbo", 3)
K4 = KakurenboGame("kakurenbo", 4)
K5 = KakurenboGame("kakurenbo", 5)


# ------------------------------------------ Phase 1, red on top: "give one card of your hand (your choice of
# card) to another player of your choice"
def test_red_top_gives_any_card_of_the_hand_to_any_other_player():
    # seat 0 holds three cards, red LAr is on top of the pile: seat 0 must give
    state = build(K4, {0: "Hr Cr Wr", 1: "Hb", 2: "Cb", 3: "RAr"}, pile="LAr Wb RAb LAb RLr RLb LLr LLb", stage=GIVE_CARD)
    legal = K4.legal_actions(state)
    # every card, the drawn one included, to every other player (offsets 1, 2, 3)
    assert legal == sorted(K4.give_card_action(card(x), k) for x in ("Hr", "Cr", "Wr") for k in (1, 2, 3))


def test_right_after_a_draw_the_drawn_card_may_be_given_to_the_right_neighbour():
    state = build(K4, {0: "Hr", 1: "Cr", 2: "Wr", 3: "RAr"}, pile="Cb LAr Hb Wb RAb LAb RLr RLb LLr LLb")
    K4.apply_action(state, K4.draw_action(), ScriptedRng())  # draws Cb, red LAr on top: give
    assert state.stage == GIVE_CARD
    legal = K4.legal_actions(state)
    assert legal == sorted(K4.give_card_action(card(x), k) for x in ("Hr", "Cb") for k in (1, 2, 3))
    K4.apply_action(state, K4.give_card_action(card("Cb"), 3), ScriptedRng())  # to the right neighbour
    assert hands_of(state) == {0: "Hr", 1: "Cr", 2: "Wr", 3: "Cb RAr"}


# ------------------------------------------ Phase 1, blue on top: "take one card from the hand of another player
# of your choice who holds at least one card ... You choose the colour"
@pytest.mark.parametrize("game,hands,choices", [
    # seat 0 takes; (colour, offset) pairs that must be offered: every other player holding that colour
    (K4, {0: "Hr", 1: "Cr", 2: "Wb", 3: "RAr RAb"}, {(0, 1), (1, 2), (0, 3), (1, 3)}),
    (K5, {0: "Hr", 1: "", 2: "Cr Cb", 3: "", 4: "Wb"}, {(0, 2), (1, 2), (1, 4)}),  # empty hands are not offered
])
def test_blue_top_offers_every_other_player_and_every_colour_they_hold(game, hands, choices):
    used = {c for h in hands.values() for c in h.split()}
    rest = [x for x in "Hr Hb Cr Cb Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb".split() if x not in used]
    state = build(game, hands, pile=" ".join(rest), stage=TAKE)
    assert game.legal_actions(state) == sorted(game.take_action(colour, k) for colour, k in choices)


def test_a_take_from_the_right_neighbour_moves_the_card():
    state = build(K4, {0: "Hr", 1: "Cr", 2: "Wr", 3: "RAb"}, pile="Hb Cb Wb RAr LAr LAb RLr RLb LLr LLb", stage=TAKE)
    K4.apply_action(state, K4.take_action(1, 3), ScriptedRng())  # the blue card of seat 3, the right neighbour
    assert hands_of(state) == {0: "Hr RAb", 1: "Cr", 2: "Wr", 3: ""}
    assert (state.stage, state.actor) == (MAIN, 1)


# ------------------------------------------ "A pair completed by a give or a take can only be discarded by a later
# Discard action of its holder (never as a bonus in the same turn)."
def test_a_pair_completed_by_a_give_stays_in_the_receivers_hand_until_its_discard_action():
    state = build(K4, {0: "Hb Cr", 1: "Hr", 2: "Wr", 3: "RAr"}, pile="Cb Wb RAb LAr LAb RLr RLb LLr LLb", stage=GIVE_CARD)
    K4.apply_action(state, K4.give_card_action(card("Hb"), 1), ScriptedRng())  # completes seat 1's head pair
    assert hands_of(state)[1] == "Hr Hb"
    assert state.discarded_by[HEAD] == -1 and state.scores == [0, 0, 0, 0]
    # the turn passes to seat 1, the receiver, which may now discard it as its action (or draw)
    assert (state.stage, state.actor) == (MAIN, 1)
    assert K4.legal_actions(state) == [K4.draw_action(), K4.discard_action(HEAD)]
    K4.apply_action(state, K4.discard_action(HEAD), ScriptedRng())
    assert state.scores == [0, 4, 0, 0] and state.discarded_by[HEAD] == 1


# ------------------------------------------ "[decision] Step limit ... (default 200)"
def test_the_default_step_limit_is_200_agent_actions():
    assert KakurenboGame().max_steps == 200
    from kakurega.envs.kakurenbo_v1 import raw_env

    env = raw_env(num_players=3)
    assert env.game.max_steps == 200
    game = KakurenboGame("kakurenbo", 3)
    state = build(game, {0: "K Hr Cr", 1: "Wr Hb", 2: "Wb Cb"}, discarded={"RA": 0, "LA": 0, "RL": 0, "LL": 0})
    state.steps = 199
    assert not game.is_truncated(state)
    game.apply_action(state, game.curse_give_action(card("Cr"), 1), np.random.default_rng(0))
    assert game.is_truncated(state) and game.legal_actions(state) == []
