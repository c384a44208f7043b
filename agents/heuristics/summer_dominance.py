"""Summer Hide-and-Seek: the moves another move beats whatever happens, proved from public facts and the mover's own.

Both proofs rest on how the game scores: only the child scores in its round,
its VP only grow while it is hidden, and a found child (by a piece, or stuck)
ends the round with the VP it has. A player's result is never worse with the
child's VP lower (a seeker) or its own higher (the child), so:

- **a sure find** (:func:`sure_find`): in the seekers' turn the public belief
  is one square that no piece of this turn covers yet; the child is there,
  and a piece there ends the round now, so it beats every other placement;
- **a stuck line** (:func:`stuck_lines`): a line after which the child has no
  legal line left ends the round at once (found); another legal line that is
  not stuck and reaches at least as many VP, or the stop (0 VP, not stuck),
  gives as many VP now and keeps the round going, so it beats the stuck line.

A game cut off by the step limit must be scored for this (``score_truncation``,
version 1 on, or VP rewards): version 0 pays a cut-off game nothing, which a
player behind may prefer to any end, so there nothing is proved
(:func:`proves`). The tactics patterns ``seek_certain`` and ``child_stuck``
(:mod:`kakurega.agents.tactics.patterns`) and the move features' ``dominated``
(:class:`~kakurega.agents.heuristics.summer_features.SummerMoveFeatures`) both
call these functions: the first with the rules' state, the second with what
the seat's observation shows.
"""

from __future__ import annotations


def proves(game) -> bool:
    """Whether the proofs hold in ``game``'s configuration: a cut-off game is scored (see the module docstring)."""
    return game.score_truncation or game.reward == "vp"


def sure_find(game, belief: int, covered: int) -> int | None:
    """The placement that surely finds the child: ``belief`` (the public belief, a bitmask of squares) is one
    square that ``covered`` (the squares of this turn's pieces) does not hold; None otherwise."""
    if belief.bit_count() != 1 or belief & covered or not proves(game):
        return None
    return game.place_base + belief.bit_length() - 1


def stuck_lines(game, square: int, visited: int, drawn: int, blocked: int, legal) -> tuple[tuple[int, ...], int]:
    """The child's lines among ``legal`` that a free choice beats, and the VP of the best free choice (-1: none).

    The child stands on ``square`` with the stroke's ``visited`` squares and
    ``drawn`` lines (bitmasks) and the pieces on ``blocked``. A line is stuck
    when no line at all is open from its end afterwards (the stuck rule); it is
    beaten when another legal line that is not stuck reaches at least as many
    VP, or the stop is legal and it reaches none. Empty when nothing is proved.
    """
    if not proves(game):
        return (), -1
    stuck, best_free = [], -1
    for action in legal:
        action = int(action)
        if action == game.stop_action:
            best_free = max(best_free, 0)
            continue
        q = action - game.line_base
        if not 0 <= q < game.num_squares:
            continue  # (the forced continue after a shortcut: no choice)
        lid = game.line_between(square, q)[0]
        vp = game.square_vp[q]
        if game.is_stuck(q, visited | 1 << q, drawn | 1 << lid, blocked):
            stuck.append((action, vp))
        else:
            best_free = max(best_free, vp)
    return tuple(a for a, vp in stuck if vp <= best_free), best_free
