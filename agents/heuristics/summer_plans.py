"""Summer Hide-and-Seek: every way to finish a child turn, enumerated over the rules' masks of directed lines.

:class:`~kakurega.agents.heuristics.summer_hide_and_seek.TurnPlans` (the
heuristic's turn search, the move features' child rows, the mixed child) reads
its plans from :func:`enumerate_plans`: a depth-first search, the lines in
the rules' order. The lines open from square ``p`` are ``lines_out[p] &
~closed`` (directed lines, ascending ids: the order of ``open_lines``), and
drawing a line closes ``directed_moves[d][2]``. It stays Python: compiled
with Cython it gained less than the 15 % a compiled module needs
(docs/performance.md, "Evaluation speed").

One search enumerates at most :data:`MAX_PLANS` plans, whatever the map. A
player choosing its start square searches the first turn from each start, so
that choice grows with the path squares (a thousand on an open 32 x 32 map:
about 14 million plans, a minute and a half) and, through the public weights
after each announcement the plans make, with the icon types: it searches at
most :data:`START_SEARCHES` starts, spread over the map
(:func:`searched_starts`), and no more once its searches have made
:data:`START_ANNOUNCEMENTS` announcements.
"""

from __future__ import annotations

from kakurega.envs.summer_hide_and_seek.map_data import MAX_SIDE
from kakurega.envs.summer_hide_and_seek.rules import MOVE_COST, SHORTCUT_COST

#: plans one search enumerates at most: a turn draws at most 5 lines (budget 5, a line costs 1 or 2), at most 8
#: from a square (the first square in each direction) and at most 7 after a line (the square it came from is
#: visited); 1 + 8 + 8 x 7 + ... + 8 x 7^4
MAX_PLANS = 1 + sum(8 * 7**k for k in range(5))
#: start squares whose first turn a start decision searches at most (the default map has 34 path squares):
#: at most START_SEARCHES x MAX_PLANS plans, on any map
START_SEARCHES = 48
#: announcements (cost, icons) whose public weights the heuristic's searches of a start decision need, at most
#: (each search counts its own; a walk programme's rows over the squares each): then it searches no more starts.
#: A few dozen per start on the default map; thousands on a 32 x 32 map of 26 icon types, a second a search there
START_ANNOUNCEMENTS = 10_000
_SPREAD_BITS = (MAX_SIDE - 1).bit_length()  # bits of a row or column number


def searched_starts(game, starts: tuple[int, ...]) -> tuple[int, ...]:
    """The start squares among ``starts`` whose first turn a start decision searches, in the order it searches
    them: all of them in their order when there are at most :data:`START_SEARCHES`, else START_SEARCHES of them,
    spread over the map: the first in the bit-reversed Z-order of their (row, column), which takes one square of
    each quadrant before a second, one of each quarter of a quadrant before a second, and so on (a search cut
    short, by START_ANNOUNCEMENTS or the runner's time, leaves the searched starts spread too)."""
    if len(starts) <= START_SEARCHES:
        return tuple(starts)
    squares = game.map.squares

    def spread(square: int) -> int:
        row, col = squares[square]
        code = 0
        for bit in range(_SPREAD_BITS):
            code |= ((row >> bit & 1) << (2 * bit + 1)) | ((col >> bit & 1) << (2 * bit))
        return int(format(code, f"0{2 * _SPREAD_BITS}b")[::-1], 2)

    return tuple(sorted(starts, key=spread)[:START_SEARCHES])


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
