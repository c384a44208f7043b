"""The heuristic's move features (what the shipped pretrained bot reads) measure what their columns say,
on hand-made tables."""

import numpy as np

from hidden_rooms.hidden_rooms_helpers import game_with, monster, table
from kakurega.agents.base import AgentContext
from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsMoveFeatures
from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver
from kakurega.envs.hidden_rooms.rules import MOVE, NUM_ACTIONS, STOP_MOVING

PER_ACTION = HiddenRoomsMoveFeatures.PER_ACTION
OPENS_BEST, OPENS_FORWARD = 7, 8  # move phase: a placement from the cell opens a best route / only a nearer cell


def stop_row(game, state) -> np.ndarray:
    """The move features of ending the move phase where the child stands."""
    observer = HiddenRoomsObserver(game)
    context = AgentContext(env_name="hidden_rooms_v0", layout=observer.layout, num_actions=NUM_ACTIONS,
                           num_players=1, rules=game.rules_config())
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    assert mask[STOP_MOVING]
    rows = HiddenRoomsMoveFeatures(context)({"observation": observer.encode(state, 0), "action_mask": mask})
    return rows.reshape(NUM_ACTIONS, PER_ACTION)[STOP_MOVING]


def test_a_dark_neighbour_on_a_best_route_counts_as_opening_the_best_route():
    """On the start tile with nothing explored, the dark cells next to it are on a best way to the exit: the
    stop row has a chance of opening a best route and none of opening only a nearer cell."""
    game = game_with(monster([(4, 0), (4, 1)] * 10))  # blind, slow and far away
    row = stop_row(game, table(game, child=(4, 4), phase=MOVE))
    assert row[0] == 1 and row[1] == 1  # legal, and the child survives the monster's phase
    assert row[OPENS_BEST] > 0
    assert row[OPENS_FORWARD] == 0


def test_a_dark_neighbour_only_nearer_the_exit_counts_as_opening_forward():
    """Standing at (1, 4) next to an explored row that leads to the exit's doorstep, the best way out is back
    along that row; the dark cell (1, 3) is nearer the exit but on no best route: the stop row has a chance of
    opening only a nearer cell and none of opening a best route."""
    game = game_with(monster([(4, 0), (4, 1)] * 10))
    explored = {(0, 1): "red 1", (0, 2): "red 2", (0, 3): "red 3", (0, 4): "red 4", (1, 4): "red 5"}
    row = stop_row(game, table(game, tiles=explored, child=(1, 4), phase=MOVE))
    assert row[0] == 1 and row[1] == 1
    assert row[OPENS_BEST] == 0
    assert row[OPENS_FORWARD] > 0
