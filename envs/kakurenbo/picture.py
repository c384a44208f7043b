"""The picture of a KAKURENBO table: every hand, the pile, the dice, discards, scores and the last events.

A player's view shows the faces that player knows (its knowledge row,
counting included) and only backs elsewhere; a spectator sees backs and the
faces of open hands. Each hand is drawn as the text renderer lists it
(:func:`~kakurega.envs.kakurenbo.render.visible_hand`): known faces by card
id, then the backs by colour, then the Curse, so where a card lies on the
picture tells nothing more.

The viewer sits at the bottom; the others follow clockwise (the left
neighbour on the left). Clickable, in the view of the player to act only:
the pile (draw), its own cards (discard their pair, give them, give the
Curse with them; in Kurayami a back gives a card of its colour), the other
players' cards (take a card of that colour) and the other players' boxes
(the player an action names).

Text is laid out to fit (:func:`~kakurega.envs.core.picture.text_width`): a
long seat title shrinks to clear the score, the centre's events wrap (the
newest whole events that fit), and a finished game's final scores and winners
are written in full across the bottom of the centre.
"""

from __future__ import annotations

from kakurega.envs.core.picture import (
    BLACK,
    WHITE,
    Circle,
    Line,
    Rect,
    Scene,
    Text,
    fit_size,
    last_move_mark,
    text_width,
    wrap_text,
)
from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.render import describe_event, status_text, visible_hand
from kakurega.envs.kakurenbo.rules import (
    A_CURSE_GIVE,
    A_DISCARD,
    A_DRAW,
    COLOURS,
    PARTS,
    POINTS,
    KakurenboGame,
    card_name,
)

WIDTH, HEIGHT = 1000, 720
TABLE = (44, 110, 72)
INK = (250, 250, 245)
RED = (196, 40, 44)
BLUE = (34, 86, 176)
CARD_COLOURS = (RED, BLUE)
#: backs are a darker shade of the card colour
BACK_COLOURS = ((150, 28, 34), (26, 62, 132))
CURSE_COLOUR = (40, 20, 48)
PALE = (215, 215, 215)
HIGHLIGHT = (255, 214, 70)
SHORT_PARTS = ("head", "chest", "waist", "R arm", "L arm", "R leg", "L leg")
#: boxes of the other players (x, y, w, h), clockwise from the viewer's left, per player count
OTHER_BOXES = {
    3: ((20, 20, 450, 200), (530, 20, 450, 200)),
    4: ((20, 230, 300, 210), (350, 20, 300, 200), (680, 230, 300, 210)),
    5: ((20, 240, 300, 210), (160, 20, 320, 200), (520, 20, 320, 200), (680, 240, 300, 210)),
}
OWN_BOX = (150, 470, 700, 235)
#: the middle of the table (pile, dice, events) per player count
CENTRE = {3: (250, 240, 500, 210), 4: (335, 240, 330, 210), 5: (335, 240, 330, 210)}


def figure_shapes(x: float, y: float, w: float, h: float, part: int, colour) -> list:
    """A small body seen from the front, ``part`` in ``colour`` (its right arm and leg on the viewer's left)."""
    cx = x + w / 2
    s = min(w, h / 1.6)
    grey = PALE

    def paint(p):
        return colour if p == part else grey

    head_r = s * 0.14
    top = y + h * 0.08
    neck = top + 2 * head_r
    chest_h, waist_h = s * 0.28, s * 0.18
    body_w = s * 0.34
    shapes = [
        Circle(cx, top + head_r, head_r, fill=paint(0)),
        Rect(cx - body_w / 2, neck + s * 0.02, body_w, chest_h, fill=paint(1)),
        Rect(cx - body_w / 2, neck + s * 0.02 + chest_h, body_w, waist_h, fill=paint(2)),
    ]
    arm_w = max(2.0, s * 0.09)
    shoulder = neck + s * 0.06
    hip = neck + s * 0.02 + chest_h + waist_h
    leg_len = s * 0.42
    shapes += [
        Line(((cx - body_w / 2 - arm_w / 2, shoulder), (cx - body_w / 2 - s * 0.14, shoulder + s * 0.36)),
             fill=paint(3), width=arm_w),
        Line(((cx + body_w / 2 + arm_w / 2, shoulder), (cx + body_w / 2 + s * 0.14, shoulder + s * 0.36)),
             fill=paint(4), width=arm_w),
        Line(((cx - body_w / 4, hip), (cx - body_w / 3, hip + leg_len)), fill=paint(5), width=arm_w),
        Line(((cx + body_w / 4, hip), (cx + body_w / 3, hip + leg_len)), fill=paint(6), width=arm_w),
    ]
    return shapes


