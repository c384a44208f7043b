"""What every Animal Chain env version shares: option checks and the assembly of the AEC env.

The versions differ only in the rules options they give ``AnimalChainGame``
(``envs/animal_chain_v0.py``, ``envs/animal_chain_v1.py``).
"""

from __future__ import annotations

import numbers
import os
from typing import Mapping

from kakurega.envs.animal_chain.observation import AnimalChainObserver
from kakurega.envs.animal_chain.picture import AnimalChainPicture
from kakurega.envs.animal_chain.render import AnimalChainRenderer
from kakurega.envs.animal_chain.rules import AnimalChainGame
from kakurega.envs.core.aec import TurnBasedAECEnv
from kakurega.envs.core.safe_load import short_repr

MAX_TURNS = 100_000  #: bound of the max_turns option


def _check_source(name: str, value) -> None:
    if value is not None and not isinstance(value, (str, os.PathLike, Mapping)):
        raise TypeError(
            f"{name} must be a path to a YAML/JSON file, a mapping or None (packaged default), "
            f"got {short_repr(value)} of type {type(value).__name__}"
        )


def check_options(deck, shape, max_turns) -> None:
    """TypeError / ValueError naming a bad ``deck``, ``shape`` or ``max_turns`` env option."""
    _check_source("deck", deck)
    _check_source("shape", shape)
    # numbers.Integral: numpy integers are accepted; the bound keeps the compiled build's C int from overflowing
    if isinstance(max_turns, bool) or not isinstance(max_turns, numbers.Integral):
        raise TypeError(
            f"max_turns must be an integer from 1 to {MAX_TURNS}, got {short_repr(max_turns)} of type {type(max_turns).__name__}"
        )
    if not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"max_turns must be an integer from 1 to {MAX_TURNS}, got {short_repr(max_turns)}")


def assemble(game: AnimalChainGame, name: str, render_mode: str | None, render_view: str | None) -> TurnBasedAECEnv:
    """The raw AEC env ``name`` over ``game``, with its observer and renderer."""
    observer = AnimalChainObserver(game)
    renderer = AnimalChainRenderer(game)
    env = TurnBasedAECEnv(
        game,
        observer.layout,
        observer.encode,
        renderer.render_text,
        render_mode=render_mode,
        render_view=render_view,
    )
    env.metadata = {**env.metadata, "name": name}
    env.picture = AnimalChainPicture(game)
    return env
