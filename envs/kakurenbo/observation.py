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

from array import array

import numpy as np

from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.kakurenbo import knowledge as kn
from kakurega.envs.kakurenbo.knowledge import CURSE, NUM_BODY_CARDS
from kakurega.envs.kakurenbo.rules import NUM_PARTS, NUM_STAGES, OVER, KakurenboGame

#: passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)
NUM_LAST_KINDS = 7  # draw, discard, give card, give colour, take, give Curse, dice opponent
RED, BLUE = 0, 1  #: colour indexes (a body-part card ``c`` has colour ``c % 2``), also the rows of ``dice``


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
            ("turn", (n,), "one-hot row whose turn it is (differs from actor on Kurayami's off-turn take; all 0 when over)"),
            ("dice_target", (n,), "Kurayami: one-hot row the pending dice take is from (rolled against if red won, the roller if blue)"),
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
    """``observer(state, seat)``: the observation vector of ``seat``. Picklable (rebuilt from the game).

    Each call copies a float32 ``array`` template (the ``variant`` piece
    already set), writes the few non-zero entries of every piece where the
    layout puts them (offsets looked up by piece name once, in
    ``__init__``), and hands the bytes to numpy. ``rel[seat][where]`` is the
    egocentric row of seat ``where`` for observer ``seat``.

    Compiled, ``observation.pxd`` makes this an extension type with C
    fields, and the writes are C stores through a typed float32 view.
    :mod:`~kakurega.envs.kakurenbo.reference` is the plain definition it is
    tested against (``tests/test_conformance.py``).
    """

    def __init__(self, game: KakurenboGame):
        self.game = game
        self.layout = layout = make_layout(game)
        self.n = n = game.num_players
        self.kurayami = game.kurayami
        template = layout.zeros()
        layout.view(template, "variant")[1 if game.kurayami else 0] = 1.0
        self.template = array("f", template.tobytes())
        self.inv_max_steps = 1.0 / game.max_steps
        #: egocentric row of every seat, per observer (bytes: small ints, C integers when compiled)
        self.rel = [bytes((where - seat) % n for where in range(n)) for seat in range(n)]
        # Where the entries lie in the vector, by piece name: the start of each
        # piece, and for the (rows, columns) pieces the start of each column
        # and the distance between two rows.
        at = layout.index
        self.phase_at, self.stage_at = at("phase", 0), at("stage", 0)
        self.actor_at, self.turn_at, self.dice_target_at = at("actor", 0), at("turn", 0), at("dice_target", 0)
        #: face 1 of each die (row 0: red, row 1: blue)
        self.red_die_at, self.blue_die_at = at("dice", RED, 0), at("dice", BLUE, 0)
        #: red and blue counts of row 0; each further row is ``counts_row`` entries on
        self.red_count_at, self.blue_count_at = at("colour_counts", 0, RED), at("colour_counts", 0, BLUE)
        self.counts_row = at("colour_counts", 1, 0) - at("colour_counts", 0, 0)
        self.curse_at, self.curse_in_pile_at = at("curse", 0), at("curse", n)  # the last entry: in the pile
        self.open_hand_at, self.scores_at = at("open_hand", 0), at("scores", 0)
        #: pair 0 by row 0; each further pair is ``discarded_pair`` entries on
        self.discarded_at = at("discarded", 0, 0)
        self.discarded_pair = at("discarded", 1, 0) - self.discarded_at
        self.pile_size_at = at("pile_size", 0)
        self.pile_red_top_at, self.pile_blue_top_at, self.pile_curse_top_at = (at("pile_top", k) for k in (RED, BLUE, 2))
        self.pile_red_at, self.pile_blue_at = at("pile_colours", RED), at("pile_colours", BLUE)
        #: card 0 in row 0; each further card is ``cards_card`` entries on
        self.cards_at = at("cards", 0, 0)
        self.cards_card = at("cards", 1, 0) - self.cards_at
        self.last_kind_at, self.last_actor_at, self.last_other_at = at("last_kind", 0), at("last_actor", 0), at("last_other", 0)
        self.last_colour_at, self.steps_at = at("last_colour", 0), at("steps_used", 0)

    def __reduce__(self):
        # rebuilt from the game: one pickle format for the plain class and the compiled
        # extension type (observation.pxd), which has no ``__dict__``
        return KakurenboObserver, (self.game,)

    def __call__(self, state, seat: int) -> np.ndarray:
        """Encode what ``seat`` may know in ``state``."""
        return self.encode(state, seat)

    def encode(self, state, seat: int) -> np.ndarray:
        """Encode what ``seat`` may know in ``state``."""
        n = self.n
        rel = self.rel[seat]
        obs = self.template[:]
        # the same array under a second name: compiled, a typed float32 view (observation.pxd)
        view = obs
        if not state.over:
            phase, stage, actor, active = state.phase, state.stage, state.actor, state.active
            view[self.phase_at + phase - 1] = 1.0
            view[self.stage_at + stage] = 1.0
            view[self.actor_at + rel[actor]] = 1.0
            view[self.turn_at + rel[active]] = 1.0
        target = state.target
        if target >= 0:
            view[self.dice_target_at + rel[target]] = 1.0
        red, blue = state.dice
        if red:  # faces 1..6
            view[self.red_die_at + red - 1] = 1.0
            view[self.blue_die_at + blue - 1] = 1.0
        # per-seat pieces: seat ``where`` goes to row ``rel[where]``
        counts = state.colour_counts
        open_hand = state.open_hand
        scores = state.scores
        held_red = 0
        counts_row = self.counts_row
        for where in range(n):
            row = rel[where]
            reds = counts[2 * where]
            held_red += reds
            view[self.red_count_at + row * counts_row] = reds
            view[self.blue_count_at + row * counts_row] = counts[2 * where + 1]
            if open_hand[where]:
                view[self.open_hand_at + row] = 1.0
            if scores[where]:
                view[self.scores_at + row] = scores[where]
        holder = state.curse_holder
        if holder >= 0:
            view[self.curse_at + rel[holder]] = 1.0
        else:
            view[self.curse_in_pile_at] = 1.0
        pairs_left = NUM_PARTS
        at = self.discarded_at  # pair 0, then one pair further each time
        for by in state.discarded_by:
            if by >= 0:
                view[at + rel[by]] = 1.0
                pairs_left -= 1
            at += self.discarded_pair
        pile = state.pile
        if pile:
            top = pile[-1]
            # the pile's colours follow from the public counts: 7 of each colour in all
            pile_red = pairs_left - held_red
            pile_blue = len(pile) - (holder < 0) - pile_red  # the body-part cards of the pile, less the red
            view[self.pile_size_at] = len(pile)
            if top == CURSE:
                view[self.pile_curse_top_at] = 1.0
            elif top & 1 == RED:
                view[self.pile_red_top_at] = 1.0
            else:
                view[self.pile_blue_top_at] = 1.0
            view[self.pile_red_at] = pile_red
            view[self.pile_blue_at] = pile_blue
        else:
            pile_red = pile_blue = 0
        if (pile_red and pile_blue) or (self.kurayami and state.phase == 1):
            # counting proves nothing while both colours are in the pile, nor before
            # any face is seen (KakurenboGame.known_row)
            known = state.knowledge[seat]
        else:
            known = kn.located(state, seat, (pile_red, pile_blue))
        at = self.cards_at  # card 0, then one card further each time
        for where in known:
            if where >= 0:
                view[at + rel[where]] = 1.0
            at += self.cards_card
        kind, mover, other, colour = state.last_move
        if kind >= 0:
            view[self.last_kind_at + kind] = 1.0
            view[self.last_actor_at + rel[mover]] = 1.0
            if other >= 0:
                view[self.last_other_at + rel[other]] = 1.0
            if colour >= 0:
                view[self.last_colour_at + colour] = 1.0
        if state.steps:
            steps_used = state.steps * self.inv_max_steps
            view[self.steps_at] = steps_used if steps_used < 1.0 else 1.0
        return np.frombuffer(obs.tobytes(), FLOAT32)


def make_observer(game: KakurenboGame) -> KakurenboObserver:
    """The encoder of ``game``'s configuration."""
    return KakurenboObserver(game)


assert OVER == NUM_STAGES  # the stage piece covers every live stage
