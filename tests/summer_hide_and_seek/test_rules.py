"""Rule scenarios as readable tables, on the small test map of ``helpers.py``::

         c0 c1 c2 c3 c4 c5
    r0    .  .  .  #  s  .
    r1    .  S  .  #  #  .
    r2    .  .  F  ~  .  S
    r3    #  ~  #  ~  #  .
    r4    .  #  f  .  S  .
"""

import pytest
from conformance import check_outcomes_reached, random_outcomes

from kakurega.envs.core.game import TERMINAL
from kakurega.envs.summer_hide_and_seek.rules import (
    CHILD,
    FOUND_BY_GUESS,
    FOUND_STUCK,
    OVER,
    SEEK,
    START,
    SummerHideAndSeekGame,
)

from .helpers import FIREWORKS, SUNFLOWER, action, names, new_game, play, square

# (case, strict_moves, steps before, the line tried, legal?, words: action name if legal, else the reason)
LINE_CASES = [
    ("move to an adjacent path square", False, ["start r0c0"], "line r0c1", True, "move r0c0 -> r0c1 (path), cost 1"),
    ("move to an adjacent black-framed square", False, ["start r0c0"], "line r1c1", True, "move r0c0 -> r1c1 (black-framed, sunflower), cost 1"),
    ("diagonal move", False, ["start r2c1"], "line r1c0", True, "move r2c1 -> r1c0 (path), cost 1"),
    ("a move may not target a white-framed square", False, ["start r0c5"], "line r0c4", False, "may only target a path or black-framed square"),
    ("shortcut path -> white over a house", False, ["start r0c2"], "line r0c4", True, "shortcut r0c2 -> r0c4 (white-framed, sunflower), cost 2"),
    ("shortcut white -> path over a house", False, ["start r0c2", "line r0c4"], "line r2c4", True, "shortcut r0c4 -> r2c4 (path), cost 2"),
    ("shortcut white -> black over a house", False, ["start r4c0", "line r4c2"], "line r2c2", True, "shortcut r4c2 -> r2c2 (black-framed, fireworks), cost 2"),
    ("diagonal shortcut white -> path over the river", False, ["start r4c0", "line r4c2"], "line r2c0", True, "shortcut r4c2 -> r2c0 (path), cost 2"),
    ("shortcut path -> path is refused", False, ["start r1c2"], "line r1c5", False, "a shortcut needs a white-framed square at one end; path -> path"),
    ("shortcut black -> path is refused", False, ["start r2c1", "line r2c2"], "line r2c4", False, "a shortcut needs a white-framed square at one end; black-framed -> path"),
    ("a line may not jump over a square", False, ["start r0c0"], "line r0c2", False, "jump over the square r0c1"),
    ("a line must be straight", False, ["start r0c0"], "line r1c2", False, "not a horizontal, vertical or 45-degree line"),
    ("no revisiting a square", False, ["start r0c0", "line r0c1"], "line r0c0", False, "may not return to a square it has visited"),
    ("two diagonals may not cross in a 2x2 block", False, ["start r0c0", "line r1c1", "line r0c1"], "line r1c0", False, "overlap or cross a line already drawn"),
    ("lines touching at the shared end are fine", False, ["start r0c0", "line r0c1"], "line r1c0", True, "move r0c1 -> r1c0 (path), cost 1"),
    ("a piece blocks its square", False, ["start r0c0", "stop", "place r0c1"], "line r0c1", False, "a seeker's piece stands on that square"),
    ("the other squares stay open", False, ["start r0c0", "stop", "place r0c1"], "line r1c0", True, "move r0c0 -> r1c0 (path), cost 1"),
    ("budget: a shortcut does not fit in 1", False, ["start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2"], "line r0c4", False, "costs 2 but only 1 of the turn's budget of 5 is left"),
    ("budget: a move fits in 1", False, ["start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2"], "line r1c2", True, "move r0c2 -> r1c2 (path), cost 1"),
    ("budget: the budget is per turn", False, ["start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2", "stop", "place r2c5"], "line r0c4", True, "shortcut r0c2 -> r0c4 (white-framed, sunflower), cost 2"),
    ("strict_moves: move path -> path is refused", True, ["start r0c2"], "line r0c1", False, "a move under strict_moves needs a white-framed square at one end; path -> path"),
    ("strict_moves: move white -> path is allowed", True, ["start r0c2", "line r0c4"], "line r0c5", True, "move r0c4 -> r0c5 (path), cost 1"),
    ("strict_moves: shortcuts are unchanged", True, ["start r0c2"], "line r0c4", True, "shortcut r0c2 -> r0c4 (white-framed, sunflower), cost 2"),
]


