"""Rule scenarios that pin sentences of ../shared/rules/hidden_rooms.md the other rule tests leave loose."""

import yaml

from hidden_rooms.hidden_rooms_helpers import game_with, monster, rng, table, tile
from kakurega.envs.hidden_rooms.booklet import load_booklet
from kakurega.envs.hidden_rooms.rules import (
    CAUGHT,
    MOVE,
    NO_SEARCH,
    OVER,
    SEARCH,
    SEARCH_PILE,
    cell_of,
    coords,
)

ROW0 = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]


def phase_of(game, state, child):
    """One monster phase with the child on ``child``: (cell, progress, chasing, outcome)."""
    cell, progress, chasing, outcome, _ = game.monster_phase(0, state.monster_cell, state.progress, cell_of(*child), state.chasing)
    return coords(cell), progress, chasing, outcome


# "fail: the monster is on the child's cell (after any monster step)". (A catch checked only at the end of the
# phase plays the same, since a monster sees its own cell at any range and stays on the child: this scenario pins
# the sentence, no mutant of the engine is told apart by it.)
def test_a_monster_that_walks_over_the_child_mid_phase_catches_it():
    # blind, 2 steps a turn: step 1 lands on the child's (3, 3), step 2 would walk on to (4, 3)
    game = game_with(monster([(2, 3), (3, 3), (4, 3), (4, 2)], steps=2, sight_range=0), episode="round")
    state = table(game, tiles={(3, 4): "red 1", (3, 3): "red 2"}, child=(3, 3), phase=SEARCH)
    game.apply_action(state, NO_SEARCH, rng())  # ends the turn: the monster moves
    assert state.results == [CAUGHT] and state.phase == OVER
    assert coords(state.monster_cell) == (3, 3)
    assert game.returns(state).tolist() == [-1.0]


# "At each step: if the child is in the monster's sight, the monster steps toward the child"
def test_sight_is_checked_before_every_step_not_once_per_phase():
    # radius 2, 2 steps: from (0, 0) the child on (2, 1) is 3 away (unseen): step 1 follows the path to (0, 1);
    # from there it is 2 away: step 2 chases, down to (1, 1)
    game = game_with(monster(ROW0, steps=2, sight_range=2, sight_shape="radius"))
    state = table(game, progress=0)
    assert phase_of(game, state, (2, 1)) == ((1, 1), 1, True, 0)


# "otherwise it steps toward the next cell of its path"
def test_after_a_chase_the_monster_heads_for_the_next_path_cell():
    # a column path; a line monster on (1, 4) chases the child along row 1, then loses sight of it
    game = game_with(monster([(0, 4), (1, 4), (2, 4), (3, 4)], steps=1, sight_range=2, sight_shape="line"))
    state = table(game, progress=1)
    assert phase_of(game, state, (1, 2)) == ((1, 3), 1, True, 0)  # same row, 2 away: chase
    state.monster_cell, state.chasing = cell_of(1, 3), True
    # unseen from (1, 3): it steps toward the next path cell (2, 4) (equal distances: vertical first), not back
    # to (1, 4) where it left the path
    assert phase_of(game, state, (3, 0)) == ((2, 3), 1, False, 0)
    state.monster_cell, state.chasing = cell_of(2, 3), False
    assert phase_of(game, state, (3, 0)) == ((2, 4), 2, False, 0)  # on the path again: it resumes


# "fail: ... the monster has walked its whole path ... at the end of its phase"
def test_reaching_the_last_path_cell_mid_phase_and_chasing_off_is_no_fail():
    # radius 2, 2 steps: step 1 reaches the last path cell (0, 2); from there the child on (1, 3) is in sight,
    # so step 2 chases it to (1, 2): at the end of the phase the monster is off its last cell
    game = game_with(monster([(0, 0), (0, 1), (0, 2)], steps=2, sight_range=2, sight_shape="radius"), episode="round")
    state = table(game, progress=1)
    assert phase_of(game, state, (1, 3)) == ((1, 2), 2, True, 0)
    state = table(game, tiles={(1, 3): "red 1"}, child=(1, 3), progress=1, phase=SEARCH)
    game.apply_action(state, NO_SEARCH, rng())
    assert state.results == [] and state.phase in (MOVE, SEARCH) and state.turn == 2
    assert coords(state.monster_cell) == (1, 2)


# "When a sixth tile would enter the memory area, all memory tiles go back into the pile, which is reshuffled"
def test_the_spill_reshuffles_the_pile():
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    memory = ["blue 1", "blue 2", "green 1", "green 2", "yellow 1"]
    orders = set()
    for seed in range(20):
        state = table(game, tiles={(4, 4): "red 6"}, memory=memory, phase=SEARCH, pile=["red 1", "yellow 2", "blue 3"])
        game.apply_action(state, SEARCH_PILE, rng(seed))  # blue 3 does not connect to red 6: the spill
        assert state.memory == []
        assert sorted(state.pile) == sorted(tile(n) for n in memory + ["red 1", "yellow 2", "blue 3"])
        orders.add(tuple(state.pile))
    # the order after a spill is chance: not the old pile with the memory and the spilled tile laid on top
    assert len(orders) > 10
    assert not all(order[-1] == tile("blue 3") for order in orders)


# "traits: steps per turn (default 2)"
def test_a_booklet_monster_without_steps_walks_two_steps_a_turn(tmp_path):
    page = {"name": "Kappa", "description": "no steps given", "sight_range": 0, "sight_shape": "radius",
            "path": [[0, 4], [0, 3], [0, 2], [0, 1], [0, 0]]}
    (tmp_path / "b.yaml").write_text(yaml.safe_dump({"monsters": [page]}))
    (kappa,) = load_booklet(tmp_path / "b.yaml")
    assert kappa.steps == 2
    game = game_with(kappa)
    state = table(game, progress=0)
    assert phase_of(game, state, (4, 4)) == ((0, 2), 2, False, 0)
