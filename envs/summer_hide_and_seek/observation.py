"""Observation encoding: one flat float32 vector per seat, declared as named pieces.

Map-shaped pieces have shape ``(..., H, W)`` (rows, columns of the map; terrain
cells stay 0). Per-player pieces are in *relative* seat order: index 0 is the
observer, 1 the next seat clockwise, and so on. Public pieces are the same for
every seat; the child's private pieces (stroke, position, budget, icons reached
this turn) are all zero for seekers, so nothing hidden reaches them.
"""

from __future__ import annotations

import numpy as np

from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, OVER, START, SummerState

CHILD_TURNS_CAP = 20  #: the child-turn counter saturates here


class SummerObserver:
    """Builds the layout for a game and encodes states into it (picklable)."""

    def __init__(self, game):
        m = game.map
        n, H, W, K, S = game.num_players, m.height, m.width, len(m.icons), game.num_squares
        max_vp = max(icon.vp for icon in m.icons)
        total_vp = max(1, sum(game.square_vp))
        self.game = game
        self.layout = ObservationLayout(
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
        layout = self.layout
        self.n = n
        cell = [r * W + c for r, c in m.squares]
        self._cell = cell
        start = {name: piece.start for name, piece in layout.pieces.items()}
        self._start = start
        plane = H * W
        template = layout.zeros()
        for s, (kind, icon) in enumerate(zip(game.kinds, game.icon_of)):
            template[start["square_kind"] + kind * plane + cell[s]] = 1
            if icon >= 0:
                template[start["icon"] + icon * plane + cell[s]] = 1
                template[start["icon_vp"] + cell[s]] = game.square_vp[s]
        self._template = template
        self._plane = plane
        #: flat offsets of each square in the belief / past-guess / stroke / position planes
        self._belief_at = np.asarray([start["belief"] + c for c in cell], dtype=np.intp)
        self._guess_at = np.asarray([start["past_guesses"] + c for c in cell], dtype=np.intp)
        self._stroke_at = [start["stroke"] + c for c in cell]
        self._position_at = [start["position"] + c for c in cell]
        self._pieces_at = [[start["pieces"] + k * plane + c for c in cell] for k in range(n)]
        self._mask_bytes = (S + 7) // 8
        self._num_squares = S
        self._bits_cache: dict[int, np.ndarray] = {}
        (self._seat_at, self._vp_at, self._child_at, self._round_at, self._phase_at, self._cost_at,
         self._icons_at, self._turns_at, self._budget_at, self._turn_icons_at) = (
            start[name]
            for name in ("seat", "vp", "child", "round", "phase", "last_cost", "last_icons", "child_turns",
                         "budget_left", "turn_icons")
        )

    def __getstate__(self):
        # the bit cache is a pure speed-up: do not copy or pickle it
        return {**self.__dict__, "_bits_cache": {}}

    def _bits(self, mask: int) -> np.ndarray:
        """The bitmask of squares ``mask`` as a 0/1 array over squares (cached: masks repeat)."""
        bits = self._bits_cache.get(mask)
        if bits is None:
            raw = np.frombuffer(mask.to_bytes(self._mask_bytes, "little"), dtype=np.uint8)
            bits = np.unpackbits(raw, bitorder="little")[: self._num_squares].astype(np.float32)
            if len(self._bits_cache) >= 4096:
                self._bits_cache.clear()
            self._bits_cache[mask] = bits
        return bits

    def encode(self, state: SummerState, seat: int) -> np.ndarray:
        """The observation vector of ``seat``: public facts, plus private ones for the child."""
        obs = self._template.copy()
        n = self.n
        obs[self._seat_at + seat] = 1.0
        vp_at = self._vp_at
        for other, vp in enumerate(state.vp):
            obs[vp_at + (other - seat) % n] = vp
        phase = state.phase
        if phase == OVER:
            return obs
        child = state.child
        obs[self._child_at + (child - seat) % n] = 1.0
        obs[self._round_at + state.round] = 1.0
        obs[self._phase_at + (0 if phase == START else 1 if phase == CHILD else 2)] = 1.0
        for other, square in enumerate(state.pieces):
            if square >= 0:
                obs[self._pieces_at[(other - seat) % n][square]] = 1.0
        if state.guessed:
            obs[self._guess_at] = self._bits(state.guessed)
        obs[self._belief_at] = self._bits(state.belief)
        if state.announcements:
            cost, icons = state.announcements[-1]
            obs[self._cost_at + cost] = 1.0
            for icon in icons:
                obs[self._icons_at + icon] += 1.0
            obs[self._turns_at] = min(len(state.announcements), CHILD_TURNS_CAP)
        if seat == child and state.stroke:
            stroke_at = self._stroke_at
            for order, square in enumerate(state.stroke, start=1):
                obs[stroke_at[square]] = order
            obs[self._position_at[state.stroke[-1]]] = 1.0
            if phase == CHILD:
                obs[self._budget_at] = BUDGET - state.turn_cost
                for icon in state.turn_icons:
                    obs[self._turn_icons_at + icon] += 1.0
        return obs


def make_layout(game) -> ObservationLayout:
    """The observation layout of ``game``."""
    return SummerObserver(game).layout
