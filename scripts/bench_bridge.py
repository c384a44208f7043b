"""Speed of the OpenSpiel bridge against the rules engine it wraps (``kakurega bench --bridge``).

For the newest version of each game, in its default configuration, it
measures in one process each pair on the same states:

- **steps**: uniformly random legal play from a new state to the end, through
  the bridge (``legal_actions`` + ``apply_action``, the four seed draws and
  the deal included) and on the engine (``legal_actions`` + ``apply_action``,
  the deal included); the ratio is bridge steps/s over engine steps/s
  (target: at least 0.5);
- **clone**: ``state.clone()`` against ``Game.clone`` of its rules state, at
  states met in random play;
- **apply**: ``state.apply_action`` against the engine's ``apply_action``,
  replaying the same recorded games move by move (the deal not counted);
- **resample**: ``state.resample_from_infostate(player, sampler)`` against the
  rules' ``resample_hidden`` (the engine's determinization) for the player to
  move;
- **MCCFR**: iterations per second of OpenSpiel's Python outcome-sampling
  MCCFR (``outcome_sampling_mccfr.OutcomeSamplingSolver``) on the same game;
  external-sampling MCCFR (``external_sampling_mccfr.ExternalSamplingSolver``)
  walks every action of the updating player at each of its decisions, so
  it is measured on the game cut short (its step limit at :data:`CUT_SHORT`),
  where an iteration ends.

The clone, apply and resample ratios are the bridge's cost over the engine's
(targets: at most 2). Each pair alternates in chunks and is repeated;
medians over the repeats are reported. Times are process CPU time.

pyspiel does some work of its own at every call into a Python game, which no
bridge can remove: the **floor**, measured in the same process on
:func:`floor_game` (the smallest Python game: one int attribute, methods that
return at once) with the same histories: its ``clone`` and its
``apply_action``. The report gives each ratio also above the floor,
``(bridge - floor) / engine`` (a resampled world is made by ``clone``: its
floor is the clone floor), and the least ratio the floor allows,
``(floor + engine) / engine``. For random play it also times the bridge's
own ``_apply_action`` called from Python (no call from C++, no history kept
by pyspiel): the steps ratio the bridge would reach if pyspiel's calls back
into Python were free.

With ``ismcts=True`` (``--ismcts``) it also times one move of kakurega's
IS-MCTS (``ismcts:simulations=N`` through :class:`KakuregaBot`) against
OpenSpiel's ``ISMCTSBot`` (random rollouts, the same number of simulations)
at the same positions of random games: CPU seconds per move of each (median
over the moves) and their ratio.

A benchmark, not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import json
import random
import statistics
import time
import warnings

import numpy as np

from kakurega.envs.core.game import TERMINAL

#: the step-limit options set this low for external-sampling MCCFR, whose iterations grow exponentially with the game
CUT_SHORT = {"max_steps": 4, "max_turns": 1}
CLOCK = time.process_time
SEED_OUTCOMES = 256


def newest_envs(only: str | None = None) -> list[str]:
    """The newest registered version of every game (the env names containing ``only``)."""
    from kakurega.envs.registry import ENV_SPECS

    newest: dict[str, str] = {}
    for name in ENV_SPECS:
        base, _, version = name.rpartition("_v")
        if base not in newest or int(version) > int(newest[base].rpartition("_v")[2]):
            newest[base] = name
    return [name for name in newest.values() if not only or only in name]


def cut_short(name: str) -> dict | None:
    """The game's options with its step limit at :data:`CUT_SHORT` (None when it has no such option)."""
    from kakurega.envs.registry import ENV_SPECS

    defaults = ENV_SPECS[name].option_defaults()
    params = {option: limit for option, limit in CUT_SHORT.items() if option in defaults}
    return params or None


def _label(name: str, params: dict) -> str:
    return name + "".join(f" {k}={v}" for k, v in params.items())


def _load(name: str, params: dict):
    import pyspiel

    from kakurega.integrations import openspiel as bridge

    return pyspiel.load_game(bridge.short_name(name), dict(params))


