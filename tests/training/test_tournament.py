"""Tournaments: determinism, paired deals, seat rotation, statistics and outputs."""

import json

import numpy as np
import pytest
from training_helpers import PickledTasks

from kakurega.agents.outcome import classify_outcome, ranks, win_share
from kakurega.agents.tournament import play_game, run_tournament, wilson_interval


def _without_time(result):
    data = result.to_dict()
    data.pop("wall_seconds")
    return data


def test_same_seed_same_results_different_seed_different(nim):
    a = run_tournament(nim.NAME, ["random", "heuristic"], {"num_players": 3}, games=30, seed=4)
    b = run_tournament(nim.NAME, ["random", "heuristic"], {"num_players": 3}, games=30, seed=4)
    c = run_tournament(nim.NAME, ["random", "heuristic"], {"num_players": 3}, games=30, seed=5)
    assert _without_time(a) == _without_time(b)
    assert _without_time(a) != _without_time(c)


def test_registered_env_tournament_is_deterministic():
    a = run_tournament("animal_chain_v0", ["random", "heuristic"], games=4, seed=1)
    b = run_tournament("animal_chain_v0", ["random", "heuristic"], games=4, seed=1)
    assert _without_time(a) == _without_time(b)


def test_games_round_up_to_whole_seat_rotations(nim):
    result = run_tournament(nim.NAME, ["random", "heuristic"], {"num_players": 3}, games=10, seed=0)
    assert result.games_per_pairing == 12
    # 3 seats: ordered pairs, each agent is focal in its own pairing only
    assert [row["games"] for row in result.per_agent] == [12, 12]
    assert result.head_to_head_games == [[0, 12], [12, 0]]


def test_two_seats_count_both_sides_of_each_game(nim):
    result = run_tournament(nim.NAME, ["random", "heuristic"], games=40, seed=0)
    random_row, heuristic_row = result.per_agent
    assert random_row["games"] == heuristic_row["games"] == 40
    assert random_row["wins"] == heuristic_row["losses"] and random_row["losses"] == heuristic_row["wins"]
    h2h = result.head_to_head
    assert h2h[0][1] + h2h[1][0] == pytest.approx(1.0)
    assert heuristic_row["win_rate"] > random_row["win_rate"]
    assert result.ratings[1]["mu"] > result.ratings[0]["mu"]


def test_paired_seeds_give_every_pairing_the_same_deals(nim, monkeypatch):
    seen = {}
    import kakurega.agents.tournament as tournament

    original = tournament.play_game

    def spy(env, seat_agents, seed, **kw):
        key = tuple(sorted({type(a).__name__ for a in seat_agents}))
        seen.setdefault(key, []).append(seed)
        return original(env, seat_agents, seed, **kw)

    monkeypatch.setattr(tournament, "play_game", spy)
    run_tournament(nim.NAME, ["random", "heuristic", "policy-free-random"], {"num_players": 3}, games=6, seed=2,
                   agents={"policy-free-random": lambda context, seed: __import__("kakurega.agents.base", fromlist=["RandomAgent"]).RandomAgent(context, seed)})
    deals = [sorted(set(v)) for v in seen.values()]
    assert all(d == deals[0] for d in deals) and len(deals[0]) == 2  # 6 games / 3 seats = 2 deals


def test_seat_rotation_puts_the_focal_agent_on_every_seat(nim, monkeypatch):
    import kakurega.agents.tournament as tournament

    seats = []
    original = tournament.play_game

    def spy(env, seat_agents, seed, **kw):
        seats.append([type(a).__name__ for a in seat_agents].index("SecretNimHeuristic"))
        return original(env, seat_agents, seed, **kw)

    monkeypatch.setattr(tournament, "play_game", spy)
    run_tournament(nim.NAME, ["heuristic", "random"], {"num_players": 3}, games=9, seed=0, focal="heuristic")
    assert sorted(seats) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_solitaire_compares_agents_deal_by_deal():
    result = run_tournament("hidden_rooms_v0", ["random", "heuristic"], {"episode": "round"}, games=6, seed=0)
    assert result.num_players == 1 and [r["games"] for r in result.per_agent] == [6, 6]
    h2h = result.head_to_head
    assert h2h[0][1] + h2h[1][0] == pytest.approx(1.0)


