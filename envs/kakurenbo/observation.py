"""KAKURENBO observations: what one player may know, as a flat float32 vector.

Every per-player piece is *egocentric*: row ``r`` describes the player ``r``
seats to the observer's left (clockwise), so row 0 is the observer, row 1 its
left neighbour and row ``n-1`` its right neighbour. Action offsets use the same
numbering, so "row k" and "offset k" name the same player.

The encoder reads only public fields of the state and the observer's own row
of ``knowledge`` (which includes its own faces when they are visible), so an
observation cannot leak another hand's faces or the pile order.
"""

from __future__ import annotations

import struct
from array import array

import numpy as np

from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.kakurenbo import knowledge as kn
from kakurega.envs.kakurenbo.knowledge import CURSE, NUM_BODY_CARDS
from kakurega.envs.kakurenbo.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_PARTS, NUM_STAGES, OVER, KakurenboGame

#: passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)
#: a float as its 4 float32 bytes (native order and the C cast, as ``array("f")`` and numpy store it)
PACK_FLOAT32 = struct.Struct("f").pack
#: per player count: the ``colour_counts`` piece packed as float32 (module level: picklable observers)
PACK_COUNTS = {n: struct.Struct(f"{2 * n}f").pack for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
#: per player count: the ``dice`` and ``curse`` part tables (built by the first observer)
SHARED_TABLES = {}
NUM_LAST_KINDS = 7  # draw, discard, give card, give colour, take, give Curse, dice opponent


def make_layout(game: KakurenboGame) -> ObservationLayout:
    """The observation layout of ``game``'s configuration (sizes depend on the player count)."""
    n = game.num_players
    return ObservationLayout(
        [
            ("variant", (2,), "one-hot: kakurenbo, kurayami"),
            ("phase", (2,), "one-hot: phase 1, phase 2 (both 0 once the game is over)"),
            (
                "stage",
                (NUM_STAGES,),
                "one-hot pending decision: draw-or-discard, give card, take, give Curse, "
                "draw (Kurayami), give colour, choose dice opponent, take after dice (all 0 when over)",
            ),
            ("actor", (n,), "one-hot row of the player deciding now (all 0 when over)"),
            ("turn", (n,), "one-hot row whose turn it is (differs from actor on Kurayami's off-turn take)"),
            ("dice_target", (n,), "Kurayami: one-hot row the dice were rolled against, while its take is pending"),
            ("dice", (2, 6), "last roll of the red die (row 0) and the blue die (row 1), one-hot of 1..6"),
            ("colour_counts", (n, 2), "red and blue body-part cards held by each row", 7),
            ("curse", (n + 1,), "one-hot: the row holding Kaku's Curse, or the last entry while it is in the pile"),
            ("open_hand", (n,), "1 where that row's hand is open to all (head pair)"),
            ("scores", (n,), "points scored so far by each row", 16),
            ("discarded", (NUM_PARTS, n), "pair p (head..left leg) was discarded by that row"),
            ("pile_size", (1,), "cards in the pile, the Curse included", 15),
            ("pile_top", (3,), "colour of the pile's top card: red, blue, the Curse (all 0 when empty)"),
            ("pile_colours", (2,), "red and blue body-part cards in the pile (public by counting)", 7),
            (
                "cards",
                (NUM_BODY_CARDS, n),
                "card c (part c//2, colour c%2) is known to the observer to be in that row's hand; "
                "column 0 is the observer's own hand (empty in Kurayami phase 1)",
            ),
            (
                "last_kind",
                (NUM_LAST_KINDS,),
                "public part of the last action: draw, discard, give card, give colour, take, give Curse, dice opponent",
            ),
            ("last_actor", (n,), "row that took the last action"),
            ("last_other", (n,), "row the last action gave to, took from or chose"),
            ("last_colour", (2,), "colour of the card drawn, given or taken by the last action"),
            ("steps_used", (1,), "fraction of the step limit already used"),
        ]
    )


class KakurenboObserver:
    """``observer(state, seat)``: the observation vector of ``seat``. Picklable (plain attributes).

    For speed the vector is joined from float32 bytes, one part per group of
    consecutive pieces, and handed to numpy without a copy (on this
    interpreter a slice or item write into an array costs about as much as
    building a small part):

    - ``variant``..``dice_target`` per (observer, decision), ``pile_*`` per
      pile composition and ``last_*`` per (observer, last move): built by the
      layout's own views on first use and cached (a game meets a few
      hundred keys at most); ``dice`` and ``curse`` come from tables;
    - ``colour_counts``: the state's counts rotated to the observer, packed;
    - ``open_hand`` + ``scores``, ``discarded`` and ``cards``: a zero part
      when the piece is empty, else a copy of it with each non-zero entry
      written.

    ``rel[seat][where]`` is the egocentric row of seat ``where`` for observer
    ``seat``. ``tests/kakurenbo/test_env.py`` checks the parts cover the
    layout in order.
    """

    def __init__(self, game: KakurenboGame):
        self.game = game
        self.layout = layout = make_layout(game)
        self.n = n = game.num_players
        self.kurayami = game.kurayami
        template = layout.zeros()
        layout.view(template, "variant")[1 if game.kurayami else 0] = 1.0
        self.template = template
        self.inv_max_steps = 1.0 / game.max_steps
        #: egocentric row of every seat, per observer
        self.rel = [tuple((where - seat) % n for where in range(n)) for seat in range(n)]
        pieces = layout.pieces
        # static tables, shared by the observers of one player count (they depend on nothing else)
        tables = SHARED_TABLES.get(n)
        if tables is None:
            tables = SHARED_TABLES[n] = (
                [self._part("dice", "dice", self._fill_dice, (red, blue)) for red in range(7) for blue in range(7)],
                [[self._part("curse", "curse", self._fill_curse, (seat, holder)) for holder in (*range(n), -1)] for seat in range(n)],
            )
        #: ``dice`` part per ``7 * red + blue`` (index 0: not rolled yet)
        #: and ``curse`` part per observer, indexed by the holder (-1: in the pile)
        self.dice_parts, self.curse_parts = tables
        # zero parts, and zero arrays to fill for the sparse pieces
        self.no_open_scores = self._part("open_hand", "scores", None, ())
        self.open_scores = array("f", self.no_open_scores)
        self.no_discards = self._part("discarded", "discarded", None, ())
        self.discards = array("f", self.no_discards)
        self.no_pile = self._part("pile_size", "pile_colours", None, ())
        self.no_cards = array("f", self._part("cards", "cards", None, ()))
        self.no_last = self._part("last_kind", "last_colour", None, ())
        self.no_steps = bytes(4)
        self.at_scores = pieces["scores"].start - pieces["open_hand"].start  # in the open_scores part
        self.heads = {}
        self.piles = {}
        self.lasts = {}

    # The parts: float32 bytes of consecutive pieces, filled through the layout's views.
    def _part(self, first: str, last: str, fill, key) -> bytes:
        layout = self.layout
        obs = self.template.copy()
        if fill is not None:
            fill(lambda name: layout.view(obs, name), *key)
        return obs[layout.pieces[first].start : layout.pieces[last].stop].tobytes()

    def _fill_dice(self, view, red, blue):
        if red:
            view("dice")[0, red - 1] = view("dice")[1, blue - 1] = 1.0

    def _fill_curse(self, view, seat, holder):
        view("curse")[(holder - seat) % self.n if holder >= 0 else self.n] = 1.0

    def _fill_head(self, view, seat, over, phase, stage, actor, active, target):
        if not over:
            view("phase")[phase - 1] = 1.0
            view("stage")[stage] = 1.0
            view("actor")[(actor - seat) % self.n] = 1.0
            view("turn")[(active - seat) % self.n] = 1.0
        if target >= 0:
            view("dice_target")[(target - seat) % self.n] = 1.0

    def _fill_pile(self, view, size, top, red, blue):
        view("pile_size")[0] = size
        view("pile_top")[top] = 1.0
        # the pile's colours follow from the public counts: 7 of each colour in all
        view("pile_colours")[:] = red, blue

    def _fill_last(self, view, seat, move):
        kind, actor, other, colour = move
        view("last_kind")[kind] = 1.0
        view("last_actor")[(actor - seat) % self.n] = 1.0
        if other >= 0:
            view("last_other")[(other - seat) % self.n] = 1.0
        if colour >= 0:
            view("last_colour")[colour] = 1.0

    def __call__(self, state, seat: int) -> np.ndarray:
        """Encode what ``seat`` may know in ``state``."""
        n = self.n
        rel = self.rel[seat]
        key = (seat, state.over, state.phase, state.stage, state.actor, state.active, state.target)
        head = self.heads.get(key)
        if head is None:
            head = self.heads[key] = self._part("variant", "dice_target", self._fill_head, key)
        red, blue = state.dice
        # rows are the seats from the observer clockwise: rotate the per-seat lists
        counts = state.colour_counts
        holder = state.curse_holder
        open_hand = state.open_hand
        scores = state.scores
        if 1 in open_hand or any(scores):
            part = self.open_scores[:]
            for where, flag in enumerate(open_hand):
                if flag:
                    part[rel[where]] = 1.0
            at = self.at_scores
            for where, score in enumerate(scores):
                if score:
                    part[at + rel[where]] = score
            open_scores = part.tobytes()
        else:
            open_scores = self.no_open_scores
        discarded_by = state.discarded_by
        pairs_left = discarded_by.count(-1)
        if pairs_left < NUM_PARTS:
            part = self.discards[:]
            at = 0
            for by in discarded_by:
                if by >= 0:
                    part[at + rel[by]] = 1.0
                at += n
            discards = part.tobytes()
        else:
            discards = self.no_discards
        pile = state.pile
        if pile:
            top = pile[-1]
            pile_red = pairs_left - sum(counts[0::2])
            pile_blue = len(pile) - (holder < 0) - pile_red  # the body-part cards of the pile, less the red
            key = (len(pile), 2 if top == CURSE else top & 1, pile_red, pile_blue)
            pile_part = self.piles.get(key)
            if pile_part is None:
                pile_part = self.piles[key] = self._part("pile_size", "pile_colours", self._fill_pile, key)
        else:
            pile_red = pile_blue = 0
            pile_part = self.no_pile
        if (pile_red and pile_blue) or (self.kurayami and state.phase == 1):
            # counting proves nothing while both colours are in the pile, nor before
            # any face is seen (KakurenboGame.known_row)
            row = state.knowledge[seat]
        else:
            row = kn.located(state, seat, (pile_red, pile_blue))
        part = self.no_cards[:]
        at = 0  # card c in row r: c*n + r
        for where in row:
            if where >= 0:
                part[at + rel[where]] = 1.0
            at += n
        if state.last_move[0] >= 0:
            key = (seat, state.last_move)
            last = self.lasts.get(key)
            if last is None:
                last = self.lasts[key] = self._part("last_kind", "last_colour", self._fill_last, key)
        else:
            last = self.no_last
        if state.steps:
            steps_used = state.steps * self.inv_max_steps
            steps = PACK_FLOAT32(steps_used if steps_used < 1.0 else 1.0)
        else:
            steps = self.no_steps
        data = b"".join(
            (
                head,
                self.dice_parts[7 * red + blue],
                PACK_COUNTS[n](*counts[2 * seat :], *counts[: 2 * seat]),
                self.curse_parts[seat][holder],
                open_scores,
                discards,
                pile_part,
                part.tobytes(),
                last,
                steps,
            )
        )
        return np.frombuffer(data, FLOAT32)


def make_observer(game: KakurenboGame) -> KakurenboObserver:
    """The encoder of ``game``'s configuration."""
    return KakurenboObserver(game)


assert OVER == NUM_STAGES  # the stage piece covers every live stage
