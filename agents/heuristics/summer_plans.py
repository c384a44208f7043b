"""Summer Hide-and-Seek: every way to finish a child turn, enumerated over the rules' masks of directed lines.

:class:`~kakurega.agents.heuristics.summer_hide_and_seek.TurnPlans` (the
heuristic's turn search, the move features' child rows, the mixed child) reads
its plans from :func:`enumerate_plans`: a depth-first search, the lines in
the rules' order. The lines open from square ``p`` are ``lines_out[p] &
~closed`` (directed lines, ascending ids: the order of ``open_lines``), and
drawing a line closes ``directed_moves[d][2]``. It stays Python: compiled
with Cython it gained less than the 15 % a compiled module needs
(docs/performance.md, "Evaluation speed").
"""

from __future__ import annotations

from kakurega.envs.summer_hide_and_seek.rules import MOVE_COST, SHORTCUT_COST


def enumerate_plans(game, start: int, closed: int, budget: int, spent: int, icons: tuple, must_move: bool) -> tuple:
    """The plans from ``start`` with the directed lines ``closed``, ``budget`` left and ``spent`` spent this turn,
    ``icons`` (sorted) reached: lists ``(squares, paths, announcements, exits, gains, ends)``, one entry per plan in
    the search's order (see ``TurnPlans``). ``must_move``: the start itself is no plan while a line is open."""
    plans = ([], [], [], [], [], [])
    _search(game.lines_out, game.directed_moves, game.shortcut_lines, game.icon_of, game.square_vp, must_move, plans,
            [], start, closed, budget, spent, icons, 0)
    return plans


def _search(lines_out, moves, shortcut_lines, icon_of, square_vp, must_move, plans, path, p, closed, left, cost,
            reached, gain):
    """Record the plan ending on ``p`` (unless a first line is required) and search every line open from ``p``."""
    squares, paths, announcements, exits, gains, ends = plans
    options = lines_out[p] & ~closed  # every line open from p, whatever the budget: none means stuck
    node = -1
    if not (must_move and not path and options):  # the rules may require a first line
        node = len(squares)
        squares.append(p)
        paths.append(tuple(path))
        announcements.append((cost, reached))
        exits.append(options.bit_count())
        gains.append(gain)
        ends.append(0)
    if left < SHORTCUT_COST:
        options = options & ~shortcut_lines if left >= MOVE_COST else 0
    while options:
        low = options & -options
        options ^= low
        q, k, closes = moves[low.bit_length() - 1]
        path.append(q)
        icon = icon_of[q]
        _search(lines_out, moves, shortcut_lines, icon_of, square_vp, must_move, plans, path, q, closed | closes,
                left - k, cost + k, tuple(sorted(reached + (icon,))) if icon >= 0 else reached, gain + square_vp[q])
        path.pop()
    if node >= 0:
        ends[node] = len(squares)