@pytest.mark.parametrize("options", [{"episode": "round", "shaping": 1.0}, {"reward": "per_round"}])
def test_solitaire_head_to_head_counts_who_won_not_the_return(options):
    """With shaping (the Hidden Rooms training configs) or per-round rewards a return ranks two failed games (or two
    won ones): the matrix once said the heuristic beat random on every deal where both failed."""
    from kakurega.agents.outcome import win_share

    won = {}

    def on_game(record):
        won.setdefault(record.deal, {})[record.lineup[0]] = win_share(record.returns, 0, record.winners)

    result = run_tournament("hidden_rooms_v0", ["heuristic", "random"], options, games=40, seed=0, on_game=on_game)
    deals = list(won.values())
    assert any(d["heuristic"] == d["random"] == 0.0 for d in deals)  # both lost some deals
    expected = sum(1.0 if d["heuristic"] > d["random"] else 0.5 if d["heuristic"] == d["random"] else 0.0
                   for d in deals) / len(deals)
    assert result.head_to_head[0][1] == pytest.approx(expected)
    assert result.head_to_head[1][0] == pytest.approx(1 - expected)


def test_outputs_json_csv_heatmap(nim, tmp_path):
    result = run_tournament(nim.NAME, ["random", "heuristic"], games=10, seed=0)
    paths = result.save(tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["agents"] == ["random", "heuristic"] and "ratings" in data
    rows = paths["csv"].read_text().splitlines()
    assert rows[0].startswith("agent,games,score,score_ci_low,score_ci_high,wins,shared_wins,draws,losses,truncated,"
                              "win_rate")
    assert len(rows) == 3
    assert paths["head_to_head_csv"].read_text().splitlines()[0] == "row_vs_column,random,heuristic"
    assert paths["heatmap"].read_bytes()[:4] == b"\x89PNG"
    assert "score" in result.table()
    assert "a win shared by k seats 1/k" in result.table()  # every table says how a tie is counted


def test_wilson_interval_known_values():
    low, high = wilson_interval(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    "returns, seat, outcome",
    [([1, -1], 0, "win"), ([1, -1], 1, "loss"), ([0, 0], 0, "draw"), ([1, 1, -1, 1], 3, "shared"),
     ([1, -1, -1, -1], 0, "win"), ([5, 5, 0], 2, "loss"), ([5, 5, 0], 1, "shared"), ([1], 0, "win"), ([0], 0, "draw"),
     ([-1], 0, "loss")],
)
def test_outcome_classification(returns, seat, outcome):
    assert classify_outcome(returns, seat) == outcome


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_the_score_is_what_the_zero_sum_reward_pays_for(num_players):
    """Every seat's zero-sum reward is n/(n-1) * (share - 1/n), and the shares of a game sum to 1."""
    from itertools import combinations

    from kakurega.envs.core.rewards import zero_sum_returns

    n = num_players
    for k in range(1, n + 1):
        for winners in combinations(range(n), k):
            returns = zero_sum_returns(n, winners)
            shares = [win_share(returns, seat) for seat in range(n)]
            assert sum(shares) == pytest.approx(1.0)
            for seat in range(n):
                assert returns[seat] == pytest.approx(n / (n - 1) * (shares[seat] - 1 / n))
                expected = "draw" if k == n else ("win" if k == 1 else "shared") if seat in winners else "loss"
                assert classify_outcome(returns, seat) == expected


def test_a_shared_win_scores_less_than_a_win_in_the_tables(monkeypatch):
    """Tournament rows and the head-to-head matrix count a k-way tie at the top as 1/k, not as a win."""
    import kakurega.agents.tournament as tournament

    outcomes = iter([[1.0, 1.0, -1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, 1.0]] * 10)
    monkeypatch.setattr(tournament, "play_game", lambda env, agents, seed, moves=None: (env.reset(seed=seed), next(outcomes), 1)[1:])
    result = run_tournament("summer_hide_and_seek_v2", ["random", "heuristic"], {"num_players": 3}, games=3, seed=0,
                            focal="random")
    row = result.per_agent[0]
    # the focal agent on seats 0, 1, 2 of one deal: it shares a win by 2, loses, shares a win by 2
    assert (row["wins"], row["shared_wins"], row["losses"]) == (0, 2, 1)
    assert row["score"] == pytest.approx((0.5 + 0.0 + 0.5) / 3)
    assert result.head_to_head[0][1] == pytest.approx(row["score"])
    assert row["win_rate"] == 0.0
    assert result.ties[0][1] == pytest.approx(2 / 3)  # two of the three games tied at the top
    assert result.ties[1][0] is None  # heuristic never sat with copies of random: the focal run plays row 0 only
    assert "ties (share of row's games at a table of column's copies" in result.table()


def test_with_three_seats_each_ties_cell_counts_its_own_tables(monkeypatch):
    """Random with two heuristic copies is another table than heuristic with two random copies: each cell counts
    the games of its row's agent at a table of its column's copies, as head_to_head does (the two were pooled into
    one symmetric cell, 0.5 here, where one order never ties and the other always does)."""
    import kakurega.agents.tournament as tournament
    from kakurega.agents.heuristics.summer_hide_and_seek import SummerHideAndSeekHeuristic as SummerHeuristic

    def play(env, seat_agents, seed, moves=None):
        env.reset(seed=seed)  # a dealt game, not played on (the table reads its truncation flags)
        copies = [s for s, a in enumerate(seat_agents) if isinstance(a, SummerHeuristic)]
        if len(copies) == 2:  # the two heuristic copies share the win
            return [1.0 if s in copies else -1.0 for s in range(3)], 1
        return [1.0 if s == 0 else -1.0 for s in range(3)], 1

    monkeypatch.setattr(tournament, "play_game", play)
    result = run_tournament("summer_hide_and_seek_v2", ["random", "heuristic"], {"num_players": 3}, games=6, seed=0)
    assert result.ties[0][1] == 1.0  # random at a table of two heuristics: every game tied at the top
    assert result.ties[1][0] == 0.0  # heuristic at a table of two randoms: none
    two = run_tournament("summer_hide_and_seek_v2", ["random", "heuristic"], {"num_players": 2}, games=4, seed=0)
    assert two.ties[0][1] == two.ties[1][0]  # two players: one match, one symmetric cell (the control)
    assert "ties (share of the pairing's games" in two.table()


def test_an_agent_against_copies_of_itself_reports_its_tie_rate(monkeypatch):
    import kakurega.agents.tournament as tournament

    outcomes = iter([[1.0, 1.0], [1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]])
    monkeypatch.setattr(tournament, "play_game", lambda env, agents, seed, moves=None: (env.reset(seed=seed), next(outcomes), 1)[1:])
    result = run_tournament("summer_hide_and_seek_v2", ["heuristic"], {"num_players": 2}, games=4, seed=0)
    assert result.ties == [[pytest.approx(0.5)]]


def test_ranks_share_ties():
    assert ranks([1, -1, 1, 0]) == [0, 2, 0, 1]


def test_illegal_agent_move_is_reported(nim):
    from kakurega.agents.base import Agent
    from kakurega.agents.policy import context_for
    from kakurega.envs.registry import make

    class Cheater(Agent):
        def act(self, observation, sampler=None):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0]) if (observation["action_mask"] == 0).any() else 0

    context = context_for(nim.NAME, {"start_pile": 1})
    env = make(nim.NAME, wrapped=False, start_pile=1)
    with pytest.raises(ValueError, match="chose illegal action"):
        play_game(env, [Cheater(context), Cheater(context)], seed=0)


