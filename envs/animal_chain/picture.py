"""The picture of an Animal Chain table: the brick board with its animals, stacks, doubles and holes, and the hands.

The viewer's own base row is at the bottom and every card is drawn as the
viewer sees it from that side of the table (the text renderer's frame); a
spectator sees player 0's side; under the chain rule (v1) a small chain marks
the cards linked to each player's base. Drawn from what the view may know: face-down
cards show their backs, except the viewer's own base cards while building
(marked "hidden": the opponent cannot see them); the viewer's hand face up
and the opponent's as backs; the deck as a count.

Clickable, in the view of the player to move only: its hand cards (play
that card; while building, swap it into the base), the board positions
(play onto it; pass taking its face-down card; while building, the own base
card to swap or keep) and buttons for pass and done/keep (with an empty deck,
"pass" stands for every take, and the card clicked next says which).
"""

from __future__ import annotations

from kakurega.envs.animal_chain.render import status_parts
from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, AnimalChainGame
from kakurega.envs.core.picture import BLACK, WHITE, Circle, Polygon, Rect, Scene, Text, button, last_move_mark

CARD_W, CARD_H = 96, 64
HALF = CARD_W / 2 + 3  # pixels per half-card column (a small gap between cards)
ROW_H = CARD_H + 8
MARGIN = 24
TOP = 64
HAND_CARD_W, HAND_CARD_H = 96, 64
BOARD_BG = (226, 208, 170)
BACK = (96, 122, 160)
MINE, THEIRS = (232, 170, 20), (150, 60, 170)
INK = (40, 30, 20)
#: known animals: (head colour, ear style); other decks' animals get a neutral head with their label
ANIMAL_LOOKS = {
    "dog": ((176, 120, 70), "floppy"),
    "cat": ((160, 160, 170), "pointed"),
    "rabbit": ((235, 235, 240), "long"),
    "bear": ((120, 80, 50), "round"),
    "pig": ((246, 170, 190), "snout"),
    "fox": ((226, 100, 30), "pointed"),
}


def animal_shapes(cx: float, cy: float, r: float, name: str, label: str) -> list:
    """A round animal head with ears by kind, and its two-letter label underneath."""
    colour, ears = ANIMAL_LOOKS.get(name, ((200, 200, 200), "none"))
    shapes = []
    if ears == "pointed":
        for s in (-1, 1):
            shapes.append(Polygon(((cx + s * r * 0.85, cy - r * 0.2), (cx + s * r * 0.75, cy - r * 1.25),
                                   (cx + s * r * 0.15, cy - r * 0.75)), fill=colour, outline=BLACK, width=1))
    elif ears == "long":
        for s in (-1, 1):
            shapes.append(Polygon(((cx + s * r * 0.55, cy - r * 0.5), (cx + s * r * 0.45, cy - r * 1.7),
                                   (cx + s * r * 0.1, cy - r * 1.7), (cx + s * r * 0.15, cy - r * 0.6)),
                                  fill=colour, outline=BLACK, width=1))
    elif ears == "round":
        for s in (-1, 1):
            shapes.append(Circle(cx + s * r * 0.75, cy - r * 0.75, r * 0.38, fill=colour, outline=BLACK, width=1))
    elif ears == "floppy":
        for s in (-1, 1):
            shapes.append(Polygon(((cx + s * r * 0.6, cy - r * 0.8), (cx + s * r * 1.25, cy - r * 0.3),
                                   (cx + s * r * 1.05, cy + r * 0.45), (cx + s * r * 0.75, cy)),
                                  fill=(110, 70, 40), outline=BLACK, width=1))
    shapes.append(Circle(cx, cy, r, fill=colour, outline=BLACK, width=1.2, label=name))
    for s in (-1, 1):
        shapes.append(Circle(cx + s * r * 0.35, cy - r * 0.15, r * 0.12, fill=BLACK))
    if ears == "snout":
        shapes.append(Circle(cx, cy + r * 0.3, r * 0.32, fill=(230, 130, 160), outline=BLACK, width=1))
    else:
        shapes.append(Circle(cx, cy + r * 0.25, r * 0.11, fill=BLACK))
    shapes.append(Text(cx, cy + r + 7, name if len(name) <= 7 else label, fill=INK, size=10))
    return shapes


