"""What counts as a win, a shared win, a draw or a loss, for every kakurega game alike.

**Who won is the rules' call.** Where the rules say who won a finished game
(:func:`rules_winners`: the games' ``winners(state)``; for Hidden Rooms the
match won by two escapes, or the round escaped), the outcome follows them: a seat
**wins** when it is the only winner, **shares the win** when it is one of
several (not all) winners, the game is a **draw** for all when every seat
won or nobody did (a Kurayami game where no hand was emptied), else a
**loss**; in a solitaire game (one seat) a won game is a win, anything else a
loss. Callers that hold the final state pass these winners (tournaments,
``kakurega evaluate``, ``kakurega balance``), so a reward scheme that does
not pay for winning (``reward=points`` or ``vp``; Hidden Rooms'
``reward=per_round``, where two escapes and two fails win a match with a
return of 0; reward shaping) does not change who won.

**By returns otherwise.** Without the rules' winners (Animal Chain, whose
returns say it: +1 / -1, 0 each for a draw; a game cut off by the step limit
that the rules do not score; a caller holding the returns only), a seat wins
when its final return is the highest at the table and no other seat has it;
it shares the win when it ties for the highest with some but not all seats;
when every seat has the same return the game is a draw for all; otherwise it
is a loss; in a solitaire game a positive return is a win, zero a draw and a
negative return a loss. Every default reward scheme in kakurega pays exactly
the rules' winners (:mod:`kakurega.envs.core.rewards`: nobody won pays every
seat the same), so with the default rewards both ways give the same outcome.

The **score** of a game (:func:`win_share`) counts how much of the win a seat
got: 1 for a win, 1/k for a win shared by k seats (a draw of n seats: 1/n),
0 for a loss. It is what the zero-sum rewards pay for
(:mod:`kakurega.envs.core.rewards`: each reward is
``n/(n-1) * (share - 1/n)``), so a mean score and a mean zero-sum reward tell
the same story; in a two-player game it is the chess score (win 1, draw ½).
"""

from __future__ import annotations

from collections.abc import Sequence

WIN, SHARED, DRAW, LOSS = "win", "shared", "draw", "loss"


def rules_winners(game, state) -> tuple[int, ...] | None:
    """The seats the rules of ``game`` declare winners of the finished game ``state``; None where they do not say.

    - A game with ``winners(state)`` (KAKURENBO, Summer Hide-and-Seek, Hidden Rooms): its winners once the game
      is over by its rules, or once the step limit cut it off where the rules score the standings then
      (KAKURENBO always; Summer Hide-and-Seek with ``score_truncation``, the only ``score_truncation`` flag the
      games have); ``()`` when nobody won (Kurayami; a Hidden Rooms match or round lost). A cut-off game the
      rules do not score: None.
    - Any other game (Animal Chain): None (its returns say who won).
    """
    if state is None:
        return None
    winners = getattr(game, "winners", None)
    if winners is None:
        return None
    if not game.is_terminal(state):
        if not (game.is_truncated(state) and getattr(game, "score_truncation", True)):
            return None
    return tuple(sorted(int(seat) for seat in winners(state)))


def _top_seats(returns: Sequence[float], winners: Sequence[int] | None) -> list[int]:
    """The seats sharing the top place of a game of two or more seats (every seat in a draw)."""
    n = len(returns)
    if winners is None:
        values = [float(r) for r in returns]
        best = max(values)
        return [s for s in range(n) if values[s] == best]
    top = sorted(set(int(s) for s in winners))
    return top or list(range(n))  # nobody won: a draw for all


def classify_outcome(returns: Sequence[float], seat: int, winners: Sequence[int] | None = None) -> str:
    """``"win"``, ``"shared"``, ``"draw"`` or ``"loss"`` for ``seat`` given every seat's final return.

    ``winners``, when given (:func:`rules_winners` of the final state), decides; the returns only give the seat
    count. Without it the returns decide (module docstring).

    >>> classify_outcome([1.0, -1.0, 0.5], 0), classify_outcome([1.0, -1.0, 1.0], 2)
    ('win', 'shared')
    >>> classify_outcome([0.0, 0.0], 1), classify_outcome([-1.0], 0)
    ('draw', 'loss')
    >>> classify_outcome([0.0], 0, winners=(0,)), classify_outcome([3.0, 5.0, 1.0], 1, winners=())
    ('win', 'draw')
    """
    if len(returns) == 1:
        if winners is not None:
            return WIN if 0 in winners else LOSS
        value = float(returns[0])
        return WIN if value > 0 else DRAW if value == 0 else LOSS
    top = _top_seats(returns, winners)
    if len(top) == len(returns):
        return DRAW
    if seat not in top:
        return LOSS
    return WIN if len(top) == 1 else SHARED


def win_share(returns: Sequence[float], seat: int, winners: Sequence[int] | None = None) -> float:
    """The seat's part of the win: 1, 1/k for a k-way tie at the top (a draw of n seats: 1/n), or 0.

    ``winners`` as in :func:`classify_outcome`. A solitaire game scores 1 for a win, 0 for a loss (by returns: ½ for
    a zero return).

    >>> win_share([1.0, -1.0, 1.0], 0), win_share([0.0, 0.0], 1), win_share([1.0, -1.0], 1)
    (0.5, 0.5, 0.0)
    >>> win_share([0.0], 0, winners=(0,)), win_share([9.0, 2.0, 4.0], 0, winners=())
    (1.0, 0.3333333333333333)
    """
    if len(returns) == 1:
        if winners is not None:
            return 1.0 if 0 in winners else 0.0
        value = float(returns[0])
        return 1.0 if value > 0 else 0.5 if value == 0 else 0.0
    top = _top_seats(returns, winners)
    return 1.0 / len(top) if seat in top else 0.0


def ranks(returns: Sequence[float]) -> list[int]:
    """Rank of each seat (0 = best; equal returns share a rank), as rating libraries expect."""
    ordered = sorted(set(float(r) for r in returns), reverse=True)
    return [ordered.index(float(r)) for r in returns]
