"""Env options declared as data, and the one check every option goes through.

An env module declares its options as :class:`Option` objects (name, type,
default, allowed values or range, one line of doc; for an option that names
a data file, the game's loader). The same objects check the values
(:func:`check`, :meth:`Option.check`), fill in defaults, give the generated
``raw_env`` its signature, and render the env card's Options table and
``kakurega envs``; the web app offers a file option the data files its
loader takes, and marks those that do not fit the file chosen for another
option where the env declares such a pair (:class:`FileFit`). Policy files read the defaults from them without building an
env.

A rules constructor (``Game.__init__``) that takes one of these options
checks it with the very same ``Option`` object (``VARIANT.check(variant)``),
so a game built directly refuses what the env refuses, in the same words; no
option is checked by hand anywhere else.

Errors name the option, the value and what was expected: a wrong type raises
``TypeError``, a value of the right type outside what is allowed raises
``ValueError``.

>>> players = Option("num_players", int, 4, "players at the table", low=3, high=5)
>>> players.check(5)
5
>>> players.check(6)
Traceback (most recent call last):
...
ValueError: num_players must be an integer from 3 to 5, got 6
>>> check((players,), {"num_players": 3}, "demo_v0")
{'num_players': 3}
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kakurega.envs.core.safe_load import short_repr

_KIND_WORDS = {int: "an integer", float: "a number", bool: "True or False", str: "a string"}


@dataclass(frozen=True)
class Option:
    """One env option: its name, type, default, allowed values or range, and one line of doc.

    ``kind`` is ``int``, ``float``, ``bool``, ``str`` or a tuple of accepted
    classes (then ``expected`` says in words what is accepted, e.g. "a path to
    a YAML file, a mapping or None"). ``choices`` lists the allowed values of a
    ``str`` option; ``low``/``high`` bound a number (inclusive). Integers
    accept numpy integers and floats accept any real number (both are
    returned as Python ``int``/``float``); ``True``/``False`` are never
    numbers.

    ``loader`` (an option that names a data file): the game's own validating
    loader, called with a file's path (``load_map``, ``load_booklet``, ...);
    it raises a ``ValueError`` naming what is wrong with a file the game
    cannot play with. The web app offers an option only the files its loader
    takes.
    """

    name: str
    kind: type | tuple[type, ...]
    default: Any
    doc: str
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    expected: str = ""
    loader: Callable[[str], Any] | None = None

    @property
    def names_a_file(self) -> bool:
        """True for an option that accepts a file path (``map``, ``deck``, ``shape``, ``booklet``)."""
        return isinstance(self.kind, tuple) and os.PathLike in self.kind

    def with_default(self, default) -> Option:
        """This option with another default (a later version of a game changing one)."""
        return replace(self, default=self.check(default))

    def describe(self) -> str:
        """What the option accepts, in words: ``"'win' or 'points'"``, ``"an integer from 3 to 5"``."""
        if self.expected:
            return self.expected
        if self.choices:
            quoted = [repr(c) for c in self.choices]
            return " or ".join(quoted) if len(quoted) == 2 else "one of " + ", ".join(quoted)
        words = _KIND_WORDS[self.kind]
        low, high = (None if x is None else int(x) if self.kind is int else f"{x:g}" for x in (self.low, self.high))
        if low is not None and high is not None:
            return f"{words} from {low} to {high}" if self.kind is int else f"{words} in [{low}, {high}]"
        if low is not None:
            return f"{words} >= {low}"
        return words

    def check(self, value):
        """``value`` if this option allows it (numbers as plain ``int``/``float``), else the error in words."""
        kind = self.kind
        if kind is int:
            ok = isinstance(value, numbers.Integral) and not _is_bool(value)
        elif kind is float:
            ok = isinstance(value, numbers.Real) and not _is_bool(value)
        elif kind is bool:
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise TypeError(
                f"{self.name} must be {self.describe()}, got {short_repr(value)} of type {type(value).__name__}"
            )
        if kind is int:
            value = int(value)
        elif kind is float:
            value = float(value)
        in_range = (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
        if (self.choices and value not in self.choices) or not in_range or (kind is float and math.isnan(value)):
            raise ValueError(f"{self.name} must be {self.describe()}, got {short_repr(value)}")
        return value


def _is_bool(value) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # numpy.bool_ without importing numpy


@dataclass(frozen=True)
class FileFit:
    """Two file options whose files must suit each other: a file of ``option`` fits a file of ``other`` when
    ``size(what option's loader loads) >= needs(what other's loader loads)`` (a deck holds the cards a board needs).

    An env module declares its pairs (``EnvDefinition.file_fits``); the web app measures each offered file once
    (through the option's loader, the answer kept with the file's) and its setup page marks the files of ``option``
    that do not fit the ``other`` file chosen, with ``words`` (e.g. "too few cards for this board"), updating when
    that choice changes. The env still checks the pair itself when it builds (the page only marks): ``size`` and
    ``needs`` should be the very numbers that check compares.
    """

    option: str
    other: str
    size: Callable[[Any], int]
    needs: Callable[[Any], int]
    words: str


def check(options: Sequence[Option], values: Mapping[str, Any], owner: str) -> dict:
    """Every option of ``options`` checked, defaults filled in, in declaration order.

    A name ``options`` does not declare raises ``TypeError`` naming it,
    ``owner`` (e.g. ``"kakurenbo_v0"``) and the options there are.
    """
    by_name = {option.name: option for option in options}
    unknown = [name for name in values if name not in by_name]
    if unknown:
        raise TypeError(
            f"{owner} has no option {unknown[0]!r}; its options are: {', '.join(by_name)}"
        )
    return {option.name: option.check(values[option.name]) if option.name in values else option.default
            for option in options}


def signature(options: Sequence[Option]) -> inspect.Signature:
    """A keyword-only signature with the options' defaults (for ``help()`` and ``inspect``)."""
    return inspect.Signature(
        [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default) for o in options]
    )


def markdown_table(options: Sequence[Option]) -> str:
    """The options as a Markdown table: option, values, default, meaning (the env cards' Options table)."""
    rows = ["| option | values | default | meaning |", "|---|---|---|---|"]
    for o in options:
        values = ", ".join(f"``{c!r}``" for c in o.choices) if o.choices else o.describe()
        rows.append(f"| ``{o.name}`` | {values} | ``{o.default!r}`` | {o.doc} |")
    return "\n".join(rows)


def merge_env_kwargs(env_kwargs, options: Mapping[str, Any], owner: str) -> dict:
    """The env options of a Gymnasium form: ``env_kwargs`` (the convention of every kakurega Gymnasium id) and
    keyword ``options`` together, refused in words when ``env_kwargs`` is no mapping or both give an option."""
    from kakurega.envs.core.safe_load import short_repr

    if env_kwargs is None:
        env_kwargs = {}
    if not isinstance(env_kwargs, Mapping):
        raise TypeError(f"{owner}: env_kwargs must be a dict of env options (e.g. {{'num_players': 3}}), got "
                        f"{short_repr(env_kwargs)} of type {type(env_kwargs).__name__}")
    both = sorted(set(options) & set(env_kwargs))
    if both:
        raise TypeError(f"env options {both} given both in env_kwargs and as keyword arguments; give each once")
    return {**env_kwargs, **options}

