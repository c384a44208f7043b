"""Summer's picture: the outline a browser draws around a legal square leaves the black/white frame whole,
and the belief rings differ from it in colour."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from kakurega.envs.core.picture import Circle, Rect
from kakurega.envs.registry import make
from kakurega.envs.summer_hide_and_seek.map_data import KIND_PATH
from kakurega.envs.summer_hide_and_seek.picture import STROKE

CSS = Path(__file__).resolve().parents[2] / "scripts" / "web" / "static" / "app.css"


def legal_outline() -> tuple[tuple[int, int, int], float]:
    """The colour and width the web app strokes a legal shape with (``app.css``)."""
    rule = re.search(r"\.legal \{([^}]*)\}", CSS.read_text()).group(1)
    colour = re.search(r"stroke: #([0-9a-f]{6})", rule).group(1)
    width = float(re.search(r"stroke-width: ([\d.]+)px", rule).group(1))
    return tuple(int(colour[i:i + 2], 16) for i in (0, 2, 4)), width


def seeker_scene():
    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not any(env.action_to_string(a).startswith("place") for a in env.legal_actions()):
        env.step(int(rng.choice(env.legal_actions())))
    return env, env.scene(env.agent_selection)


def test_the_legal_outline_leaves_every_frame_whole():
    env, scene = seeker_scene()
    game = env.unwrapped.game
    _, stroke = legal_outline()
    legal = set(env.legal_actions())
    faces = [s for s in scene.shapes if isinstance(s, Rect) and set(s.actions) & legal]
    frames = [s for s in scene.shapes if isinstance(s, Rect) and s.label.endswith(" frame")]
    framed = [f for f in faces if game.map.kinds[game.describe_action(sorted(f.actions)[-1])[1]] != KIND_PATH]
    assert len(framed) >= 10
    for face in framed:
        # the frame drawn inside this face
        frame = next(r for r in frames if face.x < r.x < face.x + face.w
                     and face.y < r.y < face.y + face.h)
        outer_band_inner_edge = face.x + stroke / 2  # the legal stroke is centred on the face's edge
        frame_outer_edge = frame.x - frame.width / 2
        assert frame_outer_edge - outer_band_inner_edge >= 1, face.label


def test_belief_rings_do_not_look_like_the_legal_outline():
    _, scene = seeker_scene()
    colour, _ = legal_outline()
    rings = {s.outline for s in scene.shapes if isinstance(s, Circle) and s.outline is not None and s.fill is None}
    assert rings
    for ring in rings:
        assert sum((a - b) ** 2 for a, b in zip(ring, colour)) ** 0.5 > 150, ring  # far apart in RGB
    assert sum((a - b) ** 2 for a, b in zip((250, 200, 40), colour)) ** 0.5 < 150  # control: the old yellow blended


def test_the_end_picture_shows_the_last_rounds_stroke_and_no_empty_announcements():
    """At the game's end every view draws the last round's revealed stroke (numbered 1..n), not an empty board."""
    from kakurega.envs.core.picture import Text

    env = make("summer_hide_and_seek_v2", wrapped=False)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(int(rng.choice(env.legal_actions())))
    state = env.game_state
    last_stroke = state.history[-1][1]
    assert len(last_stroke) >= 2
    for view in [None, *env.possible_agents]:
        shapes = env.scene(view).shapes
        texts = [s.text for s in shapes if isinstance(s, Text)]
        assert "none yet" not in texts and "the last round's stroke, in order" in texts
        # one numbered marker per stroke square (plus the legend's), the last square ringed
        markers = [s for s in shapes if isinstance(s, Circle) and s.fill == STROKE and s.r == 9]
        assert len(markers) == len(last_stroke)
        rings = [s for s in shapes if isinstance(s, Circle) and s.label == "the child's last square"]
        assert len(rings) == 1 and (rings[0].cx, rings[0].cy) == env.picture.centre(last_stroke[-1])
