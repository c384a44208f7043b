"""Rule scenarios on hand-built positions, one table per rule of ../shared/rules/kakurenbo.md.

Card shorthand (see helpers.py): H head, C chest, W waist, RA/LA right/left
arm, RL/LL right/left leg, then r(ed)/b(lue); K is Kaku's Curse. Seats are
clockwise: the left of seat i is i+1, its right i-1.
"""

import numpy as np
import pytest
from conformance import check_outcomes_reached, random_outcomes

from kakurega.envs.core.game import TERMINAL
from kakurega.envs.kakurenbo.rules import (
    CHEST,
    CHOOSE_TARGET,
    CURSE_GIVE,
    DICE_TAKE,
    DRAW,
    GIVE_CARD,
    GIVE_COLOUR,
    HEAD,
    LEFT_ARM,
    LEFT_LEG,
    MAIN,
    OVER,
    RIGHT_LEG,
    TAKE,
    KakurenboGame,
)
from kakurenbo.helpers import SHORT_PARTS, ScriptedRng, build, card, cards, dice, hands_of, known_by

K4 = KakurenboGame("kakurenbo", 4)
K3 = KakurenboGame("kakurenbo", 3)
Y3 = KakurenboGame("kurayami", 3)
Y4 = KakurenboGame("kurayami", 4)
FULL_PILE_4 = "Hb Cb Wb RAb LAr LAb RLr RLb LLr LLb"  # top first; hands hold Hr Cr Wr RAr


def fresh_kakurenbo(pile=FULL_PILE_4):
    return build(K4, {0: "Hr", 1: "Cr", 2: "Wr", 3: "RAr"}, pile=pile)


# ------------------------------------------------------------------ setup
@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_setup_deals_one_card_each_and_puts_the_curse_at_the_bottom(variant, n):
    game = KakurenboGame(variant, n)
    state = game.initial_state(np.random.default_rng(n))
    assert [len(h) for h in state.hands] == [1] * n
    assert state.pile[0] == card("K") and len(state.pile) == 15 - n
    assert game.current_player(state) == 0 and state.phase == 1
    assert game.legal_actions(state) == [0]  # nobody holds a pair yet: draw
    own = [state.knowledge[s][state.hands[s][0]] for s in range(n)]
    # the holder sees the dealt card in Kakurenbo, nobody does in Kurayami
    assert own == ([-1] * n if variant == "kurayami" else list(range(n)))


# ------------------------------------------------- Kakurenbo phase 1: draw
DRAW_CASES = [
    # pile (top first),                        after the draw: stage, actor, seat 0's hand
    ("Hb LAr Cb Wb RAb LAb RLr RLb LLr LLb",   GIVE_CARD, 0, "Hr Hb"),   # red on top: give
    ("Hb Cb LAr Wb RAb LAb RLr RLb LLr LLb",   TAKE,      0, "Hr Hb"),   # blue on top: take
]


@pytest.mark.parametrize("pile,stage,actor,hand", DRAW_CASES, ids=["red top gives", "blue top takes"])
def test_draw_then_the_new_top_colour_decides(pile, stage, actor, hand):
    state = fresh_kakurenbo(pile)
    K4.apply_action(state, K4.draw_action(), ScriptedRng())
    assert (state.stage, state.actor, hands_of(state)[0]) == (stage, actor, hand)
    assert state.knowledge[0][card("Hb")] == 0  # the drawer sees the face
    assert all(state.knowledge[s][card("Hb")] == -1 for s in (1, 2, 3))


def test_blue_top_with_nobody_to_take_from_passes_the_turn():
    # only seat 0 holds a card; the draw shows blue on top, nobody can be taken from
    state = build(K3, {0: "Hr"}, pile="Cr Hb Cb Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb")
    K3.apply_action(state, 0, ScriptedRng())
    assert (state.stage, state.actor) == (MAIN, 1)
    assert state.events[-1] == ("nobody to take from", 0)


