"""Hidden Rooms rule scenarios, as readable tables."""

import pytest

from hidden_rooms.hidden_rooms_helpers import game_with, monster, rng, table, tile
from kakurega.envs.hidden_rooms.rules import (
    CAUGHT,
    DECLINE,
    ESCAPED,
    MONSTER_EXITED,
    MOVE,
    NO_SEARCH,
    OVER,
    PLACE,
    PLACING,
    SEARCH,
    SEARCH_MEMORY,
    SEARCH_PILE,
    START_TILE,
    STEP,
    STOP_MOVING,
    TURN_LIMIT,
    HiddenRoomsGame,
    cell_of,
    connects,
    coords,
)

N, E, S, W = 0, 1, 2, 3
ROW0 = [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]


def phase_of(game, state, child):
    """One monster phase with the child on ``child``: (cell, progress, chasing, outcome)."""
    cell, progress, chasing, outcome, _ = game.monster_phase(0, state.monster_cell, state.progress, cell_of(*child), state.chasing)
    return coords(cell), progress, chasing, outcome


# ------------------------------------------------------------- path following
PATH = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]


@pytest.mark.parametrize(
    "steps, progress, expected_cell, expected_progress, expected_outcome",
    [
        (1, 0, (0, 1), 1, 0),
        (2, 0, (0, 2), 2, 0),
        (2, 2, (1, 3), 4, 0),
        (3, 2, (2, 3), 5, MONSTER_EXITED),  # the last path cell at the end of the phase
        (2, 4, (2, 3), 5, MONSTER_EXITED),  # arrives on step 1, stays there on step 2
    ],
)
def test_path_following(steps, progress, expected_cell, expected_progress, expected_outcome):
    game = game_with(monster(PATH, steps=steps))
    state = table(game, progress=progress)
    assert phase_of(game, state, (4, 4)) == (expected_cell, expected_progress, False, expected_outcome)


# A looping path: its last cell (1, 2) is also its second cell.
LOOP = [(1, 1), (1, 2), (1, 3), (2, 3), (2, 2), (1, 2)]


@pytest.mark.parametrize(
    "steps, progress, start, expected_cell, expected_progress, expected_outcome",
    [
        (1, 0, (1, 1), (1, 2), 1, 0),  # on the last cell's square, but one step into the path: no fail
        (2, 0, (1, 1), (1, 3), 2, 0),  # passes that square on the way
        (1, 4, (2, 2), (1, 2), 5, MONSTER_EXITED),  # there again having taken every step: fail
        (2, 3, (2, 3), (1, 2), 5, MONSTER_EXITED),
    ],
)
def test_a_looping_path_ends_only_after_its_every_step(steps, progress, start, expected_cell, expected_progress,
                                                        expected_outcome):
    game = game_with(monster(LOOP, steps=steps))
    state = table(game, monster_cell=start, progress=progress)
    assert phase_of(game, state, (4, 4)) == (expected_cell, expected_progress, False, expected_outcome)


# --------------------------------------------------------- chasing by sight
@pytest.mark.parametrize(
    "shape, sight, child, expected_cell, chased",
    [
        ("radius", 2, (4, 2), (3, 2), True),  # straight below, distance 2
        ("radius", 2, (2, 4), (2, 3), True),  # straight right
        ("radius", 2, (3, 3), (3, 2), True),  # diagonal, equal distances: vertical first (tie-break)
        ("radius", 3, (3, 0), (2, 1), True),  # 1 down, 2 left: the larger distance (columns) first
        ("radius", 3, (4, 1), (3, 2), True),  # 2 down, 1 left: rows first
        ("radius", 2, (4, 3), (1, 2), False),  # distance 3: unseen, walks its path instead
        ("line", 2, (2, 4), (2, 3), True),  # same row, within range
        ("line", 2, (0, 2), (1, 2), True),  # same column
        ("line", 2, (3, 3), (1, 2), False),  # diagonal: a line monster does not see it
        ("line", 1, (2, 4), (1, 2), False),  # same row but out of range
    ],
)
def test_chase_by_sight(shape, sight, child, expected_cell, chased):
    # path goes up from (2, 2): not chasing means stepping to (1, 2)
    game = game_with(monster([(2, 2), (1, 2), (0, 2)], steps=1, sight_range=sight, sight_shape=shape))
    state = table(game, progress=0)
    cell, _, chasing, outcome = phase_of(game, state, child)
    assert (cell, chasing, outcome) == (expected_cell, chased, 0)


