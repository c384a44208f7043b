"""Rule scenarios on hand-built positions (absolute names: player 0's frame)."""

import numpy as np
import pytest
from conformance import check_outcomes_reached, random_outcomes

from animal_chain.scenario import GAME, board_state, card, hand_of, play, pos, step, top
from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, OVER, PLAY, AnimalChainGame
from kakurega.envs.animal_chain_v0 import raw_env
from kakurega.envs.core.game import TERMINAL

ALL_POSITIONS = GAME.position_names

# ----------------------------------------------------------------- playing
# r3c3 has W r3c2 / NW r4c2 / SW r2c2 on its left side, E r3c4 / NE r4c3 / SE r2c3 on its right.
CONNECTION_CASES = [
    # description,                face-up neighbours of r3c3,          card played,  legal
    ("left side only",            {"r3c2": "Ct|Dg", "r3c4": "Pg|Fx"}, "Dg|Rb",      True),
    ("right side only",           {"r3c2": "Ct|Fx", "r3c4": "Rb|Ct"}, "Dg|Rb",      True),
    ("connects to nothing",       {"r3c2": "Ct|Fx", "r3c4": "Pg|Fx"}, "Dg|Rb",      False),
    ("animal on the wrong side",  {"r3c2": "Dg|Ct"},                  "Dg|Rb",      False),
    ("face-down neighbours only", {},                                 "Dg|Rb",      False),
]


@pytest.mark.parametrize("description,up,label,legal", CONNECTION_CASES, ids=[c[0] for c in CONNECTION_CASES])
def test_a_play_must_connect_to_a_face_up_neighbour(description, up, label, legal):
    state = board_state(up=up, hands=((label,), ()))
    action = play(state, 0, label, "r3c3")
    assert (action in GAME.legal_actions(state)) == legal
    if not legal:
        assert GAME.illegal_reason(state, action) == "Dg|Rb connects to no face-up neighbour at r3c3"


def test_the_raw_env_refuses_an_unconnected_play_with_words():
    env = raw_env()
    env.reset(seed=0)
    env.game_state = board_state(up={"r3c2": "Ct|Fx"}, hands=(("Dg|Rb",), ()))
    env._after_transition()
    with pytest.raises(ValueError, match="play Dg|Rb onto r3c3.*connects to no face-up neighbour"):
        env.step(play(env.game_state, 0, "Dg|Rb", "r3c3"))


def test_playing_onto_a_face_down_card_takes_it_into_the_hand():
    state = board_state(up={"r3c2": "Ct|Dg"}, hands=(("Dg|Rb",), ()))
    state.stacks[pos("r3c3")] = [card("Br|Fx")]  # the face-down card
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.stacks[pos("r3c3")] == [card("Dg|Rb")] and state.face_down[pos("r3c3")] == 0
    assert state.hands[0] == hand_of("Br|Fx")
    assert (state.to_move, state.turn) == (1, 1)


def test_playing_onto_a_face_up_card_stacks_it_and_the_top_card_counts():
    state = board_state(up={"r3c2": "Ct|Dg", "r3c3": "Fx|Pg"}, hands=(("Dg|Rb", "Br|Ct"), ("Rb|Ct",)))
    assert GAME.connections(state, card("Rb|Ct"), pos("r3c4")) == []  # r3c3 shows Pg on its right
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.stacks[pos("r3c3")] == [card("Fx|Pg"), card("Dg|Rb")] and top(state, "r3c3") == "Dg|Rb"
    assert state.hands[0] == hand_of("Br|Ct")
    # r3c4 now faces the new top card's right animal Rb, not the covered Pg
    assert play(state, 1, "Rb|Ct", "r3c4") in GAME.legal_actions(state)


def test_no_card_can_be_played_onto_a_hole():
    state = board_state(up={"r3c2": "Ct|Dg"}, holes=("r3c3",), hands=(("Dg|Rb",), ()))
    action = play(state, 0, "Dg|Rb", "r3c3")
    assert action not in GAME.legal_actions(state)
    assert GAME.illegal_reason(state, action) == "r3c3 is a hole: no card can be played there"


# seat, target, its face-up west neighbour (Ct|Dg), wins
BASE_CASES = [
    (0, "r6c1", "r6c0", True),   # player 1's base row
    (1, "r0c2", "r0c1", True),   # player 0's base row
    (0, "r0c2", "r0c1", False),  # own base: just a stack
    (1, "r6c1", "r6c0", False),
]


