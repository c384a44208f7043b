"""The picture of a Summer Hide-and-Seek table: the town map with its icons, the pieces and the panel.

Drawn from what the view may know, as the text renderer is: the child of the
round sees its own stroke (the squares in visit order, the current square
ringed) and its turn in progress; a seeker and a spectator see the public
belief (squares where the child may be, ringed in teal) instead. Everyone sees the
map, the pieces, the wrong guesses of the round (crossed), every
announcement and VP, and the revealed strokes of finished rounds (listed).
The step counter is not drawn during play (without ``paced_turns`` it counts
the child's hidden lines).

Clickable, in the view of the player to act only: every square (start
there, draw a line to it, place the piece on it) and buttons for stop and
continue. A framed square's clickable face is wider than its frame, so the
outline a browser draws around a legal square leaves the frame whole.
"""

from __future__ import annotations

import math

from kakurega.envs.core.picture import BLACK, WHITE, Circle, Line, Polygon, Rect, Scene, Text, button, last_move_mark
from kakurega.envs.summer_hide_and_seek.map_data import KIND_BLACK, KIND_NAMES, KIND_PATH
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, FOUND_STUCK, OVER, PHASE_NAMES, START

CELL = 62
MARGIN = 24
TOP = 64
#: the panel lists the round's last announcements and guess rows (earlier ones are counted), so it fits the picture
PANEL_ROWS = 4
PANEL_W = 380
GRASS = (170, 206, 130)
PATH = (236, 222, 182)
INK = (40, 40, 40)
#: a colour per seat for its piece
SEAT_COLOURS = ((214, 60, 50), (40, 100, 200), (40, 150, 70), (150, 70, 170))
STROKE = (230, 80, 20)
#: the belief rings: teal, unlike the orange a browser outlines legal squares with and the black/white frames
BELIEF = (0, 128, 140)
#: a framed square: its clickable face spans the cell less this margin, its frame sits this far inside the face,
#: so the outline a browser draws around a legal face never covers the frame
FACE_INSET, FRAME_INSET, FRAME_WIDTH = 1, 5, 4


