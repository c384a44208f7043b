"""Animal Chain data: the deck and the board shape, loaded from YAML/JSON and validated.

Both are plain data files (``envs/data/animal_chain_deck.yaml`` and
``envs/data/animal_chain_shape.yaml`` by default) so that a user can play
with other decks and boards. Anything the rules cannot play with is refused
with a :class:`AnimalChainDataError` naming the file and the field (and the
value when it came from a mapping in code: a file's values are never quoted
back, only their type).
Files are read with :mod:`kakurega.envs.core.safe_load` (no duplicate keys,
alias bombs or deep nesting; 1 MB at most) and every number has an upper
bound: ``copies`` <= :data:`MAX_COPIES`, at most :data:`MAX_ANIMALS` animals,
:data:`MAX_CARD_LINES` card lines and :data:`MAX_DECK_CARDS` cards in a deck,
at most :data:`MAX_BOARD_CARDS` cards on a board. (An env's spaces grow with
the deck: the actions with its card types, ``env.state()`` with cards x card
types. A 1,000-card deck of 2,000 card types, the most these bounds allow,
builds its env in about half a second and 100 MB.) An animal's name and
label are printable text (no ESC or other control character, no line break:
renders and move words print them).

>>> deck, shape = load_deck(), load_shape()
>>> len(deck.animals), deck.num_cards, len(deck.card_types)
(6, 60, 30)
>>> shape.num_cards, shape.row_sizes
(37, (4, 5, 6, 7, 6, 5, 4))
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from kakurega.envs.core.safe_load import PRINTABLE_RULE, is_printable_text, load_file, load_text, short_repr, shown

#: the rules page: a board has at most 45 cards
MAX_BOARD_CARDS = 45
#: cards dealt to each player at the start (rules page, setup step 2)
HAND_SIZE = 4
#: animal labels are drawn inside two-character cells by the renderer
LABEL_LENGTH = 2
#: copies of one card in a deck (a real deck holds a few of each)
MAX_COPIES = 1000
#: cards in a deck, all lines' copies together (the default deck has 60)
MAX_DECK_CARDS = 1000
#: animals in a deck, and card lines in its list (each line is at least one card)
MAX_ANIMALS = 64
MAX_CARD_LINES = MAX_DECK_CARDS
#: rows of a board shape (a 45-card board has at most 45 rows)
MAX_ROWS = MAX_BOARD_CARDS
#: half-card column of a shape cell (45 cards side by side span 90 half-units)
MAX_COLUMN = 2 * MAX_BOARD_CARDS

DEFAULT_DECK = "animal_chain_deck.yaml"
DEFAULT_SHAPE = "animal_chain_shape.yaml"


class AnimalChainDataError(ValueError):
    """A deck or shape file the rules cannot play with."""


@dataclass(frozen=True)
class Deck:
    """A validated deck.

    ``card_types`` are ordered pairs ``(left animal, right animal)`` of animal
    indices, sorted; they are the deck's own pairs plus their reversals (a
    card seen from the other side of the table shows its animals swapped, so
    the type space must be closed under reversal). ``copies[t]`` is how many
    cards of type ``t`` the deck holds (0 for a reversal the deck lacks).
    """

    animals: tuple[str, ...]
    labels: tuple[str, ...]
    card_types: tuple[tuple[int, int], ...]
    copies: tuple[int, ...]
    source: str = "<dict>"

    @property
    def num_cards(self) -> int:
        """Number of cards in the deck."""
        return sum(self.copies)

    def type_label(self, t: int) -> str:
        """Card type ``t`` as ``"Dg|Ct"`` (left|right labels)."""
        left, right = self.card_types[t]
        return f"{self.labels[left]}|{self.labels[right]}"


@dataclass(frozen=True)
class Shape:
    """A validated board shape in half-card units.

    ``cells`` lists ``(row, column)`` of every card in row-major order (row 0
    first, columns ascending); a card at column ``x`` covers ``[x, x + 2)``.
    Row 0 is player 0's base row, the last row player 1's. The shape is
    symmetric under a half turn, so cell ``i`` and cell ``num_cards - 1 - i``
    are each other's image seen from the other side of the table.
    """

    cells: tuple[tuple[int, int], ...]
    num_rows: int
    width: int  #: in half-card units
    source: str = "<dict>"

    @property
    def num_cards(self) -> int:
        """Number of card positions."""
        return len(self.cells)

    @property
    def row_sizes(self) -> tuple[int, ...]:
        """Cards per row, row 0 first."""
        sizes = [0] * self.num_rows
        for row, _ in self.cells:
            sizes[row] += 1
        return tuple(sizes)


# --------------------------------------------------------------------- loading
def read_data(source: str | os.PathLike | Mapping | None, default: str) -> tuple[Mapping, str]:
    """The mapping held by ``source`` (a path, a mapping, or None for the packaged default)."""
    if source is None:
        text = resources.files("kakurega.envs").joinpath("data", default).read_text(encoding="utf-8")
        return _top_mapping(load_text(text, default, error=AnimalChainDataError), default), default
    if isinstance(source, Mapping):
        return source, "<dict>"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"expected a file path or a mapping, got {short_repr(source)} of type {type(source).__name__}")
    path = os.fspath(source)
    what = "deck file" if default == DEFAULT_DECK else "shape file"
    return _top_mapping(load_file(path, error=AnimalChainDataError, what=what), path), path


def _top_mapping(data, source: str) -> Mapping:
    if not isinstance(data, Mapping):
        raise AnimalChainDataError(f"{source}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def _fail(source: str, field: str, value: Any, expected: str):
    # a value read from a file is never quoted back: only a mapping given in code is
    raise AnimalChainDataError(f"{source}: {field} = {shown(value, source == '<dict>')}: {expected}")


def _check_keys(source: str, where: str, data: Mapping, allowed: set[str], required: set[str]) -> None:
    for key in data:
        if key not in allowed:
            _fail(source, f"{where}{key}", data[key], f"unknown field; expected one of {sorted(allowed)}")
    for key in sorted(required):
        if key not in data:
            raise AnimalChainDataError(f"{source}: field {where}{key} is missing")


def _is_int(value) -> bool:
    # numbers.Integral covers numpy integers too: a deck built in code may hold np.int64 copies
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


# ------------------------------------------------------------------------ deck
def load_deck(source=None) -> Deck:
    """Load and validate a deck (path, mapping, or None for the default 60-card deck).

    Format::

        animals: [{name: dog, label: Dg}, ...]      # label: 2 characters, unique
        cards:   [{left: dog, right: cat, copies: 2}, ...]
    """
    data, source = read_data(source, DEFAULT_DECK)
    _check_keys(source, "", data, {"name", "description", "animals", "cards"}, {"animals", "cards"})
    animals_data = data["animals"]
    if not isinstance(animals_data, list) or not 2 <= len(animals_data) <= MAX_ANIMALS:
        _fail(source, "animals", animals_data, f"expected a list of 2 to {MAX_ANIMALS} animals")
    names: list[str] = []
    labels: list[str] = []
    for i, entry in enumerate(animals_data):
        if not isinstance(entry, Mapping):
            _fail(source, f"animals[{i}]", entry, "expected a mapping {name: ..., label: ...}")
        _check_keys(source, f"animals[{i}].", entry, {"name", "label"}, {"name", "label"})
        name, label = entry["name"], entry["label"]
        if not isinstance(name, str) or not name.strip():
            _fail(source, f"animals[{i}].name", name, "expected a non-empty string")
        if not is_printable_text(name):  # printed by renders and move words, as the label is
            _fail(source, f"animals[{i}].name", name, f"expected {PRINTABLE_RULE}")
        if name in names:
            _fail(source, f"animals[{i}].name", name, "animal names must be unique")
        if not isinstance(label, str) or len(label) != LABEL_LENGTH or not label.isprintable() or " " in label:
            _fail(source, f"animals[{i}].label", label, f"expected {LABEL_LENGTH} printable characters without spaces")
        if label in labels:
            _fail(source, f"animals[{i}].label", label, "animal labels must be unique")
        names.append(name)
        labels.append(label)

    cards_data = data["cards"]
    if not isinstance(cards_data, list) or not 1 <= len(cards_data) <= MAX_CARD_LINES:
        _fail(source, "cards", cards_data, f"expected a list of 1 to {MAX_CARD_LINES} entries {{left, right, copies}}")
    counts: dict[tuple[int, int], int] = {}
    for i, entry in enumerate(cards_data):
        if not isinstance(entry, Mapping):
            _fail(source, f"cards[{i}]", entry, "expected a mapping {left: ..., right: ..., copies: ...}")
        _check_keys(source, f"cards[{i}].", entry, {"left", "right", "copies"}, {"left", "right"})
        pair = []
        for side in ("left", "right"):
            animal = entry[side]
            if animal not in names:
                _fail(source, f"cards[{i}].{side}", animal, f"expected one of the animals {names}")
            pair.append(names.index(animal))
        copies = entry.get("copies", 1)
        if not _is_int(copies) or not 1 <= copies <= MAX_COPIES:
            _fail(source, f"cards[{i}].copies", copies, f"expected an integer from 1 to {MAX_COPIES}")
        key = (pair[0], pair[1])
        if key in counts:
            _fail(source, f"cards[{i}]", f"{entry['left']}|{entry['right']}", "this card is listed twice; use copies")
        counts[key] = int(copies)
    total = sum(counts.values())
    if total > MAX_DECK_CARDS:
        raise AnimalChainDataError(f"{source}: cards = {total} cards in all (copies of every line together): too many; "
                                   f"expected at most {MAX_DECK_CARDS} cards in a deck")

    types = sorted(set(counts) | {(right, left) for left, right in counts})
    return Deck(
        animals=tuple(names),
        labels=tuple(labels),
        card_types=tuple(types),
        copies=tuple(counts.get(t, 0) for t in types),
        source=source,
    )


# ----------------------------------------------------------------------- shape
def load_shape(source=None) -> Shape:
    """Load and validate a board shape (path, mapping, or None for the default 37-card board).

    Format, one of::

        rows: [4, 5, 6, 7, 6, 5, 4]          # cards per row, each row centred
        columns: [[1, 3, 5], [0, 2, 4, 6], ...]   # explicit half-card columns per row
    """
    data, source = read_data(source, DEFAULT_SHAPE)
    _check_keys(source, "", data, {"name", "description", "rows", "columns"}, set())
    if ("rows" in data) == ("columns" in data):
        raise AnimalChainDataError(f"{source}: give exactly one of the fields rows (cards per centred row) or columns")
    if "rows" in data:
        rows = data["rows"]
        if not isinstance(rows, list) or not 2 <= len(rows) <= MAX_ROWS:
            _fail(source, "rows", rows, f"expected a list of 2 to {MAX_ROWS} card counts (row 0 is player 0's base)")
        for i, n in enumerate(rows):
            if not _is_int(n) or not 1 <= n <= MAX_BOARD_CARDS:
                _fail(source, f"rows[{i}]", n, f"expected a number of cards from 1 to {MAX_BOARD_CARDS}")
        rows = [int(n) for n in rows]
        widest = max(rows)
        columns = [[widest - n + 2 * k for k in range(n)] for n in rows]
        field = "rows"
    else:
        columns = data["columns"]
        if not isinstance(columns, list) or not 2 <= len(columns) <= MAX_ROWS:
            _fail(source, "columns", columns, f"expected a list of 2 to {MAX_ROWS} rows of half-card columns")
        for i, row in enumerate(columns):
            if not isinstance(row, list) or not 1 <= len(row) <= MAX_BOARD_CARDS or not all(
                _is_int(x) and 0 <= x <= MAX_COLUMN for x in row
            ):
                _fail(source, f"columns[{i}]", row, f"expected a list of 1 to {MAX_BOARD_CARDS} integers from 0 to {MAX_COLUMN}")
            if any(b - a < 2 for a, b in zip(row, row[1:])):
                _fail(source, f"columns[{i}]", row, "expected ascending columns at least 2 apart (cards are 2 half-units wide)")
            if len({x % 2 for x in row}) > 1:
                _fail(source, f"columns[{i}]", row, "all cards of a row must lie on the same half-card grid")
        columns = [[int(x) for x in row] for row in columns]
        shift = min(min(row) for row in columns)
        columns = [[x - shift for x in row] for row in columns]
        field = "columns"

    total = sum(len(row) for row in columns)
    if total > MAX_BOARD_CARDS:
        _fail(source, field, data[field], f"the board has {total} cards; the rules allow at most {MAX_BOARD_CARDS}")
    for i in range(len(columns) - 1):
        if columns[i][0] % 2 == columns[i + 1][0] % 2:
            _fail(
                source,
                f"{field}[{i}..{i + 1}]",
                [data[field][i], data[field][i + 1]],
                "neighbouring rows must be shifted half a card against each other (brick pattern)"
                + ("; centred rows must differ by an odd number of cards" if field == "rows" else ""),
            )
    cells = tuple((r, x) for r, row in enumerate(columns) for x in row)
    num_rows = len(columns)
    width = max(x for _, x in cells) + 2
    rotated = {(num_rows - 1 - r, width - 2 - x) for r, x in cells}
    if rotated != set(cells):
        _fail(source, field, data[field], "the board must look the same from both sides (symmetric under a half turn)")
    cell_set = set(cells)
    seen = {cells[0]}
    frontier = [cells[0]]
    while frontier:
        r, x = frontier.pop()
        for dr, dx in ((0, -2), (0, 2), (-1, -1), (-1, 1), (1, -1), (1, 1)):
            n = (r + dr, x + dx)
            if n in cell_set and n not in seen:
                seen.add(n)
                frontier.append(n)
    if len(seen) != len(cells):
        _fail(source, field, data[field], "the board must be one connected piece")
    return Shape(cells=cells, num_rows=num_rows, width=width, source=source)


def deck_cards(deck: Deck) -> int:
    """The cards of ``deck``, all lines' copies together (what :func:`check_deck_fits` compares)."""
    return deck.num_cards


def cards_needed(shape: Shape) -> int:
    """The cards a deck needs for ``shape``: the board's, and the hands (4 each) with the 1 extra card."""
    return shape.num_cards + 2 * HAND_SIZE + 1


def check_deck_fits(deck: Deck, shape: Shape) -> None:
    """Refuse a deck too small to fill ``shape`` and deal the hands (4 each + 1 extra card): fewer than
    :func:`cards_needed` cards (:func:`deck_cards`)."""
    needed = cards_needed(shape)
    if deck_cards(deck) < needed:
        raise AnimalChainDataError(
            f"{deck.source}: cards = {deck.num_cards} cards in all: too few to fill the board of "
            f"{shape.source} ({shape.num_cards} cards) and deal the hands (2 x {HAND_SIZE} + 1 extra); "
            f"expected at least {needed}"
        )