@pytest.mark.parametrize("case,strict,before,line,legal,words", LINE_CASES, ids=[c[0] for c in LINE_CASES])
def test_line_rules(case, strict, before, line, legal, words):
    game, state = new_game(strict_moves=strict)
    play(game, state, *before)
    assert state.phase == CHILD
    a = action(game, line)
    assert (a in game.legal_actions(state)) is legal
    if legal:
        assert game.action_to_string(state, a) == words
    else:
        assert words in game.illegal_reason(state, a)


# (case, steps, action tried, reason)
PHASE_CASES = [
    ("start on a path square only (black)", [], "start r1c1", "starts on a path square (no icon)"),
    ("start on a path square only (white)", [], "start r0c4", "starts on a path square (no icon)"),
    ("no line before the start", [], "line r0c0", "must first choose a starting path square"),
    ("no stop before the start", [], "stop", "must first choose a starting path square"),
    ("the start is chosen once", ["start r0c0"], "start r0c1", "chosen only once"),
    ("the child places no piece", ["start r0c0"], "place r0c1", "only in the seekers' turn"),
    ("seekers only place pieces", ["start r0c0", "stop"], "line r0c1", "the only actions are placing a piece"),
]


@pytest.mark.parametrize("case,steps,tried,reason", PHASE_CASES, ids=[c[0] for c in PHASE_CASES])
def test_actions_out_of_phase(case, steps, tried, reason):
    game, state = new_game()
    play(game, state, *steps)
    a = action(game, tried)
    assert a not in game.legal_actions(state)
    assert reason in game.illegal_reason(state, a)


def test_start_actions_are_exactly_the_path_squares():
    game, state = new_game()
    assert names(game, game.legal_actions(state)) == [
        "r0c0", "r0c1", "r0c2", "r0c5", "r1c0", "r1c2", "r1c5", "r2c0", "r2c1", "r2c4", "r3c5", "r4c0", "r4c3", "r4c5",
    ]


def test_budget_spent_leaves_only_stop():
    game, state = new_game()
    play(game, state, "start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2", "line r1c2")
    assert state.turn_cost == 5 and state.phase == CHILD
    assert game.legal_actions(state) == [game.stop_action]


def test_stop_at_once_announces_cost_zero():
    game, state = new_game()
    play(game, state, "start r0c0", "stop")
    assert state.announcements == [(0, ())] and state.vp == [0, 0] and state.phase == SEEK


def test_scoring_and_announcement():
    game, state = new_game()
    # F (4 VP, cost 1) -> f over the house (4 VP, cost 2) -> path (cost 1) -> S (1 VP, cost 1)
    play(game, state, "start r2c1", "line r2c2", "line r4c2", "line r4c3", "line r4c4")
    assert state.turn_cost == 5
    assert state.vp == [0, 0], "VP are scored when the turn ends, not line by line"
    play(game, state, "stop")
    assert state.vp == [9, 0]
    assert state.announcements == [(5, (SUNFLOWER, FIREWORKS, FIREWORKS))]  # a multiset, in VP-table order
    assert state.phase == SEEK and game.current_player(state) == 1


def test_the_start_square_scores_nothing_and_path_squares_score_nothing():
    game, state = new_game()
    play(game, state, "start r0c0", "line r0c1", "line r0c2", "stop")
    assert state.vp == [0, 0] and state.announcements == [(2, ())]


def test_not_found_pieces_stay_and_block_until_the_next_seekers_turn():
    game, state = new_game()
    play(game, state, "start r0c0", "stop", "place r0c1")
    assert state.phase == CHILD and game.current_player(state) == 0
    assert state.pieces == [-1, square(game, "r0c1")]
    assert names(game, state.guessed) == ["r0c1"]
    assert not state.belief >> square(game, "r0c1") & 1, "a wrong guess leaves the belief"
    assert action(game, "line r0c1") not in game.legal_actions(state)
    play(game, state, "line r1c0", "stop")
    assert state.phase == SEEK and state.pieces == [-1, -1], "pieces are lifted when the seekers' turn begins"
    play(game, state, "place r2c5")
    assert action(game, "line r0c1") in game.legal_actions(state), "the old piece no longer blocks"


def test_found_ends_the_round_and_the_next_player_hides():
    game, state = new_game()
    play(game, state, "start r0c0", "line r0c1", "stop", "place r0c1")
    assert state.history == [(0, (square(game, "r0c0"), square(game, "r0c1")), 0, 1, FOUND_BY_GUESS)]
    assert state.phase == START and state.child == 1 and game.current_player(state) == 1
    assert state.stroke == [] and state.announcements == [] and state.pieces == [-1, -1]
    assert state.belief == game.path_mask


