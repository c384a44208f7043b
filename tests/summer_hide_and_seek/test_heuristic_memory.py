"""Summer heuristic on large maps: what a player keeps stays within its caps, and games played do not add to it.

On a 32 x 32 map of 26 icon types a first turn has thousands of plans and announcements, so caches capped by
their entries only held hundreds of MiB: the plans kept are also capped by their number (``PLANS_CACHE_PLANS``),
the walk programmes by their bytes (``PROGRAMMES_BYTES``), the rows each ``Walks`` keeps by ``WALK_VALUES``, and
the weights after an announcement are copies, not views of the array of every announcement computed with them.
The caps are counted in entries, never in seconds or RSS; the tests cut them (and search 3 starts, not 48: the
moves do not matter here) so that a 16 x 16 map fills them in a game, and each control lifts them.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
import string
import tracemalloc

import pytest

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.heuristics import summer_hide_and_seek
from kakurega.agents.heuristics.summer_hide_and_seek import SummerHideAndSeekHeuristic
from kakurega.envs import summer_hide_and_seek_v2
from kakurega.envs.core import aec
from kakurega.envs.summer_hide_and_seek.map_data import MAX_SIDE, parse_map

ENV = "summer_hide_and_seek_v2"
#: the caps the tests cut, and their values there (WALK_VALUES: 64 rows of a 16 x 16 map)
SMALL = {"PLANS_CACHE_PLANS": 4000, "PROGRAMMES_BYTES": 1 << 20, "WALK_VALUES": 64 * 256}
UNBOUNDED = dict.fromkeys(SMALL, 1 << 40)


def many_icons_map(side: int):
    """``side`` x ``side`` path squares, a fifth of them icons of 26 types in turn (the rarer the more VP)."""
    letters = string.ascii_uppercase
    rows = [["."] * side for _ in range(side)]
    k = 0
    for r in range(side):
        for c in range(side):
            if (r * 7 + c * 3) % 5 == 0:
                rows[r][c], k = letters[k % 26], k + 1
    counts = {letter: sum(row.count(letter) for row in rows) for letter in letters}
    icons = {letter: {"name": letter.lower(), "vp": 1 + max(counts.values()) - counts[letter]} for letter in letters}
    return parse_map({"name": "many icons", "terrain": {"#": "house"}, "icons": icons,
                      "grid": "\n".join(" ".join(row) for row in rows)})


@pytest.fixture
def few_starts(monkeypatch):
    """The start square's choice searches the first 3 of its starts (a game in a second or two)."""
    plain = summer_hide_and_seek.searched_starts
    monkeypatch.setattr(summer_hide_and_seek, "searched_starts", lambda game, starts: plain(game, starts)[:3])
    monkeypatch.setattr(summer_hide_and_seek, "_SHARED", {})


def players(summer_map):
    env = summer_hide_and_seek_v2.env(map=summer_map, num_players=4)
    env.reset(seed=0)
    context = AgentContext.from_env(env, ENV)
    return env, {name: SummerHideAndSeekHeuristic(context, seed=i) for i, name in enumerate(env.possible_agents)}


def play(env, bots: dict, games: range) -> None:
    for game in games:
        env.reset(seed=game)
        for bot in bots.values():
            bot.reset()
        for name in env.agent_iter():
            _observation, _reward, terminated, truncated, _info = env.last()
            env.step(None if terminated or truncated else choose_action(bots[name], env, name))


def held(bot) -> dict[str, int]:
    """What ``bot`` keeps, counted as its caps count it: plans, programme bytes, rows of the fullest Walks table."""
    model = bot.public_weights
    walks = list(bot._walks_cache.values()) + [bot._last_walks[1]]
    assert bot._plans_held == sum(len(plans.paths) for plans in bot._plans_cache.values())
    assert model._programme_bytes == sum(programme.nbytes for programme in model._programmes.values())
    return {"PLANS_CACHE_PLANS": bot._plans_held, "PROGRAMMES_BYTES": model._programme_bytes,
            "WALK_VALUES": max(max(len(w._ends), len(w._heard)) for w in walks) * bot.game.num_squares}