def test_give_moves_the_chosen_card_and_both_players_see_it():
    state = build(K4, {0: "Hr Cr", 1: "Wr", 2: "Wb", 3: "RAr"}, pile="Hb Cb RAb LAr LAb RLr RLb LLr LLb", stage=GIVE_CARD)
    action = K4.give_card_action(card("Cr"), 2)
    assert K4.action_to_string(state, action) == "give chest (red) to player_2"
    K4.apply_action(state, action, ScriptedRng())
    assert hands_of(state) == {0: "Hr", 1: "Wr", 2: "Cr Wb", 3: "RAr"}
    assert known_by(state, 0) == {0: "Hr", 2: "Cr"}  # the giver knows where it went
    assert known_by(state, 2) == {2: "Cr Wb"}  # the receiver sees its face
    assert known_by(state, 1) == {1: "Wr"}  # others saw a red card move, nothing more
    assert (state.stage, state.actor) == (MAIN, 1)  # the turn passes clockwise


TAKE_CASES = [
    # victim's hand, colour, scripted index,  card taken
    ("Cr Wr Wb",      "red",  0,               "Cr"),
    ("Cr Wr Wb",      "red",  1,               "Wr"),
    ("Cr Wr Wb",      "blue", None,            "Wb"),  # a single card of that colour: no chance draw
]


@pytest.mark.parametrize("victim,colour,index,taken", TAKE_CASES)
def test_take_is_random_within_the_chosen_colour(victim, colour, index, taken):
    used = cards("Hr " + victim + " RAr")
    rest = " ".join(n for n in "Hb Cb Wb Wr RAb LAr LAb RLr RLb LLr LLb Cr".split() if card(n) not in used)
    state = build(K4, {0: "Hr", 1: "RAr", 2: victim}, pile=rest, stage=TAKE)
    rng = ScriptedRng([] if index is None else [index])
    K4.apply_action(state, K4.take_action(0 if colour == "red" else 1, 2), rng)
    assert card(taken) in state.hands[0] and card(taken) not in state.hands[2]
    assert state.knowledge[0][card(taken)] == 0 and state.knowledge[2][card(taken)] == 0
    assert state.knowledge[1][card(taken)] == -1
    assert not rng.values


def test_a_pair_completed_by_a_take_waits_for_a_later_discard_in_phase_1():
    state = build(K4, {0: "Hr", 1: "Hb", 2: "Cr", 3: "Cb"}, pile="Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb", stage=TAKE)
    K4.apply_action(state, K4.take_action(1, 1), ScriptedRng())  # take the blue head from seat 1
    assert hands_of(state)[0] == "Hr Hb" and state.discarded_by[HEAD] == -1
    assert (state.stage, state.actor) == (MAIN, 1)
    state.actor = state.active = 0  # when seat 0's turn comes round again, it may discard the pair
    assert K4.discard_action(HEAD) in K4.legal_actions(state)


PHASE1_DISCARD_CASES = [
    # part,  hand of seat 0,     score of seat 0 afterwards (no card function in phase 1)
    ("H",    "Hr Hb Cr",         4),
    ("C",    "Cr Cb Hr",         3),  # chest scores for the discarder itself in phase 1
    ("W",    "Wr Wb Hr",         3),
    ("LL",   "LLr LLb Hr",       1),  # no hand exchange in phase 1
]


@pytest.mark.parametrize("part,hand,score", PHASE1_DISCARD_CASES)
def test_phase_1_discard_scores_without_card_functions(part, hand, score):
    used = set(cards(hand))
    rest = [n for n in "Hr Hb Cr Cb Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb".split() if card(n) not in used]
    state = build(K4, {0: hand, 1: rest[0], 2: rest[1], 3: rest[2]}, pile=" ".join(rest[3:]))
    before = hands_of(state)
    K4.apply_action(state, K4.discard_action(SHORT_PARTS.index(part)), ScriptedRng())
    assert state.scores == [score, 0, 0, 0]
    assert state.discarded_by[SHORT_PARTS.index(part)] == 0
    assert state.open_hand == [0, 0, 0, 0]
    assert {s: h for s, h in hands_of(state).items() if s} == {s: h for s, h in before.items() if s}
    assert (state.stage, state.actor) == (MAIN, 1)


def test_discard_is_legal_only_for_pairs_held():
    state = build(K4, {0: "Hr Hb Cr Wb", 1: "Cb", 2: "Wr", 3: "RAr"}, pile="RAb LAr LAb RLr RLb LLr LLb")
    assert K4.legal_actions(state) == [0, K4.discard_action(HEAD)]