def test_stuck_after_a_line_ends_the_turn_scores_it_and_counts_as_found():
    game, state = new_game()
    # r0c0 is a dead end once r0c1, r1c1 and r1c0 are on the stroke
    play(game, state, "start r0c1", "line r1c1", "line r1c0", "line r0c0")
    assert state.vp == [1, 0]
    assert state.history == [(0, tuple(square(game, s) for s in ("r0c1", "r1c1", "r1c0", "r0c0")), 1, 1, FOUND_STUCK)]
    assert state.phase == START and game.current_player(state) == 1


def test_stuck_at_the_start_of_a_turn_because_of_a_piece():
    game, state = new_game()
    # from r4c0 the only line is the shortcut to r4c2; a piece there leaves the child stuck
    play(game, state, "start r4c0", "stop", "place r4c2")
    assert state.history == [(0, (square(game, "r4c0"),), 0, 2, FOUND_STUCK)]
    assert state.phase == START and state.child == 1


def test_stuck_right_after_the_start():
    game, state = new_game(strict_moves=True)
    play(game, state, "start r0c0")  # under strict_moves a plain path square with no white neighbour has no line
    assert state.history == [(0, (square(game, "r0c0"),), 0, 1, FOUND_STUCK)]


def test_spent_budget_is_not_stuck():
    game, state = new_game()
    play(game, state, "start r2c0", "line r1c0", "line r0c0", "line r0c1", "line r0c2", "line r1c2")
    assert state.phase == CHILD and not state.history


@pytest.mark.parametrize(
    "num_players,first_child,expected",
    [
        # (child, seekers in placing order) per round
        (2, 0, [(0, [1]), (1, [0])]),
        (2, 1, [(1, [0]), (0, [1])]),
        (3, 1, [(1, [2, 0]), (2, [0, 1]), (0, [1, 2])]),
        (4, 2, [(2, [3, 0, 1]), (3, [0, 1, 2]), (0, [1, 2, 3]), (1, [2, 3, 0])]),
    ],
)
def test_rotation_of_the_child_and_seekers_order(num_players, first_child, expected):
    game, state = new_game(num_players, first_child)
    seen = []
    for _round in range(num_players):
        child = game.current_player(state)
        play(game, state, "start r0c0", "stop")
        seekers = []
        while state.phase == SEEK:
            seekers.append(game.current_player(state))
            play(game, state, "place r0c0")  # every seeker guesses right
        seen.append((child, seekers))
    assert seen == expected
    assert state.phase == OVER and game.current_player(state) == TERMINAL and game.legal_actions(state) == []


def _finish(game, state, vp_rounds):
    """Play one round per player: the child walks to r2c2 (4 VP) when asked, else stays; found at once."""
    for scores in vp_rounds:
        where = "r2c2" if scores else "r0c0"
        if scores:
            play(game, state, "start r2c1", "line r2c2", "stop")
        else:
            play(game, state, "start r0c0", "stop")
        while state.phase == SEEK:
            play(game, state, f"place {where}")


@pytest.mark.parametrize(
    "reward,scores,expected_vp,expected_returns",
    [
        ("win", [True, False], [4, 0], [1, -1]),
        ("win", [False, True], [0, 4], [-1, 1]),
        ("win", [True, True], [4, 4], [1, 1]),  # tied players share the win
        ("win", [False, False], [0, 0], [1, 1]),
        ("vp", [True, False], [4, 0], [4, 0]),
    ],
)
def test_final_ranking_and_rewards(reward, scores, expected_vp, expected_returns):
    game, state = new_game(reward=reward)
    _finish(game, state, scores)
    assert state.phase == OVER and game.is_terminal(state)
    assert state.vp == expected_vp
    assert game.returns(state).tolist() == expected_returns


def test_three_player_ranking():
    game, state = new_game(3, first_child=0)
    _finish(game, state, [False, True, False])
    assert game.winners(state) == [1]
    assert game.returns(state).tolist() == [-1, 1, -1]


def test_win_mode_pays_nothing_before_the_end_and_vp_mode_pays_per_turn():
    game, state = new_game(reward="win")
    play(game, state, "start r2c1", "line r2c2", "stop")
    assert game.returns(state).tolist() == [0, 0]
    game, state = new_game(reward="vp")
    play(game, state, "start r2c1", "line r2c2")
    assert game.returns(state).tolist() == [0, 0]
    play(game, state, "stop")
    assert game.returns(state).tolist() == [4, 0]


