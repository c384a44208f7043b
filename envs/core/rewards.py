"""End-of-game rewards from a game's winners, shared by every game that pays for winning.

Two schemes (the rules pages' "[decision, next version — zero-sum rewards]",
``../shared/rules/<game>.md``):

- **zero-sum** (the default of KAKURENBO v1 and Summer Hide-and-Seek v2): with
  n players and k tied winners each winner gets ``n/(n-1) * (1/k - 1/n)`` and
  every other player ``n/(n-1) * (-1/n)``. A lone winner gets +1; two players
  get +1/-1 for a win and 0/0 for a tie; the rewards always sum to zero, so
  breaking a tie pays. A game with no winner (possible in Kurayami when no
  player has emptied their hand) pays 0 to everyone [decision: nobody won,
  and a reward that sums to zero can only be 0 for all when no seat stands
  out]. Each reward is ``n/(n-1) * (share - 1/n)``, with ``share`` the seat's
  part of the win (1/k for a winner, 0 otherwise): a linear function of the
  win share that tournaments report (:mod:`kakurega.agents.outcome`).
- **shared win** (the default of the earlier versions, ``reward="shared_win"``
  in the new ones): +1 to every winner, -1 to everyone else (everyone -1
  when nobody won); a tie pays each tied player what a win pays.

:func:`win_return_bounds` gives each scheme's range (what a game's
``return_bounds`` reports).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ZERO_SUM, SHARED_WIN = "zero_sum", "shared_win"


def zero_sum_returns(num_players: int, winners: Sequence[int]) -> np.ndarray:
    """Zero-sum rewards of a finished game (module docstring).

    >>> zero_sum_returns(4, [2]).round(3).tolist(), zero_sum_returns(4, [0, 1]).round(3).tolist()
    ([-0.333, -0.333, 1.0, -0.333], [0.333, 0.333, -0.333, -0.333])
    >>> zero_sum_returns(2, [0, 1]).tolist(), zero_sum_returns(3, []).tolist()
    ([0.0, 0.0], [0.0, 0.0, 0.0])
    """
    n = num_players
    if n < 2:
        raise ValueError(f"zero-sum rewards need at least 2 players, got {n}")
    out = np.zeros(n, dtype=np.float64)
    winners = sorted(set(int(s) for s in winners))
    if not winners:
        return out
    scale = n / (n - 1)
    out[:] = -scale / n
    out[winners] = scale * (1.0 / len(winners) - 1.0 / n)
    return out


def shared_win_returns(num_players: int, winners: Sequence[int]) -> np.ndarray:
    """+1 to every winner, -1 to everyone else (module docstring).

    >>> shared_win_returns(3, [0, 2]).tolist()
    [1.0, -1.0, 1.0]
    """
    out = np.full(num_players, -1.0)
    out[list(winners)] = 1.0
    return out


def win_returns(scheme: str, num_players: int, winners: Sequence[int]) -> np.ndarray:
    """The end-of-game rewards of ``scheme`` (``"zero_sum"`` or ``"shared_win"``)."""
    if scheme == ZERO_SUM:
        return zero_sum_returns(num_players, winners)
    if scheme == SHARED_WIN:
        return shared_win_returns(num_players, winners)
    raise ValueError(f"unknown win reward scheme {scheme!r}; expected {ZERO_SUM!r} or {SHARED_WIN!r}")


def win_return_bounds(scheme: str, num_players: int) -> tuple[float, float]:
    """``(lowest, highest)`` reward of ``scheme`` for any seat: zero-sum ``(-1/(n-1), 1)``, shared win ``(-1, 1)``.

    >>> win_return_bounds(ZERO_SUM, 4), win_return_bounds(SHARED_WIN, 4)
    ((-0.3333333333333333, 1.0), (-1.0, 1.0))
    """
    if scheme == ZERO_SUM:
        return -1.0 / (num_players - 1), 1.0  # every loser / a lone winner
    if scheme == SHARED_WIN:
        return -1.0, 1.0
    raise ValueError(f"unknown win reward scheme {scheme!r}; expected {ZERO_SUM!r} or {SHARED_WIN!r}")