# ------------------------------------------ the move into phase 2 (Kakurenbo)
def test_drawing_the_last_body_part_takes_the_curse_and_resolves_discards_in_order():
    state = build(
        K4,
        {0: "Hr Wr", 1: "Cr RAb", 2: "Wb LAr LAb", 3: "RAr RLr RLb LLr LLb Cb"},
        pile="Hb",
    )
    K4.apply_action(state, 0, ScriptedRng())
    # seat 0 (active) first; then clockwise; a hand's highest pair first; the
    # search restarts from the active player after each discard (legs swap hands)
    assert [e for e in state.events if e[0] == "discard"] == [
        ("discard", 0, HEAD),  # opens seat 0's hand
        ("discard", 2, LEFT_ARM),  # shows Wb to seat 3
        ("discard", 3, RIGHT_LEG),  # before the left leg (table order); swaps with seat 2
        ("discard", 2, LEFT_LEG),  # the swap gave seat 2 the left-leg pair; swaps with seat 3
    ]
    assert hands_of(state) == {0: "Wr K", 1: "Cr RAb", 2: "Wb", 3: "Cb RAr"}
    assert state.scores == [4, 0, 3, 1]
    assert (state.phase, state.stage, state.actor, state.curse_holder) == (2, CURSE_GIVE, 0, 0)
    assert state.open_hand == [1, 0, 0, 0]
    assert all(state.knowledge[s][card("Wr")] == 0 for s in range(4))  # the open hand


# ------------------------------------------------------ card functions
OTHER_PARTS = {p: [q for q in SHORT_PARTS if q != p][:3] for p in SHORT_PARTS}


def function_scenario(part):
    """Seat 0 holds the Curse and the red ``part``; seat 1 holds its blue partner."""
    a, b, c = OTHER_PARTS[part]
    gone = {q: 3 for q in SHORT_PARTS if q not in (part, a, b, c)}
    state = build(
        K4,
        {0: f"K {part}r {a}r", 1: f"{part}b {b}r", 2: f"{a}b {c}r", 3: f"{b}b {c}b"},
        discarded=gone,
    )
    return state, (a, b, c)


# discarder D = seat 1; its right is seat 0, its left seat 2
FUNCTION_CASES = [
    # part, scores after,     hands after (seats 0..3) with a, b, c the scenario's other parts
    ("H",  [0, 4, 0, 0], ("{a}r", "{b}r K", "{a}b {c}r", "{b}b {c}b")),
    ("C",  [3, 0, 0, 0], ("{a}r", "{b}r K", "{a}b {c}r", "{b}b {c}b")),  # right neighbour scores
    ("W",  [0, 0, 3, 0], ("{a}r", "{b}r K", "{a}b {c}r", "{b}b {c}b")),  # left neighbour scores
    ("RA", [0, 2, 0, 0], ("{a}r", "{b}r K", "{a}b {c}r", "{b}b {c}b")),
    ("LA", [0, 2, 0, 0], ("{a}r", "{b}r K", "{a}b {c}r", "{b}b {c}b")),
    ("RL", [0, 1, 0, 0], ("{b}r", "{a}r K", "{a}b {c}r", "{b}b {c}b")),  # swap with seat 0, Curse stays
    ("LL", [0, 1, 0, 0], ("{a}r", "{a}b {c}r K", "{b}r", "{b}b {c}b")),  # swap with seat 2
]


@pytest.mark.parametrize("part,scores,hands", FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES])
def test_card_function_of_each_pair_in_phase_2(part, scores, hands):
    state, (a, b, c) = function_scenario(part)
    K4.apply_action(state, K4.curse_give_action(card(part + "r"), 1), ScriptedRng())
    assert state.discarded_by[SHORT_PARTS.index(part)] == 1
    assert state.scores == scores
    expected = {s: " ".join(sorted(h.format(a=a, b=b, c=c).split(), key=card)) for s, h in enumerate(hands)}
    assert hands_of(state) == expected
    assert (state.stage, state.actor, state.curse_holder) == (CURSE_GIVE, 1, 1)
    who_knows_b_at_1 = [s for s in range(4) if state.knowledge[s][card(b + "r")] == 1]
    if part == "H":
        assert state.open_hand == [0, 1, 0, 0]
        assert who_knows_b_at_1 == [0, 1, 2, 3]  # the open hand
    elif part == "RA":
        assert who_knows_b_at_1 == [0, 1]  # shown to the right neighbour once
    elif part == "LA":
        assert who_knows_b_at_1 == [1, 2]  # shown to the left neighbour once
    elif part in ("C", "W"):
        assert who_knows_b_at_1 == [1]
    if part == "RL":
        # everyone saw the swap; each side knows its new hand and where its old one went
        assert state.knowledge[0][card(b + "r")] == 0 and state.knowledge[0][card(a + "r")] == 1
        assert state.knowledge[1][card(a + "r")] == 1 and state.knowledge[1][card(b + "r")] == 0


