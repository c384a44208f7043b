"""Observation encoding: one flat float32 vector per seat, declared as named pieces.

Map-shaped pieces have shape ``(..., H, W)`` (rows, columns of the map; terrain
cells stay 0). Per-player pieces are in *relative* seat order: index 0 is the
observer, 1 the next seat clockwise, and so on. Public pieces are the same for
every seat; the child's private pieces (stroke, position, budget, icons reached
this turn) are all zero for seekers, so nothing hidden reaches them.
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from operator import itemgetter

import numpy as np

from kakurega.envs.core.cache import remember
from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, OVER, START, SummerState

CHILD_TURNS_CAP = 20  #: the child-turn counter saturates here
PLANES_SIZE = 512  #: map planes kept per observer, by square mask
ANNOUNCED_SIZE = 512  #: last-announcement pieces kept per observer, by (child turns, announcement)
TURN_ICONS_SIZE = 256  #: turn_icons pieces kept per observer, by icon multiset
#: passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)
#: the pieces in layout order (the encoder joins them in this order)
PIECE_ORDER = (
    "square_kind", "icon", "icon_vp", "seat", "child", "round", "phase", "vp", "pieces", "past_guesses", "belief",
    "last_cost", "last_icons", "child_turns", "stroke", "position", "budget_left", "turn_icons",
)


def make_layout(game) -> ObservationLayout:
    """The observation layout of ``game``'s configuration (sizes depend on the map and the player count)."""
    m = game.map
    n, H, W, K, S = game.num_players, m.height, m.width, len(m.icons), game.num_squares
    max_vp = max(icon.vp for icon in m.icons)
    total_vp = max(1, sum(game.square_vp))
    return ObservationLayout(
        [
            ("square_kind", (3, H, W), "static map: one-hot path / black-framed / white-framed square (terrain: all 0)"),
            ("icon", (K, H, W), "static map: one-hot icon type of each icon square (VP-table order)"),
            ("icon_vp", (H, W), "static map: VP of the icon on each square", max_vp),
            ("seat", (n,), "one-hot absolute seat of the observer"),
            ("child", (n,), "one-hot relative seat of this round's child (index 0: I am the child); 0 when over"),
            ("round", (n,), "one-hot number of rounds finished (0 .. n-1); all 0 when the game is over"),
            ("phase", (3,), "one-hot: child chooses a start / child's turn / seekers' turn"),
            ("vp", (n,), "victory points per relative seat (at most the map's total icon VP)", total_vp),
            ("pieces", (n, H, W), "seeker pieces on the board per relative seat (this seekers' turn, or the last one while the child moves)"),
            ("past_guesses", (H, W), "squares guessed wrongly in an earlier seekers' turn of this round"),
            ("belief", (H, W), "public belief: squares where the child can be (sound over-approximation)"),
            ("last_cost", (BUDGET + 1,), "one-hot total cost of the round's last announcement (all 0: none yet)"),
            ("last_icons", (K,), "icon-type counts of the round's last announcement", BUDGET),
            ("child_turns", (1,), f"child turns announced this round (saturates at {CHILD_TURNS_CAP})", CHILD_TURNS_CAP),
            ("stroke", (H, W), "child only: order of each stroke square this round (1 = start), else 0", S),
            ("position", (H, W), "child only: 1 on the child's current square"),
            ("budget_left", (1,), "child only: cost left in this turn", BUDGET),
            ("turn_icons", (K,), "child only: icon-type counts reached so far this turn", BUDGET),
        ]
    )


