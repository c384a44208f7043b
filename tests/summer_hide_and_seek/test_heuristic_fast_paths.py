"""The Summer heuristic's fast paths give the same numbers, bit for bit, as the plain ones they replace.

``Walks`` shares one dynamic programme between every announcement of a turn;
``TurnPlans`` enumerates a turn's plans once and scores them as arrays. The
references below are the plain versions: one programme per announcement, and
the depth-first search that scores each plan as it meets it.
"""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.summer_hide_and_seek import (
    BUDGET,
    FUTURE_VALUE,
    MOBILITY,
    SummerHideAndSeekHeuristic,
    TurnPlans,
    Walks,
)
from kakurega.envs import summer_hide_and_seek_v1, summer_hide_and_seek_v2
from kakurega.envs.summer_hide_and_seek.rules import CHILD


def reference_propagate(model, weights, cost, icons, blocked):
    """One dynamic programme over (cost spent, icons still to reach) for one announcement."""
    if cost == 0:
        return weights.copy()
    open_squares = 1.0 - blocked
    nodes = {(0, tuple(icons)): weights}
    for spent in range(cost):
        for rem in sorted(r for s, r in nodes if s == spent):
            vector = nodes[(spent, rem)]
            for k, step in model.step.items():
                if spent + k > cost:
                    continue
                image = (vector @ step) * open_squares
                landings = [(rem, model.path)]
                for i in sorted(set(rem)):
                    j = rem.index(i)
                    landings.append((rem[:j] + rem[j + 1 :], model.icon[i]))
                for after, category in landings:
                    if len(after) <= cost - spent - k:
                        key = (spent + k, after)
                        nodes[key] = nodes.get(key, 0.0) + image * category
    end = nodes.get((cost, ()))
    return end if isinstance(end, np.ndarray) else np.zeros_like(weights)


def reference_best_plan(agent, start, visited, drawn, blocked, blocked_squares, budget, icons, weights, spent):
    """The depth-first search scoring every plan as it meets it (the first best wins)."""
    game, seekers = agent.game, agent.n - 1
    best, path = [-1e9, []], []
    must_move = game.must_move and spent == 0

    def evaluate(q, cost, reached, exits, gain):
        if not exits:
            value = gain
        else:
            heard = reference_propagate(agent.public_weights, weights, cost, tuple(sorted(reached)), blocked_squares)
            heard = heard / max(heard.sum(), 1e-300)
            found = min(1.0, seekers * heard[q])
            value = gain + (1.0 - found) * FUTURE_VALUE + MOBILITY * min(exits, 4)
        if value > best[0]:
            best[0], best[1] = value, list(path)

    def search(p, vis, drw, left, cost, reached, gain):
        options = game.open_lines(p, vis, drw, blocked, BUDGET)
        if not (must_move and not path and options):
            evaluate(p, cost, reached, len(options), gain)
        for q, bit, lid, k in options:
            if k > left:
                continue
            path.append(q)
            icon = game.icon_of[q]
            search(q, vis | bit, drw | (1 << lid), left - k, cost + k,
                   reached + (icon,) if icon >= 0 else reached, gain + game.square_vp[q])
            path.pop()

    search(start, visited, drawn, budget, spent, icons, 0)
    return best[0], best[1]


def _agent(module=summer_hide_and_seek_v2, **options):
    env = module.raw_env(**options)
    return env, SummerHideAndSeekHeuristic(AgentContext.from_env(env, module.__name__.rsplit(".", 1)[1], options), seed=0)


def _random_weights(rng, agent):
    weights = agent.public_weights.path * rng.random(agent.game.num_squares) ** 3
    return weights / weights.sum()


def test_walks_give_every_announcement_the_weights_of_its_own_programme():
    _env, agent = _agent()
    model, rng = agent.public_weights, np.random.default_rng(1)
    S, num_icons = agent.game.num_squares, len(model.icon)
    for _ in range(3):
        weights = _random_weights(rng, agent)
        blocked = (rng.random(S) < 0.1).astype(float)
        walks = Walks(model, weights, blocked)
        for cost in range(BUDGET + 1):
            for _ in range(8):
                icons = tuple(sorted(rng.integers(0, num_icons, size=rng.integers(0, cost + 1)).tolist()))
                expected = reference_propagate(model, weights, cost, icons, blocked)
                assert walks.end(cost, icons).tobytes() == expected.tobytes(), (cost, icons)
                assert model.propagate(weights, cost, icons, blocked).tobytes() == expected.tobytes()


