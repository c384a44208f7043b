"""Text picture of the room: tiles, child, monster, the monster's path ahead, memory area.

The child and a spectator see the same table (the only hidden thing, the
pile's order, is never drawn).
"""

from __future__ import annotations

from kakurega.envs.core.text_layout import side_by_side, wrap
from kakurega.envs.hidden_rooms.booklet import GRID
from kakurega.envs.hidden_rooms.rules import (
    COLOURS,
    EMPTY,
    EXIT_CELL,
    OUTCOME_NAMES,
    OVER,
    PHASE_NAMES,
    PLACING,
    START_TILE,
    HiddenRoomsGame,
    cell_of,
    coords,
    tile_colour,
    tile_name,
    tile_number,
)

LEGEND = (
    "legend: R3 = red 3 (R red, B blue, G green, Y yellow), S0 = start tile, .. = dark; "
    "@ child, M monster, ! both (caught), E exit; path grid: steps until the monster's path reaches the cell, X its "
    "last cell"
)


def tile_code(tile: int) -> str:
    """Two-letter code of a tile: ``"R3"``, ``"S0"`` for the start tile."""
    return "S0" if tile == START_TILE else f"{COLOURS[tile_colour(tile)][0].upper()}{tile_number(tile)}"


class HiddenRoomsRenderer:
    """The text renderer of one Hidden Rooms game (what the env declares; picklable: holds only the game)."""

    def __init__(self, game: HiddenRoomsGame):
        self.game = game

    def render_text(self, state, viewer: int | None = None, width: int | None = None) -> str:
        """The room, the monster's path ahead and the memory (the child and a spectator see the same).

        ``width``: the columns to fit (the path grid goes below the room, prose is wrapped; None: full
        width, see :mod:`~kakurega.envs.core.text_layout`).
        """
        game = self.game
        if not state.board:
            return "Hidden Rooms: no round started"
        monster = game.monsters[state.monster]
        path = game.paths[state.monster]
        last = len(path) - 1
        ahead: dict[int, int] = {}
        for k in range(state.progress + 1, last + 1):
            ahead.setdefault(path[k], k - state.progress)
        lines = []

        def add(text: str, keep=()) -> None:  # a line of prose, wrapped at the width (never inside ``keep``)
            lines.extend(wrap(text, width, keep=keep))

        score = f"match: {state.escapes} escape(s), {state.fails} fail(s)"
        if game.episode == "round":
            score = "single-round episode"
        phase = PHASE_NAMES[state.phase]
        if state.phase == OVER:
            phase = "episode over"
        add(f"Hidden Rooms - round {state.rounds}, turn {state.turn}/{game.max_turns} - {score} - {phase}"
                     + (f" ({state.steps_taken}/2 steps taken)" if state.phase == 0 else ""))
        chase = "CHASING" if state.chasing else "following its path"
        add(
            f"Monster: {monster.name} ({monster.steps} steps/turn, sight {monster.describe_sight()}) at "
            f"{coords(state.monster_cell)}, path {state.progress}/{last}, {chase}"
        )
        header = "    " + "".join(f"  {c}  " for c in range(GRID))
        room_block, path_block = [header], [header]
        for r in range(GRID):
            room, trail = [], []
            for c in range(GRID):
                cell = cell_of(r, c)
                tile = state.board[cell]
                body = ".." if tile == EMPTY else tile_code(tile)
                mark = " "
                if cell == state.child:
                    mark = "@"
                elif cell == state.monster_cell:
                    mark = "M"
                elif cell == EXIT_CELL:
                    mark = "E"
                if cell == state.child and cell == state.monster_cell:
                    mark = "!"
                room.append(f" {mark}{body} ")
                text = str(ahead[cell]) if cell in ahead else "."
                if cell == path[last]:
                    text = "X" + (text if cell in ahead else "")
                trail.append(f"{text:^5}")
            room_block.append(f" {r}  " + "".join(room))
            path_block.append(f" {r}  " + "".join(trail))
        lines += side_by_side(room_block, path_block, width, gap="      ")
        tiles = [f"[{k}] {tile_name(t)}" for k, t in enumerate(state.memory)]
        add(f"Memory ({len(state.memory)}/5): {', '.join(tiles) or 'empty'}; pile: {len(state.pile)} face-down tiles",
            keep=tiles)
        if state.phase == PLACING:
            source = "memory" if state.drawn_from_memory else "pile"
            add(f"In hand: {tile_name(state.drawn)} (from the {source}), to place next to the child or decline")
        if state.results:
            add("Rounds: " + "; ".join(f"{i + 1}: {OUTCOME_NAMES[o]}" for i, o in enumerate(state.results)))
        add(LEGEND)
        return "\n".join(lines)
