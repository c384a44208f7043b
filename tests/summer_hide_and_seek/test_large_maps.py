"""Summer on the largest maps the loader accepts: a player's work per decision stays bounded.

A turn's search enumerates at most ``MAX_PLANS`` plans on any map; the start square's choice (one search per
start) searches at most ``START_SEARCHES`` starts, spread over the map: the heuristic, the move features and the
mixed child. Work is counted in searches and plans, never in seconds. Each control lifts the cap
(``START_SEARCHES`` larger than the map) and counts a search per start, as before the cap: over 500 here, where
an open 32 x 32 map took a minute and a half.
"""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.heuristics import summer_features, summer_hide_and_seek, summer_mixed
from kakurega.agents.heuristics.summer_features import SummerMoveFeatures
from kakurega.agents.heuristics.summer_hide_and_seek import BUDGET, SummerHideAndSeekHeuristic, TurnPlans
from kakurega.agents.heuristics.summer_mixed import SummerMixedChild
from kakurega.agents.heuristics.summer_plans import MAX_PLANS, START_ANNOUNCEMENTS, START_SEARCHES, searched_starts
from kakurega.envs import summer_hide_and_seek_v2
from kakurega.envs.summer_hide_and_seek.map_data import MAX_SIDE, parse_map

ENV = "summer_hide_and_seek_v2"
ICONS = {"S": {"name": "sunflower", "vp": 1}, "F": {"name": "fireworks", "vp": 2}}


def _map(rows: list[list[str]]):
    return parse_map({"name": "large", "terrain": {"#": "house"}, "icons": ICONS,
                      "grid": "\n".join(" ".join(row) for row in rows)})


def open_map(side: int):
    """``side`` x ``side`` path squares, two sunflowers and a fireworks (black-framed)."""
    rows = [["."] * side for _ in range(side)]
    rows[1][1] = rows[side - 2][side - 2] = "S"
    rows[side - 2][1] = "F"
    return _map(rows)


def striped_map():
    """32 x 32: rows of path squares between rows of houses (512 path squares, a few plans from each: a control
    that searches every start stays quick)."""
    rows = [["." if r % 2 == 0 else "#" for _c in range(MAX_SIDE)] for r in range(MAX_SIDE)]
    rows[0][3] = rows[2][5] = "S"
    rows[4][7] = "F"
    return _map(rows)


def _start_position(summer_map):
    env = summer_hide_and_seek_v2.env(map=summer_map)
    env.reset(seed=0)
    return env, AgentContext.from_env(env, ENV, {"map": summer_map}), env.agent_selection


class _Searches:
    """Counts the turn searches (``enumerate_plans``) and the plans they enumerate."""

    def __init__(self, monkeypatch):
        self.calls = self.plans = 0
        plain = summer_hide_and_seek.enumerate_plans

        def counted(*args):
            plans = plain(*args)
            self.calls += 1
            self.plans += len(plans[0])
            return plans

        monkeypatch.setattr(summer_hide_and_seek, "enumerate_plans", counted)


def test_a_turn_search_enumerates_at_most_max_plans():
    """From the middle of an open map (8 lines from every square, none cut by an edge within 5 lines) the search
    meets the most plans a map allows, within the bound; the default map's starts too."""
    game = summer_hide_and_seek_v2.env(map=open_map(13)).unwrapped.game
    middle = game.map.square_at(6, 6)
    count = len(TurnPlans(game, middle, 1 << middle, 0, 0, BUDGET, (), 0).paths)
    assert MAX_PLANS / 2 < count <= MAX_PLANS == 22_409
    default = summer_hide_and_seek_v2.env().unwrapped.game
    for s in range(default.num_squares):
        if default.icon_of[s] < 0:
            assert len(TurnPlans(default, s, 1 << s, 0, 0, BUDGET, (), 0).paths) <= MAX_PLANS


def test_the_default_map_searches_every_start():
    """34 path squares, in their order, and their first turns make far fewer announcements than the budget."""
    game = summer_hide_and_seek_v2.env().unwrapped.game
    starts = tuple(s for s in range(game.num_squares) if game.icon_of[s] < 0)
    assert len(starts) <= START_SEARCHES and searched_starts(game, starts) == starts
    heard = sum(len(TurnPlans(game, s, 1 << s, 0, 0, BUDGET, (), 0).announcements) for s in starts)
    assert heard < START_ANNOUNCEMENTS / 4