@pytest.mark.parametrize("seat,target,west,wins", BASE_CASES)
def test_playing_onto_the_opponents_base_wins_at_once(seat, target, west, wins):
    state = board_state(up={west: "Ct|Dg", target: "Br|Pg"}, hands=(("Dg|Rb",), ("Dg|Rb",)), to_move=seat)
    step(state, play(state, seat, "Dg|Rb", target))
    assert len(state.stacks[pos(target)]) == 2
    if wins:
        assert GAME.is_terminal(state) and state.winner == seat and state.phase == OVER
        assert GAME.current_player(state) == TERMINAL and GAME.legal_actions(state) == []
        assert GAME.returns(state).tolist() == ([1.0, -1.0] if seat == 0 else [-1.0, 1.0])
    else:
        assert not GAME.is_terminal(state) and GAME.returns(state).tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ doubles
DOUBLE_CASES = [
    # description,                       face-up neighbours of r3c3,                                 foundations
    ("two left neighbours, same animal", {"r3c2": "Ct|Dg", "r4c2": "Br|Dg"},                      ("r3c2", "r4c2")),
    ("three left neighbours",            {"r3c2": "Ct|Dg", "r4c2": "Br|Dg", "r2c2": "Fx|Dg"},     ("r2c2", "r3c2", "r4c2")),
    ("two right neighbours",             {"r3c4": "Rb|Ct", "r2c3": "Rb|Pg"},                      ("r2c3", "r3c4")),
    ("one link each side: no double",    {"r3c2": "Ct|Dg", "r3c4": "Rb|Ct"},                      ()),
    ("second neighbour does not link",   {"r3c2": "Ct|Dg", "r4c2": "Br|Ct"},                      ()),
]


@pytest.mark.parametrize("description,up,foundations", DOUBLE_CASES, ids=[c[0] for c in DOUBLE_CASES])
def test_a_double_needs_the_same_animal_linked_to_two_cards(description, up, foundations):
    state = board_state(up=up, hands=(("Dg|Rb",), ()))
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    assert state.double_owner[pos("r3c3")] == (0 if foundations else NO_SEAT)
    assert state.double_foundations[pos("r3c3")] == tuple(sorted(pos(n) for n in foundations))


def test_a_double_bars_the_opponent_until_a_foundation_is_covered():
    state = board_state(
        up={"r3c2": "Ct|Dg", "r4c2": "Br|Dg"},
        hands=(("Dg|Rb", "Pg|Br"), ("Dg|Fx", "Dg|Fx")),
        deck=("Rb|Br", "Rb|Br"),
    )
    step(state, play(state, 0, "Dg|Rb", "r3c3"))  # double on Dg: foundations r3c2, r4c2
    assert state.double_owner[pos("r3c3")] == 0
    barred = play(state, 1, "Dg|Fx", "r3c3")  # would connect to r3c2, but it is player 0's double
    assert barred not in GAME.legal_actions(state)
    assert GAME.illegal_reason(state, barred) == "r3c3 is your opponent's double"  # the centre is its own mirror image
    # player 1 covers the foundation r4c2 (Dg|Fx links its Dg to r3c2's right Dg on its SW side)
    step(state, play(state, 1, "Dg|Fx", "r4c2"))
    assert state.double_owner[pos("r3c3")] == NO_SEAT and state.double_foundations[pos("r3c3")] == ()
    step(state, GAME.pass_action)  # player 0
    assert barred in GAME.legal_actions(state)


def test_the_owner_may_play_onto_its_own_double():
    state = board_state(up={"r3c2": "Ct|Dg", "r4c2": "Br|Dg"}, hands=(("Dg|Rb", "Dg|Ct"), ()), deck=("Rb|Br",))
    step(state, play(state, 0, "Dg|Rb", "r3c3"))
    step(state, GAME.pass_action)  # player 1 draws
    step(state, play(state, 0, "Dg|Ct", "r3c3"))  # again a double on Dg
    assert top(state, "r3c3") == "Dg|Ct" and state.double_owner[pos("r3c3")] == 0