@pytest.mark.parametrize(
    "shape, sight, script",
    [
        (
            "radius",
            2,
            [  # child cell during the phase -> monster cell, progress, chasing
                ((2, 1), (0, 1), 1, False),  # distance 3 from (0, 0): follows the path
                ((2, 1), (1, 1), 1, True),  # now distance 2: leaves the path to chase
                ((3, 4), (0, 1), 1, False),  # out of sight: walks back toward path cell (0, 2)
                ((3, 4), (0, 2), 2, False),  # reaches it: the path resumes
                ((3, 4), (0, 3), 3, False),
            ],
        ),
        (
            "line",
            3,
            [
                ((3, 0), (1, 0), 0, True),  # same column, distance 3: chase at once
                ((3, 3), (0, 0), 0, False),  # diagonal: unseen; heads for (0, 1), vertical first
                ((3, 3), (0, 1), 1, False),  # back on the path
                ((3, 1), (1, 1), 1, True),  # same column again: chase
                ((4, 4), (0, 1), 1, False),  # unseen: back toward (0, 2)
                ((4, 4), (0, 2), 2, False),
            ],
        ),
    ],
)
def test_chase_then_resume_path(shape, sight, script):
    game = game_with(monster(ROW0, steps=1, sight_range=sight, sight_shape=shape))
    state = table(game, progress=0)
    for child, cell, progress, chasing in script:
        got_cell, got_progress, got_chasing, outcome = phase_of(game, state, child)
        assert (got_cell, got_progress, got_chasing, outcome) == (cell, progress, chasing, 0), child
        state.monster_cell, state.progress, state.chasing = cell_of(*got_cell), got_progress, got_chasing


# The card's decision (the rules page is silent): "Progress along the path advances whenever the monster steps
# onto the next path cell (also in a chase)", and only onto the next one.
@pytest.mark.parametrize(
    "monster_cell, progress, child, expected",
    [
        ((0, 0), 0, (0, 3), ((0, 1), 1, True, 0)),  # chases along row 0 onto path[1]: progress 1
        ((1, 1), 0, (0, 2), ((0, 1), 1, True, 0)),  # from off the path, up (vertical first) onto path[1]: 1
        ((1, 2), 0, (0, 3), ((0, 2), 0, True, 0)),  # up onto path[2], not the next cell: progress stays 0
        ((1, 0), 0, (3, 0), ((2, 0), 0, True, 0)),  # a chase off the path keeps the progress
    ],
)
def test_a_chase_step_onto_the_next_path_cell_is_progress(monster_cell, progress, child, expected):
    game = game_with(monster(ROW0, steps=1, sight_range=3, sight_shape="radius"))
    state = table(game, progress=progress)
    state.monster_cell = cell_of(*monster_cell)
    assert phase_of(game, state, child) == expected


@pytest.mark.parametrize("steps, expected", [(1, (3, 0)), (2, (2, 0)), (3, (1, 0)), (4, (0, 0))])
def test_steps_per_turn(steps, expected):
    game = game_with(monster([(4, 0), (3, 0), (2, 0), (1, 0), (0, 0), (0, 1)], steps=steps))
    state = table(game)
    cell, progress, _, _ = phase_of(game, state, (4, 4))
    assert (cell, progress) == (expected, steps)