@pytest.mark.parametrize("env_name, specs, options", [
    ("summer_hide_and_seek_v2", ["random", "ismcts:simulations=2"], {"num_players": 3}),
    ("animal_chain_v1", ["heuristic", "random", "ismcts:simulations=2"], {}),
    ("hidden_rooms_v0", ["random", "heuristic"], {"episode": "round"}),
])
def test_games_cut_into_tasks_give_the_same_tournament(env_name, specs, options):
    """Each game is a pure function of its schedule entry: played in separate work items, the table is the same."""
    local = run_tournament(env_name, specs, options, games=2, seed=5)
    tasks = PickledTasks()
    split = run_tournament(env_name, specs, options, games=2, seed=5, tasks=tasks)
    assert tasks.items > 1
    assert _without_time(split) == _without_time(local)
    assert _without_time(run_tournament(env_name, specs, options, games=2, seed=6, tasks=PickledTasks())) != _without_time(local)


def test_a_game_does_not_depend_on_the_games_its_players_played_before():
    from kakurega.agents.tournament import Table, _Seats, schedule

    table = Table("kakurenbo_v1", {"num_players": 3}, ("heuristic", "ismcts:simulations=3"),
                  ("heuristic", "ismcts:simulations=3"), record=True)
    games = schedule(2, 3, 2, seed=1, pairings=[(0, 1), (1, 0)])
    in_order = [_Seats(table).play(game, copy_state=True) for game in games]  # fresh players every game
    seats = _Seats(table)
    reused = [seats.play(game, copy_state=True) for game in reversed(games)][::-1]  # one set of players, backwards
    assert [(g.returns, g.moves) for g in reused] == [(g.returns, g.moves) for g in in_order]
    assert len({tuple(map(tuple, g.moves)) for g in in_order}) > 1  # the games differ: the comparison can fail


