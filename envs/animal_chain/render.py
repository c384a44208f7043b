"""Animal Chain text rendering: the brick board row by row, from the viewer's side of the table.

The viewer's own base row is drawn at the bottom and the opponent's at the
top; a spectator sees player 0's side. Every card is a 7-character cell on a
grid of 5 characters per half card, so rows interlock like bricks::

    [Dg|Ct]  face-up card, left|right animal as the viewer sees it
    [Dg|Ct]3 a stack of 3 cards (the top one shown)
    {Dg|Ct}  double of the viewer (spectator: of player 0)
    <Dg|Ct>  double of the opponent (spectator: of player 1)
    [#####]  face-down card
    (Dg|Ct)  own base card during base building (face down, known to the viewer only)
      ( )    hole
"""

from __future__ import annotations

from kakurega.envs.animal_chain.rules import BUILD, NO_SEAT, OVER, PHASE_NAMES, AnimalChainGame
from kakurega.envs.core.text_layout import side_by_side, wrap

HALF = 5  # characters per half card: a card cell is 7 characters, then its stack height, then a gap
LEGEND = (
    "legend: [L|R] face up (digit: stack height)  {L|R} {mine} double  <L|R> {theirs} double  "
    "[#####] face down  ( ) hole"
)


def status_parts(game: AnimalChainGame, state) -> list[str]:
    """The status line's facts (public only), for the text and the picture alike: game and phase,
    the turn and first player once play has started, then whose move it is or the result."""
    parts = ["Animal Chain", PHASE_NAMES[state.phase]]
    if state.phase == BUILD:
        if game.per_position:  # which decision is public: every deal has the same ones
            parts.append(f"player_{state.to_move} is building its base "
                         f"(base card {state.building_position + 1} of {game.base_size})")
        else:
            parts.append(f"player_{state.to_move} is building its base")
        return parts
    parts.append(f"turn {state.turn}/{game.max_turns}")
    if state.first_player != NO_SEAT:
        parts.append(f"first player: player_{state.first_player}")
    if state.phase == OVER:
        if state.winner != NO_SEAT:
            parts.append(f"player_{state.winner} wins (reached the opponent's base)")
        else:
            parts.append("draw (two passes without a draw in a row)")
    elif game.is_truncated(state):
        parts.append("draw (turn limit reached)")
    else:
        parts.append(f"player_{state.to_move} to move")
    return parts


class AnimalChainRenderer:
    """``render_text(state, viewer)`` for one game configuration (picklable plain object)."""

    def __init__(self, game: AnimalChainGame):
        self.game = game

    def cell(self, state, p: int, frame: int, viewer: int | None) -> str:
        """The drawing of absolute position ``p`` in ``frame`` (7 characters and the stack-height mark)."""
        game = self.game
        stack = state.stacks[p]
        if not stack:
            return "  ( )   "
        if state.face_down[p]:
            if state.phase == BUILD and viewer is not None and game.base_owner[p] == viewer:
                return f"({game.card_in_frame(frame, stack[0])}) "
            return "[#####] "
        owner = state.double_owner[p]
        brackets = "[]" if owner == NO_SEAT else ("{}" if owner == frame else "<>")
        height = len(stack)
        mark = " " if height == 1 else (str(height) if height < 10 else "+")
        return f"{brackets[0]}{game.card_in_frame(frame, stack[-1])}{brackets[1]}{mark}"

    def render_text(self, state, viewer: int | None, width: int | None = None) -> str:
        """The table as ``viewer`` (a seat) sees it, or a spectator when ``viewer`` is None.

        ``width``: the columns to fit (prose is wrapped, a base row's note goes on the line below the row;
        the rows themselves stay whole; None: full width, see :mod:`~kakurega.envs.core.text_layout`).
        """
        game = self.game
        frame = 0 if viewer is None else viewer
        who = "spectator" if viewer is None else f"player_{viewer}"
        lines = []

        def add(text: str, keep=()) -> None:  # a line of prose, wrapped at the width (never inside ``keep``)
            lines.extend(wrap(text, width, keep=keep))

        add(self._status(state))
        add(f"view: {who} (player_{frame}'s base at the bottom)")
        rows: dict[int, list[int]] = {}
        for q in range(game.num_positions):
            rows.setdefault(game.row_of[q], []).append(q)
        last = game.shape.num_rows - 1
        for row in range(last, -1, -1):
            text, cursor = "", 0
            for q in rows[row]:  # q: position in the viewer's frame
                x = game.column_of[q] * HALF
                cell = self.cell(state, game.to_frame(frame, q), frame, viewer)
                text += " " * (x - cursor) + cell
                cursor = x + len(cell)
            board_row = f"r{row} | {text.rstrip()}"
            if row in (0, last):  # the base rows are labelled beside the row, or below it where that is too wide
                note = f"<- base of player_{frame if row == 0 else 1 - frame}"
                lines += side_by_side([board_row], [note], width, gap="   ", stacked_gap=0, stacked_indent=" " * 5)
            else:
                lines.append(board_row)
        add(
            f"deck {len(state.deck)} | hands: player_0 {sum(state.hands[0])}, player_1 {sum(state.hands[1])}"
        )
        if viewer is not None:
            hand = state.hands[viewer]
            cards = [
                (game.card_in_frame(viewer, t), n) for t, n in enumerate(hand) if n
            ]
            shown = ", ".join(f"{label}" + (f" x{n}" if n > 1 else "") for label, n in sorted(cards))
            add(f"your hand: {shown or '(empty)'}")
            if state.phase == BUILD and state.to_move == viewer:
                if game.per_position:
                    add(f"deciding own base card r0c{state.building_position}: keep it or swap it with a hand card")
                else:
                    add(f"base swaps left: {game.max_swaps - state.swaps_used}")
        mine, theirs = ("your", "opponent's") if viewer is not None else ("player_0's", "player_1's")
        legend = LEGEND.replace("{mine}", mine).replace("{theirs}", theirs)
        if viewer is not None and state.phase == BUILD:
            legend += "  (L|R) your base, hidden from the opponent"
        # a sign stays with the first word of its explanation ("( ) hole" whole)
        signs = [" ".join(item.split(" ")[: 3 if item.startswith("( )") else 2])
                 for item in legend.removeprefix("legend: ").split("  ")]
        add(legend, keep=signs)
        return "\n".join(lines)

    def _status(self, state) -> str:
        return " | ".join(status_parts(self.game, state))