# ---------------------------------------------------------------- catches
@pytest.mark.parametrize(
    "child, monster_path, steps, sight, outcome",
    [
        ((3, 4), [(1, 4), (0, 4)], 2, 2, CAUGHT),  # sees the child 2 below, reaches it on step 2
        ((3, 4), [(1, 4), (0, 4)], 1, 2, 0),  # one step is not enough this turn
        ((3, 4), [(2, 3), (3, 3), (3, 4), (4, 4)], 1, 0, 0),  # blind: steps to (3, 3), beside the child
        ((3, 3), [(2, 3), (3, 3), (3, 4), (4, 4)], 1, 0, CAUGHT),  # blind, but its path walks onto the child
    ],
)
def test_catch_during_monster_phase(child, monster_path, steps, sight, outcome):
    game = game_with(monster(monster_path, steps=steps, sight_range=sight), episode="round")
    tiles = {(3, 4): "red 1", (3, 3): "red 2"}
    state = table(game, tiles=tiles, child=child, phase=SEARCH)
    game.apply_action(state, NO_SEARCH, rng())  # ends the turn: the monster moves
    if outcome:
        assert state.results == [outcome] and state.phase == OVER
        assert game.returns(state).tolist() == [-1.0]
    else:
        assert state.results == [] and state.phase in (MOVE, SEARCH) and state.turn == 2


def test_a_catch_ends_the_monster_phase_at_that_step():
    # "The round ends": fail when the monster is on the child's cell after any monster step, so the
    # monster takes none of its remaining steps
    game = game_with(monster([(1, 4), (0, 4)], steps=3, sight_range=2))
    state = table(game, child=(2, 4))
    cell, progress, chasing, outcome, trail = game.monster_phase(0, state.monster_cell, 0, cell_of(2, 4))
    assert (coords(cell), outcome, chasing) == ((2, 4), CAUGHT, True)
    assert [coords(c) for c in trail] == [(2, 4)]  # one step entered the child's cell; none after it


def test_a_blind_monster_that_walks_through_the_child_catches_it_on_that_step():
    # "A round" 3, fail: "the monster is on the child's cell (after any monster step)": a blind monster whose
    # path runs over the child's cell catches it there, and the phase ends at that step: the monster takes none of
    # its remaining steps (its path would lead on to (4, 3); a monster on the child's cell always sees it, so a
    # further step would only stay there as a chase: the trail and the chasing flag below tell the difference)
    game = game_with(monster([(2, 3), (3, 3), (4, 3), (4, 2), (4, 1)], steps=2, sight_range=0), episode="round")
    state = table(game, tiles={(3, 4): "red 1", (3, 3): "red 2"}, child=(3, 3), phase=SEARCH)
    cell, progress, chasing, outcome, trail = game.monster_phase(0, state.monster_cell, 0, cell_of(3, 3))
    assert (coords(cell), progress, chasing, outcome) == ((3, 3), 1, False, CAUGHT)
    assert [coords(c) for c in trail] == [(3, 3)]  # the second step is never taken
    game.apply_action(state, NO_SEARCH, rng())  # ends the turn: the monster moves
    assert state.results == [CAUGHT] and state.phase == OVER
    assert game.returns(state).tolist() == [-1.0]


# A slow path far from the start cell: a new round gives the child a decision before anything ends it.
FAR_PATH = [(0, 4), (0, 3)] * 10


@pytest.mark.parametrize("episode, over", [("round", True), ("match", False)])
def test_a_failed_round_ends_a_round_episode_but_not_a_match(episode, over):
    # "A match": an episode is one match by default; the episode="round" option makes it a single round
    game = game_with(monster(FAR_PATH, steps=2, sight_range=2), episode=episode)
    state = table(game, tiles={(3, 4): "red 1", (2, 4): "red 2"}, child=(2, 4), phase=SEARCH)
    game.apply_action(state, NO_SEARCH, rng())  # the monster sees the child and reaches it on step 2
    assert state.results == [CAUGHT] and state.fails == 1
    assert game.is_terminal(state) == over and (state.phase == OVER) == over
    if over:
        assert game.legal_actions(state) == [] and game.returns(state).tolist() == [-1.0]
    else:  # the next round of the match starts and waits for the child
        assert state.rounds == 2 and state.phase in (MOVE, SEARCH) and coords(state.child) == (4, 4)