@pytest.mark.parametrize("caps", ["cut", "lifted"])
def test_the_caches_of_large_map_games_stay_within_their_caps(monkeypatch, few_starts, caps):
    for name, value in (SMALL if caps == "cut" else UNBOUNDED).items():
        monkeypatch.setattr(summer_hide_and_seek, name, value)
    env, bots = players(many_icons_map(16))
    play(env, bots, range(2))
    kept = [held(bot) for bot in bots.values()]
    updates = summer_hide_and_seek.shared_tables(env.unwrapped.game)["updates"]
    assert updates and all(after.base is None for after in updates.values())  # copies, never views
    if caps == "lifted":  # the control: each count passes the cap the other run keeps
        assert all(max(counts[name] for counts in kept) > cap for name, cap in SMALL.items())
        return
    assert all(counts[name] <= cap for counts in kept for name, cap in SMALL.items())


@pytest.fixture
def small_caps(monkeypatch):
    """Every entry cap of the env modules and of the heuristic cut to 8 entries, its other caps to SMALL (a Walks'
    tables to 8 rows): the caches are full after a few games."""
    monkeypatch.setattr(aec, "mask_cache_size", lambda num_actions: 8)
    import kakurega.envs as envs

    modules = [importlib.import_module(info.name) for info in pkgutil.walk_packages(envs.__path__, "kakurega.envs.")]
    for module in modules + [summer_hide_and_seek]:
        for attribute, value in list(vars(module).items()):
            if attribute.endswith("_SIZE") and isinstance(value, int) and value > 8:
                monkeypatch.setattr(module, attribute, 8)
    for name, value in {**SMALL, "WALK_VALUES": 8 * 256}.items():
        monkeypatch.setattr(summer_hide_and_seek, name, value)


def memory_after(checkpoints: list[int]) -> list[int]:
    """Bytes 4 heuristics and their env hold (traced from just before they are made) after each number of games."""
    summer_map = many_icons_map(16)
    players(summer_map)  # the tables shared by every instance of the map, outside the count
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        env, bots = players(summer_map)
        sizes, played = [], 0
        for games in checkpoints:
            play(env, bots, range(played, games))
            played = games
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0] - base)
    finally:
        tracemalloc.stop()
    return sizes


#: the least change counted as growth (the env's last observations and the bots' last turn move by some KiB)
FLOOR = 256 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("caps", ["cut", "lifted"])
def test_large_map_games_do_not_add_to_what_the_players_hold(monkeypatch, few_starts, small_caps, caps):
    """Once the caches are full (3 games here), 3 more games leave the memory as it was; the control lifts the
    heuristic's caps that are not entry counts (the first turns' plans kept then grow with the starts met: 4 MiB
    over the 3 games)."""
    if caps == "lifted":
        for name, value in UNBOUNDED.items():
            monkeypatch.setattr(summer_hide_and_seek, name, value)
    warm, later = memory_after([3, 6])
    grown = later - warm
    message = f"{warm / 2**20:.1f} MiB after 3 games, {later / 2**20:.1f} MiB after 6"
    if caps == "lifted":
        assert grown > max(0.05 * warm, FLOOR), message
    else:
        assert abs(grown) <= max(0.05 * warm, FLOOR), message


def test_the_caps_leave_the_shipped_map_alone():
    """The shipped map's first turns stay below the caps (they were chosen so: its moves cost what they did): every
    start's plans 4 times over, PROGRAMMES_SIZE programmes of its largest first turn, 4 times its most announcements."""
    game = summer_hide_and_seek_v2.env().unwrapped.game
    bot = SummerHideAndSeekHeuristic(AgentContext.from_env(summer_hide_and_seek_v2.env(), ENV), seed=0)
    starts = [s for s in range(game.num_squares) if game.icon_of[s] < 0]
    plans = [summer_hide_and_seek.TurnPlans(game, s, 1 << s, 0, 0, summer_hide_and_seek.BUDGET, (), 0) for s in starts]
    assert sum(len(p.paths) for p in plans) * 4 < summer_hide_and_seek.PLANS_CACHE_PLANS
    programmes = [bot.public_weights.programme(tuple(p.announcements)) for p in plans]
    assert summer_hide_and_seek.PROGRAMMES_SIZE * max(p.nbytes for p in programmes) < summer_hide_and_seek.PROGRAMMES_BYTES
    assert max(len(p.announcements) for p in plans) * 4 < summer_hide_and_seek.WALK_VALUES // game.num_squares
    assert MAX_SIDE * MAX_SIDE * 64 <= summer_hide_and_seek.WALK_VALUES  # a 32 x 32 map's Walks keep 64 rows at least
