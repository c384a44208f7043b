"""The terminal's move menu: stable keys, typed moves, and a compact board for long lists.

A move's key is its action id, so the same move keeps the same key from one
decision to the next (``[4] stop moving`` is always 4 in Hidden Rooms). A move can also be
typed by its words: every typed word must start a word of the move's name,
e.g. ``stop``, ``r6c5`` or ``Fx|Pg r0c1``. A long list whose moves differ only
by a square (a seeker placing its piece on one of 56 squares) is shown as a
few lines of squares row by row, typed by name (``r0c5``).

>>> names = {3: "play Fx|Pg onto r0c1", 4: "play Fx|Pg onto r1c1", 9: "pass and draw from the deck"}
>>> choose("pass", names), choose("fx|pg r1c1", names), choose("4", names)
(9, 4, 4)
>>> choose("Fx|Pg", names)
"'Fx|Pg' fits 2 moves: [3] play Fx|Pg onto r0c1, [4] play Fx|Pg onto r1c1; type more of the move or its key."
"""

from __future__ import annotations

import re

from kakurega.envs.core.safe_load import short_repr
from kakurega.envs.core.text_layout import wrap

#: a square or board position as the games name it, e.g. ``r6c5``
SQUARE = re.compile(r"\br(\d{1,2})c(\d{1,2})\b")
#: more moves than this that differ only by a square are shown as a grid
LONG_MENU = 12
_PUNCTUATION = ",;:()[]"


def words(text: str) -> list[str]:
    """Lower-case words of a move name or an answer, brackets and commas dropped."""
    for mark in _PUNCTUATION:
        text = text.replace(mark, " ")
    return text.lower().split()


def choose(answer: str, names: dict[int, str], in_grid=frozenset()) -> int | str:
    """The action ``answer`` picks among the legal ``names`` (id -> name), or why it picks none, in words.

    ``in_grid``: the moves the menu shows as squares of a grid (:func:`grid_moves`), without keys: a number
    picks none of them (a person typing ``10`` may mean row 1, column 0), and the hints name a square."""
    answer = answer.strip()
    shown = short_repr(answer, 40)
    keyed = {a: name for a, name in names.items() if a not in in_grid}
    example = next((SQUARE.search(names[a]).group(0) for a in sorted(in_grid) if a in names), None)
    how = ("a move's key (the number in brackets) or its words" if keyed else "a move's words") + (
        f", or a square such as {example}" if example else "")
    if not words(answer):  # nothing, or punctuation only (which every move would fit)
        return f"Type {how}; rules shows the rules, moves the moves again; q quits."
    if answer.startswith("[") and answer.endswith("]"):  # a key typed as the menu shows it: [58]
        answer = answer[1:-1].strip() or answer
    if answer.isascii() and answer.isdigit():
        if len(answer) <= 9 and int(answer) in keyed:
            return int(answer)
        if not keyed:
            return f"{shown} is no move here: type {how}."
        return f"{shown} is not the key of a legal move; the keys are {_key_list(keyed)}" + (
            f" (the squares are typed by name, e.g. {example})." if example else ".")
    typed = words(answer)
    exact = [a for a, name in names.items() if all(w in words(name) for w in typed)]
    fits = exact or [a for a, name in names.items() if all(any(n.startswith(w) for n in words(name)) for w in typed)]
    if len(fits) == 1:
        return fits[0]
    whole = [a for a in fits if words(names[a]) == typed]
    if len(whole) == 1:
        return whole[0]
    if not fits:
        keys = f"a key ({_key_list(keyed)}) or " if keyed else ""
        square = f" or a square such as {example}" if example else ""
        return f"{shown} is not a legal move; type {keys}words of a move listed above{square}."
    # a square of the grid has no key: it is listed without one, and typing its id picks nothing
    listed = ", ".join(names[a] if a in in_grid else f"[{a}] {names[a]}" for a in fits[:4]) + (
        ", ..." if len(fits) > 4 else "")
    more = "type more of the move or its key" if any(a not in in_grid for a in fits) else (
        f"type more of the move, e.g. its square{' such as ' + example if example else ''}")
    return f"{shown} fits {len(fits)} moves: {listed}; {more}."