def test_an_open_hand_stays_open_for_cards_received_later():
    state, (a, b, c) = function_scenario("H")
    K4.apply_action(state, K4.curse_give_action(card("Hr"), 1), ScriptedRng())
    # seat 1 (open) passes the Curse with its b-red to seat 2 ... and receives nothing;
    # then seat 2 passes the Curse with c-red back to the open seat 1: everyone sees it
    K4.apply_action(state, K4.curse_give_action(card(b + "r"), 1), ScriptedRng())
    assert all(state.knowledge[s][card(b + "r")] == 2 for s in range(4))  # it left an open hand
    K4.apply_action(state, K4.curse_give_action(card(c + "r"), 3), ScriptedRng())
    assert hands_of(state)[1] == f"{c}r K"
    assert all(state.knowledge[s][card(c + "r")] == 1 for s in range(4))


def test_curse_give_chooses_any_other_player_even_with_an_empty_hand():
    state = build(K4, {0: "K Hr Cr", 1: "Hb", 2: "Cb", 3: ""}, discarded={q: 3 for q in SHORT_PARTS[2:]})
    legal = K4.legal_actions(state)
    expected = sorted(K4.curse_give_action(card(x), k) for x in ("Hr", "Cr") for k in (1, 2, 3))
    assert legal == expected
    K4.apply_action(state, K4.curse_give_action(card("Cr"), 3), ScriptedRng())
    assert hands_of(state) == {0: "Hr", 1: "Hb", 2: "Cb", 3: "Cr K"}
    assert (state.actor, state.curse_holder) == (3, 3)


# ------------------------------------------------- end conditions, scoring
def test_kakurenbo_ends_when_the_curse_holder_holds_the_curse_alone():
    state = build(
        K4, {0: "K Hr", 1: "Hb", 2: "Cr", 3: "Cb"}, scores=[2, 5, 1, 2], discarded={q: 0 for q in SHORT_PARTS[2:]}
    )
    K4.apply_action(state, K4.curse_give_action(card("Hr"), 1), ScriptedRng())
    assert state.over and state.stage == OVER and K4.current_player(state) == TERMINAL
    assert hands_of(state)[1] == "K" and state.scores[1] == 9
    assert K4.final_scores(state) == [2, 0, 1, 2]  # the Curse voids all of seat 1's points
    assert K4.winners(state) == [0, 3]  # a tie shares the win
    assert K4.returns(state).tolist() == [1.0, -1.0, -1.0, 1.0]
    assert K4.legal_actions(state) == []


def test_the_final_curse_holder_never_wins_even_when_everyone_has_zero():
    state = build(K3, {0: "K Hr", 1: "Hb", 2: ""}, discarded={q: 2 for q in SHORT_PARTS[1:]})
    K3.apply_action(state, K3.curse_give_action(card("Hr"), 1), ScriptedRng())
    assert state.over and K3.final_scores(state) == [0, 0, 0]
    assert K3.winners(state) == [0, 2]
    assert K3.returns(state).tolist() == [1.0, -1.0, 1.0]


def test_at_the_step_limit_the_curse_holder_never_wins_even_when_everyone_has_zero():
    game = KakurenboGame("kakurenbo", 3, max_steps=1)
    state = build(game, {0: "K Hr Cr", 1: "Hb", 2: "Cb"}, discarded={q: 2 for q in SHORT_PARTS[2:]})
    game.apply_action(state, game.curse_give_action(card("Cr"), 1), ScriptedRng())  # no pair: seat 1 holds Cr Hb K
    assert game.is_truncated(state) and game.final_scores(state) == [0, 0, 0]
    assert game.winners(state) == [0, 2] and game.returns(state).tolist() == [1.0, -1.0, 1.0]