# -------------------------------------------------------------------- passing
def test_pass_with_a_deck_draws_its_top_card():
    state = board_state(up={"r3c2": "Ct|Dg"}, hands=(("Dg|Rb",), ()), deck=("Rb|Br", "Ct|Fx"))
    legal = GAME.legal_actions(state)
    assert GAME.pass_action in legal and not any(a >= GAME.take_base for a in legal)
    step(state, GAME.pass_action)
    assert state.hands[0] == hand_of("Dg|Rb", "Ct|Fx") and state.deck == [card("Rb|Br")]
    assert (state.to_move, state.turn, state.passes_without_draw) == (1, 1, 0)


def test_pass_with_an_empty_deck_takes_a_chosen_face_down_card_and_leaves_a_hole():
    state = board_state(up={"r3c2": "Ct|Dg"}, hands=(("Dg|Rb",), ()))
    state.stacks[pos("r3c3")] = [card("Br|Fx")]
    legal = GAME.legal_actions(state)
    assert GAME.pass_action not in legal
    assert [a for a in legal if a >= GAME.take_base] == [GAME.take_action(0, p) for p in range(37) if state.face_down[p]]
    take = GAME.take_action(0, pos("r3c3"))
    assert GAME.action_to_string(state, take) == "pass and take the face-down card at r3c3"
    step(state, take)
    assert state.stacks[pos("r3c3")] == [] and state.face_down[pos("r3c3")] == 0
    assert state.hands[0] == hand_of("Dg|Rb", "Br|Fx") and state.passes_without_draw == 0
    step(state, GAME.take_action(1, pos("r5c0")))
    assert play(state, 0, "Dg|Rb", "r3c3") not in GAME.legal_actions(state)  # a hole forever


def nothing_left(**kwargs):
    """Empty deck, no face-down card: r3c2 and r3c3 face up, every other position a hole."""
    up = {"r3c2": "Ct|Dg", "r3c3": "Fx|Pg"}
    return board_state(up=up, holes=[n for n in ALL_POSITIONS if n not in up], **kwargs)


def test_two_passes_without_a_draw_in_a_row_end_the_game_in_a_draw():
    state = nothing_left(hands=(("Dg|Rb",), ("Br|Ct",)))
    assert GAME.action_to_string(state, GAME.pass_action) == "pass without drawing (no deck and no face-down card left)"
    step(state, GAME.pass_action)
    assert state.passes_without_draw == 1 and not GAME.is_terminal(state) and state.to_move == 1
    step(state, GAME.pass_action)
    assert GAME.is_terminal(state) and state.winner == NO_SEAT
    assert GAME.returns(state).tolist() == [0.0, 0.0]


def test_a_play_between_draw_less_passes_resets_the_count():
    state = nothing_left(hands=(("Dg|Rb",), ("Dg|Fx",)))
    step(state, GAME.pass_action)  # player 0, no draw
    step(state, play(state, 1, "Dg|Fx", "r3c3"))  # player 1 plays instead (stacks on Fx|Pg)
    assert state.passes_without_draw == 0
    step(state, GAME.pass_action)  # player 0
    assert not GAME.is_terminal(state) and state.passes_without_draw == 1


def test_the_turn_limit_truncates_as_a_draw():
    game = AnimalChainGame(max_turns=3)
    state = board_state(up={"r3c2": "Ct|Dg"}, deck=("Rb|Br",) * 5, game=game)
    for _ in range(3):
        assert not game.is_truncated(state)
        step(state, game.pass_action, game=game)
    assert game.is_truncated(state) and not game.is_terminal(state)
    assert game.current_player(state) == TERMINAL and game.legal_actions(state) == []
    assert game.returns(state).tolist() == [0.0, 0.0]


def test_the_env_reports_truncation_to_both_agents():
    env = raw_env(max_turns=2)
    env.reset(seed=3)
    while env.game_state.phase == BUILD:
        env.step(env.game.done_action)
    for _ in range(2):
        assert env.game.pass_action in env.legal_actions()
        env.step(env.game.pass_action)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}


