"""What every Animal Chain env version shares: option checks and the assembly of the AEC env.

The versions differ only in the rules options they give ``AnimalChainGame``
(``envs/animal_chain_v0.py``, ``envs/animal_chain_v1.py``).
"""

from __future__ import annotations

import os
from typing import Mapping

from kakurega.envs.animal_chain.observation import AnimalChainObserver
from kakurega.envs.animal_chain.render import AnimalChainRenderer
from kakurega.envs.animal_chain.rules import AnimalChainGame
from kakurega.envs.core.aec import TurnBasedAECEnv


def _check_source(name: str, value) -> None:
    if value is not None and not isinstance(value, (str, os.PathLike, Mapping)):
        raise TypeError(
            f"{name} must be a path to a YAML/JSON file, a mapping or None (packaged default), "
            f"got {value!r} of type {type(value).__name__}"
        )


def check_options(deck, shape, max_turns) -> None:
    """TypeError / ValueError naming a bad ``deck``, ``shape`` or ``max_turns`` env option."""
    _check_source("deck", deck)
    _check_source("shape", shape)
    if isinstance(max_turns, bool) or not isinstance(max_turns, int):
        raise TypeError(f"max_turns must be a positive integer, got {max_turns!r} of type {type(max_turns).__name__}")
    if max_turns < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns}")


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
    return env