def test_the_searched_starts_are_spread_over_a_large_map():
    """The first 4 searched lie one in each quadrant of an open 32 x 32 map, the first 16 one in each 8 x 8 block;
    the control: the first starts in the legal order all lie in its top two rows."""
    summer_map = open_map(MAX_SIDE)
    game = summer_hide_and_seek_v2.env(map=summer_map).unwrapped.game
    starts = tuple(s for s in range(game.num_squares) if game.icon_of[s] < 0)
    searched = searched_starts(game, starts)
    assert len(searched) == len(set(searched)) == START_SEARCHES and set(searched) <= set(starts)

    def blocks(squares, side):
        return {(summer_map.squares[s][0] // side, summer_map.squares[s][1] // side) for s in squares}

    assert len(blocks(searched[:4], 16)) == 4 and len(blocks(searched[:16], 8)) == 16
    assert len(blocks(starts[:16], 8)) == 2  # the control


@pytest.mark.parametrize("cap", [START_SEARCHES, None])
def test_the_heuristic_child_searches_at_most_start_searches_starts(monkeypatch, cap):
    env, context, child = _start_position(striped_map())
    legal = np.flatnonzero(env.observe(child)["action_mask"])
    assert len(legal) > 500
    if cap is None:  # the control: no cap, a search per start
        monkeypatch.setattr(summer_hide_and_seek, "searched_starts", lambda game, starts: starts)
    monkeypatch.setattr(summer_hide_and_seek, "_SHARED", {})  # the configuration's start scores: none yet
    searches = _Searches(monkeypatch)
    bot = SummerHideAndSeekHeuristic(context, seed=0)
    action = choose_action(bot, env, child)
    if cap is None:
        assert searches.calls == len(legal)
        return
    assert searches.calls == START_SEARCHES and searches.plans <= START_SEARCHES * MAX_PLANS
    assert action in searched_starts(env.unwrapped.game, tuple(legal.tolist()))
    env.step(action)
    while env.agent_selection == child:  # the rest of the turn: a search from one position at most per decision
        before = searches.calls
        env.step(choose_action(bot, env, child))
        assert searches.calls <= before + 1


@pytest.mark.parametrize("cap", [START_SEARCHES, None])
def test_the_move_features_search_at_most_start_searches_starts(monkeypatch, cap):
    env, context, child = _start_position(striped_map())
    legal = np.flatnonzero(env.observe(child)["action_mask"])
    if cap is None:
        monkeypatch.setattr(summer_features, "searched_starts", lambda game, starts: starts)
    features = SummerMoveFeatures(context)
    features._start_cache = {}  # the configuration's features share it: start from no rows at all
    searched = []
    plain = features._best_first_turn
    monkeypatch.setattr(features, "_best_first_turn", lambda start, *args: searched.append(start) or plain(start, *args))
    rows = features(env.observe(child)).reshape(-1, SummerMoveFeatures.PER_ACTION)
    if cap is None:
        assert len(searched) == len(legal)
        return
    assert searched == list(searched_starts(env.unwrapped.game, tuple(legal.tolist())))
    assert rows[legal, 0].all() and rows[legal, 3].all()  # every start: legal, its open lines
    assert rows[searched, 7].any() and not rows[np.setdiff1d(legal, searched), 5:].any()


@pytest.mark.parametrize("cap", [START_SEARCHES, None])
def test_the_mixed_child_searches_at_most_start_searches_starts(monkeypatch, cap):
    env, context, child = _start_position(striped_map())
    legal = np.flatnonzero(env.observe(child)["action_mask"])
    if cap is None:
        monkeypatch.setattr(summer_mixed, "searched_starts", lambda game, starts: starts)
    mixed = SummerMixedChild(context)
    mixed._start_groups = {}  # shared by the configuration's mixed children: start from no groups
    searches = _Searches(monkeypatch)
    action = mixed.act(env.observe(child), np.random.default_rng(0))
    if cap is None:
        assert searches.calls == len(legal)
        return
    assert searches.calls == START_SEARCHES
    assert action in searched_starts(env.unwrapped.game, tuple(legal.tolist()))


def test_the_heuristic_child_stops_searching_once_its_searches_made_start_announcements(monkeypatch):
    """A map of many icon types makes thousands of announcements per first turn (a second each on a 32 x 32 map):
    the searches stop once they have made START_ANNOUNCEMENTS (here those of the first three searched starts), the
    starts not searched rank last, and the scores are kept (the cut is a function of the map)."""
    env, context, child = _start_position(striped_map())
    game = env.unwrapped.game
    legal = tuple(np.flatnonzero(env.observe(child)["action_mask"]).tolist())
    order = searched_starts(game, legal)
    made = [len(TurnPlans(game, s, 1 << s, 0, 0, BUDGET, (), 0).announcements) for s in order[:3]]
    assert all(made)
    monkeypatch.setattr(summer_hide_and_seek, "START_ANNOUNCEMENTS", sum(made))
    monkeypatch.setattr(summer_hide_and_seek, "_SHARED", {})
    searches = _Searches(monkeypatch)
    bot = SummerHideAndSeekHeuristic(context, seed=0)
    action = choose_action(bot, env, child)
    assert searches.calls == 3 and action in order[:3]
    (values,) = bot._start_cache.values()
    assert sorted(i for i, value in enumerate(values) if value > -np.inf) == sorted(legal.index(s) for s in order[:3])


def test_the_move_features_stop_searching_once_their_searches_made_start_announcements(monkeypatch):
    env, context, child = _start_position(striped_map())
    game = env.unwrapped.game
    legal = tuple(np.flatnonzero(env.observe(child)["action_mask"]).tolist())
    order = searched_starts(game, legal)
    made = [len(TurnPlans(game, s, 1 << s, 0, 0, BUDGET, (), 0).announcements) for s in order[:2]]
    monkeypatch.setattr(summer_features, "START_ANNOUNCEMENTS", sum(made))
    features = SummerMoveFeatures(context)
    features._start_cache = {}
    rows = features(env.observe(child)).reshape(-1, SummerMoveFeatures.PER_ACTION)
    assert sorted(np.flatnonzero(rows[:, 6])) == sorted(order[:2])  # score / the best: the two searched only


def test_large_maps_carry_the_walks_through_the_lines_into_each_square():
    """Past SPARSE_SQUARES squares the images are sums over the (at most 8) lines into each square: the product's
    sums in another order; the shipped map keeps the product (its moves are recorded)."""
    assert summer_hide_and_seek.PublicWeights(summer_hide_and_seek_v2.env().unwrapped.game).into is None
    # houses every third column, white-framed squares in between: moves and shortcuts over the houses
    rows = [["#" if c % 3 == 1 else "s" if (r + c) % 4 == 0 else "." for c in range(16)] for r in range(16)]
    rows[0][2] = "F"
    game = summer_hide_and_seek_v2.env(map=_map(rows)).unwrapped.game
    assert game.num_squares > summer_hide_and_seek.SPARSE_SQUARES
    model = summer_hide_and_seek.PublicWeights(game)
    assert model.into is not None and all(len(into) <= 8 for into in model.into.values())
    vectors = np.random.default_rng(0).random((5, game.num_squares))
    for cost, step in model.step.items():
        image = np.empty_like(vectors)
        model.image(vectors, cost, image)
        assert step.any() and np.allclose(image, vectors @ step, rtol=1e-12, atol=0)
    # a first turn's announcements through the walk programme, the same weights as with the products
    start = next(s for s in range(game.num_squares) if game.icon_of[s] < 0)
    announcements = TurnPlans(game, start, 1 << start, 0, 0, BUDGET, (), 0).announcements
    assert len(announcements) > 3
    weights, blocked = model.prior, np.zeros(game.num_squares)
    sparse = summer_hide_and_seek.Walks(model, weights, blocked).heard_all(announcements)
    model.into = None
    dense = summer_hide_and_seek.Walks(model, weights, blocked).heard_all(announcements)
    assert dense.any() and np.allclose(sparse, dense, rtol=1e-12, atol=1e-300)
