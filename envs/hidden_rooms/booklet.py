"""The monster booklet: loading and validating the data file.

A booklet is a YAML (or JSON, which YAML reads too) mapping with a
``monsters`` list. Each monster is a mapping with exactly these keys:

- ``name`` (str, unique), ``description`` (str, optional): printable text
  (no control characters or line breaks);
- ``path``: list of ``[row, column]`` cells on the 5x5 grid, each orthogonally
  adjacent to the one before (at least 2 cells; it must not start on the
  child's start cell (4, 4));
- ``steps`` (int 1..4, default 2): cells the monster walks per monster phase;
- ``sight_range`` (int 0..8): how far it sees;
- ``sight_shape``: ``"radius"`` (Manhattan distance <= range) or ``"line"``
  (same row or column, within range).

Any mistake raises :class:`BookletError` (a ``ValueError``) naming the
monster and the field, and the offending value (quoted short) when the
booklet was given as data; of a file, only the value's type is named (a
file's content is never quoted back). A path that is missing, a directory,
a FIFO or a device is a :class:`BookletError` too. Files are read
with :mod:`kakurega.envs.core.safe_load` (no duplicate keys, alias bombs or
deep nesting; 1 MB at most); a booklet holds at most :data:`MAX_MONSTERS`
monsters of at most :data:`MAX_PATH_LENGTH` cells.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from kakurega.envs.core.options import Option
from kakurega.envs.core.safe_load import check_printable, load_file, load_text, short_repr, shown

GRID = 5  #: rows and columns of the room
START_CELL = (GRID - 1, GRID - 1)
MAX_STEPS = 4
MAX_SIGHT_RANGE = 2 * (GRID - 1)
MAX_PATH_LENGTH = 200
MAX_MONSTERS = 1000
SIGHT_SHAPES = ("radius", "line")
TRAITS = ("name", "description", "path", "steps", "sight_range", "sight_shape")
DEFAULT_BOOKLET = "hidden_rooms_monsters.yaml"


class BookletError(ValueError):
    """A monster booklet that breaks the format; the message names monster, field and value."""


@dataclass(frozen=True)
class Monster:
    """One page of the booklet: a path and the traits that decide how it moves and sees."""

    name: str
    path: tuple[tuple[int, int], ...]
    steps: int = 2
    sight_range: int = 2
    sight_shape: str = "radius"
    description: str = ""

    def sees(self, monster: tuple[int, int], child: tuple[int, int]) -> bool:
        """True when a monster on ``monster`` sees a child on ``child``."""
        dr, dc = abs(monster[0] - child[0]), abs(monster[1] - child[1])
        if self.sight_shape == "radius":
            return dr + dc <= self.sight_range
        return (dr == 0 or dc == 0) and dr + dc <= self.sight_range

    def describe_sight(self) -> str:
        """E.g. ``"radius 2"`` or ``"line 4"``."""
        return f"{self.sight_shape} {self.sight_range}"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _monster_label(index: int, raw, quote: bool = True) -> str:
    if quote and isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"]:
        return f"monster {index} ({short_repr(raw['name'])})"
    return f"monster {index}"


def validate_monster(index: int, raw, source: str = "booklet", quote: bool = True) -> Monster:
    """A :class:`Monster` from one raw booklet entry, or :class:`BookletError` saying what is wrong.

    ``quote=False`` (data read from a file): errors give a bad value's type, never the value.
    """
    label = _monster_label(index, raw, quote)

    def fail(field: str, value, expected: str):
        raise BookletError(f"{source}: {label}, field {short_repr(field)}: got {shown(value, quote)}; expected {expected}")

    if not isinstance(raw, dict):
        raise BookletError(f"{source}: {label}: got {shown(raw, quote)}; expected a mapping of traits {list(TRAITS)}")
    for key in raw:
        if key not in TRAITS:
            fail(key, raw[key], f"no such trait; known traits are {list(TRAITS)}")
    if "name" not in raw:
        fail("name", None, "a non-empty string")
    name = raw["name"]
    if not isinstance(name, str) or not name.strip():
        fail("name", name, "a non-empty string")
    description = raw.get("description", "")
    if not isinstance(description, str):
        fail("description", description, "a string")
    # shown to people (kakurega play and replay print the name): printable text only
    for field, text in (("name", name.strip()), ("description", description.strip())):
        check_printable(text, source, f"{label}, field {short_repr(field)}", quote=quote, error=BookletError)
    steps = raw.get("steps", 2)
    if not _is_int(steps) or not 1 <= steps <= MAX_STEPS:
        fail("steps", steps, f"an integer from 1 to {MAX_STEPS}")
    if "sight_range" not in raw:
        fail("sight_range", None, f"an integer from 0 to {MAX_SIGHT_RANGE}")
    sight_range = raw["sight_range"]
    if not _is_int(sight_range) or not 0 <= sight_range <= MAX_SIGHT_RANGE:
        fail("sight_range", sight_range, f"an integer from 0 to {MAX_SIGHT_RANGE}")
    if "sight_shape" not in raw:
        fail("sight_shape", None, f"one of {list(SIGHT_SHAPES)}")
    sight_shape = raw["sight_shape"]
    if sight_shape not in SIGHT_SHAPES:
        fail("sight_shape", sight_shape, f"one of {list(SIGHT_SHAPES)}")
    if "path" not in raw:
        fail("path", None, "a list of [row, column] cells")
    path_raw = raw["path"]
    if not isinstance(path_raw, list) or not 2 <= len(path_raw) <= MAX_PATH_LENGTH:
        fail("path", path_raw, f"a list of 2 to {MAX_PATH_LENGTH} [row, column] cells")
    path: list[tuple[int, int]] = []
    for k, cell in enumerate(path_raw):
        if not (isinstance(cell, (list, tuple)) and len(cell) == 2 and all(_is_int(v) for v in cell)):
            fail(f"path[{k}]", cell, "a cell [row, column] of two integers")
        if not all(0 <= v < GRID for v in cell):
            fail(f"path[{k}]", list(cell), f"a cell on the {GRID}x{GRID} grid (rows and columns 0..{GRID - 1})")
        cell = (int(cell[0]), int(cell[1]))
        if path and abs(cell[0] - path[-1][0]) + abs(cell[1] - path[-1][1]) != 1:
            fail(
                f"path[{k}]",
                list(cell),
                f"a cell orthogonally adjacent to the previous cell {list(path[-1])} (paths are consecutive)",
            )
        path.append(cell)
    if path[0] == START_CELL:
        fail("path[0]", list(path[0]), f"a first cell other than the child's start cell {list(START_CELL)}")
    return Monster(
        name=name.strip(),
        path=tuple(path),
        steps=steps,
        sight_range=sight_range,
        sight_shape=sight_shape,
        description=description.strip(),
    )


def validate_booklet(data, source: str = "booklet", quote: bool = True) -> tuple[Monster, ...]:
    """Every monster of a parsed booklet (``{"monsters": [...]}``), validated (``quote``: see :func:`validate_monster`)."""
    if not isinstance(data, dict) or "monsters" not in data:
        raise BookletError(f"{source}: expected a mapping with a 'monsters' list, got {type(data).__name__}")
    extra = [k for k in data if k not in ("monsters", "version", "title")]
    if extra:
        raise BookletError(f"{source}: unknown top-level keys {extra}; expected 'monsters' (and optional 'title', 'version')")
    monsters_raw = data["monsters"]
    if not isinstance(monsters_raw, list) or not 1 <= len(monsters_raw) <= MAX_MONSTERS:
        raise BookletError(
            f"{source}: field 'monsters': got {shown(monsters_raw, quote)}; expected a list of 1 to {MAX_MONSTERS} monsters"
        )
    monsters = tuple(validate_monster(i, raw, source, quote) for i, raw in enumerate(monsters_raw))
    seen: dict[str, int] = {}
    for i, monster in enumerate(monsters):
        if monster.name in seen:
            named = f" ({short_repr(monster.name)})" if quote else ""
            raise BookletError(
                f"{source}: monster {i}{named}, field 'name': got {shown(monster.name, quote)}; "
                f"expected a name not already used by monster {seen[monster.name]}"
            )
        seen[monster.name] = i
    return monsters


def load_booklet(path: str | os.PathLike | None = None) -> tuple[Monster, ...]:
    """The monsters of the booklet at ``path`` (YAML or JSON), or of the default booklet."""
    if BOOKLET_OPTION.check(path) is None:
        text = resources.files("kakurega.envs").joinpath("data", DEFAULT_BOOKLET).read_text(encoding="utf-8")
        return validate_booklet(load_text(text, DEFAULT_BOOKLET, error=BookletError), DEFAULT_BOOKLET)
    source = os.fspath(path)
    return validate_booklet(load_file(source, error=BookletError, what="booklet file"), source, quote=False)


def load_playable_booklet(path: str | os.PathLike | None = None) -> tuple[Monster, ...]:
    """The monsters of the booklet at ``path`` (:func:`load_booklet`), refused as the env refuses them: a monster
    that decides a round before the child acts (``shaping.refuse_decided_rounds``) is a :class:`BookletError` too.
    The ``booklet`` option's loader, so the web app offers only the booklets the env plays."""
    from kakurega.envs.hidden_rooms.rules import HiddenRoomsGame  # (both import this module)
    from kakurega.envs.hidden_rooms.shaping import refuse_decided_rounds

    monsters = load_booklet(path)
    refuse_decided_rounds(HiddenRoomsGame(monsters), path)
    return monsters


#: the env option naming the booklet (envs/core/options.py), loaded by :func:`load_booklet`; its loader,
#: :func:`load_playable_booklet`, refuses what the env refuses
BOOKLET_OPTION = Option("booklet", (str, os.PathLike, type(None)), None, "None loads the default booklet (7 "
                        "monsters); format in ``kakurega.envs.hidden_rooms.booklet``; a bad file (or a path "
                        "that is no regular file) raises ``BookletError`` naming monster and field",
                        expected="a file path (str or PathLike) to a YAML or JSON booklet, or None",
                        loader=load_playable_booklet)
