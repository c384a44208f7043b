"""KAKURENBO: which legal moves end the game at once with the mover among the winners.

A move is marked only when the mover *knows* (its knowledge row, counting
included: :meth:`KakurenboGame.known_row`) every hidden fact its outcome
depends on, so the mark is the same in every state the mover cannot tell
apart, and it is then the game's own outcome (the move is played on a copy).

Two moves can end the game (the rules page, "End and scoring"):

- **Kakurenbo, a Curse give** (Curse and card X to R): the game ends only if
  X's partner is in R's hand (R then discards the pair at once and the card
  function applies), and then exactly when R is left with the Curse alone: R
  held only the partner, or the pair is a leg pair and the hand R receives in
  the exchange is empty. Without the partner R keeps X, so the game goes on.
  Everything but the partner's place is public (counts, scores, the part), so
  a give is decided when the mover knows the partner is in R's hand.
- **Kurayami, a take after the dice** (taker T names a colour of V's hand): the
  game ends only if V holds the Curse and one body-part card, which T takes.
  T then wins only with an empty hand, i.e. T's only card was that card's
  partner (discarded at once), so T must know V's card is that partner.

Every other move leaves at least one card besides the Curse in its holder's
hand (or is chance: draws, the dice), so it is never marked. Known gap: the
knowledge row is what the mover saw or counted; a place provable only by a
longer argument is not used, so such a move goes unmarked (never wrongly marked).
"""

from __future__ import annotations

import numpy as np

WINS = "wins at once"
SHARES = "shares the win at once"


def winning_note(game, state, action: int) -> str:
    """``"wins at once"`` / ``"shares the win at once"`` for a decided winning move, else ``""``."""
    from kakurega.envs.kakurenbo.rules import A_CURSE_GIVE, A_TAKE, CURSE_GIVE, DICE_TAKE

    if state.over or state.steps >= game.max_steps:
        return ""
    action = int(action)
    if not 0 <= action < game.num_actions:
        return ""
    kind, arg, k = game.decode[action]
    me = state.actor
    other = (me + k) % game.num_players
    if state.stage == CURSE_GIVE and kind == A_CURSE_GIVE:
        if arg not in state.hands[me] or game.known_row(state, me)[arg ^ 1] != other:
            return ""
    elif state.stage == DICE_TAKE and kind == A_TAKE:
        mine, theirs = state.hands[me], state.hands[other]
        if state.curse_holder != other or len(theirs) != 2 or len(mine) != 1:
            return ""
        partner = mine[0] ^ 1
        if partner & 1 != arg or game.known_row(state, me)[partner] != other:
            return ""
    else:
        return ""
    after = game.clone(state)
    game.apply_action(after, action, np.random.default_rng(0))  # decided: no chance is drawn
    if not after.over:
        return ""
    winners = game.winners(after)
    if me not in winners:
        return ""
    return WINS if len(winners) == 1 else SHARES