# ------------------------------------------------------------ child moves
def test_child_steps_twice_over_explored_cells_then_searches():
    game = game_with(monster([(0, 4), (0, 3)] * 10))
    state = table(game, tiles={(3, 4): "red 1", (2, 4): "red 2", (2, 3): "red 3"})
    assert game.legal_actions(state) == [N, STOP_MOVING]  # west (4, 3) is dark
    game.apply_action(state, STEP + N, rng())
    assert (coords(state.child), state.phase, game.legal_actions(state)) == ((3, 4), MOVE, [N, S, STOP_MOVING])
    game.apply_action(state, STEP + N, rng())
    assert (coords(state.child), state.phase) == ((2, 4), SEARCH)  # two steps used: the move phase is over


def test_child_may_not_step_onto_the_monster():
    game = game_with(monster([(3, 4), (3, 3), (3, 2), (3, 1)], steps=1))
    state = table(game, tiles={(3, 4): "red 1", (4, 3): "red 2"}, monster_cell=(3, 4), progress=0)
    assert game.legal_actions(state) == [W, STOP_MOVING]
    assert "monster" in game.illegal_reason(state, STEP + N)
    assert "edge of the room" in game.illegal_reason(state, STEP + E)
    state.board[cell_of(4, 3)] = -1
    assert "unexplored" in game.illegal_reason(state, STEP + W)


def test_move_phase_is_skipped_when_no_step_is_possible():
    game = game_with(monster([(0, 4), (0, 3)] * 10))
    state = game.initial_state(rng())
    assert state.phase == SEARCH and game.legal_actions(state) == [SEARCH_PILE, NO_SEARCH]


# ----------------------------------------------------------- connect rule
@pytest.mark.parametrize(
    "drawn, under, ok",
    [
        ("red 3", "red 5", True),  # same colour, even with a smaller number
        ("blue 4", "red 3", True),  # greater number
        ("blue 3", "red 3", False),  # equal number, other colour
        ("blue 2", "red 3", False),  # smaller number, other colour
        ("red 1", "red 6", True),
        ("yellow 6", "green 6", False),
        ("green 1", "start", True),  # anything connects to the start tile (number 0)
    ],
)
def test_connect_rule(drawn, under, ok):
    under_id = START_TILE if under == "start" else tile(under)
    assert connects(tile(drawn), under_id) is ok


@pytest.mark.parametrize(
    "child, under, drawn, placed_phase, legal",
    [
        ((4, 4), None, "green 1", PLACING, [PLACE + N, PLACE + W, DECLINE]),  # start corner: two dark cells
        ((2, 2), "red 3", "red 1", PLACING, [PLACE + N, PLACE + S, PLACE + W, DECLINE]),  # east (2, 3) explored
        ((2, 2), "red 3", "blue 4", PLACING, [PLACE + N, PLACE + S, PLACE + W, DECLINE]),
        ((2, 2), "red 3", "blue 3", None, None),  # does not connect: straight to memory, no choice
        ((0, 4), "red 3", "red 5", PLACING, [PLACE + W, DECLINE]),  # corner, south explored
    ],
)
def test_placement_choices(child, under, drawn, placed_phase, legal):
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    tiles = {(2, 3): "yellow 1", (1, 4): "yellow 2"}
    if under:
        tiles[child] = under
    state = table(game, tiles=tiles, child=child, phase=SEARCH, pile=["green 6", drawn])
    game.apply_action(state, SEARCH_PILE, rng())
    if placed_phase is None:
        assert state.memory == [tile(drawn)] and state.phase != PLACING
    else:
        assert state.phase == PLACING and state.drawn == tile(drawn)
        assert game.legal_actions(state) == legal