def test_a_game_that_starts_phase_2_with_the_curse_alone_ends_at_once():
    state = build(K3, {0: "Hr", 1: "Cr Cb Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb", 2: ""}, pile="Hb")
    K3.apply_action(state, 0, ScriptedRng())
    # seat 0 draws Hb and the Curse, discards the head pair, holds the Curse alone
    assert state.over and state.curse_holder == 0 and hands_of(state)[0] == "K"


# ------------------------------------------------------------- truncation
TRUNCATION_CASES = [
    # reward,  returns one step before the limit,  returns at the limit (seat 1 then holds the Curse)
    ("win",    [0.0, 0.0, 0.0],                    [1.0, -1.0, -1.0]),
    ("points", [7.0, 5.0, 4.0],                    [7.0, 0.0, 4.0]),
]


@pytest.mark.parametrize("reward,before,after", TRUNCATION_CASES)
def test_truncation_is_scored_as_a_game_end(reward, before, after):
    game = KakurenboGame("kakurenbo", 3, max_steps=10, reward=reward)
    state = build(game, {0: "K Hr Cr", 1: "Wr Hb", 2: "Wb Cb"}, scores=[7, 5, 4], discarded={q: 0 for q in SHORT_PARTS[3:]})
    state.steps = 9
    assert not game.is_truncated(state) and game.returns(state).tolist() == before
    game.apply_action(state, game.curse_give_action(card("Cr"), 1), ScriptedRng())  # no pair forms
    assert game.is_truncated(state) and not game.is_terminal(state)
    assert game.current_player(state) == TERMINAL and game.legal_actions(state) == []
    assert state.curse_holder == 1
    assert game.returns(state).tolist() == after  # the Curse holder's points are void


def test_a_game_that_ends_on_the_limits_last_step_is_terminated_not_truncated():
    # "End and scoring": the game ends when the Curse holder holds only the Curse; the step limit truncates
    # only a game that has not ended, so a game over on its last allowed step is a natural end
    game = KakurenboGame("kakurenbo", 3, max_steps=10)
    state = build(game, {0: "K Hr", 1: "Hb", 2: ""}, discarded={q: 2 for q in SHORT_PARTS[1:]})
    state.steps = 9
    game.apply_action(state, game.curse_give_action(card("Hr"), 1), ScriptedRng())  # seat 1 holds only the Curse
    assert state.over and state.steps == game.max_steps
    assert game.is_terminal(state) and not game.is_truncated(state)
    assert game.winners(state) == [0, 2]


def test_truncation_through_the_env_sets_truncations_not_terminations():
    from kakurega.envs.kakurenbo_v0 import env

    e = env(num_players=3, max_steps=5)
    e.reset(seed=0)
    steps = 0
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 5


# -------------------------------------------------------- Kurayami phase 1
def test_kurayami_phase_1_is_always_a_draw_and_nobody_sees_faces():
    state = Y4.initial_state(np.random.default_rng(0))
    assert Y4.legal_actions(state) == [0]
    Y4.apply_action(state, 0, np.random.default_rng(1))
    assert state.stage in (GIVE_COLOUR, TAKE)
    assert all(k == -1 for row in state.knowledge for k in row)


def test_kurayami_give_names_a_colour_and_the_card_is_random_within_it():
    state = build(Y4, {0: "Hr Cr Wb", 1: "Hb", 2: "Cb", 3: "Wr"}, pile="RAr RAb LAr LAb RLr RLb LLr LLb", stage=GIVE_COLOUR)
    assert Y4.legal_actions(state) == [Y4.give_colour_action(c, k) for c in (0, 1) for k in (1, 2, 3)]
    Y4.apply_action(state, Y4.give_colour_action(0, 3), ScriptedRng([1]))  # reds Hr, Cr: index 1
    assert hands_of(state) == {0: "Hr Wb", 1: "Hb", 2: "Cb", 3: "Cr Wr"}
    assert all(k == -1 for row in state.knowledge for k in row)  # sleeves: nobody saw a face
    assert (state.stage, state.actor) == (DRAW, 1)


def test_kurayami_flip_discards_every_pair_without_functions():
    state = build(Y3, {0: "Hr Cr Cb LAr", 1: "Hb Wr RAr RAb LAb", 2: "Wb RLr RLb LLr"}, pile="LLb")
    Y3.apply_action(state, 0, ScriptedRng())
    assert [e for e in state.events if e[0] == "discard"] == [("discard", 0, CHEST), ("discard", 1, 3), ("discard", 2, RIGHT_LEG)]
    assert state.scores == [3, 2, 1]  # the chest scores for its owner; no show, no swap
    assert hands_of(state) == {0: "Hr LAr LLb K", 1: "Hb Wr LAb", 2: "Wb LLr"}
    assert known_by(state, 0) == {0: "Hr LAr LLb"}  # the flip: own faces, nothing else
    assert (state.phase, state.stage, state.actor, state.curse_holder) == (2, CHOOSE_TARGET, 0, 0)