def link_shapes(cx: float, cy: float, colour, label: str) -> list:
    """A small chain link: two linked rings."""
    return [
        Circle(cx - 3, cy, 4.5, outline=colour, width=2.5, label=label),
        Circle(cx + 3, cy, 4.5, outline=colour, width=2.5),
    ]


class AnimalChainPicture:
    """``scene(state, view)``: the table as seat ``view`` (None: a spectator, from player 0's side) sees it."""

    def __init__(self, game: AnimalChainGame):
        self.game = game
        shape = game.shape
        self.board_w = (max(game.column_of) + 2) * HALF
        self.board_h = shape.num_rows * ROW_H
        self.width = int(max(self.board_w + 2 * MARGIN + 220, 900))
        self.height = int(TOP + 2 * HAND_CARD_H + self.board_h + 76)  # opponent's hand, board, own hand

    # ------------------------------------------------------------ cards
    def card_shapes(self, x: float, y: float, frame: int, card_type: int, actions: tuple = (), label: str = "",
                    w: float = CARD_W, h: float = CARD_H) -> list:
        """A face-up card as ``frame`` sees it: its left and right animals."""
        game = self.game
        t = game.type_in_frame[frame][card_type]
        left, right = game.deck.card_types[t]
        animals, labels = game.deck.animals, game.deck.labels
        r = h * 0.2
        return [
            Rect(x, y, w, h, fill=(252, 248, 236), outline=INK, width=1.5, radius=6, actions=actions,
                 label=label or f"{animals[left]} | {animals[right]}"),
            Rect(x + w / 2 - 0.5, y + 6, 1, h - 12, fill=(200, 190, 170)),
            *animal_shapes(x + w * 0.25, y + h * 0.45, r, animals[left], labels[left]),
            *animal_shapes(x + w * 0.75, y + h * 0.45, r, animals[right], labels[right]),
        ]

    @staticmethod
    def back_shapes(x: float, y: float, actions: tuple = (), label: str = "a face-down card",
                    w: float = CARD_W, h: float = CARD_H) -> list:
        """A face-down card."""
        return [
            Rect(x, y, w, h, fill=BACK, outline=INK, width=1.5, radius=6, actions=actions, label=label),
            Rect(x + 6, y + 6, w - 12, h - 12, outline=(200, 214, 236), width=1.2, radius=4),
            Text(x + w / 2, y + h / 2, "?", fill=(220, 230, 245), size=h * 0.36),
        ]

    # ------------------------------------------------------------ scene
    def scene(self, state, view: int | None = None, last_move: tuple | None = None) -> Scene:
        """The table in a picture, drawn from what ``view`` may know; ``last_move`` ``(seat, action)`` is outlined.

        A play or a take outlines its position (everyone sees it); a base swap
        only in its builder's view.
        """
        game = self.game
        frame = 0 if view is None else view
        acting = view is not None and view == state.to_move and bool(game.legal_actions(state))
        scene = Scene(self.width, self.height, background=(246, 240, 226), title="Animal Chain")
        add = scene.add
        add(Text(MARGIN, 22, self._status(state), size=17, anchor="start"))
        who = "spectator" if view is None else f"player_{view}"
        add(Text(MARGIN, 44, f"view: {who} (player_{frame}'s base at the bottom, player_{1 - frame}'s at the top)",
                 size=13, anchor="start", fill=(90, 80, 70)))
        opponent_y = TOP
        board_y = TOP + HAND_CARD_H + 36
        own_y = board_y + self.board_h + 20
        self._hand(scene, state, 1 - frame, opponent_y, frame, view, acting)
        add(Rect(MARGIN - 8, board_y - 8, self.board_w + 16, self.board_h + 12, fill=BOARD_BG, radius=10))
        for p, label in self._touched(state, view, last_move):
            add(last_move_mark(*self._xy(game.to_frame(frame, p), board_y), CARD_W, CARD_H, label))
        for q in range(game.num_positions):  # q: position in the viewer's frame
            self._position(scene, state, q, frame, view, acting, board_y)
        self._hand(scene, state, frame, own_y, frame, view, acting)
        self._side(scene, state, frame, acting, board_y)
        return scene

    def _touched(self, state, view, last_move) -> list[tuple[int, str]]:
        """``(absolute position, label)`` of what the last move touched that ``view`` may see."""
        game = self.game
        if last_move is None or not 0 <= last_move[1] < game.num_actions:
            return []
        seat, action = last_move
        kind, _card_type, where = game.decode(seat, action)
        if kind == "play":
            return [(where, "the winning move" if state.winner == seat else "the last move")]
        if kind == "take":
            return [(where, "the last move: a face-down card taken")]
        if kind == "swap" and view == seat:
            return [(game.own_base_in_frame[seat][where], "your last swap")]
        return []

    def _xy(self, q: int, board_y: float) -> tuple[float, float]:
        """Top-left pixel of frame position ``q`` (the viewer's base row at the bottom)."""
        game = self.game
        row = game.row_of[q]
        return MARGIN + game.column_of[q] * HALF, board_y + (game.shape.num_rows - 1 - row) * ROW_H

    def _position(self, scene: Scene, state, q: int, frame: int, view, acting: bool, board_y: float) -> None:
        """One board position: a hole, a face-down card, an own hidden base card, or the face-up top (stack, double)."""
        game = self.game
        add = scene.add
        p = game.to_frame(frame, q)
        x, y = self._xy(q, board_y)
        name = game.position_names[q]
        actions = self._position_actions(state, q) if acting else ()
        stack = state.stacks[p]
        if not stack:
            add(Rect(x + 4, y + 4, CARD_W - 8, CARD_H - 8, fill=(120, 100, 80), outline=(90, 70, 50), width=1,
                     radius=14, actions=actions, label=f"{name}: a hole"))
            add(Text(x + CARD_W / 2, y + CARD_H / 2, "hole", fill=(230, 215, 190), size=12))
            return
        if state.face_down[p]:
            own_base = state.phase == BUILD and view is not None and game.base_owner[p] == view
            if own_base:
                add(*self.card_shapes(x, y, frame, stack[0], actions=actions,
                                      label=f"{name}: your base card (face down, hidden from the opponent)"))
                add(Rect(x + CARD_W / 2 - 22, y - 6, 44, 13, fill=BACK, radius=3))
                add(Text(x + CARD_W / 2, y + 0.5, "hidden", fill=WHITE, size=9))
                if acting and game.per_position and game.index_in_row[q] == state.building_position:
                    add(Rect(x - 3, y - 3, CARD_W + 6, CARD_H + 6, outline=MINE, width=3, radius=8))
            else:
                add(*self.back_shapes(x, y, actions=actions, label=f"{name}: a face-down card"))
            return
        owner = state.double_owner[p]
        height = len(stack)
        for k in range(min(height - 1, 3), 0, -1):  # the cards underneath peek out
            add(Rect(x + 3 * k, y - 3 * k, CARD_W, CARD_H, fill=(230, 222, 204), outline=INK, width=1, radius=6))
        add(*self.card_shapes(x, y, frame, stack[-1], actions=actions,
                              label=f"{name}: {game.card_in_frame(frame, stack[-1])}"
                                    + (f", stack of {height}" if height > 1 else "")))
        if owner != NO_SEAT:
            colour = MINE if owner == frame else THEIRS
            add(Rect(x + 1, y + 1, CARD_W - 2, CARD_H - 2, outline=colour, width=4, radius=6))
            add(Rect(x + CARD_W / 2 - 22, y - 7, 44, 14, fill=colour, radius=4))
            add(Text(x + CARD_W / 2, y, "double", fill=WHITE, size=10))
        if game.chain_rule:  # the chain rule: a card linked to a base is a mark in that player's colour
            for seat, mark_y in ((frame, y + CARD_H - 8), (1 - frame, y + 8)):  # between the animals
                if state.linked[seat] >> p & 1:
                    add(*link_shapes(x + CARD_W / 2, mark_y, MINE if seat == frame else THEIRS,
                                     f"linked to player_{seat}'s base"))
        if height > 1:
            add(Circle(x + CARD_W - 6, y + 6, 10, fill=INK))
            add(Text(x + CARD_W - 6, y + 6, str(height), fill=WHITE, size=12))

    def _position_actions(self, state, q: int) -> tuple:
        """The actions naming frame position ``q`` (the mover's frame): plays onto it, taking it, swapping it."""
        game = self.game
        T, P, B = game.num_types, game.num_positions, game.base_size
        actions = [game.play_base + t * P + q for t in range(T)] + [game.take_base + q]
        if game.row_of[q] == 0 and state.phase == BUILD:  # an own base card
            j = game.index_in_row[q]
            actions += [t * B + j for t in range(T)]
            if game.per_position and j == state.building_position:
                actions.append(game.done_action)
        return tuple(sorted(actions))

    def _hand(self, scene: Scene, state, seat: int, y: float, frame: int, view, acting: bool) -> None:
        """A hand: face up for its owner's view, backs otherwise."""
        game = self.game
        add = scene.add
        mine = view == seat
        cards = [t for t, count in enumerate(state.hands[seat]) for _ in range(count)]
        label = "your hand" if mine else f"player_{seat}'s hand"
        add(Text(MARGIN, y + HAND_CARD_H / 2, label, size=13, anchor="start", fill=(90, 80, 70)))
        # a frame's own order: by type as this view sees it
        cards.sort(key=lambda t: game.type_in_frame[frame][t])
        step = min(HAND_CARD_W + 6, (self.board_w - 110) / max(1, len(cards)))
        for i, t in enumerate(cards):
            x = MARGIN + 110 + i * step
            if mine:
                actions = self._hand_actions(state, game.type_in_frame[frame][t]) if acting else ()
                add(*self.card_shapes(x, y, frame, t, actions=actions, w=HAND_CARD_W, h=HAND_CARD_H))
            else:
                add(*self.back_shapes(x, y, w=HAND_CARD_W, h=HAND_CARD_H))
        if not cards:
            add(Text(MARGIN + 130, y + HAND_CARD_H / 2, "(empty)", size=13, anchor="start"))

    def _hand_actions(self, state, frame_type: int) -> tuple:
        """Every action that uses a hand card of ``frame_type`` (a type in the mover's frame): play it, swap it in."""
        game = self.game
        P, B = game.num_positions, game.base_size
        plays = [game.play_base + frame_type * P + q for q in range(P)]
        swaps = [frame_type * B + j for j in range(B)] if state.phase == BUILD else []
        return tuple(swaps + plays)

    def _side(self, scene: Scene, state, frame: int, acting: bool, board_y: float) -> None:
        """The side panel: deck, hand sizes, legend and the buttons of the phase."""
        game = self.game
        add = scene.add
        x = MARGIN + self.board_w + 24
        y = board_y
        add(*self.back_shapes(x, y, w=64, h=44, label=f"the deck: {len(state.deck)} cards"))
        add(Text(x + 76, y + 22, f"deck: {len(state.deck)}", size=14, anchor="start"))
        y += 64
        for seat in (frame, 1 - frame):
            count = sum(state.hands[seat])
            add(Text(x, y, f"player_{seat}: {count} card{'' if count == 1 else 's'} in hand", size=13, anchor="start"))
            y += 20
        y += 10
        for colour, words in ((MINE, f"player_{frame}'s double"), (THEIRS, f"player_{1 - frame}'s double")):
            add(Rect(x, y - 7, 22, 14, outline=colour, width=3, radius=3))
            add(Text(x + 30, y, words, size=12, anchor="start"))
            y += 20
        if game.chain_rule:
            for _k, (colour, seat) in enumerate(((MINE, frame), (THEIRS, 1 - frame))):
                add(*link_shapes(x + 11, y, colour, ""))
                add(Text(x + 30, y, f"linked to player_{seat}'s base", size=12, anchor="start"))
                y += 20
        y += 16
        if acting:
            if state.phase == BUILD:
                if game.per_position:
                    text = f"keep base card {state.building_position + 1}"
                    add(Text(x, y, "swap: click a hand card", size=12, anchor="start"))
                else:
                    text = "done building"
                    add(Text(x, y, f"swaps left: {game.max_swaps - state.swaps_used}", size=12, anchor="start"))
                add(*button(x, y + 18, 180, 34, text, (game.done_action,)))
            else:
                add(Text(x, y, "play: hand card, then a square", size=12, anchor="start"))
                if not state.deck and 1 in state.face_down:  # passing takes a face-down card: which one, next
                    takes = tuple(game.take_base + q for q in range(game.num_positions))
                    add(*button(x, y + 18, 220, 34, "pass: take a face-down card", takes, size=14))
                    add(Text(x, y + 68, "(then click the card to take)", size=12, anchor="start"))
                else:
                    add(*button(x, y + 18, 180, 34, "pass and draw" if state.deck else "pass", (game.pass_action,)))

    def _status(self, state) -> str:
        """One line: the text renderer's status (phase, turn and whose move, or the result)."""
        return " - ".join(status_parts(self.game, state))
