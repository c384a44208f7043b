"""A connecting tile may be placed on the exit cell (0, 0), like on any other unexplored neighbour.

../shared/rules/hidden_rooms.md, "A round" > "Child searches": "The tile may be placed on an unexplored cell
orthogonally adjacent to the child's cell if it *connects*"; the way out is the top-left cell (0, 0)
("Components") and it starts unexplored like every cell but (4, 4). Nothing exempts it.
"""

from hidden_rooms.hidden_rooms_helpers import game_with, monster, rng, table, tile
from kakurega.envs.hidden_rooms.rules import DECLINE, ESCAPED, MOVE, PLACE, PLACING, SEARCH, SEARCH_PILE, STEP, cell_of

N, E, S, W = 0, 1, 2, 3


def child_beside_the_exit(drawn):
    """The child on (0, 1) (a red 3); (0, 2) and (1, 1) are explored, so (0, 0) is its only unexplored neighbour.
    The pile's top is ``drawn``. A blind, slow monster far away."""
    game = game_with(monster([(4, 0), (4, 1)] * 10))
    tiles = {(0, 1): "red 3", (0, 2): "blue 1", (1, 1): "yellow 1"}
    return game, table(game, tiles=tiles, child=(0, 1), phase=SEARCH, pile=["green 6", drawn])


def test_a_connecting_tile_may_be_placed_on_the_exit_cell():
    game, state = child_beside_the_exit("red 5")  # same colour as the red 3: it connects
    assert state.board[cell_of(0, 0)] == -1  # unexplored
    game.apply_action(state, SEARCH_PILE, rng())
    assert state.phase == PLACING and state.drawn == tile("red 5") and state.memory == []
    assert game.legal_actions(state) == [PLACE + W, DECLINE]  # west of (0, 1) is the exit cell
    game.apply_action(state, PLACE + W, rng())
    assert state.board[cell_of(0, 0)] == tile("red 5") and state.memory == []
    # the exit is now explored: next turn the child steps onto it and escapes
    assert state.phase == MOVE and STEP + W in game.legal_actions(state)
    game.apply_action(state, STEP + W, rng())
    assert state.results == [ESCAPED] and state.escapes == 1


def test_a_tile_that_does_not_connect_goes_to_memory_even_beside_the_exit():
    game, state = child_beside_the_exit("blue 2")  # another colour, a smaller number: no connection to the red 3
    game.apply_action(state, SEARCH_PILE, rng())
    assert state.phase != PLACING and state.memory == [tile("blue 2")]
    assert state.board[cell_of(0, 0)] == -1
