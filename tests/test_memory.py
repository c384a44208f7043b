"""One env instance's memory is flat once its caches are full: games played do not add to it.

Every cache an env, its observer or its rules object keeps is bounded
(``kakurega.envs.core.cache``; docs/performance.md, "Memory"). Random games on one
instance of the newest version of every game, memory traced by tracemalloc: what
the instance holds after 10,000 games is within 5 % of what it held after 1,000
(slow). The default suite plays 200 then 400 games with every cap cut to 32
entries (so the caches are full early): what it proves is that nothing besides
the capped caches grows. A control lifts the cap of the mask cache and sees the
growth.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
import random
import tracemalloc

import pytest

from kakurega.envs.core import aec
from kakurega.envs.registry import ENV_SPECS, latest_envs, make

WARM_UP = 1000
TOLERANCE = 0.05
#: the least change counted as growth (an env of a few tens of KiB moves by more than 5 % with the allocator's
#: pools alone; every shipped env holds 75 KiB or more, where 5 % is the larger)
FLOOR = 16 * 1024
LATEST = [(name, ENV_SPECS[name].configurations[0]) for name in latest_envs()]
EVERY_LATEST = [(name, config) for name in latest_envs() for config in ENV_SPECS[name].configurations]


def play(env, games: int, choose) -> None:
    """``games`` games of uniformly random legal play on ``env``."""
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].view(bool).nonzero()[0]
            env.step(int(legal[choose(len(legal))]))


def memory_after(name: str, config: dict, checkpoints: list[int]) -> list[int]:
    """Bytes the instance holds (traced since just before it was made), after each number of games in ``checkpoints``."""
    choose = random.Random(0).randrange
    make(name, **config).reset(seed=0)  # the imports and the tables shared by all instances, outside the count
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        env = make(name, **config)
        env.reset(seed=0)
        held, played = [], 0
        for games in checkpoints:
            play(env, games - played, choose)
            played = games
            gc.collect()
            held.append(tracemalloc.get_traced_memory()[0] - base)
        del env
    finally:
        tracemalloc.stop()
    return held


def check_flat(name: str, config: dict, warm_up: int, later: int) -> None:
    warm, after = memory_after(name, config, [warm_up, later])
    assert abs(after - warm) <= max(TOLERANCE * warm, FLOOR), (
        f"{name} {config}: {warm / 1024:.0f} KiB after {warm_up} games, {after / 1024:.0f} KiB after {later}"
    )


@pytest.fixture
def small_caps(monkeypatch):
    """Every cache cap of the env modules (``*_SIZE`` constants, the mask cache's) cut to 32 entries."""
    monkeypatch.setattr(aec, "mask_cache_size", lambda num_actions: 32)
    import kakurega.envs as envs

    for module_info in pkgutil.walk_packages(envs.__path__, "kakurega.envs."):
        module = importlib.import_module(module_info.name)
        for attribute, value in list(vars(module).items()):
            if attribute.endswith("_SIZE") and isinstance(value, int) and value > 32:
                monkeypatch.setattr(module, attribute, 32)


@pytest.mark.parametrize("name,config", LATEST, ids=[name for name, _ in LATEST])
def test_memory_is_flat_once_the_caches_are_full(name, config, small_caps):
    check_flat(name, config, 200, 400)


@pytest.mark.slow
@pytest.mark.parametrize("name,config", EVERY_LATEST, ids=[f"{n}-{c}" for n, c in EVERY_LATEST])
def test_memory_is_flat_over_ten_thousand_games(name, config):
    check_flat(name, config, WARM_UP, 10 * WARM_UP)


def test_an_uncapped_cache_shows_growth(monkeypatch):
    """Control: without the mask cache's cap, the game with the most legal sets keeps growing."""
    monkeypatch.setattr(aec, "mask_cache_size", lambda num_actions: 1 << 30)
    name, config = LATEST[0]  # KAKURENBO: thousands of legal sets, most of them rare
    warm, after = memory_after(name, config, [200, 400])
    assert after - warm > max(TOLERANCE * warm, FLOOR)
