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
from kakurega.envs.kakurenbo.knowledge import CURSE, NUM_BODY_CARDS
from kakurega.envs.kakurenbo.rules import NUM_PARTS, NUM_STAGES, OVER, KakurenboGame

#: passed positionally to np.frombuffer (a keyword or a type costs more than the encoding)
FLOAT32 = np.dtype(np.float32)
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

    For speed the encoder copies the template as a float32 ``array.array``,
    writes each non-zero entry into it (an item write there costs a fraction
    of one into a numpy array, and no index list is built), then hands the
    buffer to numpy without a copy. The offsets come from the layout's
    pieces (``at_<piece>``).
    """

    def __init__(self, game: KakurenboGame):
        self.game = game
        self.layout = make_layout(game)
        self.n = game.num_players
        template = self.layout.zeros()
        template[self.layout.slice("variant")][1 if game.kurayami else 0] = 1.0
        self.template = template
        self.template_array = array("f", template.tobytes())
        self.inv_max_steps = 1.0 / game.max_steps
        #: seats in egocentric row order, per observer
        self.order = [[(seat + r) % self.n for r in range(self.n)] for seat in range(self.n)]
        for name, piece in self.layout.pieces.items():
            setattr(self, "at_" + name, piece.start)

    def __call__(self, state, seat: int) -> np.ndarray:
        """Encode what ``seat`` may know in ``state``."""
        n = self.n
        obs = self.template_array[:]
        if not state.over:
            obs[self.at_phase + state.phase - 1] = 1.0
            obs[self.at_stage + state.stage] = 1.0
            obs[self.at_actor + (state.actor - seat) % n] = 1.0
            obs[self.at_turn + (state.active - seat) % n] = 1.0
        if state.target >= 0:
            obs[self.at_dice_target + (state.target - seat) % n] = 1.0
        red, blue = state.dice
        if red:
            obs[self.at_dice + red - 1] = 1.0
            obs[self.at_dice + 5 + blue] = 1.0
        at_counts = self.at_colour_counts
        at_scores = self.at_scores
        at_open = self.at_open_hand
        scores = state.scores
        open_hand = state.open_hand
        hands = state.hands
        body_cards = 0
        hand_blues = 0
        for holder in self.order[seat]:
            hand = hands[holder]
            if hand:
                cards = len(hand) - 1 if CURSE in hand else len(hand)
                blues = 0  # the odd ids (the Curse, 14, is even)
                for c in hand:
                    blues += c & 1
                obs[at_counts] = cards - blues
                obs[at_counts + 1] = blues
                body_cards += cards
                hand_blues += blues
            if scores[holder]:
                obs[at_scores] = scores[holder]
            if open_hand[holder]:
                obs[at_open] = 1.0
            at_counts += 2
            at_scores += 1
            at_open += 1
        holder = state.curse_holder
        obs[self.at_curse + ((holder - seat) % n if holder >= 0 else n)] = 1.0
        at = self.at_discarded
        pairs_gone = 0
        for by in state.discarded_by:
            if by >= 0:
                obs[at + (by - seat) % n] = 1.0
                pairs_gone += 1
            at += n
        pile = state.pile
        if pile:
            top = pile[-1]
            obs[self.at_pile_top + (2 if top == CURSE else top & 1)] = 1.0
            # the pile's colours follow from the public counts: 7 of each colour in all
            at = self.at_pile_colours
            obs[self.at_pile_size] = len(pile)
            obs[at] = 7 - pairs_gone - (body_cards - hand_blues)
            obs[at + 1] = 7 - pairs_gone - hand_blues
        at = self.at_cards - seat  # card c in row (where - seat) % n: at_cards + c*n + row
        for where in self.game.known_row(state, seat):
            if where >= 0:
                obs[at + where + (n if where < seat else 0)] = 1.0
            at += n
        kind, actor, other, colour = state.last_move
        if kind >= 0:
            obs[self.at_last_kind + kind] = 1.0
            obs[self.at_last_actor + (actor - seat) % n] = 1.0
            if other >= 0:
                obs[self.at_last_other + (other - seat) % n] = 1.0
            if colour >= 0:
                obs[self.at_last_colour + colour] = 1.0
        if state.steps:
            steps_used = state.steps * self.inv_max_steps
            obs[self.at_steps_used] = steps_used if steps_used < 1.0 else 1.0
        return np.frombuffer(obs, FLOAT32)


def make_observer(game: KakurenboGame) -> KakurenboObserver:
    """The encoder of ``game``'s configuration."""
    return KakurenboObserver(game)


assert OVER == NUM_STAGES  # the stage piece covers every live stage
