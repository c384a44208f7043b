"""What counts as a win, a shared win, a draw or a loss, for every kakurega game alike.

A seat **wins** when its final return is the highest at the table and no
other seat has it; it **shares the win** when it ties for the highest with
some but not all seats; when every seat has the same return the game is a
**draw** for all; otherwise it is a **loss**. In a solitaire game (one seat) a
positive return is a win, zero a draw and a negative return a loss. Every
default reward scheme in kakurega pays winners more than losers, so this
matches each game's own notion of winning.

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


def classify_outcome(returns: Sequence[float], seat: int) -> str:
    """``"win"``, ``"shared"``, ``"draw"`` or ``"loss"`` for ``seat`` given every seat's final return.

    >>> classify_outcome([1.0, -1.0, 0.5], 0), classify_outcome([1.0, -1.0, 1.0], 2)
    ('win', 'shared')
    >>> classify_outcome([0.0, 0.0], 1), classify_outcome([-1.0], 0)
    ('draw', 'loss')
    """
    values = [float(r) for r in returns]
    if len(values) == 1:
        return WIN if values[0] > 0 else DRAW if values[0] == 0 else LOSS
    best, worst = max(values), min(values)
    if best == worst:
        return DRAW
    if values[seat] != best:
        return LOSS
    return WIN if values.count(best) == 1 else SHARED


def win_share(returns: Sequence[float], seat: int) -> float:
    """The seat's part of the win: 1, 1/k for a k-way tie at the top (a draw of n seats: 1/n), or 0.

    A solitaire game scores 1 for a win, ½ for a draw and 0 for a loss.

    >>> win_share([1.0, -1.0, 1.0], 0), win_share([0.0, 0.0], 1), win_share([1.0, -1.0], 1)
    (0.5, 0.5, 0.0)
    """
    values = [float(r) for r in returns]
    if len(values) == 1:
        return 1.0 if values[0] > 0 else 0.5 if values[0] == 0 else 0.0
    best = max(values)
    return 1.0 / values.count(best) if values[seat] == best else 0.0


def ranks(returns: Sequence[float]) -> list[int]:
    """Rank of each seat (0 = best; equal returns share a rank), as rating libraries expect."""
    ordered = sorted(set(float(r) for r in returns), reverse=True)
    return [ordered.index(float(r)) for r in returns]