def test_place_on_chosen_cell_and_decline():
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    state = table(game, phase=SEARCH, pile=["green 6", "red 2"])
    game.apply_action(state, SEARCH_PILE, rng())
    game.apply_action(state, PLACE + W, rng())
    assert state.board[cell_of(4, 3)] == tile("red 2") and state.board[cell_of(3, 4)] == -1
    assert state.memory == [] and state.pile == [tile("green 6")]
    # declining a pile tile puts it in memory
    state = table(game, phase=SEARCH, pile=["green 6", "red 2"])
    game.apply_action(state, SEARCH_PILE, rng())
    game.apply_action(state, DECLINE, rng())
    assert state.memory == [tile("red 2")] and state.board[cell_of(4, 3)] == -1


# ------------------------------------------------------- memory and spill
def test_spill_at_the_sixth_memory_tile():
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    memory = ["blue 1", "blue 2", "green 1", "green 2", "yellow 1"]
    state = table(game, tiles={(4, 4): "red 6"}, memory=memory, phase=SEARCH, pile=["red 1", "yellow 2", "blue 3"])
    game.apply_action(state, SEARCH_PILE, rng())  # blue 3 does not connect to red 6: a sixth memory tile
    assert state.memory == []
    assert sorted(state.pile) == sorted(tile(n) for n in memory + ["red 1", "yellow 2", "blue 3"])


def test_fifth_memory_tile_does_not_spill():
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    memory = ["blue 1", "blue 2", "green 1", "green 2"]
    state = table(game, tiles={(4, 4): "red 6"}, memory=memory, phase=SEARCH, pile=["red 1", "blue 3"])
    game.apply_action(state, SEARCH_PILE, rng())
    assert state.memory == sorted(tile(n) for n in memory + ["blue 3"]) and state.pile == [tile("red 1")]


@pytest.mark.parametrize(
    "under, memory, slot, then, expected_memory, placed",
    [
        # memory is sorted by tile id (red before blue): slot 0 = red 5, slot 1 = blue 2
        ("red 3", ["blue 2", "red 5"], 0, PLACE + N, ["blue 2"], "red 5"),  # placed north
        ("red 3", ["blue 2", "red 5"], 0, DECLINE, ["blue 2", "red 5"], None),  # declined: back in memory
        ("red 3", ["blue 2", "red 5"], 1, None, ["blue 2", "red 5"], None),  # blue 2 cannot connect: stays
    ],
)
def test_searching_memory(under, memory, slot, then, expected_memory, placed):
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    state = table(game, tiles={(4, 4): under}, memory=memory, phase=SEARCH)
    pile_before = list(state.pile)
    game.apply_action(state, SEARCH_MEMORY + slot, rng())
    if then is None:
        assert state.phase != PLACING and state.turn == 2  # the turn simply ended
    else:
        assert state.phase == PLACING and state.drawn_from_memory
        game.apply_action(state, then, rng())
    assert state.memory == sorted(tile(n) for n in expected_memory)
    assert state.pile == pile_before  # memory searches never touch the pile
    if placed:
        assert state.board[cell_of(3, 4)] == tile(placed)


def test_empty_pile_allows_only_memory_searches():
    game = game_with(monster([(0, 0), (1, 0)] * 10))
    state = table(game, memory=["red 2", "blue 5"], phase=SEARCH, pile=[])
    assert game.legal_actions(state) == [SEARCH_MEMORY, SEARCH_MEMORY + 1, NO_SEARCH]
    assert "pile is empty" in game.illegal_reason(state, SEARCH_PILE)
    # with memory empty too there is nothing to decide: the search phase is skipped
    state = table(game, tiles={(3, 4): "red 1"}, phase=MOVE, pile=[])
    game.apply_action(state, STOP_MOVING, rng())
    assert state.turn == 2 and state.phase == MOVE


# ---------------------------------------------------------- round endings
@pytest.mark.parametrize("episode, phase_after, rounds", [("round", OVER, 1), ("match", SEARCH, 2)])
def test_escape(episode, phase_after, rounds):
    game = game_with(monster([(4, 0), (4, 1)] * 10), episode=episode)
    state = table(game, tiles={(0, 1): "red 1", (0, 0): "red 2"}, child=(0, 1))
    game.apply_action(state, STEP + W, rng())
    assert state.results == [ESCAPED] and state.escapes == 1
    assert state.phase == phase_after and state.rounds == rounds
    if episode == "match":  # a fresh round: start tile only, child back on (4, 4)
        assert coords(state.child) == (4, 4) and state.board.count(-1) == 24


