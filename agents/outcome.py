"""What counts as a win, a draw or a loss, for every kakurega game alike.

A seat **wins** when its final return is the highest at the table (ties share
the win) and not everyone has the same return; when every seat has the same
return the game is a **draw** for all; otherwise it is a **loss**. In a
solitaire game (one seat) a positive return is a win, zero a draw and a
negative return a loss. Every default reward scheme in kakurega pays winners
more than losers, so this matches each game's own notion of winning.
"""

from __future__ import annotations

from collections.abc import Sequence

WIN, DRAW, LOSS = "win", "draw", "loss"


def classify_outcome(returns: Sequence[float], seat: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` for ``seat`` given every seat's final return.

    >>> classify_outcome([1.0, -1.0, 1.0], 0), classify_outcome([0.0, 0.0], 1), classify_outcome([-1.0], 0)
    ('win', 'draw', 'loss')
    """
    values = [float(r) for r in returns]
    if len(values) == 1:
        return WIN if values[0] > 0 else DRAW if values[0] == 0 else LOSS
    best, worst = max(values), min(values)
    if best == worst:
        return DRAW
    return WIN if values[seat] == best else LOSS


def ranks(returns: Sequence[float]) -> list[int]:
    """Rank of each seat (0 = best; equal returns share a rank), as rating libraries expect."""
    ordered = sorted(set(float(r) for r in returns), reverse=True)
    return [ordered.index(float(r)) for r in returns]