# ------------------------------------------------------ Kurayami dice phase
def after_flip():
    return build(Y3, {0: "Hr LAr LLb K", 1: "Hb Wr LAb", 2: "Wb LLr"}, discarded={"C": 0, "RA": 1, "RL": 2}, scores=[3, 2, 1])


DICE_CASES = [
    # rolls (red, blue),  then: taker, victim, take action (colour, offset of victim from taker), card index, result
    ([(5, 2)],          0, 1, (1, 1), 0, {"hands": {0: "LAr LLb K", 1: "Wr LAb", 2: "Wb LLr"}, "scores": [7, 2, 1]}),
    ([(2, 5)],          1, 0, (0, 2), 1, {"hands": {0: "Hr LLb K", 1: "Hb Wr", 2: "Wb LLr"}, "scores": [3, 4, 1]}),
]


@pytest.mark.parametrize("rolls,taker,victim,take,index,result", DICE_CASES, ids=["red higher: A takes", "blue higher: B takes"])
def test_dice_decide_who_takes(rolls, taker, victim, take, index, result):
    state = after_flip()
    Y3.apply_action(state, Y3.target_action(1), ScriptedRng([dice(*r) for r in rolls]))
    assert (state.stage, state.actor, state.target, state.dice) == (DICE_TAKE, taker, victim, list(rolls[-1]))
    colour, offset = take
    legal = Y3.legal_actions(state)
    assert Y3.take_action(colour, offset) in legal
    assert all(Y3.decode[a][2] == offset for a in legal)  # only from the dice opponent
    Y3.apply_action(state, Y3.take_action(colour, offset), ScriptedRng([index]))
    assert hands_of(state) == result["hands"] and state.scores == result["scores"]
    # the pair went at once; the turn passes clockwise from the active player (seat 0)
    assert (state.stage, state.actor, state.active) == (CHOOSE_TARGET, 1, 1)


def test_equal_dice_pass_the_curse_between_the_two_players():
    state = after_flip()
    Y3.apply_action(state, Y3.target_action(1), ScriptedRng([dice(3, 3)]))
    assert state.curse_holder == 1 and hands_of(state)[1] == "Hb Wr LAb K" and hands_of(state)[0] == "Hr LAr LLb"
    assert (state.stage, state.actor, state.rolls) == (CHOOSE_TARGET, 1, 1)


def test_equal_dice_without_the_curse_roll_again():
    state = after_flip()
    state.actor = state.active = 1  # seat 1 rolls against seat 2; seat 0 holds the Curse
    Y3.apply_action(state, Y3.target_action(1), ScriptedRng([dice(3, 3), dice(6, 6), dice(4, 1)]))
    assert [e for e in state.events if e[0] == "dice"] == [("dice", 3, 3), ("dice", 6, 6), ("dice", 4, 1)]
    assert (state.stage, state.actor, state.target, state.rolls) == (DICE_TAKE, 1, 2, 3)
    assert state.curse_holder == 0


