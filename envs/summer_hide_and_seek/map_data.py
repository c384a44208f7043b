"""Summer Hide-and-Seek maps: loading and validation.

A map is a YAML mapping with these fields:

- ``name`` (str, optional): shown in renders;
- ``terrain``: mapping ``symbol -> name`` of terrain cells (buildings, forest,
  river ...): not squares; straight lines may pass over them. A symbol is one
  character that is neither a letter nor ``.``;
- ``icons``: mapping ``LETTER -> {name: str, vp: int}``, the VP table. The
  rarer an icon type on the grid, the more VP it must be worth (rules page);
- ``grid``: the rows of the map, one line per row, cells separated by spaces:
  ``.`` a path square (no icon), an UPPERCASE icon letter a black-framed
  square carrying that icon, a lowercase icon letter a white-framed square
  carrying it, a terrain symbol a terrain cell.

Any mistake raises :class:`MapError` (a ``ValueError``) naming the row and
column (0-based) or the field, and what was expected (a value read from a
file is never quoted back, only its type; a path that is missing, a
directory, a FIFO or a device is a :class:`MapError` too). Files are read with
:mod:`kakurega.envs.core.safe_load` (no duplicate keys, alias bombs or deep
nesting; 1 MB at most); a grid has at most :data:`MAX_SIDE` rows and columns,
an icon is worth at most :data:`MAX_VP` VP. Every name (the map's, a
terrain's, an icon's) and every terrain symbol is printable text (no ESC or
other control character, no line break: renders print them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from kakurega.envs.core.safe_load import check_printable, load_file, load_text, short_repr, shown

PATH_SYMBOL = "."
KIND_PATH, KIND_BLACK, KIND_WHITE = 0, 1, 2
KIND_NAMES = ("path", "black-framed", "white-framed")
DEFAULT_MAP = "summer_map.yaml"
FIELDS = ("name", "terrain", "icons", "grid")
MAX_SIDE = 32  #: rows/columns limit: keeps action and observation sizes sane
MAX_VP = 1000  #: VP of one icon type: keeps score tables and observation scales small


class MapError(ValueError):
    """A map file that breaks the format; the message names row, column or field."""


@dataclass(frozen=True)
class IconType:
    """One icon type of the VP table."""

    letter: str
    name: str
    vp: int


@dataclass(frozen=True)
class SummerMap:
    """A validated map. Squares are numbered 0.. in row-major order of the grid."""

    name: str
    height: int
    width: int
    #: one symbol per cell, row by row
    cells: tuple[tuple[str, ...], ...]
    #: (symbol, name) of every terrain type
    terrain: tuple[tuple[str, str], ...]
    icons: tuple[IconType, ...]
    #: (row, column) of square i
    squares: tuple[tuple[int, int], ...]
    #: KIND_PATH / KIND_BLACK / KIND_WHITE of square i
    kinds: tuple[int, ...]
    #: icon type index of square i, or -1 on a path square
    icon_of: tuple[int, ...]
    source: str = "map"

    @property
    def num_squares(self) -> int:
        """Number of squares (cells that are not terrain)."""
        return len(self.squares)

    def square_at(self, row: int, col: int) -> int:
        """Index of the square on (row, col), or -1 on terrain or off the grid."""
        if 0 <= row < self.height and 0 <= col < self.width:
            return self._index.get((row, col), -1)
        return -1

    @property
    def _index(self) -> dict:
        index = self.__dict__.get("_index_cache")
        if index is None:
            index = {rc: i for i, rc in enumerate(self.squares)}
            object.__setattr__(self, "_index_cache", index)
        return index

    def square_name(self, square: int) -> str:
        """E.g. ``"r2c5"``: row 2, column 5 (0-based)."""
        row, col = self.squares[square]
        return f"r{row}c{col}"

    def describe_square(self, square: int) -> str:
        """E.g. ``"r2c5 (white-framed, goldfish)"``."""
        kind = KIND_NAMES[self.kinds[square]]
        icon = self.icon_of[square]
        extra = f", {self.icons[icon].name}" if icon >= 0 else ""
        return f"{self.square_name(square)} ({kind}{extra})"

    def icon_counts(self) -> list[int]:
        """How many squares carry each icon type."""
        counts = [0] * len(self.icons)
        for icon in self.icon_of:
            if icon >= 0:
                counts[icon] += 1
        return counts


def load_map(path: str | os.PathLike | None = None) -> SummerMap:
    """The map in YAML file ``path``, or the default map shipped in ``kakurega.envs.data``."""
    if path is None:
        text = resources.files("kakurega.envs.data").joinpath(DEFAULT_MAP).read_text(encoding="utf-8")
        return parse_map(load_text(text, DEFAULT_MAP, error=MapError), DEFAULT_MAP)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"map must be a file path (str or os.PathLike) or None, got {type(path).__name__}")
    source = os.fspath(path)
    return parse_map(load_file(source, error=MapError, what="map file"), source, quote=False)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_map(raw, source: str = "map", quote: bool = True) -> SummerMap:
    """A :class:`SummerMap` from the raw YAML mapping, or :class:`MapError` saying what is wrong.

    ``quote=False`` (data read from a file): errors give a bad value's type, never the value.
    """

    def fail(message: str):
        raise MapError(f"{source}: {message}")

    if not isinstance(raw, dict):
        fail(f"expected a mapping with fields {', '.join(FIELDS)}, got {type(raw).__name__}")
    for key in raw:
        if key not in FIELDS:
            fail(f"unknown field {short_repr(key)}; expected only {', '.join(FIELDS)}")
    for key in ("terrain", "icons", "grid"):
        if key not in raw:
            fail(f"missing field {short_repr(key)}")
    name = raw.get("name", "map")
    if not isinstance(name, str):
        fail(f"field 'name': expected a string, got {shown(name, quote)}")
    # every name below is printed by renders (kakurega play, replay): printable text only
    check_printable(name, source, "field 'name'", quote=quote, error=MapError)

    terrain = raw["terrain"]
    if not isinstance(terrain, dict) or not terrain:
        fail(f"field 'terrain': expected a non-empty mapping symbol -> name, got {shown(terrain, quote)}")
    terrain_names = {}
    for symbol, tname in terrain.items():
        if (not isinstance(symbol, str) or len(symbol) != 1 or symbol.isalnum() or symbol == PATH_SYMBOL
                or symbol.isspace() or not symbol.isprintable()):
            fail(f"field 'terrain': symbol {short_repr(symbol)} must be one printable character, not a letter, "
                 "digit, space or '.'")
        if not isinstance(tname, str) or not tname:
            fail(f"field 'terrain.{symbol}': expected a name (string), got {shown(tname, quote)}")
        terrain_names[symbol] = check_printable(tname, source, f"field 'terrain.{symbol}'", quote=quote, error=MapError)

    icons_raw = raw["icons"]
    if not isinstance(icons_raw, dict) or not icons_raw:
        fail(f"field 'icons': expected a non-empty mapping LETTER -> {{name, vp}}, got {shown(icons_raw, quote)}")
    icons: list[IconType] = []
    icon_index: dict[str, int] = {}
    for letter, entry in icons_raw.items():
        where = f"field 'icons.{letter}'"
        if not isinstance(letter, str) or len(letter) != 1 or not ("A" <= letter <= "Z"):
            fail(f"field 'icons': key {short_repr(letter)} must be one uppercase letter A-Z")
        if not isinstance(entry, dict):
            fail(f"{where}: expected a mapping with 'name' and 'vp', got {shown(entry, quote)}")
        for key in entry:
            if key not in ("name", "vp"):
                fail(f"{where}: unknown key {short_repr(key)}; expected 'name' and 'vp'")
        if "vp" not in entry:
            fail(f"field 'icons.{letter}.vp': missing: every icon needs its VP")
        vp = entry["vp"]
        if not _is_int(vp) or not 1 <= vp <= MAX_VP:
            fail(f"field 'icons.{letter}.vp': expected an integer from 1 to {MAX_VP}, got {shown(vp, quote)}")
        iname = entry.get("name", letter)
        if not isinstance(iname, str) or not iname:
            fail(f"field 'icons.{letter}.name': expected a string, got {shown(iname, quote)}")
        check_printable(iname, source, f"field 'icons.{letter}.name'", quote=quote, error=MapError)
        icon_index[letter] = len(icons)
        icons.append(IconType(letter, iname, vp))

    grid = raw["grid"]
    if isinstance(grid, str):
        lines = [line for line in grid.splitlines() if line.strip()]
    elif isinstance(grid, list) and all(isinstance(line, str) for line in grid):
        lines = list(grid)
    else:
        fail(f"field 'grid': expected a block of text (one line per row), got {type(grid).__name__}")
    if not lines:
        fail("field 'grid': the grid has no rows")
    rows = [line.split() for line in lines]
    width = len(rows[0])
    if len(rows) > MAX_SIDE or width > MAX_SIDE:
        fail(f"field 'grid': at most {MAX_SIDE} rows and columns, got {len(rows)} x {width}")
    squares, kinds, icon_of = [], [], []
    for r, row in enumerate(rows):
        if len(row) != width:
            fail(f"field 'grid': row {r} has {len(row)} cells but row 0 has {width} (ragged rows)")
        for c, symbol in enumerate(row):
            if symbol == PATH_SYMBOL:
                squares.append((r, c))
                kinds.append(KIND_PATH)
                icon_of.append(-1)
            elif symbol in terrain_names:
                continue
            elif len(symbol) == 1 and symbol.isalpha() and symbol.isascii():
                letter = symbol.upper()
                if letter not in icon_index:
                    fail(
                        f"row {r}, column {c}: icon {shown(symbol, quote)} has no VP: field 'icons' has no entry "
                        f"{shown(letter, quote)} (known icons: {', '.join(icon_index)})"
                    )
                squares.append((r, c))
                kinds.append(KIND_BLACK if symbol.isupper() else KIND_WHITE)
                icon_of.append(icon_index[letter])
            else:
                fail(
                    f"row {r}, column {c}: unknown cell symbol {shown(symbol, quote)}; expected '.' (path square), "
                    f"an icon letter (UPPER black-framed, lower white-framed) or a terrain symbol "
                    f"({' '.join(terrain_names)})"
                )
    if KIND_PATH not in kinds:
        fail("field 'grid': no path square ('.') for the child to start on")
    result = SummerMap(
        name=name,
        height=len(rows),
        width=width,
        cells=tuple(tuple(row) for row in rows),
        terrain=tuple(terrain_names.items()),
        icons=tuple(icons),
        squares=tuple(squares),
        kinds=tuple(kinds),
        icon_of=tuple(icon_of),
        source=source,
    )
    _check_rarity(result, fail, quote)
    return result


def _check_rarity(summer_map: SummerMap, fail, quote: bool = True) -> None:
    """The rules: the rarer an icon type on the map, the more VP it is worth."""
    counts = summer_map.icon_counts()
    icons = summer_map.icons
    for a in range(len(icons)):
        for b in range(len(icons)):
            if counts[a] and counts[b] and counts[a] < counts[b] and icons[a].vp <= icons[b].vp:
                fail(
                    f"field 'icons.{icons[a].letter}.vp': icon {icons[a].letter!r} appears {counts[a]} times, "
                    f"rarer than {icons[b].letter!r} ({counts[b]} times), so it must be worth more VP than "
                    f"{icons[b].letter!r}" + (f" ({icons[b].vp} VP), got {icons[a].vp}" if quote else "")
                )