def test_the_second_step_of_a_turn_onto_the_exit_escapes():
    # "A round" 3, escape: the round is won when the child stands on (0, 0), whichever of its (up to 2) steps
    # of the move phase brings it there
    game = game_with(monster([(4, 0), (4, 1)] * 10), episode="round")
    state = table(game, tiles={(0, 2): "red 1", (0, 1): "red 2", (0, 0): "red 3"}, child=(0, 2))
    game.apply_action(state, STEP + W, rng())
    assert state.results == [] and state.steps_taken == 1
    game.apply_action(state, STEP + W, rng())
    assert state.results == [ESCAPED] and state.phase == OVER and game.returns(state).tolist() == [1.0]


def test_end_of_path_fail():
    game = game_with(monster([(0, 0), (0, 1), (0, 2)], steps=1), episode="round")
    state = table(game, progress=1, phase=SEARCH)
    game.apply_action(state, NO_SEARCH, rng())
    assert state.results == [MONSTER_EXITED] and state.phase == OVER and coords(state.monster_cell) == (0, 2)


def test_turn_limit():
    game = game_with(monster([(0, 0), (0, 1)] * 20), episode="round", max_turns=3)
    state = game.initial_state(rng())
    for turn in (1, 2, 3):
        assert state.turn == turn and state.phase == SEARCH
        game.apply_action(state, NO_SEARCH, rng())
    assert state.results == [TURN_LIMIT] and state.phase == OVER and game.returns(state).tolist() == [-1.0]


# ------------------------------------------------------------ match scoring
@pytest.mark.parametrize(
    "outcomes, reward, over_after, total",
    [
        ([ESCAPED, ESCAPED], "match", 2, 1.0),
        ([CAUGHT, ESCAPED, TURN_LIMIT, ESCAPED], "match", 4, 1.0),
        ([CAUGHT, MONSTER_EXITED, CAUGHT], "match", 3, -1.0),
        ([ESCAPED, CAUGHT, CAUGHT, CAUGHT], "match", 4, -1.0),
        ([ESCAPED, CAUGHT, ESCAPED], "per_round", 3, 1.0),
        ([CAUGHT, ESCAPED, CAUGHT, CAUGHT], "per_round", 4, -2.0),
    ],
)
def test_match_scoring(outcomes, reward, over_after, total):
    game = HiddenRoomsGame(reward=reward)
    state = game.initial_state(rng())
    returns = []
    for k, outcome in enumerate(outcomes, start=1):
        game._end_round(state, outcome)
        returns.append(float(game.returns(state)[0]))
        assert game.is_terminal(state) == (k == over_after)
    assert returns[-1] == total
    if reward == "match":
        assert all(r == 0.0 for r in returns[:-1])  # nothing paid before the match ends


@pytest.mark.parametrize("reward, total", [("match", -1.0), ("per_round", -3.0)])
def test_match_of_instant_fails(reward, total):
    # a monster one step from the end of its path fails every round in its first phase
    game = game_with(monster([(0, 0), (0, 1)]), reward=reward)
    state = game.initial_state(rng())
    assert state.results == [MONSTER_EXITED] * 3 and game.is_terminal(state)
    assert game.returns(state).tolist() == [total]


# ------------------------------------------------------------------ declared outcomes
@pytest.mark.parametrize("options, bounds, max_decisions", [
    ({}, (-1.0, 1.0), 4 * 60 * 4),  # a match: at most four rounds (two escapes or three fails end it)
    ({"episode": "round"}, (-1.0, 1.0), 4 * 60),  # four decisions a turn: two steps, a search, a placement
    ({"reward": "per_round"}, (-3.0, 2.0), 4 * 60 * 4),  # three fails lose, two escapes win
    ({"reward": "per_round", "episode": "round", "max_turns": 9}, (-1.0, 1.0), 4 * 9),
])
def test_bounds_and_length_follow_the_options(options, bounds, max_decisions):
    game = HiddenRoomsGame(**options)  # the shipped booklet
    assert (game.return_bounds(), game.max_decisions(), game.is_zero_sum()) == (bounds, max_decisions, False)