def test_the_off_turn_take_is_a_decision_even_with_one_option():
    state = build(Y3, {0: "Hr K", 1: "Hb Cr", 2: "Cb"}, discarded={q: 2 for q in SHORT_PARTS[2:]})
    Y3.apply_action(state, Y3.target_action(1), ScriptedRng([dice(1, 6)]))
    assert Y3.current_player(state) == 1 and Y3.legal_actions(state) == [Y3.take_action(0, 2)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_kurayami_decision_is_an_agent_step_even_with_one_legal_option(n):
    from kakurega.envs.kakurenbo_v0 import raw_env

    env = raw_env(variant="kurayami", num_players=n)
    rng = np.random.default_rng(n)
    single = 0
    for seed in range(10):
        env.reset(seed=seed)
        actions = 0
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            mask = env.observe(env.agent_selection)["action_mask"]
            assert env.possible_agents.index(env.agent_selection) == env.game_state.actor
            single += int(mask.sum()) == 1
            env.step(int(rng.choice(np.flatnonzero(mask))))
            actions += 1
        assert actions == env.game_state.steps  # no decision was taken for an agent
    assert single > 10 * n  # the draws of phase 1 at least


KURAYAMI_END_CASES = [
    # hands,                                   final scores, winners
    ({0: "Hr K", 1: "Hb", 2: ""},              [0, 9, 4],    [1]),  # empty hands only: seats 1 and 2
    ({0: "Hr K", 1: "Hb Cr", 2: "Cb"},         [0, 9, 4],    []),  # nobody has an empty hand: no winner
]


@pytest.mark.parametrize("hands,final,winners", KURAYAMI_END_CASES, ids=["winner among empty hands", "no empty hand"])
def test_kurayami_ends_when_a_hand_is_the_curse_alone(hands, final, winners):
    gone = {q: 2 for q in SHORT_PARTS[1:]} if "Cb" not in hands[2] else {q: 2 for q in SHORT_PARTS[2:]}
    state = build(Y3, hands, discarded=gone, scores=[3, 5, 4])
    Y3.apply_action(state, Y3.target_action(1), ScriptedRng([dice(1, 6)]))  # blue higher: seat 1 takes
    Y3.apply_action(state, Y3.take_action(0, 2), ScriptedRng())  # seat 1 takes seat 0's red head
    assert state.over and hands_of(state)[0] == "K"
    assert Y3.final_scores(state) == final and Y3.winners(state) == winners
    assert Y3.returns(state).tolist() == [1.0 if s in winners else -1.0 for s in range(3)]


def test_kurayami_turns_skip_players_with_empty_hands():
    state = build(Y4, {0: "Hr Cr K", 1: "", 2: "Hb", 3: "Cb"}, discarded={q: 1 for q in SHORT_PARTS[2:]})
    assert Y4.legal_actions(state) == [Y4.target_action(2), Y4.target_action(3)]  # seat 1 has finished
    Y4.apply_action(state, Y4.target_action(2), ScriptedRng([dice(6, 1)]))
    Y4.apply_action(state, Y4.take_action(1, 2), ScriptedRng())
    assert hands_of(state) == {0: "Cr K", 1: "", 2: "", 3: "Cb"}
    assert (state.actor, state.stage) == (3, CHOOSE_TARGET)
    assert Y4.legal_actions(state) == [Y4.target_action(1)]  # only seat 0 still holds cards


# ------------------------------------------------------------ words
WORD_CASES = [
    # game, actor, action,                                 words
    (K4, 0, K4.give_card_action(card("RAr"), 3),          "give right arm (red) to player_3"),
    (K4, 2, K4.give_card_action(card("RAr"), 3),          "give right arm (red) to player_1"),
    (K4, 1, K4.take_action(1, 1),                         "take a blue card from player_2"),
    (K4, 3, K4.curse_give_action(card("Wb"), 2),          "give Kaku's Curse with waist (blue) to player_1"),
    (K4, 0, K4.discard_action(HEAD),                      "discard the head pair"),
    (Y4, 0, Y4.give_colour_action(0, 1),                  "give a red card to player_1"),
    (Y4, 3, Y4.target_action(1),                          "roll the dice against player_0"),
]


@pytest.mark.parametrize("game,actor,action,words", WORD_CASES, ids=[c[3] for c in WORD_CASES])
def test_action_to_string(game, actor, action, words):
    state = game.initial_state(np.random.default_rng(0))
    state.actor = actor
    assert game.action_to_string(state, action) == words


ILLEGAL_CASES = [
    # game, state builder, action, words in the reason
    (K4, lambda: fresh_kakurenbo(), K4.discard_action(HEAD), "you do not hold the head pair"),
    (K4, lambda: fresh_kakurenbo(), K4.give_card_action(0, 1), "draw a card or discard a pair"),
    (Y4, lambda: Y4.initial_state(np.random.default_rng(0)), Y4.discard_action(HEAD), "pairs are discarded automatically"),
    (K4, lambda: build(K4, {0: "K Hr", 1: "Hb", 2: "Cr", 3: "Cb"}, discarded={q: 0 for q in SHORT_PARTS[2:]}),
     K4.curse_give_action(card("Cr"), 1), "you do not hold chest (red)"),
    (Y3, lambda: after_flip(), Y3.take_action(0, 1), "choose the player to roll the dice against"),
    (Y4, lambda: build(Y4, {0: "Hr Cr K", 1: "", 2: "Hb", 3: "Cb"}, discarded={q: 1 for q in SHORT_PARTS[2:]}),
     Y4.target_action(1), "player_1 holds no card"),
]


@pytest.mark.parametrize("game,make_state,action,words", ILLEGAL_CASES, ids=[c[3] for c in ILLEGAL_CASES])
def test_illegal_reason_speaks_the_rules(game, make_state, action, words):
    state = make_state()
    assert action not in game.legal_actions(state)
    assert words in game.illegal_reason(state, action)


def test_the_engine_refuses_an_action_of_the_wrong_kind_without_changing_the_state():
    state = fresh_kakurenbo()
    before = K4.fingerprint(state)
    with pytest.raises(ValueError, match="draw a card or discard a pair"):
        K4.apply_action(state, K4.take_action(0, 1), ScriptedRng())
    assert K4.fingerprint(state) == before


# ------------------------------------------------------------------ declared outcomes
def _sample(**options):
    game = KakurenboGame(**options)
    return game, random_outcomes(game, seed=0, num_games=12)


@pytest.mark.parametrize("options, bounds", [
    ({"num_players": 3, "reward": "zero_sum"}, (-0.5, 1.0)),  # every loser -1/(n-1), a lone winner +1
    ({"num_players": 5, "reward": "zero_sum", "variant": "kurayami"}, (-0.25, 1.0)),
    ({"num_players": 4, "reward": "shared_win"}, (-1.0, 1.0)),
    ({"num_players": 4, "reward": "win"}, (-1.0, 1.0)),
])
def test_the_win_schemes_bounds_are_what_random_games_reach(options, bounds):
    game, sample = _sample(**options)
    assert game.return_bounds() == pytest.approx(bounds)
    check_outcomes_reached(sample, bounds=bounds)
    with pytest.raises(AssertionError, match="declared"):  # the control: the bridge's old default
        check_outcomes_reached(sample, bounds=(-1000.0, 1000.0))


def test_points_run_from_zero_to_every_pairs_points():
    game = KakurenboGame(reward="points")
    assert game.return_bounds() == (0.0, 16.0) and not game.is_zero_sum()  # 4 + 3 + 3 + 2 + 2 + 1 + 1
    assert KakurenboGame(reward="zero_sum").is_zero_sum() and not KakurenboGame(reward="win").is_zero_sum()


def test_the_longest_game_is_the_step_limit():
    game, sample = _sample(num_players=3, max_steps=6)
    assert game.max_decisions() == 6
    check_outcomes_reached(sample, max_decisions=6)
    with pytest.raises(AssertionError, match="declared"):  # the control: the bridge's old default
        check_outcomes_reached(sample, max_decisions=100_000)


def test_a_dice_take_won_by_blue_is_from_the_roller_and_says_so():
    """Kurayami: blue beating red lets the player rolled against take from the roller. ``dice_target`` marks the
    player the take is from (the roller here), and a take from anyone else is refused naming that player (once
    "the dice were rolled against player_3", the roller's own name)."""
    import random

    from kakurega.envs import kakurenbo_v1

    env = kakurenbo_v1.raw_env(num_players=4, variant="kurayami")
    pick = random.Random(0)
    for seed in range(50):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            roller = env.agent_selection
            mask = env.observe(roller)["action_mask"]
            action = pick.choice([i for i, v in enumerate(mask) if v])
            words = env.action_to_string(action)
            env.step(action)
            state = env.game_state
            if not (words.startswith("roll the dice against") and state.dice[1] > state.dice[0]
                    and env.agent_selection != roller):
                continue
            taker, n = env.agent_selection, 4
            me, from_seat = env.possible_agents.index(taker), env.possible_agents.index(roller)
            row = list(env.layout.view(env.observe(taker)["observation"], "dice_target")).index(1.0)
            assert (me + row) % n == from_seat  # the roller's row, relative to the taker
            third = next(k for k in range(1, n) if (me + k) % n != from_seat)  # a seat offset from the taker
            with pytest.raises(ValueError, match=f"the dice let you take from {roller} only"):
                env.step(env.game.take_action(0, third))
            return
    pytest.fail("no dice take won by blue in 50 seeded games")