def face_shapes(x: float, y: float, w: float, h: float, card: int, actions: tuple = (), label: str = "") -> list:
    """A body-part card face up: its colour as the border and banner, the part on a little figure, its name."""
    colour = CARD_COLOURS[card & 1]
    part = card >> 1
    banner = h * 0.2
    name = PARTS[part] if w >= 56 else SHORT_PARTS[part]
    return [
        Rect(x, y, w, h, fill=WHITE, outline=colour, width=3, radius=w / 9, actions=actions,
             label=label or card_name(card)),
        Rect(x + 3, y + h - banner - 3, w - 6, banner, fill=colour, radius=3),
        Text(x + w / 2, y + h - banner / 2 - 3, name, fill=WHITE, size=max(9.0, banner * 0.7)),
        Text(x + 6, y + 8, str(POINTS[part]), fill=colour, size=max(9.0, h * 0.14), anchor="start"),
        *figure_shapes(x + 4, y + 4, w - 8, h - banner - 10, part, colour),
    ]


def back_shapes(x: float, y: float, w: float, h: float, colour: int, actions: tuple = (), label: str = "") -> list:
    """A body-part card face down: its back shows its colour only."""
    return [
        Rect(x, y, w, h, fill=BACK_COLOURS[colour], outline=BLACK, width=1.5, radius=w / 9, actions=actions,
             label=label or f"a {COLOURS[colour]} card, face down"),
        Rect(x + w * 0.15, y + h * 0.12, w * 0.7, h * 0.76, outline=(255, 255, 255), width=1.2, radius=w / 12),
        Text(x + w / 2, y + h / 2, "?", fill=WHITE, size=h * 0.4),
    ]


def curse_shapes(x: float, y: float, w: float, h: float, actions: tuple = ()) -> list:
    """Kaku's Curse: a dark card with a pale eye."""
    return [
        Rect(x, y, w, h, fill=CURSE_COLOUR, outline=(190, 120, 230), width=2.5, radius=w / 9, actions=actions,
             label="Kaku's Curse"),
        Circle(x + w / 2, y + h * 0.42, w * 0.26, fill=(230, 220, 240)),
        Circle(x + w / 2, y + h * 0.42, w * 0.11, fill=(150, 40, 60)),
        Text(x + w / 2, y + h * 0.8, "Curse", fill=(230, 200, 250), size=max(9.0, h * 0.15)),
    ]


def die_shapes(x: float, y: float, s: float, value: int, colour) -> list:
    """A die showing ``value`` pips on a ``colour`` face."""
    shapes = [Rect(x, y, s, s, fill=colour, outline=BLACK, width=1.5, radius=s / 6)]
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
             5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)]}
    for row, col in spots.get(value, []):
        shapes.append(Circle(x + s * (0.25 + 0.25 * col), y + s * (0.25 + 0.25 * row), s * 0.08, fill=WHITE))
    return shapes