def icon_shapes(cx: float, cy: float, r: float, name: str, letter: str) -> list:
    """A small drawing of an icon by name (sunflower, cicada, ...); other icons show their letter on a disc."""
    if name == "sunflower":
        petals = [Circle(cx + r * 0.6 * math.cos(a), cy + r * 0.6 * math.sin(a), r * 0.36, fill=(250, 200, 30))
                  for a in (k * math.pi / 4 for k in range(8))]
        return petals + [Circle(cx, cy, r * 0.4, fill=(110, 70, 30))]
    if name == "cicada":
        return [
            Polygon(((cx, cy - r * 0.2), (cx - r * 0.9, cy + r * 0.7), (cx - r * 0.2, cy + r * 0.8)),
                    fill=(200, 230, 230), outline=INK, width=1),
            Polygon(((cx, cy - r * 0.2), (cx + r * 0.9, cy + r * 0.7), (cx + r * 0.2, cy + r * 0.8)),
                    fill=(200, 230, 230), outline=INK, width=1),
            Circle(cx, cy - r * 0.1, r * 0.42, fill=(90, 70, 40), outline=INK, width=1),
            Circle(cx - r * 0.25, cy - r * 0.35, r * 0.12, fill=(220, 60, 40)),
            Circle(cx + r * 0.25, cy - r * 0.35, r * 0.12, fill=(220, 60, 40)),
        ]
    if name == "watermelon":
        arc = [(cx + r * math.cos(a), cy - r * 0.2 + r * math.sin(a)) for a in (k * math.pi / 12 for k in range(13))]
        inner = [(cx + r * 0.8 * math.cos(a), cy - r * 0.2 + r * 0.8 * math.sin(a))
                 for a in (k * math.pi / 12 for k in range(13))]
        rind = Polygon(tuple(arc), fill=(40, 140, 50), outline=INK, width=1)
        return [rind, Polygon(tuple(inner), fill=(230, 60, 70))] + [
            Circle(cx + r * dx, cy + r * dy, r * 0.07, fill=BLACK) for dx, dy in ((-0.35, 0.1), (0, 0.3), (0.35, 0.1))
        ]
    if name == "goldfish":
        return [
            Polygon(((cx + r * 0.3, cy), (cx + r * 0.95, cy - r * 0.5), (cx + r * 0.95, cy + r * 0.5)),
                    fill=(250, 120, 30), outline=INK, width=1),
            Circle(cx - r * 0.15, cy, r * 0.55, fill=(250, 110, 30), outline=INK, width=1),
            Circle(cx - r * 0.4, cy - r * 0.12, r * 0.1, fill=BLACK),
        ]
    if name == "beetle":
        return [
            Line(((cx - r * 0.8, cy - r * 0.3), (cx + r * 0.8, cy + r * 0.5)), fill=INK, width=1.5),
            Line(((cx + r * 0.8, cy - r * 0.3), (cx - r * 0.8, cy + r * 0.5)), fill=INK, width=1.5),
            Circle(cx, cy + r * 0.15, r * 0.55, fill=(60, 40, 30), outline=INK, width=1),
            Circle(cx, cy - r * 0.45, r * 0.25, fill=(40, 30, 20)),
            Line(((cx, cy - r * 0.6), (cx, cy - r * 1.0)), fill=(40, 30, 20), width=2),
        ]
    if name == "fireworks":
        rays = [Line(((cx + r * 0.25 * math.cos(a), cy + r * 0.25 * math.sin(a)),
                      (cx + r * math.cos(a), cy + r * math.sin(a))),
                     fill=((230, 40, 120), (40, 120, 230), (240, 180, 20))[k % 3], width=2)
                for k, a in enumerate(k * math.pi / 6 for k in range(12))]
        return rays + [Circle(cx, cy, r * 0.2, fill=(240, 180, 20))]
    return [Circle(cx, cy, r * 0.8, fill=(240, 240, 240), outline=INK, width=1), Text(cx, cy, letter, size=r)]


def terrain_shapes(x: float, y: float, name: str) -> list:
    """A terrain cell (not a square): house, forest, river, or a plain grey cell."""
    c = CELL
    if name == "house":
        return [
            Rect(x, y, c, c, fill=GRASS),
            Rect(x + c * 0.22, y + c * 0.45, c * 0.56, c * 0.42, fill=(230, 210, 180), outline=INK, width=1),
            Polygon(((x + c * 0.12, y + c * 0.48), (x + c * 0.5, y + c * 0.14), (x + c * 0.88, y + c * 0.48)),
                    fill=(170, 60, 50), outline=INK, width=1),
            Rect(x + c * 0.44, y + c * 0.64, c * 0.14, c * 0.23, fill=(120, 80, 50)),
        ]
    if name == "forest":
        trees = [Rect(x, y, c, c, fill=GRASS)]
        for dx, dy in ((0.3, 0.55), (0.7, 0.6), (0.5, 0.35)):
            tx, ty = x + c * dx, y + c * dy
            trees.append(Polygon(((tx - c * 0.18, ty + c * 0.2), (tx, ty - c * 0.22), (tx + c * 0.18, ty + c * 0.2)),
                                 fill=(40, 110, 50), outline=(20, 70, 30), width=1))
        return trees
    if name == "river":
        return [
            Rect(x, y, c, c, fill=(100, 160, 220)),
            Line(((x + c * 0.15, y + c * 0.35), (x + c * 0.35, y + c * 0.28), (x + c * 0.55, y + c * 0.38)),
                 fill=(200, 230, 250), width=1.5),
            Line(((x + c * 0.45, y + c * 0.68), (x + c * 0.65, y + c * 0.6), (x + c * 0.85, y + c * 0.7)),
                 fill=(200, 230, 250), width=1.5),
        ]
    return [Rect(x, y, c, c, fill=(160, 160, 160))]