def test_shaping_raises_the_highest_return_by_its_weight():
    from kakurega.envs.hidden_rooms.shaping import ShapedHiddenRoomsGame

    game = ShapedHiddenRoomsGame(reward="per_round", shaping=0.5)
    assert game.return_bounds() == (-3.0, 2.5)  # the potential lies in [0, 1]


# ------------------------------------------------------ rounds that cannot be won
ROUTE = [(3, 4), (2, 4), (1, 4), (0, 4), (0, 3), (0, 2), (0, 1), (0, 0)]
LUCKY = ["red 1", "red 2", "red 3", "red 4", "red 5", "blue 6", "blue 1", "blue 2"]  # each connects to the one before


def _fastest_round(game):
    """A round played as fast as the rules allow: the pile's top tiles connect in turn along ROUTE, one placed a
    turn, the child stepping onto each the turn after. Returns (last turn, outcomes)."""
    state = game.initial_state(rng())
    lucky = [tile(name) for name in LUCKY]
    state.pile = [t for t in state.pile if t not in lucky] + lucky[::-1]
    placed = 0
    while state.phase != OVER:
        if state.phase == MOVE:
            target = cell_of(*ROUTE[placed - 1])
            (r, c), (tr, tc) = coords(state.child), coords(target)
            action = STOP_MOVING if state.child == target else STEP + {(-1, 0): N, (0, -1): W}[(tr - r, tc - c)]
        elif state.phase == SEARCH:
            action = SEARCH_PILE
        else:
            (r, c), (tr, tc) = coords(state.child), ROUTE[placed]
            action, placed = PLACE + {(-1, 0): N, (0, -1): W}[(tr - r, tc - c)], placed + 1
        assert action in game.legal_actions(state)
        game.apply_action(state, action, rng())
    return state.turn, state.results


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_the_earliest_escape_and_the_paths_walked_before_it(steps):
    """The fastest round escapes in turn EARLIEST_ESCAPE_TURN; a blind monster whose path is walked by then
    (exit_turn <= 9) ends it first, one a cell longer does not. unwinnable() names the first, not the second."""
    from kakurega.envs.hidden_rooms.rules import EARLIEST_ESCAPE_TURN

    far = [(4, 0), (4, 1)] * 40
    short = game_with(monster(far[:EARLIEST_ESCAPE_TURN * steps + 1], steps=steps), episode="round")
    long = game_with(monster(far[:EARLIEST_ESCAPE_TURN * steps + 2], steps=steps), episode="round")
    assert short.exit_turn(0) == EARLIEST_ESCAPE_TURN and long.exit_turn(0) == EARLIEST_ESCAPE_TURN + 1
    assert _fastest_round(short) == (EARLIEST_ESCAPE_TURN, [MONSTER_EXITED])
    assert _fastest_round(long) == (EARLIEST_ESCAPE_TURN, [ESCAPED])
    assert len(short.unwinnable()) == 1 and "only while a chase holds it back" in short.unwinnable()[0]
    assert long.unwinnable() == []


def test_a_turn_limit_before_the_earliest_escape_is_named():
    far = [(4, 0), (4, 1)] * 40
    assert _fastest_round(game_with(monster(far), episode="round", max_turns=9)) == (9, [ESCAPED])
    assert _fastest_round(game_with(monster(far), episode="round", max_turns=8)) == (8, [TURN_LIMIT])
    assert game_with(monster(far), max_turns=9).unwinnable() == []
    assert "max_turns = 8: no round can be escaped" in game_with(monster(far), max_turns=8).unwinnable()[0]