# ------------------------------------------------------------- base building
def test_base_building_swaps_done_reveal_and_first_player():
    rng = np.random.default_rng(5)
    state = GAME.initial_state(rng)
    assert (state.phase, state.to_move, len(state.deck)) == (BUILD, 0, 60 - 37 - 8)
    assert all(sum(h) == 4 for h in state.hands) and all(state.face_down)
    legal = GAME.legal_actions(state)
    assert legal[-1] == GAME.done_action and all(a < GAME.done_action for a in legal[:-1])
    # swap the first hand card into base position 2
    t = state.hands[0].index(next(n for n in state.hands[0] if n))
    base_card = state.stacks[pos("r0c2")][0]
    if base_card != t:
        step(state, GAME.swap_action(0, t, 2))
        assert state.stacks[pos("r0c2")] == [t] and state.hands[0][base_card] >= 1 and sum(state.hands[0]) == 4
    assert state.face_down[pos("r0c2")] == 1  # still hidden
    step(state, GAME.done_action)
    assert (state.phase, state.to_move, state.swaps_used) == (BUILD, 1, 0)
    deck_before = len(state.deck)
    step(state, GAME.done_action)
    assert state.phase == PLAY and state.to_move == state.first_player
    assert all(state.face_down[p] == 0 for seat in (0, 1) for p in GAME.base_positions[seat])
    assert sum(state.hands[state.first_player]) == 4 and sum(state.hands[1 - state.first_player]) == 5
    assert len(state.deck) == deck_before - 1


def test_the_first_player_is_drawn_by_chance():
    firsts = set()
    for seed in range(12):
        rng = np.random.default_rng(seed)
        state = GAME.initial_state(rng)
        GAME.apply_action(state, GAME.done_action, rng)
        GAME.apply_action(state, GAME.done_action, rng)
        firsts.add(state.first_player)
    assert firsts == {0, 1}


def test_swaps_are_limited_and_never_no_ops():
    rng = np.random.default_rng(1)
    state = GAME.initial_state(rng)
    for _ in range(GAME.max_swaps):
        swaps = [a for a in GAME.legal_actions(state) if a < GAME.done_action]
        for a in swaps:
            _, t, j = GAME.decode(0, a)
            assert state.hands[0][t] and state.stacks[GAME.base_positions[0][j]][0] != t
        step(state, swaps[0])
    assert GAME.legal_actions(state) == [GAME.done_action]
    assert "swaps of base building are used up" in GAME.illegal_reason(state, 0)


def test_player_1_swaps_its_own_base_counted_from_its_left():
    rng = np.random.default_rng(2)
    state = GAME.initial_state(rng)
    step(state, GAME.done_action)
    t = next(t for t, n in enumerate(state.hands[1]) if n and t != state.stacks[pos("r6c3")][0])
    action = GAME.swap_action(1, t, 0)
    assert GAME.action_to_string(state, action) == f"swap hand card {GAME.card_in_frame(1, t)} with own base card r0c0"
    step(state, action)
    assert state.stacks[pos("r6c3")] == [t]  # player 1's leftmost base card is r6c3 in player 0's frame


def test_plays_are_not_legal_while_building_and_swaps_not_after():
    rng = np.random.default_rng(4)
    state = GAME.initial_state(rng)
    assert "still building" in GAME.illegal_reason(state, GAME.pass_action)
    step(state, GAME.done_action)
    step(state, GAME.done_action)
    assert GAME.illegal_reason(state, GAME.done_action) == "base building is over"


# ------------------------------------------------------------------ declared outcomes
def test_returns_run_from_loss_to_win_and_sum_to_zero():
    game = AnimalChainGame()
    sample = random_outcomes(game, seed=0, num_games=12)
    assert game.return_bounds() == (-1.0, 1.0) and game.is_zero_sum()
    check_outcomes_reached(sample, bounds=(-1.0, 1.0))
    with pytest.raises(AssertionError, match="declared"):  # the control: the OpenSpiel bridge's old default
        check_outcomes_reached(sample, bounds=(-1000.0, 1000.0))


@pytest.mark.parametrize("building", ["per_position", "free"])
def test_the_longest_game_is_base_building_plus_the_turn_limit(building):
    """Building does not count toward ``max_turns``: one decision per base position per seat, or at most
    ``max_swaps`` swaps and "done" per seat; random building uses every swap it may."""
    game = AnimalChainGame(max_turns=3, building=building)
    per_seat = game.base_size if building == "per_position" else game.max_swaps + 1
    assert game.max_decisions() == 2 * per_seat + 3
    sample = random_outcomes(game, seed=0, num_games=12)
    check_outcomes_reached(sample, max_decisions=2 * per_seat + 3)
    with pytest.raises(AssertionError, match="declared"):  # the control: the OpenSpiel bridge's old default
        check_outcomes_reached(sample, max_decisions=100_000)
