"""The picture of a Hidden Rooms table: the dark room, its revealed tiles, the child, the monster and its path.

The child and a spectator see the same table; the only hidden thing, the
order of the face-down pile, is never drawn (the pile shows its size only).
A pale ring marks every cell in the monster's sight (the rules' sight from
the cell it stands on); the EXIT sign stands outside the room's wall, left of
the exit cell, where no figure covers it.
Clickable, in the child's view while it decides: the cells next to the child (step there, place the drawn tile
there), the pile and the memory tiles (search them), and buttons for stop
moving, don't search and decline.
"""

from __future__ import annotations

from kakurega.envs.core.picture import (
    BLACK,
    WHITE,
    Circle,
    Line,
    Polygon,
    Rect,
    Scene,
    Text,
    button,
    fit_size,
    last_move_mark,
)
from kakurega.envs.hidden_rooms.booklet import GRID
from kakurega.envs.hidden_rooms.rules import (
    DECLINE,
    EMPTY,
    EXIT_CELL,
    MEMORY_CAPACITY,
    MOVE,
    NEIGHBOURS,
    NO_SEARCH,
    OUTCOME_NAMES,
    OVER,
    PHASE_NAMES,
    PLACE,
    PLACING,
    SEARCH,
    SEARCH_MEMORY,
    SEARCH_PILE,
    START_TILE,
    STEP,
    STOP_MOVING,
    HiddenRoomsGame,
    tile_colour,
    tile_name,
    tile_number,
)

#: tile colours: red, blue, green, yellow
TILE_COLOURS = ((208, 64, 58), (46, 98, 178), (58, 150, 62), (232, 196, 36))
START_COLOUR = (238, 226, 200)
DARK = (34, 34, 44)
FLOOR = (70, 66, 82)
MONSTER_COLOUR = (132, 52, 160)
CHILD_COLOUR = (255, 160, 40)
PATH_COLOUR = (200, 90, 220)
#: the ring inside every cell the monster sees (the rules' sight: radius or line, from its cell)
SIGHT_COLOUR = (255, 236, 120)
EXIT_COLOUR = (250, 250, 250)
CELL = 88
MARGIN = 24
#: the room's left edge, right of the EXIT sign (outside the room, so no figure ever covers it)
ROOM_X = MARGIN + 44
TOP = 56
PANEL_X = ROOM_X + MARGIN + GRID * CELL
WIDTH = PANEL_X + 300
HEIGHT = TOP + GRID * CELL + 70


def tile_shapes(x: float, y: float, size: float, tile: int, actions: tuple = (), label: str = "") -> list:
    """A tile face: its colour and number (the start tile is pale with "S")."""
    if tile == START_TILE:
        fill, text, ink = START_COLOUR, "S", BLACK
    else:
        fill, text = TILE_COLOURS[tile_colour(tile)], str(tile_number(tile))
        ink = BLACK if tile_colour(tile) == 3 else WHITE
    shapes = [
        Rect(x, y, size, size, fill=fill, outline=(20, 20, 20), width=1.5, radius=size / 8, actions=actions,
             label=label or tile_name(tile)),
        Text(x + size / 2, y + size / 2, text, fill=ink, size=size * 0.42),
    ]
    if size >= 60:  # a board tile: its number again in a corner, seen when a figure stands on it
        shapes.append(Text(x + size - 8, y + size - 10, text, fill=ink, size=size * 0.16, anchor="end"))
    return shapes


def child_shapes(cx: float, cy: float, s: float) -> list:
    """A child: a round head over a small body."""
    return [
        Polygon(((cx - s * 0.32, cy + s * 0.42), (cx + s * 0.32, cy + s * 0.42), (cx, cy - s * 0.05)),
                fill=CHILD_COLOUR, outline=BLACK, width=1.5),
        Circle(cx, cy - s * 0.2, s * 0.2, fill=(255, 220, 180), outline=BLACK, width=1.5),
    ]


def monster_shapes(cx: float, cy: float, s: float, name: str) -> list:
    """A monster: a purple blob with two eyes, its initial below."""
    return [
        Circle(cx, cy, s * 0.36, fill=MONSTER_COLOUR, outline=BLACK, width=2, label=name),
        Circle(cx - s * 0.12, cy - s * 0.08, s * 0.08, fill=WHITE),
        Circle(cx + s * 0.12, cy - s * 0.08, s * 0.08, fill=WHITE),
        Circle(cx - s * 0.12, cy - s * 0.06, s * 0.035, fill=BLACK),
        Circle(cx + s * 0.12, cy - s * 0.06, s * 0.035, fill=BLACK),
        Polygon(((cx - s * 0.16, cy + s * 0.12), (cx + s * 0.16, cy + s * 0.12), (cx, cy + s * 0.22)), fill=WHITE),
    ]


