"""Hidden Rooms' picture: the monster's sight drawn as the rules define it, the exit never covered."""

from __future__ import annotations

import pytest
from conformance import random_states

from kakurega.envs.core.picture import Circle, Polygon, Rect, text_box
from kakurega.envs.hidden_rooms.booklet import GRID
from kakurega.envs.registry import make

SIGHT = "in the monster's sight"


def sight_drawn(raw, scene) -> set[int]:
    """The cells ringed as in the monster's sight, read back from the shapes' places."""
    boxes = {raw.picture.cell_box(cell): cell for cell in range(GRID * GRID)}
    return {boxes[(s.x - 7, s.y - 7)] for s in scene.shapes if isinstance(s, Rect) and s.label.startswith(SIGHT)}


def test_the_sight_drawn_is_the_rules_sight_cells():
    raw = make("hidden_rooms_v0", wrapped=False).unwrapped
    game = raw.game
    states = [s for s in random_states(game, seed=2, num_games=3, every=4) if s.board][:80]
    sights = []
    for state in states:
        rules = {c for c in range(GRID * GRID) if game.sees(state.monster, state.monster_cell, c)}
        for view in (None, 0):
            assert sight_drawn(raw, raw.picture.scene(state, view)) == rules
        sights.append(rules)
    assert len({len(s) for s in sights}) >= 3  # monsters that see differently were met
    # control: the check tells one sight from another
    other = next(s for s in sights if s != sights[0])
    assert sight_drawn(raw, raw.picture.scene(states[0], 0)) != other


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def box_of(shape):
    if isinstance(shape, Rect):
        return shape.x, shape.y, shape.x + shape.w, shape.y + shape.h
    if isinstance(shape, Circle):
        return shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r
    xs, ys = [p[0] for p in shape.points], [p[1] for p in shape.points]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("who", ["monster", "child"])
def test_the_exit_sign_is_never_covered(who):
    env = make("hidden_rooms_v0", wrapped=False)
    env.reset(seed=0)
    state = env.game_state
    if who == "monster":
        state.monster_cell = 0
    else:
        state.child = 0
    scene = env.scene("player_0")
    sign = next(i for i, s in enumerate(scene.shapes) if isinstance(s, Rect) and s.label.startswith("the exit"))
    word = next(i for i, s in enumerate(scene.shapes) if getattr(s, "text", "") == "EXIT")
    assert overlaps(box_of(scene.shapes[sign]), text_box(scene.shapes[word]))
    x0, y0, x1, y1 = box_of(scene.shapes[sign])
    assert x1 <= env.unwrapped.picture.cell_box(0)[0] - 6  # left of the room's wall
    figures = [s for s in scene.shapes[sign + 1:] if isinstance(s, (Circle, Polygon, Rect))]
    assert not [s for s in figures if overlaps(box_of(s), (x0, y0, x1, y1))]