def test_games_played_elsewhere_are_recorded_like_local_ones():
    def records(tasks):
        seen = []
        run_tournament("animal_chain_v1", ["heuristic", "random"], games=4, seed=2, tasks=tasks,
                       on_game=lambda r: seen.append((r.deal, r.focal_seat, r.lineup, r.returns, r.moves, r.truncated,
                                                      r.final_state.to_dict() if hasattr(r.final_state, "to_dict")
                                                      else repr(r.final_state))))
        return seen

    local = records(None)
    assert len(local) == 4 and all(moves for *_, moves, _, _ in local)
    assert records(PickledTasks()) == local


def test_agents_built_in_this_process_cannot_be_sent_to_ray():
    from kakurega.agents.base import RandomAgent

    with pytest.raises(ValueError, match="in-memory policy.*rebuilds every agent from its spec string"):
        run_tournament("animal_chain_v1", ["mine", "random"], games=2, tasks=PickledTasks(),
                       agents={"mine": lambda context, seed: RandomAgent(context, seed)})
    # a label for a spec string travels: it is rebuilt from the string
    result = run_tournament("animal_chain_v1", ["random (again)", "random"], games=2, tasks=PickledTasks(),
                            agents={"random (again)": "random"})
    assert result.agents == ["random (again)", "random"]


def test_the_score_line_under_a_table_fits_the_number_of_seats():
    """A solitaire table says its score is the share of games won; a table of two or more seats says how ties count
    (the control: the two lines differ, and each table prints only its own)."""
    from kakurega.agents.tournament import SCORE_NOTE, SOLITAIRE_SCORE_NOTE, run_tournament

    alone = run_tournament("hidden_rooms_v0", ["random", "heuristic"], {"episode": "round"}, 2, 0).table()
    table = run_tournament("animal_chain_v1", ["random", "heuristic"], {}, 2, 0).table()
    assert SOLITAIRE_SCORE_NOTE != SCORE_NOTE
    assert SOLITAIRE_SCORE_NOTE in alone and SCORE_NOTE not in alone and "zero-sum" not in alone
    assert SCORE_NOTE in table and SOLITAIRE_SCORE_NOTE not in table


def test_a_table_of_three_seats_or_more_says_what_its_mean_reward_is():
    """At three seats or more each agent's games are its own (its seat, the others another agent's copies), so the
    agents' mean rewards need not add up to 0: the table says so; a two-seat table (both seats counted) does not."""
    from kakurega.agents.tournament import MANY_SEATS_NOTE, run_tournament
    from kakurega.envs import make
    from kakurega.envs.registry import latest_envs

    name = next(n for n in sorted(latest_envs()) if len(make(n, wrapped=False).possible_agents) >= 3)
    many = run_tournament(name, ["random", "heuristic"], {}, 3, 0)
    assert MANY_SEATS_NOTE in many.table()
    assert MANY_SEATS_NOTE not in run_tournament("animal_chain_v1", ["random", "heuristic"], {}, 2, 0).table()
