"""The Summer Hide-and-Seek AEC env: the shared turn-based base over the rules, one class per version.

A version is a set of rule options (``RULES``) and a name; everything else
(options, validation, observation, rendering) is the same for every version.
The env cards are the version modules' docstrings (``summer_hide_and_seek_v0``,
``summer_hide_and_seek_v1``).
"""

from __future__ import annotations

import functools
import numbers
import os

from kakurega.envs.core.aec import TurnBasedAECEnv
from kakurega.envs.core.safe_load import short_repr
from kakurega.envs.summer_hide_and_seek.map_data import SummerMap, load_map
from kakurega.envs.summer_hide_and_seek.observation import SummerObserver
from kakurega.envs.summer_hide_and_seek.picture import SummerHideAndSeekPicture
from kakurega.envs.summer_hide_and_seek.render import render_text
from kakurega.envs.summer_hide_and_seek.rules import REWARD_MODES, SummerHideAndSeekGame


MAX_STEPS = 1_000_000  #: bound of the max_steps option


def _check_int(name: str, value, low: int, high: int) -> int:
    # numbers.Integral: numpy integers are accepted as Python ints are
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {short_repr(value)} of type {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}={short_repr(value)}: expected an integer in {low}..{high}")
    return int(value)


class SummerHideAndSeekEnv(TurnBasedAECEnv):
    """Summer Hide-and-Seek under the rule options ``RULES`` of a version (subclasses name the version)."""

    metadata = {**TurnBasedAECEnv.metadata, "name": "summer_hide_and_seek"}
    #: rule options of the version (keyword arguments of SummerHideAndSeekGame)
    RULES: dict = {}

    def __init__(
        self,
        num_players: int = 2,
        map: str | os.PathLike | SummerMap | None = None,  # noqa: A002 - the documented option name
        strict_moves: bool = False,
        reward: str = "win",
        max_steps: int = 1000,
        render_mode: str | None = None,
        render_view: str | None = None,
    ):
        num_players = _check_int("num_players", num_players, 2, 4)
        if map is None or isinstance(map, (str, os.PathLike)):
            summer_map = load_map(map)
        elif isinstance(map, SummerMap):
            summer_map = map
        else:
            raise TypeError(
                f"map must be None (default map), a YAML file path or a SummerMap, got {type(map).__name__}"
            )
        if not isinstance(strict_moves, bool):
            raise TypeError(f"strict_moves must be True or False, got {strict_moves!r}")
        if not isinstance(reward, str) or reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r}: expected one of {', '.join(REWARD_MODES)}")
        max_steps = _check_int("max_steps", max_steps, 1, MAX_STEPS)
        game = SummerHideAndSeekGame(num_players, summer_map, strict_moves, reward, max_steps, **self.RULES)
        observer = SummerObserver(game)
        super().__init__(
            game, observer.layout, observer.encode, functools.partial(render_text, game), render_mode, render_view
        )
        self.picture = SummerHideAndSeekPicture(game)