class HiddenRoomsPicture:
    """``scene(state, view)``: the room as the child (view 0) or a spectator (None) sees it; both see the same."""

    def __init__(self, game: HiddenRoomsGame):
        self.game = game

    @staticmethod
    def cell_box(cell: int) -> tuple[float, float]:
        """Top-left pixel of ``cell``."""
        return ROOM_X + (cell % GRID) * CELL, TOP + (cell // GRID) * CELL

    def scene(self, state, view: int | None = None, last_move: tuple | None = None) -> Scene:
        """The table in a picture (the pile's order is never read); the cell ``last_move`` touched is outlined."""
        game = self.game
        scene = Scene(WIDTH, HEIGHT, background=(246, 242, 232), title="Hidden Rooms")
        add = scene.add
        if not state.board:
            add(Text(WIDTH / 2, HEIGHT / 2, "Hidden Rooms: no round started", size=20))
            return scene
        monster = game.monsters[state.monster]
        phase = "episode over" if state.phase == OVER else PHASE_NAMES[state.phase]
        score = "single round" if game.episode == "round" else f"escapes {state.escapes}, fails {state.fails}"
        add(Text(MARGIN, 20, f"Hidden Rooms  -  round {state.rounds}, turn {state.turn}/{game.max_turns}  -  {score}",
                 size=18, anchor="start"))
        add(Text(MARGIN, 42, f"phase: {phase}" + (f" ({state.steps_taken}/2 steps)" if state.phase == MOVE else ""),
                 size=15, anchor="start", fill=(60, 60, 60)))
        # the room: dark cells, revealed tiles, the exit
        add(Rect(ROOM_X - 6, TOP - 6, GRID * CELL + 12, GRID * CELL + 12, fill=DARK, radius=8))
        self._exit(scene)
        acting = view == 0 and state.phase in (MOVE, SEARCH, PLACING)
        targets = self._cell_actions(state) if acting else {}
        touched = self._touched(state, last_move)
        sight = self.sight_cells(state)
        for cell in range(GRID * GRID):
            x, y = self.cell_box(cell)
            tile = state.board[cell]
            actions = targets.get(cell, ())
            if cell == touched:
                add(last_move_mark(x + 3, y + 3, CELL - 6, CELL - 6, "the last move", pad=3))
            if tile == EMPTY:
                add(Rect(x + 3, y + 3, CELL - 6, CELL - 6, fill=FLOOR if actions else DARK, outline=(60, 60, 74),
                         width=1, radius=6, actions=actions, label=f"dark cell ({cell // GRID}, {cell % GRID})"))
            else:
                add(*tile_shapes(x + 3, y + 3, CELL - 6, tile, actions=actions))
            if cell in sight:
                add(Rect(x + 7, y + 7, CELL - 14, CELL - 14, outline=SIGHT_COLOUR, width=3, radius=6,
                         label=f"in the monster's sight ({cell // GRID}, {cell % GRID})"))
        # the monster's path ahead: a line through the cells still to walk, numbers on the steps
        path = game.paths[state.monster]
        ahead = [state.monster_cell] + list(path[state.progress + 1:])
        centre = [(self.cell_box(c)[0] + CELL / 2, self.cell_box(c)[1] + CELL / 2) for c in ahead]
        if len(centre) > 1:
            add(Line(tuple(centre), fill=PATH_COLOUR, width=4))
        last = path[-1]
        lx, ly = self.cell_box(last)
        add(Line(((lx + 14, ly + 14), (lx + CELL - 14, ly + CELL - 14)), fill=PATH_COLOUR, width=5))
        add(Line(((lx + CELL - 14, ly + 14), (lx + 14, ly + CELL - 14)), fill=PATH_COLOUR, width=5))
        first_step: dict[int, int] = {}  # per cell: steps until the path first reaches it
        for k, cell in enumerate(ahead[1:], start=1):
            first_step.setdefault(cell, k)
        for cell, k in first_step.items():
            x, y = self.cell_box(cell)
            add(Circle(x + CELL * 0.8, y + CELL * 0.2, 10, fill=PATH_COLOUR))
            add(Text(x + CELL * 0.8, y + CELL * 0.2, str(k), fill=WHITE, size=12))
        mx, my = self.cell_box(state.monster_cell)
        cx, cy = self.cell_box(state.child)
        add(*child_shapes(cx + CELL / 2, cy + CELL / 2, CELL))
        add(*monster_shapes(mx + CELL / 2, my + CELL / 2, CELL * (0.8 if state.monster_cell == state.child else 1),
                            monster.name))
        self._panel(scene, state, monster, acting)
        return scene

    def sight_cells(self, state) -> set[int]:
        """The cells the monster sees from where it stands (public: its card and cell are on the table)."""
        mask = self.game.sight_masks[state.monster][state.monster_cell]
        return {cell for cell in range(GRID * GRID) if mask >> cell & 1}

    def _exit(self, scene: Scene) -> None:
        """The EXIT sign left of the room, pointing at the exit cell through a gap in the wall."""
        ex, ey = self.cell_box(EXIT_CELL)
        mid = ey + CELL / 2
        scene.add(Rect(ex - 6, mid - 18, 6, 36, fill=EXIT_COLOUR),
                  Rect(MARGIN - 18, mid - 10, 46, 20, fill=EXIT_COLOUR, outline=BLACK, width=1, radius=3,
                       label="the exit (0, 0): the child escapes there"),
                  Text(MARGIN + 5, mid, "EXIT", size=12))

    @staticmethod
    def _touched(state, last_move) -> int:
        """The cell the last move touched (a step's or a placed tile's), or -1; none once a new round is laid out."""
        if last_move is None or state.board.count(EMPTY) == len(state.board) - 1:
            return -1
        action = last_move[1]
        if STEP <= action < STEP + 4:
            return state.child
        if PLACE <= action < PLACE + 4:
            cell = NEIGHBOURS[state.child][action - PLACE]  # the child has not moved since: placing ends its turn
            return cell if cell >= 0 and state.board[cell] != EMPTY else -1
        return -1

    def _cell_actions(self, state) -> dict[int, tuple]:
        """Per neighbour cell of the child: the step and place actions that name it."""
        targets: dict[int, tuple] = {}
        for d, nb in enumerate(NEIGHBOURS[state.child]):
            if nb >= 0:
                targets[nb] = (STEP + d, PLACE + d)
        return targets

    def _panel(self, scene: Scene, state, monster, acting: bool) -> None:
        """The side panel: the monster card, the pile, the memory area, the tile in hand, the buttons."""
        add = scene.add
        x = PANEL_X
        add(Rect(x, TOP - 6, 280, 104, fill=WHITE, outline=MONSTER_COLOUR, width=2, radius=8))
        add(*monster_shapes(x + 36, TOP + 34, 64, monster.name))
        add(Text(x + 74, TOP + 14, monster.name, size=17, anchor="start"))
        steps = f"{monster.steps} step{'s' if monster.steps != 1 else ''} a turn"
        add(Text(x + 74, TOP + 36, steps, size=13, anchor="start"))
        add(Rect(x + 74, TOP + 46, 16, 16, fill=DARK, outline=SIGHT_COLOUR, width=3, radius=3,
                 label="a ring like this marks the cells the monster sees"))
        sight = f"sight: {monster.describe_sight()}"
        add(Text(x + 96, TOP + 54, sight, size=fit_size(sight, 13, 280 - 96 - 6), anchor="start"))
        chase = "CHASING the child" if state.chasing else "following its path"
        add(Text(x + 12, TOP + 82, f"path {state.progress}/{len(self.game.paths[state.monster]) - 1}, {chase}",
                 size=13, anchor="start", fill=(90, 30, 110)))
        # the pile (a face-down stack; clicking it searches it)
        y = TOP + 116
        pile_actions = (SEARCH_PILE,) if state.pile and acting else ()
        for k in range(min(3, len(state.pile))):
            add(Rect(x + 8 - 3 * k, y + 3 * k, 54, 54, fill=(92, 72, 58), outline=(30, 20, 10), width=1.5, radius=6,
                     actions=pile_actions, label=f"search the pile ({len(state.pile)} face-down tiles)"))
        add(Text(x + 76, y + 28, f"pile: {len(state.pile)} tiles", size=14, anchor="start"))
        # the memory area
        y += 76
        add(Text(x, y, f"memory ({len(state.memory)}/{MEMORY_CAPACITY})", size=14, anchor="start"))
        for slot in range(MEMORY_CAPACITY):
            sx = x + slot * 54
            if slot < len(state.memory):
                tile = state.memory[slot]
                add(*tile_shapes(sx, y + 14, 48, tile, actions=(SEARCH_MEMORY + slot,) if acting else (),
                                 label=f"search memory slot {slot} ({tile_name(tile)})"))
            else:
                add(Rect(sx, y + 14, 48, 48, outline=(160, 160, 160), width=1, radius=6))
        # the tile in hand and the buttons of the phase
        y += 78
        if state.phase == PLACING:
            source = "memory" if state.drawn_from_memory else "pile"
            add(Text(x, y, f"in hand (from the {source}):", size=14, anchor="start"))
            add(*tile_shapes(x + 200, y - 14, 48, state.drawn))
            add(Text(x, y + 22, "click a dark cell next to the child", size=12, anchor="start", fill=(80, 80, 80)))
        y += 50
        buttons = {MOVE: ("stop moving", STOP_MOVING), SEARCH: ("don't search", NO_SEARCH),
                   PLACING: ("decline to place", DECLINE)}
        if acting:
            text, action = buttons[state.phase]
            add(*button(x, y, 180, 34, text, (action,)))
        if state.results:
            y = HEIGHT - 30
            text = "rounds: " + ", ".join(OUTCOME_NAMES[o] for o in state.results)
            scene.add(Text(MARGIN, y, text, size=14, anchor="start"))
        if state.phase == OVER:
            scene.add(Text(MARGIN, HEIGHT - 56, "episode over", size=18, anchor="start", fill=(150, 20, 20)))