def test_step_limit_truncates():
    game, state = new_game(max_steps=3)
    play(game, state, "start r2c1", "line r2c2", "stop")
    assert game.is_truncated(state) and not game.is_terminal(state)
    assert game.current_player(state) == TERMINAL and game.legal_actions(state) == []
    assert game.returns(state).tolist() == [0, 0], "a truncated game is undecided in win mode"
    assert game.illegal_reason(state, action(game, "place r0c0")) == "the game is over"


# ------------------------------------------------------------------ declared outcomes
@pytest.mark.parametrize("options, bounds", [
    ({"num_players": 2, "reward": "zero_sum"}, (-1.0, 1.0)),
    ({"num_players": 3, "reward": "zero_sum"}, (-0.5, 1.0)),  # every loser -1/(n-1), a lone winner +1
    ({"num_players": 4, "reward": "shared_win"}, (-1.0, 1.0)),
])
def test_the_win_schemes_bounds_are_what_random_games_reach(options, bounds):
    game = SummerHideAndSeekGame(**options, must_move=True)
    sample = random_outcomes(game, seed=0, num_games=12)
    assert game.return_bounds() == pytest.approx(bounds)
    check_outcomes_reached(sample, bounds=bounds)
    with pytest.raises(AssertionError, match="declared"):  # the control: the OpenSpiel bridge's old default
        check_outcomes_reached(sample, bounds=(-1000.0, 1000.0))


def test_vp_run_from_zero_to_every_icon_squares_vp():
    """A child enters a square at most once in its one round as the child."""
    game = SummerHideAndSeekGame(3, reward="vp")
    icon_vp = [game.map.icons[icon].vp for icon in game.map.icon_of if icon >= 0]
    assert game.return_bounds() == (0.0, float(sum(icon_vp))) and not game.is_zero_sum()
    assert SummerHideAndSeekGame(reward="zero_sum").is_zero_sum() and not SummerHideAndSeekGame(reward="win").is_zero_sum()


def test_the_longest_game_is_the_step_limit():
    game = SummerHideAndSeekGame(3, max_steps=7)
    sample = random_outcomes(game, seed=0, num_games=12)
    assert game.max_decisions() == 7
    check_outcomes_reached(sample, max_decisions=7)
    with pytest.raises(AssertionError, match="declared"):  # the control: the OpenSpiel bridge's old default
        check_outcomes_reached(sample, max_decisions=100_000)


def test_a_placement_on_the_one_square_of_the_belief_is_marked_and_finds_the_child():
    """The terminal menu's note: only the placement on a one-square public belief, and it does find the child
    (the stored tactics positions of that kind), equal in every re-dealt state the seeker cannot tell apart."""
    import numpy as np

    from kakurega.agents.tactics.suite import load_suite, replay, suite_path

    suite = load_suite(suite_path("summer_hide_and_seek"))
    positions = [p for p in suite.positions if p.category == "seek_certain"][:8]
    assert positions
    rng = np.random.default_rng(0)
    for position in positions:
        env = replay(suite.env, position)
        game, state = env.game, env.game_state
        notes = {a: game.winning_note(state, a) for a in env.legal_actions()}
        marked = [a for a, note in notes.items() if note]
        assert position.kind == "good" and marked == list(position.claimed)
        assert notes[marked[0]] == "finds the child for sure"
        assert state.stroke[-1] == marked[0] - game.place_base  # the child is there indeed
        seat = env.possible_agents.index(env.agent_selection)
        for _ in range(3):
            other = game.resample_hidden(state, seat, rng)
            assert {a: game.winning_note(other, a) for a in env.legal_actions()} == notes


def test_sampling_a_stroke_is_bounded_and_says_so_when_its_budget_is_spent(monkeypatch):
    """``sample_stroke`` restarts with fresh orders and bounded node budgets, never one unbounded attempt (its
    time is heavy-tailed: on a 32 x 32 map late in a round one order ran for over 600 s); when every budget is
    spent it refuses in words. The control: the same state samples under the shipped budgets."""
    import numpy as np
    from conformance import random_states

    import kakurega.envs.summer_hide_and_seek.rules as summer_rules
    from kakurega.envs.registry import make

    assert all(isinstance(budget, int) and budget > 0 for budget in summer_rules.SAMPLE_BUDGETS)
    game = make("summer_hide_and_seek_v2", wrapped=False).game
    state = next(s for s in random_states(game, seed=3, num_games=8, every=2)
                 if s.phase == summer_rules.SEEK and len(s.stroke) > 4)
    assert len(game.sample_stroke(state, np.random.default_rng(0))) == len(state.stroke)
    monkeypatch.setattr(summer_rules, "SAMPLE_BUDGETS", (1, 1))
    with pytest.raises(RuntimeError, match=r"within 2 bounded attempts \(2 search nodes\): the map is too large"):
        game.sample_stroke(state, np.random.default_rng(0))