class SummerObserver:
    """Builds the layout for a game and encodes states into it (picklable)."""

    def __init__(self, game):
        m = game.map
        n, H, W, K, S = game.num_players, m.height, m.width, len(m.icons), game.num_squares
        max(icon.vp for icon in m.icons)
        total_vp = max(1, sum(game.square_vp))
        self.game = game
        self.layout = make_layout(game)
        layout = self.layout
        pieces = layout.pieces
        # The encoder joins the pieces' float32 bytes in layout order.
        assert list(pieces) == list(PIECE_ORDER), "encode() joins the pieces in this order"
        self.n = n
        cell = [r * W + c for r, c in m.squares]
        start = {name: piece.start for name, piece in pieces.items()}
        plane = H * W
        template = layout.zeros()
        for s, (kind, icon) in enumerate(zip(game.kinds, game.icon_of)):
            template[start["square_kind"] + kind * plane + cell[s]] = 1
            if icon >= 0:
                template[start["icon"] + icon * plane + cell[s]] = 1
                template[start["icon_vp"] + cell[s]] = game.square_vp[s]

        def f32(values) -> bytes:
            return np.asarray(values, dtype=np.float32).tobytes()

        def zeros(first: str, last: str) -> bytes:  # the pieces first .. last, all 0
            return bytes(4 * (pieces[last].stop - pieces[first].start))

        # Encoding joins bytes: every piece (or run of consecutive pieces) is
        # a table entry or a cached value, so one observation costs a few
        # lookups, one join and no numpy call but the final zero-copy view.
        self._static = template[: pieces["seat"].start].tobytes()  # square_kind, icon, icon_vp
        #: (seat, child, round and phase pieces, whether the seat is the child) per
        #: [seat][first child][rounds finished (n: over)][phase]
        self._headers = [
            [[[self._header(seat, first, rounds, phase) for phase in range(4)] for rounds in range(n + 1)] for first in range(n)]
            for seat in range(n)
        ]
        #: float32 bytes of the small integers the pieces hold (VP, stroke order, budget, counts)
        self._f32 = [f32([v]) for v in range(max(total_vp, S, BUDGET, CHILD_TURNS_CAP) + 1)]
        #: one-hot map plane of each square; index -1 (the last entry) is the empty plane
        self._plane_of = [f32(np.arange(plane) == c) for c in cell] + [bytes(4 * plane)]
        self._plane_chunks = _plane_tables(tuple(cell), plane)
        self._mask_bytes = (S + 7) // 8
        self._planes: dict[int, bytes] = {}
        #: last_cost, last_icons and child_turns per (child turns, last announcement)
        self._announced: dict[tuple, bytes] = {}
        self._no_announcement = zeros("last_cost", "child_turns")
        #: per observer seat: the values of every seat in relative seat order (observer first)
        self._relative = [itemgetter(*[(seat + k) % n for k in range(n)]) for seat in range(n)]
        self._turn_icons: dict[tuple[int, ...], bytes] = {}
        self._num_icons = K
        self._stroke_at = cell  # offset of each square in the stroke plane
        self._stroke_plane = (array("f", bytes(4 * plane)), [])  # (plane, squares) of the last child stroke encoded
        #: (public facts, the child's public pieces square_kind .. child_turns) of the last child's turn encoded
        self._child_public = (None, b"")
        self._not_child = zeros("stroke", "turn_icons")
        self._not_moving = zeros("budget_left", "turn_icons")
        self._over = zeros("pieces", "turn_icons")

    def __getstate__(self):
        # the caches are pure speed-ups: do not copy or pickle them
        state = {**self.__dict__, "_planes": {}, "_announced": {}, "_turn_icons": {}, "_child_public": (None, b"")}
        state["_stroke_plane"] = (array("f", bytes(len(self._stroke_plane[0]) * 4)), [])
        return state

    def _header(self, seat: int, first_child: int, rounds: int, phase: int) -> tuple[bytes, bool]:
        """The pieces seat, child, round and phase (consecutive) as float32 bytes, and whether seat is the child."""
        n, layout = self.n, self.layout
        values = layout.zeros()
        layout.view(values, "seat")[seat] = 1.0
        if phase != OVER and rounds < n:
            layout.view(values, "child")[(first_child + rounds - seat) % n] = 1.0
            layout.view(values, "round")[rounds] = 1.0
            layout.view(values, "phase")[0 if phase == START else 1 if phase == CHILD else 2] = 1.0
        header = values[layout.pieces["seat"].start : layout.pieces["phase"].stop].tobytes()
        return header, rounds < n and seat == (first_child + rounds) % n

    def _plane(self, mask: int) -> bytes:
        """The bitmask of squares ``mask`` as a 0/1 float32 map plane (cached: masks repeat)."""
        chunks = map(list.__getitem__, self._plane_chunks, mask.to_bytes(self._mask_bytes, "little"))
        plane = b"".join(chunks)
        return remember(self._planes, mask, plane, PLANES_SIZE)

    def _announcement(self, key: tuple[int, tuple[int, tuple[int, ...]]]) -> bytes:
        """The pieces last_cost, last_icons and child_turns for ``key = (child turns, last announcement)`` (cached)."""
        turns, (cost, icons) = key
        values = [0.0] * (BUDGET + 1 + self._num_icons + 1)
        values[cost] = 1.0
        for icon in icons:
            values[BUDGET + 1 + icon] += 1.0
        values[-1] = min(turns, CHILD_TURNS_CAP)
        return remember(self._announced, key, array("f", values).tobytes(), ANNOUNCED_SIZE)

    def _icon_counts(self, icons: tuple[int, ...]) -> bytes:
        """The turn_icons piece: counts of each icon type in ``icons`` (cached)."""
        values = [0.0] * self._num_icons
        for icon in icons:
            values[icon] += 1.0
        return remember(self._turn_icons, icons, array("f", values).tobytes(), TURN_ICONS_SIZE)

    def encode(self, state: SummerState, seat: int) -> np.ndarray:
        """The observation vector of ``seat``: public facts, plus private ones for the child."""
        phase = state.phase
        relative = self._relative[seat]
        header, is_child = self._headers[seat][state.first_child][state.round][phase]
        if phase == OVER:
            f32 = self._f32
            return np.frombuffer(b"".join([self._static, header, *map(f32.__getitem__, relative(state.vp)), self._over]), FLOAT32)
        if not is_child:
            parts = self._public_parts(state, header, relative)
            parts.append(self._not_child)
            return np.frombuffer(b"".join(parts), FLOAT32)
        # The child's lines change no public fact: during its turn the public
        # pieces are joined once and kept with the facts they show.
        if phase == CHILD:
            announcements = state.announcements
            shown = (state.first_child, state.round, state.guessed, state.belief, len(announcements),
                     announcements[-1] if announcements else None, tuple(state.vp), tuple(state.pieces))
            if shown == self._child_public[0]:
                public = self._child_public[1]
            else:
                public = b"".join(self._public_parts(state, header, relative))
                self._child_public = (shown, public)
        else:
            public = b"".join(self._public_parts(state, header, relative))
        stroke = state.stroke
        if not stroke:  # the child has not chosen its start yet
            return np.frombuffer(public + self._not_child, FLOAT32)
        # The stroke plane of the last stroke encoded is kept and extended:
        # the child's consecutive observations mostly add one square.
        plane, known = self._stroke_plane
        done = len(known)
        if stroke[:done] != known:  # another stroke: start afresh
            plane, known = self._stroke_plane = (array("f", bytes(len(plane) * 4)), [])
            done = 0
        stroke_at = self._stroke_at
        for order in range(done, len(stroke)):
            plane[stroke_at[stroke[order]]] = order + 1
        known += stroke[done:]
        position = self._plane_of[stroke[-1]]
        if phase == CHILD:
            icons = tuple(state.turn_icons)
            budget_left = self._f32[BUDGET - state.turn_cost]
            turn_icons = self._turn_icons.get(icons) or self._icon_counts(icons)
            return np.frombuffer(b"".join((public, plane, position, budget_left, turn_icons)), FLOAT32)
        return np.frombuffer(b"".join((public, plane, position, self._not_moving)), FLOAT32)

    def _public_parts(self, state: SummerState, header: bytes, relative) -> list:
        """The float32 bytes of the pieces square_kind .. child_turns (public facts), in order."""
        f32, plane_of, planes = self._f32, self._plane_of, self._planes
        guessed, belief = state.guessed, state.belief
        announcements = state.announcements
        if announcements:
            key = (len(announcements), announcements[-1])
            announced = self._announced.get(key) or self._announcement(key)
        else:
            announced = self._no_announcement
        return [
            self._static,
            header,
            *map(f32.__getitem__, relative(state.vp)),
            *map(plane_of.__getitem__, relative(state.pieces)),  # no piece (-1): the empty plane
            (planes.get(guessed) or self._plane(guessed)) if guessed else plane_of[-1],
            planes.get(belief) or self._plane(belief),
            announced,
        ]


@lru_cache(maxsize=8)
def _plane_tables(cell: tuple[int, ...], plane: int) -> list[list[bytes]]:
    """Float32 bytes of 0/1 map planes by bytes of a square mask (shared by observers of one map).

    Squares are numbered row by row, so the squares of mask byte ``j`` (squares
    ``8j .. 8j+7``) lie in the cells from ``cell[8j]`` up to the next byte's
    first cell; the cells between them are terrain (always 0). A plane is
    ``chunks[j][byte]`` joined over the bytes of the mask (the first chunk also
    covers the cells before the first square).
    """
    S = len(cell)
    num_bytes = (S + 7) // 8
    bounds = [0] + [cell[8 * j] for j in range(1, num_bytes)] + [plane]
    chunks = []
    for j in range(num_bytes):
        table = []
        for byte in range(256):
            values = array("f", bytes(4 * (bounds[j + 1] - bounds[j])))
            for b in range(min(8, S - 8 * j)):
                if byte >> b & 1:
                    values[cell[8 * j + b] - bounds[j]] = 1.0
            table.append(values.tobytes())
        chunks.append(table)
    return chunks