class KakurenboPicture:
    """``scene(state, view)``: the table as seat ``view`` (None: a spectator) sees it."""

    def __init__(self, game: KakurenboGame):
        self.game = game

    def scene(self, state, view: int | None = None, last_move: tuple | None = None) -> Scene:
        """The table in a picture, drawn from what ``view`` may know.

        The hands the last move touched (its public part, ``state.last_move``:
        the mover and the player it gave to or took from) are outlined;
        ``last_move`` is not needed (the state keeps it).
        """
        game = self.game
        n = game.num_players
        scene = Scene(WIDTH, HEIGHT, background=TABLE, title=f"KAKURENBO ({game.variant})")
        known = game.known_row(state, view) if view is not None else None
        finished = state.over or state.steps >= game.max_steps
        acting = view is not None and not finished and view == state.actor
        bottom = 0 if view is None else view
        boxes = {bottom: OWN_BOX}
        for k, box in enumerate(OTHER_BOXES[n], start=1):
            boxes[(bottom + k) % n] = box
        kind, mover, other, _colour = state.last_move
        for seat in range(n):
            if kind >= 0 and seat in (mover, other):
                add_label = "the last move" if seat == mover else "the last move's other player"
                scene.add(last_move_mark(*boxes[seat], label=add_label, pad=4, radius=12))
            self._seat(scene, state, seat, boxes[seat], known, view, acting)
        self._centre(scene, state, CENTRE[n], acting, finished)
        return scene

    # ----------------------------------------------------------- actions
    def _offset(self, state, seat: int) -> int:
        """The offset from the player to act to ``seat``."""
        return (seat - state.actor) % self.game.num_players

    def _seat_actions(self, state, seat: int) -> tuple:
        """Every action naming ``seat`` as the other player, for the player to act."""
        k = self._offset(state, seat)
        if k == 0:
            return ()
        return tuple(a for a, (kind, _arg, offset) in enumerate(self.game.decode)
                     if offset == k and kind != A_DISCARD and kind != A_DRAW)

    def _own_card_actions(self, state, card: int) -> tuple:
        """The actions of the player to act with its known ``card``: discard its pair, give it (with the Curse)."""
        game = self.game
        actions = [game.discard_action(card >> 1)]
        for k in range(1, game.num_players):
            actions += [game.give_card_action(card, k), game.curse_give_action(card, k),
                        game.give_colour_action(card & 1, k)]
        return tuple(sorted(actions))

    def _own_back_actions(self, colour: int) -> tuple:
        """Kurayami: give a card of ``colour`` (not seen) to any other player."""
        return tuple(self.game.give_colour_action(colour, k) for k in range(1, self.game.num_players))

    def _curse_actions(self) -> tuple:
        """Every "give the Curse with a card" action."""
        return tuple(a for a, (kind, _arg, _k) in enumerate(self.game.decode) if kind == A_CURSE_GIVE)

    # ------------------------------------------------------------- parts
    def _seat(self, scene: Scene, state, seat: int, box, known, view, acting: bool) -> None:
        """One player's box: name, score, flags, discarded pairs and the hand as ``view`` sees it."""
        game = self.game
        add = scene.add
        x, y, w, h = box
        own = seat == (0 if view is None else view)
        to_act = seat == state.actor and not (state.over or state.steps >= game.max_steps)
        seat_actions = self._seat_actions(state, seat) if acting else ()
        add(Rect(x, y, w, h, fill=(34, 88, 58), outline=HIGHLIGHT if to_act else (20, 60, 36),
                 width=3 if to_act else 1.5, radius=10, actions=seat_actions, label=game.seat_name(seat)))
        flags = []
        if seat == view:
            flags.append("you")
        if to_act:
            flags.append("to act")
        if state.open_hand[seat]:
            flags.append("open hand")
        if state.curse_holder == seat:
            flags.append("holds the Curse")
        title = game.seat_name(seat) + (f" ({', '.join(flags)})" if flags else "")
        score = f"{state.scores[seat]} pts"
        room = w - 20 - text_width(score, 15) - 8  # the title never runs into the score
        add(Text(x + 10, y + 14, title, fill=HIGHLIGHT if to_act else INK, size=fit_size(title, 15, room),
                 anchor="start"))
        add(Text(x + w - 10, y + 14, score, fill=INK, size=15, anchor="end"))
        pairs = [SHORT_PARTS[p] for p, by in enumerate(state.discarded_by) if by == seat]
        add(Text(x + 10, y + 34, "pairs: " + (", ".join(pairs) if pairs else "-"), fill=(200, 230, 210), size=12,
                 anchor="start"))
        faces, backs, curse = visible_hand(state, seat, known)
        cw, ch = (64, 92) if own else (42, 62)
        gap = 6
        per_row = max(1, int((w - 20 + gap) // (cw + gap)))
        cards = [("face", c) for c in faces] + [("back", col) for col in backs] + ([("curse", None)] if curse else [])
        if not cards:
            add(Text(x + w / 2, y + h / 2 + 12, "no cards", fill=(200, 230, 210), size=14))
        for i, (kind, value) in enumerate(cards):
            cx = x + 10 + (i % per_row) * (cw + gap)
            cy = y + 48 + (i // per_row) * (ch + gap)
            if kind == "face":
                actions = ()
                if acting and seat == state.actor:
                    actions = self._own_card_actions(state, value)
                elif acting:
                    actions = (game.take_action(value & 1, self._offset(state, seat)),)
                add(*face_shapes(cx, cy, cw, ch, value, actions=actions))
            elif kind == "back":
                actions = ()
                if acting and seat == state.actor:
                    actions = self._own_back_actions(value)
                elif acting:
                    actions = (game.take_action(value, self._offset(state, seat)),)
                add(*back_shapes(cx, cy, cw, ch, value, actions=actions))
            else:
                actions = self._curse_actions() if acting and seat == state.actor else ()
                add(*curse_shapes(cx, cy, cw, ch, actions=actions))

    def _centre(self, scene: Scene, state, box, acting: bool, finished: bool) -> None:
        """The middle of the table: status, pile, dice and the events of the last action."""
        game = self.game
        add = scene.add
        x, y, w, h = box
        status = status_text(game, state)
        add(Text(x + w / 2, y + 10, status, fill=HIGHLIGHT, size=fit_size(status, 15, w - 10)))
        add(Text(x + w / 2, y + 30, f"{game.variant}, step {state.steps}/{game.max_steps}", fill=INK, size=12))
        # the pile: face down, its top card's colour shows (the Curse when it is the last card)
        px, py = x + 10, y + 48
        draw_actions = (game.draw_action(),) if acting else ()
        if state.pile:
            for k in range(min(3, len(state.pile) - 1), 0, -1):
                add(Rect(px + 3 * k, py - 3 * k, 56, 80, fill=(70, 60, 60), outline=BLACK, width=1, radius=6))
            if state.pile[-1] == CURSE:
                add(*curse_shapes(px, py, 56, 80, actions=draw_actions))
            else:
                add(*back_shapes(px, py, 56, 80, state.pile[-1] & 1, actions=draw_actions,
                                 label=f"the pile: {len(state.pile)} cards (draw the top card)"))
            add(Text(px + 28, py + 98, f"pile {len(state.pile)}", fill=INK, size=13))
        else:
            add(Rect(px, py, 56, 80, outline=(120, 160, 130), width=1.5, radius=6))
            add(Text(px + 28, py + 98, "pile empty", fill=INK, size=13))
        if state.dice[0]:
            add(*die_shapes(px + 80, py + 4, 34, state.dice[0], RED))
            add(*die_shapes(px + 120, py + 4, 34, state.dice[1], BLUE))
            add(Text(px + 117, py + 56, f"{state.rolls} roll(s)", fill=INK, size=12))
        # the events of the last action, newest kept, wrapped in the column right of the pile and dice
        ex = px + (170 if state.dice[0] else 80)
        column = x + w - 10 - ex
        bottom = y + h - 4
        result = []
        if finished:  # the result, wrapped across the whole box under the pile
            final = game.final_scores(state)
            winners = game.winners(state)
            result = [f"final: {', '.join(f'p{s} {final[s]}' for s in range(game.num_players))}",
                      "winners: " + (", ".join(game.seat_name(s) for s in winners) if winners else "nobody")]
            result = [part for line in result for part in wrap_text(line, 13, w - 20)]
            for i, line in enumerate(result):
                add(Text(x + 10, bottom - 8 - 18 * (len(result) - 1 - i), line, fill=HIGHLIGHT, size=13, anchor="start"))
            bottom -= 8 + 18 * len(result)  # the events stop above the result (the pile's label is left of them)
        fits = max(0, int((bottom - (py + 8) + 6) // 18))
        lines: list[str] = []
        for event in reversed(state.events):  # the newest whole events that fit
            wrapped = wrap_text(describe_event(game, event), 12, column)
            if len(lines) + len(wrapped) > fits:
                break
            lines = wrapped + lines
        for i, line in enumerate(lines):
            add(Text(ex, py + 8 + 18 * i, line, fill=INK, size=12, anchor="start"))