def test_a_walk_node_sums_two_terms_per_square_so_the_order_cannot_matter():
    """Control for the argument above: weights whose sums round differently in another order exist."""
    a, b, c = 0.1, 0.2, 0.3
    assert (a + b) + c != a + (b + c)  # three terms: the order shows
    _env, agent = _agent()
    model = agent.public_weights
    landings = [model.path] + model.icon  # every square lands in exactly one category
    assert (sum(landings) == 1.0).all()


@pytest.mark.parametrize("module,options", [(summer_hide_and_seek_v2, {}), (summer_hide_and_seek_v1, {"num_players": 3})])
def test_turn_plans_choose_the_plan_of_the_plain_search(module, options):
    """Version 1 has must_move and paced turns."""
    env, agent = _agent(module, **options)
    rng = np.random.default_rng(2)
    context = AgentContext.from_env(env, module.__name__.rsplit(".", 1)[1], options)
    players = [RandomAgent(context, seed=i) for i in range(len(env.possible_agents))]
    compared = 0
    for game_seed in range(3):
        env.reset(seed=game_seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            name = env.agent_selection
            state, game = env.game_state, env.game
            if state.phase == CHILD:
                weights = _random_weights(rng, agent)
                blocked = state.blocked
                blocked_squares = np.array([float(blocked >> s & 1) for s in range(game.num_squares)])
                budget = BUDGET - state.turn_cost
                icons = tuple(sorted(state.turn_icons))
                args = (state.stroke[-1], state.visited, state.drawn, blocked)
                walks = Walks(agent.public_weights, weights, blocked_squares)
                got = agent._best_plan(*args, walks, budget, icons, state.turn_cost)
                expected = reference_best_plan(agent, *args, blocked_squares, budget, icons, weights, state.turn_cost)
                assert got[1] == expected[1] and got[0] == expected[0], (game_seed, args)
                compared += 1
            env.step(players[env.possible_agents.index(name)].act(env.observe(name)))
    assert compared >= 10


def reference_turn_plans(game, start, visited, drawn, blocked, budget, icons, spent):
    """Every plan of the turn by the plain search over ``open_lines``: (squares, paths, announcements, exits, gains)."""
    must_move = game.must_move and spent == 0
    plans, path = ([], [], [], [], []), []

    def search(p, vis, drw, left, cost, reached, gain):
        options = game.open_lines(p, vis, drw, blocked, BUDGET)
        if not (must_move and not path and options):
            for column, value in zip(plans, (p, tuple(path), (cost, reached), len(options), gain)):
                column.append(value)
        for q, bit, lid, k in options:
            if k > left:
                continue
            path.append(q)
            icon = game.icon_of[q]
            search(q, vis | bit, drw | (1 << lid), left - k, cost + k,
                   tuple(sorted(reached + (icon,))) if icon >= 0 else reached, gain + game.square_vp[q])
            path.pop()

    search(start, visited, drawn, budget, spent, tuple(sorted(icons)), 0)
    return plans


def child_positions(module, options, games=3):
    """(game, the TurnPlans arguments) of every child decision of seeded random games."""
    env = module.raw_env(**options)
    context = AgentContext.from_env(env, module.__name__.rsplit(".", 1)[1], options)
    players = [RandomAgent(context, seed=i) for i in range(len(env.possible_agents))]
    positions = []
    for game_seed in range(games):
        env.reset(seed=game_seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            name = env.agent_selection
            state = env.game_state
            if state.phase == CHILD and not state.continue_due:
                positions.append((state.stroke[-1], state.visited, state.drawn, state.blocked, BUDGET - state.turn_cost,
                                  tuple(state.turn_icons), state.turn_cost))
            env.step(players[env.possible_agents.index(name)].act(env.observe(name)))
    return env.game, positions


@pytest.mark.parametrize("module,options", [(summer_hide_and_seek_v2, {"num_players": 4}),
                                            (summer_hide_and_seek_v1, {"num_players": 3})])
def test_turn_plans_enumerate_the_plans_of_the_plain_search(module, options):
    """TurnPlans walks masks of directed lines; the plain search asks ``open_lines`` at every node."""
    game, positions = child_positions(module, options)
    assert len(positions) > 30 and any(position[3] for position in positions)  # some with pieces standing
    for position in positions:
        plans = TurnPlans(game, *position)
        squares, paths, announcements, exits, gains = reference_turn_plans(game, *position)
        assert plans.squares.tolist() == squares and plans.paths == paths, position
        assert plans.stuck.tolist() == [e == 0 for e in exits] and plans.gains.tolist() == gains
        assert plans.mobility.tolist() == [MOBILITY * min(e, 4) for e in exits]
        assert [plans.announcements[i] for i, stuck in zip(plans.announcement, plans.stuck) if not stuck] == [
            a for a, e in zip(announcements, exits) if e]


def test_walk_programmes_give_each_turn_the_weights_of_one_programme_per_announcement():
    """``Walks.heard_all`` runs one WalkProgramme (a level at a time, stacked products) for a turn's announcements."""
    game, positions = child_positions(summer_hide_and_seek_v2, {"num_players": 4}, games=2)
    _env, agent = _agent(num_players=4)
    model, rng = agent.public_weights, np.random.default_rng(3)
    for position in positions[::3]:
        announcements = TurnPlans(game, *position).announcements
        weights = _random_weights(rng, agent)
        blocked = np.array([float(position[3] >> s & 1) for s in range(game.num_squares)])
        expected = [reference_propagate(model, weights, cost, icons, blocked) for cost, icons in announcements]
        expected = np.stack([end / max(end.sum(), 1e-300) for end in expected])
        walks = Walks(model, weights, blocked)
        assert walks.heard_all(announcements).tobytes() == expected.tobytes(), position
        assert walks.heard_all(announcements[::-1]).tobytes() == expected[::-1].tobytes()  # (remembered)
        assert model.programme(tuple(announcements)) is model.programme(tuple(announcements))


def test_control_one_matrix_product_for_a_level_changes_the_weights():
    """Why a level's images are a stack of matrix-vector products: one matrix-matrix product (another BLAS
    kernel) sums in another order, and some weights differ in their last bits."""
    _env, agent = _agent(num_players=4)
    rng, step = np.random.default_rng(4), agent.public_weights.step[1]
    vectors = np.stack([_random_weights(rng, agent) for _ in range(40)])
    stacked = (vectors[:, None, :] @ step)[:, 0, :]
    assert stacked.tobytes() == np.stack([vector @ step for vector in vectors]).tobytes()
    assert (vectors @ step).tobytes() != stacked.tobytes()


def test_the_heuristic_reads_the_pieces_of_the_vector_as_the_layout_shows_them():
    """The heuristic reads the observation vector through precomputed cells, not one layout view per piece."""
    env, agent = _agent(num_players=4)
    layout, players = agent.context.layout, [RandomAgent(agent.context, seed=i) for i in range(4)]
    rows, cols, seen = agent._rows, agent._cols, set()
    for game_seed in range(2):
        env.reset(seed=game_seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            name = env.agent_selection
            vector = env.observe(name)["observation"]
            for piece in ("belief", "past_guesses"):
                plain = (layout.view(vector, piece)[rows, cols] > 0).astype(float)
                assert agent._squares(vector, piece).tobytes() == plain.tobytes()
            plain = (layout.view(vector, "pieces").sum(axis=0)[rows, cols] > 0).astype(float)
            assert agent._pieces(vector).tobytes() == plain.tobytes()
            assert (vector[agent._cells["stroke"]] == layout.view(vector, "stroke")[rows, cols]).all()
            seen.add((agent._pieces(vector).any(), agent._squares(vector, "past_guesses").any()))
            env.step(players[env.possible_agents.index(name)].act(env.observe(name)))
    assert seen == {(True, True), (True, False), (False, True), (False, False)}
    # control: another plane's cells read other squares
    assert not np.array_equal(agent._cells["belief"], agent._cells["past_guesses"])


def test_the_draw_of_rng_choice_is_rng_integers_over_the_length():
    """The heuristic draws ``a[rng.integers(len(a))]``: the value and the generator's next state of ``rng.choice(a)``
    (numpy's Generator.choice without weights draws ``integers(0, len(a))``)."""
    for seed in range(50):
        plain, fast = np.random.default_rng(seed), np.random.default_rng(seed)
        for size in (1, 2, 3, 7, 56, 170):
            a = np.arange(size) * 3 + 1
            assert plain.choice(a) == a[fast.integers(len(a))]
        assert plain.random() == fast.random()
    # control: a draw with another bound gives other values
    plain, other = np.random.default_rng(0), np.random.default_rng(0)
    a = np.arange(56)
    assert [plain.choice(a) for _ in range(20)] != [a[other.integers(len(a) - 1)] for _ in range(20)]


def test_control_plans_that_ignore_the_pieces_are_caught():
    game, positions = child_positions(summer_hide_and_seek_v2, {"num_players": 4})
    differ = [TurnPlans(game, *position[:3], 0, *position[4:]).paths != reference_turn_plans(game, *position)[1]
              for position in positions]
    assert any(differ)


def _tournament_moves(games=2, num_players=4) -> list:
    from kakurega.agents.tournament import run_tournament

    moves = []
    run_tournament("summer_hide_and_seek_v2", ["heuristic", "pretrained"], {"num_players": num_players}, games=games,
                   seed=3, on_game=lambda game: moves.append(game.moves))
    return moves


def test_agents_of_a_configuration_share_the_public_tables_and_play_as_with_their_own(monkeypatch):
    """The heuristics, the move features and the mixed children of a configuration share the tables of public
    facts (start scores, start rows, start groups, the weights after each announcement); agents with tables of
    their own play the same moves."""
    from kakurega.agents.heuristics import summer_hide_and_seek as heuristic

    monkeypatch.setattr(heuristic, "_SHARED", {})
    shared_moves = _tournament_moves()
    (tables,) = heuristic._SHARED.values()
    assert tables["start_values"] and tables["updates"] and tables["start_rows"]
    four = heuristic.shared_tables(_agent(num_players=4)[1].game)
    assert four is tables and heuristic.shared_tables(_agent(num_players=3)[1].game) is not tables
    monkeypatch.setattr(heuristic, "SHARED_CONFIGS_SIZE", 0)  # every agent its own tables
    monkeypatch.setattr(heuristic, "_SHARED", {})
    assert _tournament_moves() == shared_moves and not heuristic._SHARED


def test_control_a_wrong_shared_table_changes_the_moves(monkeypatch):
    from kakurega.agents.heuristics import summer_hide_and_seek as heuristic

    monkeypatch.setattr(heuristic, "_SHARED", {})
    plain = _tournament_moves(games=1)
    (tables,) = heuristic._SHARED.values()
    for weights in tables["updates"].values():
        weights[:] = np.roll(weights, 1)  # the seekers now believe in other squares
    assert _tournament_moves(games=1) != plain


def test_the_childs_start_choice_stops_when_the_runner_says_so():
    """Scoring every start square is a first-turn search each (30 s or more on a 32 x 32 map of a thousand path
    squares, past the web app's time per move): the heuristic asks ``should_stop`` between starts, ranks the
    starts not scored last, and caches nothing partial. The control: without a stop every start is scored."""
    from kakurega.agents.base import choose_action

    env = summer_hide_and_seek_v2.env()
    context = AgentContext.from_env(env, "summer_hide_and_seek_v2", {})
    env.reset(seed=4)
    child = env.agent_selection
    legal = np.flatnonzero(env.observe(child)["action_mask"])
    assert len(legal) > 10

    for scored in (1, 2, 4):  # fewer scored starts than the shortlist's four: the move is still one of them
        for seed in range(6):
            bot = SummerHideAndSeekHeuristic(context, seed=seed)
            bot._start_cache.clear()  # the configuration's heuristics share it: start from no scores at all
            asked = []
            bot.should_stop = lambda asked=asked, scored=scored: asked.append(1) or len(asked) >= scored
            action = choose_action(bot, env, child)
            assert len(asked) == scored and not bot._start_cache
            assert action in legal[:scored].tolist()  # the starts scored, in the order of the legal actions
    control = SummerHideAndSeekHeuristic(context, seed=0)
    assert choose_action(control, env, child) in legal.tolist() and len(next(iter(control._start_cache.values()))) == len(legal)
