"""Observation layouts declared as named pieces.

An encoder never writes at magic offsets: it declares its flat vector as a list
of ``(name, shape, description, high)`` pieces (entries lie in ``[0, high]``,
``high`` defaults to 1) and writes into views by name. The same layout
object decodes an observation (agents, tests, docs), so the layout documents
itself.

>>> layout = ObservationLayout([("scores", (3,)), ("board", (2, 2))])
>>> layout.size
7
>>> obs = layout.zeros()
>>> layout.view(obs, "board")[1, 0] = 1
>>> obs.tolist()
[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
>>> layout.index("board", 1, 0)
5
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named slice of a flat observation vector."""

    name: str
    shape: tuple[int, ...]
    start: int
    description: str = ""
    high: float = 1.0

    @property
    def size(self) -> int:
        """Number of entries in this piece."""
        return prod(self.shape)

    @property
    def stop(self) -> int:
        """End offset (exclusive) of this piece."""
        return self.start + self.size


class ObservationLayout:
    """A flat float32 vector made of named, shaped pieces."""

    dtype = np.float32

    def __init__(self, pieces):
        self.pieces: dict[str, Piece] = {}
        offset = 0
        for entry in pieces:
            name, shape = entry[0], tuple(int(s) for s in entry[1])
            description = entry[2] if len(entry) > 2 else ""
            high = float(entry[3]) if len(entry) > 3 else 1.0
            if name in self.pieces:
                raise ValueError(f"observation piece {name!r} declared twice")
            piece = Piece(name, shape, offset, description, high)
            self.pieces[name] = piece
            offset = piece.stop
        self.size = offset
        #: per-entry upper bounds (lower bounds are 0): the observation Box
        self.high = np.zeros(self.size, dtype=self.dtype)
        for piece in self.pieces.values():
            self.high[piece.start : piece.stop] = piece.high

    def zeros(self) -> np.ndarray:
        """A fresh all-zero observation vector."""
        return np.zeros(self.size, dtype=self.dtype)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of ``obs`` as a view with its declared shape (read-only where ``obs`` is, as an env's
        observations are; an encoder writes through the view of its own fresh vector)."""
        piece = self.pieces.get(name)
        if piece is None:
            raise KeyError(f"no observation piece {name!r}; the pieces are {', '.join(self.pieces)}")
        return obs[piece.start : piece.stop].reshape(piece.shape)

    def decode(self, obs) -> dict[str, np.ndarray]:
        """Every piece of ``obs`` by name, each a view with its declared shape (an observation dict's
        ``"observation"`` or the vector itself); a vector of the wrong length is refused in words.

        >>> ObservationLayout([("scores", (3,)), ("board", (2, 2))]).decode(np.arange(7.0))["board"].tolist()
        [[3.0, 4.0], [5.0, 6.0]]
        """
        vector = obs["observation"] if isinstance(obs, dict) else obs
        vector = np.asarray(vector)
        if vector.shape != (self.size,):
            raise ValueError(f"an observation of shape {vector.shape}; this layout decodes vectors of shape "
                             f"({self.size},)")
        return {name: vector[p.start : p.stop].reshape(p.shape) for name, p in self.pieces.items()}

    def index(self, name: str, *index: int) -> int:
        """Flat offset of one entry of piece ``name`` (e.g. ``index("board", 1, 0)``): for fast
        encoders that precompute where each piece starts, by name, instead of writing magic offsets."""
        piece = self.pieces[name]
        if len(index) != len(piece.shape) or not all(0 <= i < n for i, n in zip(index, piece.shape)):
            raise IndexError(f"piece {name!r} has shape {piece.shape}, got index {index}")
        offset = 0
        for i, n in zip(index, piece.shape):
            offset = offset * n + i
        return piece.start + offset

    def slice(self, name: str) -> slice:
        """The flat slice of piece ``name``."""
        piece = self.pieces[name]
        return slice(piece.start, piece.stop)

    def markdown_table(self, prefix: str = "") -> str:
        """The layout as a Markdown table (for env cards and docs); only the pieces named ``prefix...`` if given."""
        rows = ["| piece | shape | offsets | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces.values():
            if not p.name.startswith(prefix):
                continue
            rows.append(
                f"| `{p.name}` | {p.shape} | {p.start}..{p.stop - 1} | 0..{p.high:g} | {p.description} |"
            )
        return "\n".join(rows)