def _key_list(names: dict[int, str]) -> str:
    keys = sorted(names)
    return ", ".join(map(str, keys)) if len(keys) <= 8 else f"{', '.join(map(str, keys[:6]))}, ... {keys[-1]}"


def _grids(names: dict[int, str], notes: dict[int, str]) -> dict[str, list[tuple[int, str, int, int]]]:
    """The long runs of moves that differ by a square only, by the words before the square."""
    groups: dict[str, list[tuple[int, str, int, int]]] = {}
    for action, name in names.items():
        found = SQUARE.findall(name)
        if len(found) == 1 and action not in notes:
            match = SQUARE.search(name)
            groups.setdefault(name[: match.start()], []).append((action, match.group(0), *map(int, found[0])))
    return {prefix: moves for prefix, moves in groups.items() if len(moves) > LONG_MENU}


def grid_moves(names: dict[int, str], notes: dict[int, str] | None = None) -> frozenset:
    """The moves :func:`menu_lines` shows as squares of a grid, without their keys."""
    return frozenset(move[0] for moves in _grids(names, notes or {}).values() for move in moves)


def menu_lines(names: dict[int, str], notes: dict[int, str] | None = None, width: int | None = None) -> list[str]:
    """The menu: one ``[key] name`` line a move; a long run of moves that differ by a square only as its squares
    row by row (``r0: c0 c5 c7``: type ``r0c5``).

    ``width``: the terminal's columns (None: no limit): a long move wraps under its name, and a grid's rows break
    between squares, never inside one (a terminal breaking ``r3: c1`` after ``c`` showed a square that is not
    there)."""
    notes = notes or {}
    grids = _grids(names, notes)
    in_grid = {move[0] for moves in grids.values() for move in moves}
    lines = []
    digits = max((len(str(a)) for a in names), default=1)
    for action, name in sorted(names.items()):
        if action not in in_grid:
            note = f"   <- {notes[action]}" if action in notes else ""
            lines.extend(wrap(f"  [{action:>{digits}}] {name}{note}", width, indent=" " * (digits + 5)))
    squares = [SQUARE.search(name).group(0) for name in names.values() if SQUARE.search(name)]
    for prefix, moves in grids.items():
        alone = all(squares.count(square) == 1 for _, square, _, _ in moves)
        how = f"type the square, e.g. {moves[0][1]}" if alone else f"type words of the move and the square, e.g. {names[moves[0][0]]!r}"
        lines.extend(wrap(f"  {prefix.strip()} ... ({how}):", width))
        lines.extend(_grid(moves) if width is None else _grid(moves, max(8, min(76, width - 4))))
    return lines


def _grid(moves: list[tuple[int, str, int, int]], width: int = 76) -> list[str]:
    """The squares row by row, e.g. ``r0: c0 c5 c7   r1: c1 c3``, wrapped to ``width`` characters (then indented
    by 4): rows side by side while they fit, a row longer than ``width`` broken between its squares."""
    rows: dict[int, list[int]] = {}
    for _, _, row, col in moves:
        rows.setdefault(row, []).append(col)
    parts = [f"r{row}: " + " ".join(f"c{col}" for col in sorted(cols)) for row, cols in sorted(rows.items())]
    lines = [""]
    for part in parts:
        if len(part) > width:  # a row of its own, on as many lines as it takes, continued under its first square
            pieces = wrap(part, width, indent=" " * (part.index(":") + 2))
            lines[-1:] = ([lines[-1]] if lines[-1] else []) + pieces + [""]
            continue
        if lines[-1] and len(lines[-1]) + 3 + len(part) > width:
            lines.append("")
        lines[-1] += ("   " if lines[-1] else "") + part
    return ["    " + line for line in lines if line]
