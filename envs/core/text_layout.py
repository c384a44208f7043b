"""Fitting a text render to a width: blocks side by side or stacked, prose wrapped.

Every game's text render takes ``width`` (``render_text(state, viewer,
width=None)``; :meth:`~kakurega.envs.core.aec.TurnBasedAECEnv.render_text`
passes it on). With ``width=None`` (the default, what golden playthroughs,
records and tests use) a render is exactly as it always was. With a width
(``kakurega play`` and ``kakurega replay`` pass the terminal's columns, see
:func:`terminal_width`) two blocks drawn side by side are stacked one above
the other when the pair is wider (:func:`side_by_side`), and a prose line
(a status, a legend, a hand, a list) is wrapped at spaces (:func:`wrap`). A
grid row wider than the width stays as it is: its cells cannot be moved.

The width only changes where lines break: a render shows the same words at
every width, so what it hides at one width it hides at all.
"""

from __future__ import annotations

import inspect
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence

#: stands for a space that must not break a line while :func:`wrap` wraps (a control character no render prints)
_GLUE = "\x00"


def check_width(width) -> int | None:
    """``width`` if it is None or a whole number of columns of at least 1; ValueError otherwise."""
    if width is None:
        return None
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"width must be None (no limit) or a whole number of columns >= 1, got {width!r}")
    return width


def fits(lines: Sequence[str], width: int | None) -> bool:
    """Whether every line of ``lines`` is at most ``width`` characters (always, when ``width`` is None)."""
    return width is None or all(len(line) <= width for line in lines)


def side_by_side(left: Sequence[str], right: Sequence[str], width: int | None = None, gap: str = "    ",
                 stacked_gap: int = 1, stacked_indent: str = "") -> list[str]:
    """``left`` and ``right`` (lists of lines) side by side, or stacked when that is wider than ``width``.

    Side by side, line ``i`` is ``left[i]`` padded to the widest left line, ``gap``, then ``right[i]`` (a
    missing line counts as empty). Stacked (only when ``width`` is given and a joined line would be wider):
    the left lines, ``stacked_gap`` empty lines, then the right lines with ``stacked_indent`` before each.
    """
    left, right = list(left), list(right)
    column = max((len(line) for line in left), default=0)
    rows = max(len(left), len(right))
    joined = [(left[i] if i < len(left) else "").ljust(column) + gap + (right[i] if i < len(right) else "")
              for i in range(rows)]
    if fits(joined, width):
        return joined
    return left + [""] * stacked_gap + [stacked_indent + line for line in right]


def wrap(text: str, width: int | None = None, indent: str | None = None, keep: Sequence[str] = ()) -> list[str]:
    """``text`` (one line) as lines of at most ``width`` characters, broken at spaces; ``[text]`` when it fits.

    Lines after the first start with ``indent`` (default: the text's own leading spaces and four more). A
    phrase of ``keep`` (e.g. a card's name) is never broken; a word or kept phrase longer than the width
    stays whole on a line of its own. Only spaces at the breaks go: the words are the text's words.
    """
    if width is None or len(text) <= width:
        return [text]
    if indent is None:
        indent = text[: len(text) - len(text.lstrip(" "))] + "    "
    indent = indent[: max(0, width // 2)]  # a narrow width still leaves room for words
    for phrase in sorted(set(keep), key=len, reverse=True):
        if " " in phrase:
            text = text.replace(phrase, phrase.replace(" ", _GLUE))
    lines = textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False,
                          expand_tabs=False, replace_whitespace=False)
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def takes_width(render: Callable) -> bool:
    """Whether ``render`` (a text render) accepts ``width=``: a game's own render may predate it."""
    try:
        parameters = inspect.signature(render).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "width" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def terminal_width(stream=None) -> int | None:
    """The columns of the terminal ``stream`` (default ``sys.stdout``) shows, or None when it is no terminal
    (a file, a pipe, a test's capture: the text is then written at its full width, as it always was).

    The columns come from :func:`shutil.get_terminal_size` (``COLUMNS`` if set, else the terminal's own).
    """
    stream = sys.stdout if stream is None else stream
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return None
    columns = shutil.get_terminal_size().columns
    return columns if columns > 0 else None
