"""Rule scenarios that pin sentences of ``../shared/rules/summer_hide_and_seek.md`` otherwise pinned only
indirectly (by the stored tactics suites or the fast-path cross-checks), on the small test map of
``helpers.py`` (``TEST_MAP``, drawn in ``test_v1.py``'s docstring)."""

import numpy as np
import pytest

from kakurega.envs import summer_hide_and_seek_v1
from kakurega.envs.summer_hide_and_seek.rules import CHILD, FOUND_BY_GUESS, FOUND_STUCK, SEEK, START

from .helpers import SUNFLOWER, action, new_game, play, square

V1_RULES = summer_hide_and_seek_v1.DEFINITION.rules


@pytest.mark.parametrize("right", [0, 1, 2], ids=["first seeker", "second seeker", "last seeker"])
def test_any_one_seekers_piece_on_the_childs_square_finds_it(right):
    """Rules, "The seekers' turn": if *any* piece is on the child's current square, the child is found.

    Kills the mutants that look at one seeker's piece only (the first or the last to place).
    """
    game, state = new_game(num_players=4, first_child=0)
    play(game, state, "start r0c0", "line r0c1", "stop")
    wrong = ["place r2c5", "place r4c0", "place r1c5"]
    for k in range(3):
        play(game, state, "place r0c1" if k == right else wrong[k])
    assert state.history and state.history[0][-1] == FOUND_BY_GUESS
    assert state.found_by == [(1 + right,)]
    assert state.phase == START and state.child == 1


def test_nobody_finds_the_child_when_every_piece_misses():
    """Rules, "The seekers' turn" / "Not found": the control of the case above."""
    game, state = new_game(num_players=4, first_child=0)
    play(game, state, "start r0c0", "line r0c1", "stop", "place r2c5", "place r4c0", "place r1c5")
    assert state.phase == CHILD and not state.history


@pytest.mark.parametrize("rules", [{}, V1_RULES], ids=["v0", "v1"])
def test_no_line_within_the_budget_left_is_not_stuck_while_a_line_exists(rules):
    """Rules, "Stuck": stuck means no legal line at all *whatever cost remains*. With 1 of the 5 left and
    only a shortcut (cost 2) open, the child may only stop; it is not found, and next turn the shortcut is open.

    Kills the mutant that judges the stuck rule against the budget left (a child with a spare unit and
    only shortcuts around would count as found).
    """
    game, state = new_game(**rules)
    # r0c5 -> r1c5 (move) -> r2c4 (diagonal move) -> r0c4 (shortcut over the houses, white-framed): cost 4
    play(game, state, "start r0c5", "line r1c5", "line r2c4", "line r0c4")
    if rules:
        game.apply_action(state, game.continue_action, np.random.default_rng(0))
    assert state.turn_cost == 4 and state.phase == CHILD and not state.history
    assert game.legal_actions(state) == [game.stop_action]
    assert not game.is_stuck(state.square, state.visited, state.drawn, state.blocked)
    play(game, state, "stop")
    assert state.phase == SEEK and state.announcements == [(4, (SUNFLOWER,))] and state.vp == [1, 0]
    play(game, state, "place r4c0")
    assert state.phase == CHILD and action(game, "line r0c2") in game.legal_actions(state)


def test_after_a_shortcut_into_a_dead_end_the_continue_comes_before_the_stuck_ending():
    """Rules, "Hidden information": the child always makes cost + 1 decisions (cost when all 5 are spent
    or it is stuck), so a shortcut (cost 2) is followed by a forced continue even when it ends in a dead end.

    Kills the mutant that skips the continue when the shortcut leaves the child stuck (the turn order then
    tells the seekers a shortcut was drawn).
    """
    game, state = new_game(**V1_RULES)
    # r2c0 -> r4c2 (diagonal shortcut over the river to the white square), continue, then r4c2 -> r4c0
    # (shortcut over the house): r4c0's only line leads back to r4c2, on the stroke: a dead end
    play(game, state, "start r2c0", "line r4c2")
    assert game.legal_actions(state) == [game.continue_action]
    game.apply_action(state, game.continue_action, np.random.default_rng(0))
    play(game, state, "line r4c0")
    assert game.is_stuck(state.square, state.visited, state.drawn, state.blocked)
    assert state.phase == CHILD and not state.history, "the stuck ending waits for the continue"
    assert game.legal_actions(state) == [game.continue_action]
    game.apply_action(state, game.continue_action, np.random.default_rng(0))
    assert state.history == [(0, tuple(square(game, s) for s in ("r2c0", "r4c2", "r4c0")), 4, 1, FOUND_STUCK)]
    assert state.steps == 1 + 4, "the start, then one decision per unit of the announced cost 4"