def _random_games(game, count: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """``count`` random games through the bridge: (seed draws, moves) of each."""
    choose = random.Random(seed).randrange
    games = []
    for _ in range(count):
        state = game.new_initial_state()
        draws = [choose(SEED_OUTCOMES) for _ in range(4)]
        for value in draws:
            state.apply_action(value)
        moves = []
        while not state.is_terminal():
            legal = state.legal_actions()
            moves.append(legal[choose(len(legal))])
            state.apply_action(moves[-1])
        games.append((draws, moves))
    return games


def _sample_states(game, games, per_game: int, seed: int) -> list:
    """Bridge states at ``per_game`` random points of each recorded game."""
    pick = random.Random(seed)
    states = []
    for draws, moves in games:
        stops = set(pick.sample(range(len(moves)), min(per_game, len(moves))))
        state = game.new_initial_state()
        for value in draws:
            state.apply_action(value)
        for index, move in enumerate(moves):
            if index in stops:
                states.append(state.clone())
            state.apply_action(move)
    return states


def _bridge_play(game, seconds: float, choose, direct: bool = False) -> tuple[int, float]:
    """Random play through the bridge for about ``seconds``: (steps, CPU seconds). ``direct``: the bridge's
    own ``_apply_action`` called from Python, without pyspiel's ``apply_action`` around it (what the play
    would cost if pyspiel's calls back into Python were free; the history pyspiel keeps is not kept)."""
    steps, start = 0, CLOCK()
    while True:
        state = game.new_initial_state()
        apply = state._apply_action if direct else state.apply_action
        for _ in range(4):
            apply(choose(SEED_OUTCOMES))
        while not state.is_terminal():
            legal = state.legal_actions()
            apply(legal[choose(len(legal))])
            steps += 1
        if CLOCK() - start >= seconds:
            return steps, CLOCK() - start


def _engine_play(rules, seconds: float, choose, rng) -> tuple[int, float]:
    """Random play on the rules engine for about ``seconds``: (steps, CPU seconds)."""
    steps, start = 0, CLOCK()
    while True:
        state = rules.initial_state(rng)
        while rules.current_player(state) != TERMINAL:
            legal = rules.legal_actions(state)
            rules.apply_action(state, legal[choose(len(legal))], rng)
            steps += 1
        if CLOCK() - start >= seconds:
            return steps, CLOCK() - start


def floor_game():
    """The smallest Python game pyspiel clones and steps: a state holding one int, methods that return at once.

    Its ``clone`` and ``apply_action`` cost what pyspiel itself does per call
    (a new state through ``new_initial_state``, the attributes deep-copied, the
    history copied; the calls from C++ back into Python).
    """
    import pyspiel

    class FloorState(pyspiel.State):
        def __init__(self, game):
            super().__init__(game)
            self.value = 0

        def current_player(self):
            return 0

        def _legal_actions(self, player):
            return [0]

        def _apply_action(self, action):
            pass

        def is_terminal(self):
            return False

        def returns(self):
            return [0.0, 0.0]

    game_type = pyspiel.GameType(
        short_name="bench_floor", long_name="bench floor", dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION, utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=2, min_num_players=2,
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=False, provides_observation_tensor=False, parameter_specification={})

    class FloorGame(pyspiel.Game):
        def __init__(self):
            info = pyspiel.GameInfo(num_distinct_actions=1, max_chance_outcomes=0, num_players=2, min_utility=-1.0,
                                    max_utility=1.0, utility_sum=0.0, max_game_length=10**9)
            super().__init__(game_type, info, {})

        def new_initial_state(self):
            return FloorState(self)

    return FloorGame()


def _floor_states(floor, states) -> list:
    """A floor-game state per bridge state, with a history as long as its."""
    copies = []
    for state in states:
        copy = floor.new_initial_state()
        for _ in range(len(state.history())):
            copy.apply_action(0)
        copies.append(copy)
    return copies


def _time_each(items, call) -> float:
    """CPU seconds of ``call(item)`` over all ``items``."""
    start = CLOCK()
    for item in items:
        call(item)
    return CLOCK() - start


def _replay_apply(game, rules, floor, games) -> tuple[float, float, float, int]:
    """CPU seconds of every move's apply_action, bridge, engine and floor game, replaying ``games``; and the
    move count."""
    bridge_seconds = engine_seconds = floor_seconds = 0.0
    moves_total = 0
    for draws, moves in games:
        state = game.new_initial_state()
        for value in draws:
            state.apply_action(value)
        apply = state.apply_action
        start = CLOCK()
        for move in moves:
            apply(move)
        bridge_seconds += CLOCK() - start
        rng = np.random.default_rng(draws)  # the bridge deals from the same seed: the same game
        engine_state = rules.initial_state(rng)
        engine_apply = rules.apply_action
        start = CLOCK()
        for move in moves:
            engine_apply(engine_state, move, rng)
        engine_seconds += CLOCK() - start
        floor_apply = floor.new_initial_state().apply_action
        start = CLOCK()
        for _ in moves:
            floor_apply(0)
        floor_seconds += CLOCK() - start
        moves_total += len(moves)
    return bridge_seconds, engine_seconds, floor_seconds, moves_total


def measure_case(name: str, params: dict, seconds: float, repeats: int, seed: int = 0) -> dict:
    """Every ratio of one game (medians over ``repeats``), with the per-call times behind them."""
    import pyspiel

    game = _load(name, params)
    rules = game.shared.game
    floor = floor_game()
    record = {"steps": [], "clone": [], "apply": [], "resample": []}
    micro = {"bridge_clone_us": [], "engine_clone_us": [], "floor_clone_us": [], "bridge_apply_us": [],
             "engine_apply_us": [], "floor_apply_us": [], "bridge_resample_us": [], "engine_resample_us": [],
             "bridge_steps_per_s": [], "direct_steps_per_s": [], "engine_steps_per_s": []}
    for repeat in range(repeats):
        choose_bridge = random.Random(seed + repeat).randrange
        choose_direct = random.Random(seed + repeat).randrange
        choose_engine = random.Random(seed + repeat).randrange
        engine_rng = np.random.default_rng(seed + repeat)
        bridge, direct, engine = [0, 0.0], [0, 0.0], [0, 0.0]
        for _ in range(4):  # alternating chunks: a slow spell of the machine slows every side
            for totals, (steps, spent) in ((bridge, _bridge_play(game, seconds / 4, choose_bridge)),
                                           (direct, _bridge_play(game, seconds / 4, choose_direct, direct=True)),
                                           (engine, _engine_play(rules, seconds / 4, choose_engine, engine_rng))):
                totals[0] += steps
                totals[1] += spent
        micro["bridge_steps_per_s"].append(bridge[0] / bridge[1])
        micro["direct_steps_per_s"].append(direct[0] / direct[1])
        micro["engine_steps_per_s"].append(engine[0] / engine[1])
        record["steps"].append((bridge[0] / bridge[1]) / (engine[0] / engine[1]))

        games = _random_games(game, 8, seed + 100 * repeat)
        states = _sample_states(game, games, 12, seed + repeat)
        clone_bridge = _time_each(states, lambda s: s.clone())
        clone_engine = _time_each(states, lambda s: rules.clone(s.state))
        clone_floor = _time_each(_floor_states(floor, states), lambda s: s.clone())
        micro["bridge_clone_us"].append(clone_bridge / len(states) * 1e6)
        micro["engine_clone_us"].append(clone_engine / len(states) * 1e6)
        micro["floor_clone_us"].append(clone_floor / len(states) * 1e6)
        record["clone"].append(clone_bridge / clone_engine)

        bridge_apply, engine_apply, floor_apply, moves = _replay_apply(game, rules, floor, games)
        micro["bridge_apply_us"].append(bridge_apply / moves * 1e6)
        micro["engine_apply_us"].append(engine_apply / moves * 1e6)
        micro["floor_apply_us"].append(floor_apply / moves * 1e6)
        record["apply"].append(bridge_apply / engine_apply)

        sampler = pyspiel.UniformProbabilitySampler(seed + repeat, 0.0, 1.0)
        resample_rng = np.random.default_rng(seed + repeat)
        for state in states:  # a searcher reads its information state before it resamples
            state.information_state_string(state.current_player())
        resample_bridge = _time_each(states, lambda s, sampler=sampler: s.resample_from_infostate(s.current_player(), sampler))
        resample_engine = _time_each(
            states, lambda s, rng=resample_rng: rules.resample_hidden(s.state, s.current_player(), rng))
        micro["bridge_resample_us"].append(resample_bridge / len(states) * 1e6)
        micro["engine_resample_us"].append(resample_engine / len(states) * 1e6)
        record["resample"].append(resample_bridge / resample_engine)
    row = {"env": _label(name, params)}
    for key, values in record.items():
        row[f"{key}_ratio"] = statistics.median(values)
        row[f"{key}_ratios"] = values
    row.update({key: statistics.median(values) for key, values in micro.items()})
    for key, floor_key in (("clone", "clone"), ("apply", "apply"), ("resample", "clone")):
        bridge_us, engine_us, floor_us = row[f"bridge_{key}_us"], row[f"engine_{key}_us"], row[f"floor_{floor_key}_us"]
        row[f"{key}_above_floor"] = (bridge_us - floor_us) / engine_us
        row[f"{key}_least_possible"] = (floor_us + engine_us) / engine_us
    row["direct_steps_ratio"] = row["direct_steps_per_s"] / row["engine_steps_per_s"]
    row["outcome_sampling_it_per_s"] = mccfr_rate(game, "outcome", seconds)
    small = cut_short(name)
    row["external_sampling_env"] = _label(name, small) if small is not None else None
    if small:
        with warnings.catch_warnings():  # a game cut short may be unwinnable by design (Hidden Rooms' max_turns=1)
            warnings.simplefilter("ignore", UserWarning)
            row["external_sampling_it_per_s"] = mccfr_rate(_load(name, small), "external", seconds)
    else:
        row["external_sampling_it_per_s"] = None
    return row


def mccfr_rate(game, kind: str, seconds: float) -> float:
    """Iterations per CPU second of OpenSpiel's Python MCCFR (``outcome`` or ``external`` sampling), run for
    about ``seconds`` and at least one iteration (an iteration is never interrupted: give ``external`` only
    games where one ends)."""
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    np.random.seed(0)  # both solvers draw from numpy's global generator
    solver = (outcome_sampling_mccfr.OutcomeSamplingSolver(game) if kind == "outcome"
              else external_sampling_mccfr.ExternalSamplingSolver(game))
    iterations, start = 0, CLOCK()
    while True:
        solver.iteration()
        iterations += 1
        if CLOCK() - start >= seconds:
            return iterations / (CLOCK() - start)


def ismcts_row(name: str, params: dict, simulations: int, moves: int, seed: int = 0) -> dict:
    """CPU seconds per move of kakurega's IS-MCTS and OpenSpiel's ISMCTSBot, same positions, same simulations."""
    from kakurega.integrations.openspiel_bots import ISMCTSBot, KakuregaBot

    game = _load(name, params)
    ours = [KakuregaBot(game, seat, f"ismcts:simulations={simulations}", seed=seed + seat)
            for seat in range(game.num_players())]
    theirs = ISMCTSBot.with_random_rollouts(game, simulations=simulations, seed=seed)
    choose = random.Random(seed).randrange
    ours_seconds, theirs_seconds = [], []
    state = None
    while len(ours_seconds) < moves:
        if state is None or state.is_terminal():
            state = game.new_initial_state()
            for _ in range(4):
                state.apply_action(choose(SEED_OUTCOMES))
        legal = state.legal_actions()
        if len(legal) > 1 and choose(3) == 0:  # a third of the positions with a choice
            seat = state.current_player()
            start = CLOCK()
            ours[seat].step(state)
            ours_seconds.append(CLOCK() - start)
            start = CLOCK()
            theirs.step(state)
            theirs_seconds.append(CLOCK() - start)
        state.apply_action(legal[choose(len(legal))])
    ours_median, theirs_median = statistics.median(ours_seconds), statistics.median(theirs_seconds)
    return {"env": _label(name, params), "simulations": simulations, "moves": moves,
            "kakurega_s_per_move": ours_median, "openspiel_s_per_move": theirs_median,
            "openspiel_over_kakurega": theirs_median / ours_median}


def run(seconds: float, repeats: int, only: str | None = None, ismcts: bool = False,
        simulations: int = 100, ismcts_moves: int = 10) -> dict:
    """Measure every case (and the IS-MCTS rows when asked); the report dict."""
    import os

    report = {"seconds_per_measurement": seconds, "repeats": repeats, "clock": "process CPU time",
              "load_average_at_start": [round(x, 2) for x in os.getloadavg()], "rows": []}
    for name in newest_envs(only):
        report["rows"].append(measure_case(name, {}, seconds, repeats))
    if ismcts:
        report["ismcts"] = [ismcts_row(name, {}, simulations, ismcts_moves) for name in newest_envs(only)]
    return report


def format_tables(report: dict) -> str:
    """The report as Markdown tables."""
    lines = ["| game | bridge/engine steps/s | clone ratio | apply_action ratio | resample ratio | "
             "OS-MCCFR it/s | clone µs (bridge, engine, floor) | apply µs (bridge, engine, floor) | "
             "resample µs (bridge, engine) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in report["rows"]:
        lines.append(
            f"| {row['env']} | {row['steps_ratio']:.2f} | {row['clone_ratio']:.1f} | {row['apply_ratio']:.1f} | "
            f"{row['resample_ratio']:.1f} | {row['outcome_sampling_it_per_s']:,.0f} | "
            f"{row['bridge_clone_us']:.1f}, {row['engine_clone_us']:.1f}, {row['floor_clone_us']:.1f} | "
            f"{row['bridge_apply_us']:.1f}, {row['engine_apply_us']:.1f}, {row['floor_apply_us']:.1f} | "
            f"{row['bridge_resample_us']:.1f}, {row['engine_resample_us']:.1f} |")
    lines += ["", "| game | steps ratio, pyspiel's calls free | clone: above floor, least possible | "
              "apply: above floor, least possible | resample: above floor, least possible |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {row['env']} | {row['direct_steps_ratio']:.2f} | "
              + " | ".join(f"{row[f'{key}_above_floor']:.1f}, {row[f'{key}_least_possible']:.1f}"
                           for key in ("clone", "apply", "resample")) + " |"
              for row in report["rows"]]
    lines += ["", "| game, cut short | ES-MCCFR it/s |", "|---|---:|"]
    lines += [f"| {row['external_sampling_env']} | {row['external_sampling_it_per_s']:,.2f} |"
              for row in report["rows"] if row["external_sampling_env"]]
    if report.get("ismcts"):
        lines += ["", "| game | simulations | kakurega IS-MCTS s/move | OpenSpiel ISMCTSBot s/move | ratio |",
                  "|---|---:|---:|---:|---:|"]
        for row in report["ismcts"]:
            lines.append(f"| {row['env']} | {row['simulations']} | {row['kakurega_s_per_move']:.4f} | "
                         f"{row['openspiel_s_per_move']:.4f} | {row['openspiel_over_kakurega']:.1f} |")
    return "\n".join(lines)


def main(seconds: float, repeats: int, only: str | None, json_path: str, ismcts: bool = False,
         simulations: int = 100, ismcts_moves: int = 10) -> int:
    """Run, print the tables and write the JSON report; the exit status."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("the bridge benchmark needs OpenSpiel: install kakurega[openspiel]")
        return 1
    report = run(seconds, repeats, only, ismcts, simulations, ismcts_moves)
    if not report["rows"] and not report.get("ismcts"):
        print(f"no game matched --only {only!r}")
        return 1
    print(format_tables(report))
    from kakurega.scripts.destination import write_text_file

    path = write_text_file(json_path, json.dumps(report, indent=2))
    print(f"\nwrote {path}")
    return 0
