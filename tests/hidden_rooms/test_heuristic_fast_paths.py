"""The Hidden Rooms heuristic's fast paths give the plain code's values, bit for bit.

The observation is read from one list (not piece by piece), the connect and
follow chances are counted on bitmasks (not by summing ``connects`` over
lists), and a cell's measurements are remembered between the two decisions
of a move phase. Each is compared with the plain computation on the
observations of seeded games, with a control that shows the comparison can
fail.
"""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent, choose_action
from kakurega.agents.heuristics import hidden_rooms
from kakurega.agents.heuristics.hidden_rooms import NC, NN, HiddenRoomsHeuristic, HiddenRoomsMoveFeatures
from kakurega.envs import hidden_rooms_v0
from kakurega.envs.hidden_rooms.rules import EMPTY, MOVE, START_TILE, connects

OPTIONS = {"episode": "round"}


@pytest.fixture(scope="module")
def played():
    """``(context, observations)`` of seeded rounds: the heuristic's, and random play's (other tables)."""
    env = hidden_rooms_v0.env(**OPTIONS)
    context = AgentContext.from_env(env, "hidden_rooms_v0", OPTIONS)
    observations = []
    for seed in range(12):
        agent = (HiddenRoomsHeuristic if seed % 2 else RandomAgent)(context, seed=seed)
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            observations.append({"observation": observation["observation"].copy(),
                                 "action_mask": observation["action_mask"].copy()})
            env.step(choose_action(agent, env, name, observation))
    return context, observations


def plain_decode(heuristic: HiddenRoomsHeuristic, observation: dict) -> dict:
    """The table read piece by piece through the layout."""
    piece = lambda name: heuristic.context.layout.view(observation["observation"], name)  # noqa: E731
    colours, numbers = piece("tile_colour").reshape(-1, NC), piece("tile_number").reshape(-1, NN)
    ids = np.where(colours.any(axis=1), colours.argmax(axis=1) * NN + numbers.argmax(axis=1), -1)
    board = np.where(piece("explored").ravel() > 0, np.where(ids < 0, START_TILE, ids), EMPTY).tolist()
    monster = int(piece("monster_id").argmax())
    memory = [int(row[:NC].argmax()) * NN + int(row[NC:].argmax()) for row in piece("memory") if row[:NC].any()]
    drawn = piece("drawn")
    return {
        "board": board,
        "child": int(piece("child").argmax()),
        "monster": monster,
        "monster_cell": int(piece("monster").argmax()),
        "progress": int(round(float(piece("path_progress")[0]) * (len(heuristic.game.paths[monster]) - 1))),
        "chasing": bool(piece("chasing")[0]),
        "memory": memory,
        "pile": np.flatnonzero(piece("pile_tiles").ravel()).tolist(),
        "drawn": int(drawn[:NC].argmax()) * NN + int(drawn[NC:].argmax()) if drawn[:NC].any() else -1,
        "steps_left": 2 - int(round(float(piece("steps_taken")[0]) * 2)),
    }


def decode_differences(heuristic, observations) -> int:
    differences = 0
    for observation in observations:
        fast, plain = heuristic._decode(observation), plain_decode(heuristic, observation)
        differences += any(fast[key] != value for key, value in plain.items())
    return differences


def test_the_observation_is_read_as_the_layout_says(played):
    context, observations = played
    heuristic = HiddenRoomsHeuristic(context)
    decoded = [heuristic._decode(o) for o in observations]
    assert {len(v["memory"]) for v in decoded} >= {0, 1, 2} and any(v["drawn"] >= 0 for v in decoded)
    assert decode_differences(heuristic, observations) == 0


def test_control_a_misread_piece_is_caught(played):
    context, observations = played
    heuristic = HiddenRoomsHeuristic(context)
    heuristic._at["pile_tiles"] += 1  # the pile read one entry off
    assert decode_differences(heuristic, observations) > 0


def plain_chances(view: dict) -> tuple[list, list]:
    """Connect chance of every tile under the child, follow chance of every unplaced tile, summed over lists."""
    memory, pile = view["memory"], view["pile"]
    connect = [1.0 if any(connects(t, u) for t in memory) else
               (sum(connects(t, u) for t in pile) / len(pile) if pile else 0.0) for u in range(NC * NN + 1)]
    follow = []
    for tile in pile + memory:
        others = [t for t in pile + memory if t != tile]
        follow.append(sum(connects(t, tile) for t in others) / len(others) if others else 0.0)
    return connect, follow


def chance_differences(heuristic, observations) -> int:
    differences = 0
    for observation in observations:
        view = heuristic._decode(observation)
        connect = [heuristic._connect_chance_now(view, u) for u in range(NC * NN + 1)]
        follow = [heuristic._follow_chance(view, t) for t in view["pile"] + view["memory"]]
        differences += (connect, follow) != plain_chances(view)
    return differences


def test_the_chances_counted_on_bitmasks_are_the_plain_sums(played):
    context, observations = played
    assert chance_differences(HiddenRoomsHeuristic(context), observations[::3]) == 0


def test_control_a_wrong_connect_table_is_caught(played, monkeypatch):
    context, observations = played
    table = list(hidden_rooms._CONNECTING)
    table[3] ^= 1 << 20  # one tile said to connect (or not) onto tile 3 against the rule
    monkeypatch.setattr(hidden_rooms, "_CONNECTING", table)
    assert chance_differences(HiddenRoomsHeuristic(context), observations[::3]) > 0


def parts_differences(heuristic, observations) -> tuple[int, int]:
    """(move decisions checked, their cells whose remembered parts differ from a fresh measurement)."""
    checked = differences = 0
    for observation in observations:
        if int(heuristic.piece(observation, "phase").argmax()) != MOVE or not observation["action_mask"].any():
            continue
        view = heuristic._decode(observation)
        need = heuristic._need(view["board"])
        fresh = HiddenRoomsHeuristic(heuristic.context)
        reach = heuristic._reachable(view["board"], view["child"], view["monster_cell"], view["steps_left"])
        checked += 1
        differences += sum(heuristic._cell_parts(view, cell, need) != fresh._measure_cell(view, cell, need)
                           for cell in reach)
    return checked, differences


def test_remembered_cell_measurements_are_fresh_ones(played):
    context, observations = played
    heuristic = HiddenRoomsHeuristic(context)
    checked, differences = parts_differences(heuristic, observations)
    assert checked > 100 and differences == 0


def test_control_measurements_kept_across_tables_are_caught(played):
    context, observations = played
    heuristic = HiddenRoomsHeuristic(context)
    real = heuristic._cell_parts

    def stale(view, cell, need):  # remembers by cell alone, whatever the table
        remembered = heuristic.__dict__.setdefault("_stale", {})
        if cell not in remembered:
            remembered[cell] = real(view, cell, need)
        return remembered[cell]

    heuristic._cell_parts = stale
    assert parts_differences(heuristic, observations)[1] > 0


def test_the_features_in_sequence_equal_those_of_a_fresh_instance(played):
    """What the features remember between decisions never changes a row."""
    context, observations = played
    features = HiddenRoomsMoveFeatures(context)
    for observation in observations[::2]:
        assert np.array_equal(features(observation), HiddenRoomsMoveFeatures(context)(observation))