def pawn_shapes(cx: float, cy: float, colour, seat: int) -> list:
    """A seeker's piece: a pawn in the seat's colour with its number."""
    return [
        Polygon(((cx - 11, cy + 14), (cx + 11, cy + 14), (cx + 5, cy - 2), (cx - 5, cy - 2)),
                fill=colour, outline=BLACK, width=1.2),
        Circle(cx, cy - 8, 8, fill=colour, outline=BLACK, width=1.2),
        Text(cx, cy + 7, str(seat), fill=WHITE, size=10),
    ]


class SummerHideAndSeekPicture:
    """``scene(state, view)``: the table as seat ``view`` (None: a spectator) sees it."""

    def __init__(self, game):
        self.game = game
        m = game.map
        self.width = MARGIN * 2 + m.width * CELL + PANEL_W
        self.height = max(TOP + m.height * CELL + 40, 640)

    def centre(self, square: int) -> tuple[float, float]:
        """Pixel centre of ``square``."""
        row, col = self.game.map.squares[square]
        return MARGIN + col * CELL + CELL / 2, TOP + row * CELL + CELL / 2

    def scene(self, state, view: int | None = None, last_move: tuple | None = None) -> Scene:
        """The table in a picture, drawn from what ``view`` may know; ``last_move`` ``(seat, action)`` is outlined.

        A seeker's piece is outlined for everyone; the child's start or line
        only in the child's own view.
        """
        game = self.game
        m = game.map
        touched = self._touched(state, view, last_move)
        scene = Scene(self.width, self.height, background=(250, 246, 236), title=m.name)
        add = scene.add
        over = state.phase == OVER
        cut_off = game.is_truncated(state)
        actor = -1 if over or cut_off else game.current_player(state)
        acting = view is not None and view == actor
        is_child = view is not None and not over and view == state.child
        add(Text(MARGIN, 22, self._status(state, over, cut_off), size=17, anchor="start"))
        who = "spectator" if view is None else f"player_{view}" + (" (the child)" if is_child else " (a seeker)")
        add(Text(MARGIN, 44, f"view: {who}", size=13, anchor="start", fill=(90, 90, 90)))
        terrain = dict(m.terrain)
        add(Rect(MARGIN - 4, TOP - 4, m.width * CELL + 8, m.height * CELL + 8, fill=GRASS, outline=INK, width=1.5))
        for r in range(m.height):
            for c in range(m.width):
                x, y = MARGIN + c * CELL, TOP + r * CELL
                s = m.square_at(r, c)
                if s < 0:
                    add(*terrain_shapes(x, y, terrain.get(m.cells[r][c], "")))
                    continue
                if s in touched:
                    add(last_move_mark(x + 2, y + 2, CELL - 4, CELL - 4, touched[s], pad=3))
                self._square(scene, s, x, y, self._square_actions(state, s) if acting else ())
        if is_child:
            self._stroke(scene, state.stroke, "you are here")
        elif over and state.history:  # the last round's stroke, revealed when it ended (public)
            self._stroke(scene, state.history[-1][1], "the child's last square")
        elif not over:
            for s in range(game.num_squares):
                if state.belief >> s & 1:
                    cx, cy = self.centre(s)
                    add(Circle(cx, cy, CELL * 0.36, outline=BELIEF, width=3))
                    add(Text(cx + CELL * 0.3, cy - CELL * 0.3, "?", fill=BELIEF, size=14))
        for s in range(game.num_squares):
            if state.guessed >> s & 1:
                cx, cy = self.centre(s)
                add(Line(((cx - 16, cy - 16), (cx + 16, cy + 16)), fill=(200, 30, 30), width=4))
                add(Line(((cx + 16, cy - 16), (cx - 16, cy + 16)), fill=(200, 30, 30), width=4))
        for seat, s in enumerate(state.pieces):
            if s >= 0:
                cx, cy = self.centre(s)
                add(*pawn_shapes(cx + 12 - 8 * (seat % 2), cy + 4, SEAT_COLOURS[seat % len(SEAT_COLOURS)], seat))
        self._panel(scene, state, view, is_child, acting, over)
        return scene

    def _touched(self, state, view, last_move) -> dict[int, str]:
        """``{square: label}`` of what the last move touched that ``view`` may see."""
        game = self.game
        if last_move is None or not 0 <= last_move[1] < game.num_actions:
            return {}
        seat, action = last_move
        kind, square = game.describe_action(action)
        if kind == "place":
            return {square: f"player_{seat}'s last guess"}
        if kind in ("start", "line") and view == seat and state.stroke and state.stroke[-1] == square:
            return {square: "your last line" if kind == "line" else "your start"}
        return {}

    def _square_actions(self, state, s: int) -> tuple:
        """Every action naming square ``s``: start there, draw a line to it, place the piece on it."""
        game = self.game
        return (s, game.line_base + s, game.place_base + s)

    def _square(self, scene: Scene, s: int, x: float, y: float, actions: tuple) -> None:
        """A square: a path square (sand) or a framed icon square (black or white frame)."""
        m = self.game.map
        kind = m.kinds[s]
        add = scene.add
        name = m.describe_square(s)
        if kind == KIND_PATH:
            add(Rect(x + 2, y + 2, CELL - 4, CELL - 4, fill=PATH, radius=CELL / 2.5, actions=actions, label=name))
            return
        frame = BLACK if kind == KIND_BLACK else WHITE
        face, inner = FACE_INSET, FACE_INSET + FRAME_INSET
        add(Rect(x + face, y + face, CELL - 2 * face, CELL - 2 * face, fill=(252, 250, 240), radius=7,
                 actions=actions, label=name))
        add(Rect(x + inner, y + inner, CELL - 2 * inner, CELL - 2 * inner, outline=frame, width=FRAME_WIDTH, radius=5,
                 label=f"{KIND_NAMES[kind]} frame"))
        if kind != KIND_BLACK:
            half = FRAME_WIDTH / 2
            add(Rect(x + inner - half, y + inner - half, CELL - 2 * inner + FRAME_WIDTH, CELL - 2 * inner + FRAME_WIDTH,
                     outline=(150, 150, 150), width=1, radius=6))
        icon = m.icons[m.icon_of[s]]
        add(*icon_shapes(x + CELL / 2, y + CELL / 2 - 4, CELL * 0.27, icon.name, icon.letter))
        add(Text(x + CELL - 14, y + CELL - 15, str(icon.vp), size=10, fill=(90, 90, 90)))

    def _stroke(self, scene: Scene, stroke, last_label: str) -> None:
        """A stroke (the child's own, or the last round's once revealed): lines in visit order, numbered, the
        last square ringed."""
        add = scene.add
        points = tuple(self.centre(s) for s in stroke)
        if len(points) > 1:
            add(Line(points, fill=STROKE, width=5))
        for k, s in enumerate(stroke, start=1):
            cx, cy = self.centre(s)
            add(Circle(cx - CELL * 0.3, cy - CELL * 0.3, 9, fill=STROKE))
            add(Text(cx - CELL * 0.3, cy - CELL * 0.3, str(k), fill=WHITE, size=11))
        if stroke:
            cx, cy = self.centre(stroke[-1])
            add(Circle(cx, cy, CELL * 0.4, outline=STROKE, width=4, label=last_label))

    def _panel(self, scene: Scene, state, view, is_child: bool, acting: bool, over: bool) -> None:
        """The side panel: VP, announcements, guesses, the child's turn, finished rounds and the buttons."""
        game = self.game
        m = game.map
        add = scene.add
        x = MARGIN * 2 + m.width * CELL
        y = TOP + 6
        add(Text(x, y, "VP", size=15, anchor="start"))
        for seat, vp in enumerate(state.vp):
            colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
            role = " (child)" if seat == state.child and not over else ""
            add(Circle(x + 8, y + 22 + 20 * seat, 6, fill=colour))
            add(Text(x + 20, y + 22 + 20 * seat, f"player_{seat}{role}: {vp} VP", size=13, anchor="start"))
        y += 22 + 20 * game.num_players + 6
        add(Text(x, y, "announcements (cost, icons)", size=14, anchor="start"))
        y += 20
        first = max(0, len(state.announcements) - PANEL_ROWS)
        if first:
            add(Text(x, y, f"({first} earlier turn(s))", size=12, anchor="start", fill=(100, 100, 100)))
            y += 18
        for t, (cost, icons) in enumerate(state.announcements[first:], start=first + 1):
            add(Text(x, y, f"{t}: cost {cost}", size=13, anchor="start"))
            for i, icon in enumerate(icons[:8]):
                add(*icon_shapes(x + 100 + 22 * i, y, 8, m.icons[icon].name, m.icons[icon].letter))
            if not icons:
                add(Text(x + 100, y, "no icon", size=12, anchor="start", fill=(100, 100, 100)))
            y += 22
        if not state.announcements:
            add(Text(x, y, "the game is over" if over else "none yet", size=12, anchor="start", fill=(100, 100, 100)))
            y += 22
        first = max(0, len(state.guesses) - PANEL_ROWS)
        if first:
            add(Text(x, y, f"({first} earlier guess row(s))", size=12, anchor="start", fill=(100, 100, 100)))
            y += 18
        for t, guesses in enumerate(state.guesses[first:], start=first + 1):
            words = ", ".join(f"p{seat} {m.square_name(s)}" for seat, s in enumerate(guesses) if s >= 0)
            add(Text(x, y, f"guesses {t}: {words}", size=12, anchor="start"))
            y += 18
        y += 6
        if is_child and state.phase == CHILD:
            reached = ", ".join(m.icons[i].name for i in sorted(state.turn_icons)) or "no icon"
            add(Text(x, y, f"this turn: spent {state.turn_cost}/{BUDGET}", size=13, anchor="start", fill=STROKE))
            add(Text(x, y + 18, f"reached: {reached}", size=12, anchor="start", fill=STROKE))
            y += 40
        if is_child and state.phase == START:
            add(Text(x, y, "choose a starting path square", size=13, anchor="start", fill=STROKE))
            y += 22
        for child, _stroke, gained, turns, how in state.history[-4:]:
            end = "stuck" if how == FOUND_STUCK else "found"
            add(Text(x, y, f"round of player_{child}: {gained} VP, {turns} turn(s), {end}", size=12, anchor="start"))
            y += 18
        if acting and state.phase == CHILD:
            y = max(y + 8, self.height - 120)
            legal = game.legal_actions(state)
            if game.continue_action in legal:
                add(*button(x, y, 200, 34, "continue (shortcut)", (game.continue_action,)))
            elif game.stop_action in legal:
                add(*button(x, y, 200, 34, "stop (end the turn)", (game.stop_action,)))
            else:
                add(Text(x, y + 17, "the first line of a turn is a must", size=12, anchor="start"))
        legend_y = self.height - 40
        if not is_child and not over:
            add(Circle(x + 10, legend_y, 8, outline=BELIEF, width=3))
            add(Text(x + 24, legend_y, "the child may be here", size=12, anchor="start"))
        if is_child or (over and state.history):
            add(Circle(x + 10, legend_y, 8, fill=STROKE))
            words = "your stroke, in order" if is_child else "the last round's stroke, in order"
            add(Text(x + 24, legend_y, words, size=12, anchor="start"))
        add(Line(((x + 4, legend_y + 18), (x + 16, legend_y + 30)), fill=(200, 30, 30), width=3))
        add(Line(((x + 16, legend_y + 18), (x + 4, legend_y + 30)), fill=(200, 30, 30), width=3))
        add(Text(x + 24, legend_y + 24, "a wrong guess this round", size=12, anchor="start"))

    def _status(self, state, over: bool, cut_off: bool) -> str:
        """One line: round, child, phase and who acts, or how the game ended."""
        game = self.game
        name = game.map.name
        if over:
            winners = ", ".join(f"player_{s}" for s in game.winners(state))
            return f"{name}: game over - winners {winners}"
        if cut_off:
            return f"{name}: cut off by the step limit ({game.max_steps} steps)"
        return (f"{name}: round {state.round + 1}/{game.num_players}, child player_{state.child}, "
                f"{PHASE_NAMES[state.phase]}, to act: player_{game.current_player(state)}")

