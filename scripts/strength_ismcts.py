"""Strength report of the IS-MCTS agent: a benchmark, not a test.

For every registered env (its default configuration, or ``--config``
overrides) and for each opponent kind (``random``, ``heuristic``), it plays
**seat-rotated, paired-seed** tournaments:

- a *deal* is an env seed; for each deal the hero sits once on every seat
  while every other seat is the opponent kind, so each deal is
  ``num_players`` games;
- the same deals are played with the hero replaced by the opponent kind
  itself (self-play baseline), so the hero's figures can be compared deal by
  deal with what the opponent kind scores in the hero's seat;
- heroes: IS-MCTS at each simulation budget, and the heuristic against random
  as a reference row.

In the solitaire game (one seat) there are no opponents: every hero plays the
same deals and is compared with random and heuristic play of those deals.

Reported per row: the score, labelled "win rate" in the tables (a win 1, a top
place shared by k seats 1/k, a loss 0; solitaire: 1 for a game won; who won is the rules' call, see
:mod:`kakurega.agents.outcome`: the zero-sum rewards pay for it), mean return, both with 95 % confidence
intervals over deals (normal approximation of the mean of per-deal averages),
the paired difference to the baseline with its 95 % CI, and for IS-MCTS the
mean wall time per searched decision and simulations per second.

A speed table comes first (``--speed-only`` for just that): for every
registry configuration, simulations per second of a 100-simulation search
from positions of random games, with random, greedy and heuristic rollouts,
and the cost of one ``resample_hidden`` call.

Usage::

    python -m kakurega.scripts.strength_ismcts --deals 20 --budgets 25,100 \\
        --json runs/strength_ismcts.json --doc docs/search.md

IS-MCTS options other than the budget come from ``--options`` (e.g.
``c=0.7,bias=1``) or else from the registry (``EnvSpec.search_options``: the best settings
measured, docs/search.md). ``--doc`` replaces the parts
of the file between the markers ``<!-- speed:begin -->``/``<!-- speed:end -->``
and, per env configuration, ``<!-- strength-NAME[-key=value]:begin -->``/``...:end -->``
(appending them if absent), so hand-written text around them and the blocks of
envs not in this run survive.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.ismcts import ISMCTSAgent
from kakurega.agents.outcome import rules_winners, win_share
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import play_game
from kakurega.envs.registry import ENV_SPECS, make
from kakurega.scripts.destination import write_text_file


def mean_ci(values) -> tuple[float, float]:
    """Mean and half-width of its 95 % normal-approximation confidence interval."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()) if values.size else math.nan, math.nan
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(values.size))


class Timer:
    """Sums the search totals of the IS-MCTS agents of finished games."""

    def __init__(self):
        self.decisions = self.forced = self.simulations = 0
        self.seconds = 0.0

    def add(self, agent) -> None:
        if isinstance(agent, ISMCTSAgent):
            totals = agent.totals
            self.decisions += totals["searched"]
            self.forced += totals["forced"]
            self.simulations += totals["simulations"]
            self.seconds += totals["seconds"]


def hero_per_deal(env, context, hero_spec: str, opponent_spec: str | None, deals: list[int], timer=None):
    """Per deal: (hero score, hero mean return) averaged over its seat rotations (``env`` is raw)."""
    players = len(env.possible_agents)
    wins, returns = [], []
    for deal in deals:
        deal_wins = deal_returns = 0.0
        for seat in range(players):
            agents = [
                make_agent(hero_spec if other == seat else opponent_spec, context,
                           seed=10_000 * deal + 100 * seat + other)
                for other in range(players)
            ]
            result, _ = play_game(env, agents, seed=deal)
            if timer is not None:
                timer.add(agents[seat])
            # who won is the rules' call (a Hidden Rooms match won 2-2 under reward=per_round returns 0)
            deal_wins += win_share(result, seat, rules_winners(env.game, env.game_state))
            deal_returns += result[seat]
        wins.append(deal_wins / players)
        returns.append(deal_returns / players)
    return np.array(wins), np.array(returns)


def row(label, wins, returns, baseline=None, timer=None, seconds=None) -> dict:
    out = {"hero": label, "deals": int(len(wins))}
    out["win_rate"], out["win_rate_ci"] = mean_ci(wins)
    out["mean_return"], out["mean_return_ci"] = mean_ci(returns)
    if baseline is not None:
        out["baseline_win_rate"] = float(np.mean(baseline[0]))
        out["win_rate_diff"], out["win_rate_diff_ci"] = mean_ci(wins - baseline[0])
        out["return_diff"], out["return_diff_ci"] = mean_ci(returns - baseline[1])
    if timer is not None and timer.decisions:
        out["searched_decisions"] = timer.decisions
        out["forced_decisions"] = timer.forced
        out["seconds_per_decision"] = timer.seconds / timer.decisions
        out["simulations_per_s"] = timer.simulations / timer.seconds
    if seconds is not None:
        out["wall_s"] = seconds
    return out


def evaluate_env(name: str, config: dict, budgets: list[int], deals: int, options: str, log=print) -> dict:
    """All rows of one env configuration; IS-MCTS specs are ``ismcts:simulations=B,<options>``."""
    env = make(name, wrapped=False, **config)
    context = AgentContext.from_env(env, name, config)
    players = len(env.possible_agents)
    seeds = list(range(1, deals + 1))
    ismcts = [f"ismcts:simulations={b}" + (f",{options}" if options else "") for b in budgets]
    result = {"env": name, "config": config, "players": players, "options": options, "tables": {}}

    def run(hero, opponent, baseline=None):
        timer = Timer() if hero.startswith("ismcts") else None
        start = time.perf_counter()
        wins, returns = hero_per_deal(env, context, hero, opponent, seeds, timer)
        r = row(hero, wins, returns, baseline, timer, time.perf_counter() - start)
        log(f"  {name} {hero} vs {opponent}: win {r['win_rate']:.3f} ± {r['win_rate_ci']:.3f} ({r['wall_s']:.0f}s)")
        return r, (wins, returns)

    if players == 1:
        rows = []
        reference = {}
        for hero in ("random", "heuristic"):
            r, reference[hero] = run(hero, None)
            rows.append(r)
        for hero in ismcts:
            r, data = run(hero, None, reference["heuristic"])
            r["vs_random_win_rate_diff"], r["vs_random_win_rate_diff_ci"] = mean_ci(data[0] - reference["random"][0])
            rows.append(r)
        result["tables"]["solo"] = rows
        return result
    for opponent in ("random", "heuristic"):
        base_row, baseline = run(opponent, opponent)
        rows = [base_row]
        if opponent == "random":
            r, _ = run("heuristic", "random", baseline)
            rows.append(r)
        for hero in ismcts:
            r, _ = run(hero, opponent, baseline)
            rows.append(r)
        result["tables"][f"vs {opponent}"] = rows
    return result


# ------------------------------------------------------------------ speed
def positions(env, count: int, seed: int = 0) -> list:
    """``count`` decision points (env copies) with a choice to make, from random games."""
    import copy

    rng = np.random.default_rng(seed)
    found = []
    game = 0
    while len(found) < count:
        env.reset(seed=seed + game)
        game += 1
        for step, _ in enumerate(env.agent_iter()):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            if len(legal) > 1 and step % 5 == game % 5 and len(found) < count:
                found.append(copy.deepcopy(env))
            env.step(int(rng.choice(legal)))
    return found


def measure_speed(name: str, config: dict, count: int = 12, simulations: int = 100) -> dict:
    """Simulations/s (random and heuristic rollouts) and resample_hidden cost at random-game positions."""
    env = make(name, **config)
    context = AgentContext.from_env(env, name, config)
    points = positions(env, count)
    out = {"env": name, "config": config, "positions": len(points)}
    for rollout, share in (("random", 1), ("greedy", 1), ("heuristic", 3)):
        agent = ISMCTSAgent(context, 0, simulations=simulations, rollout=rollout)
        sims = seconds = 0.0
        for point in points[::share]:
            name_now = point.agent_selection
            choose_action(agent, point, name_now)
            sims += agent.last_search["simulations"]
            seconds += agent.last_search["seconds"]
        out[f"{rollout}_sims_per_s"] = sims / seconds
    rng = np.random.default_rng(0)
    calls = 0
    start = time.perf_counter()
    for point in points:
        raw = point.unwrapped
        seat = raw.possible_agents.index(point.agent_selection)
        for _ in range(20):
            raw.game.resample_hidden(raw.game_state, seat, rng)
            calls += 1
    out["resample_us"] = 1e6 * (time.perf_counter() - start) / calls
    return out


def speed_markdown(rows: list[dict], machine: str) -> str:
    lines = [
        f"Simulations per second of one 100-simulation search, averaged over positions of random games "
        f"({machine}; `--speed-only`). Each simulation draws one determinization (`resample_hidden`), "
        "descends the tree and rolls out to the end of the game; resample_hidden: mean cost of one call "
        "for the seat to move at those positions.",
        "",
        "| env | options | sims/s, random rollouts | sims/s, greedy rollouts | sims/s, heuristic rollouts "
        "| resample_hidden (µs) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        config = ", ".join(f"{k}={v}" for k, v in r["config"].items()) or "default"
        lines.append(
            f"| {r['env']} | {config} | {r['random_sims_per_s']:.0f} | {r['greedy_sims_per_s']:.0f} | "
            f"{r['heuristic_sims_per_s']:.0f} | "
            f"{r['resample_us']:.0f} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ output
def _pm(value, ci, digits=2, signed=False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    sign = "+" if signed else ""
    text = f"{value:{sign}.{digits}f}"
    return text if ci is None or math.isnan(ci) else f"{text} ± {ci:.{digits}f}"


def block_key(env_result: dict, tag: str | None = None) -> str:
    """Doc block name of one env configuration, e.g. ``strength-hidden_rooms_v0-episode=round[-TAG]``."""
    parts = ["strength", env_result["env"]] + [f"{k}={v}" for k, v in env_result["config"].items()]
    return "-".join(parts + ([tag] if tag else []))


def markdown(report: dict, env_result: dict) -> str:
    """One env configuration's tables in Markdown."""
    config = ", ".join(f"{k}={v}" for k, v in env_result["config"].items()) or "default options"
    players = env_result["players"]
    lines = [
        f"### {env_result['env']} ({config}; {players} player{'s' if players > 1 else ''})",
        "",
        f"`python -m kakurega.scripts.strength_ismcts {report['arguments']}` ({report['machine']}, "
        f"{report['date']}; {env_result['wall_s'] / 60:.0f} min). IS-MCTS options besides the budget: "
        f"`{env_result.get('options') or 'defaults'}`.",
        "",
    ]
    for table, rows in env_result["tables"].items():
        if table == "solo":
            lines.append("| hero | win rate | mean return | Δ win vs heuristic | Δ win vs random | s/move | sims/s |")
            lines.append("|---|---|---|---|---|---|---|")
        else:
            lines.append(f"**{table}** (baseline: {rows[0]['hero']} in every seat, "
                         f"win rate {rows[0]['win_rate']:.2f} per seat, {rows[0]['deals']} deals "
                         f"x {players} seats)")
            lines.append("")
            lines.append("| hero | win rate | mean return | Δ win rate | Δ return | s/move | sims/s |")
            lines.append("|---|---|---|---|---|---|---|")
        for r in rows:
            timing = (
                f"{r['seconds_per_decision']:.3f} | {r['simulations_per_s']:.0f}"
                if "seconds_per_decision" in r else "– | –"
            )
            if table == "solo":
                lines.append(
                    f"| {r['hero']} | {_pm(r['win_rate'], r['win_rate_ci'])} | "
                    f"{_pm(r['mean_return'], r['mean_return_ci'])} | "
                    f"{_pm(r.get('win_rate_diff'), r.get('win_rate_diff_ci'), signed=True)} | "
                    f"{_pm(r.get('vs_random_win_rate_diff'), r.get('vs_random_win_rate_diff_ci'), signed=True)} | "
                    f"{timing} |"
                )
            elif r is not rows[0]:
                lines.append(
                    f"| {r['hero']} | {_pm(r['win_rate'], r['win_rate_ci'])} | "
                    f"{_pm(r['mean_return'], r['mean_return_ci'])} | "
                    f"{_pm(r.get('win_rate_diff'), r.get('win_rate_diff_ci'), signed=True)} | "
                    f"{_pm(r.get('return_diff'), r.get('return_diff_ci'), signed=True)} | {timing} |"
                )
        lines.append("")
    return "\n".join(lines)


def write_doc(path: Path, key: str, text: str) -> None:
    """Replace the block ``key`` of ``path`` (between its markers) by ``text``."""
    begin, end = f"<!-- {key}:begin -->", f"<!-- {key}:end -->"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    old = path.read_text() if path.exists() else ""
    if begin in old and end in old:
        head, _, rest = old.partition(begin)
        _, _, tail = rest.partition(end)
        new = head + block + tail
    else:
        new = (old.rstrip() + "\n\n" if old else "") + block + "\n"
    write_text_file(path, new)


def parse_config(text: str) -> tuple[str, dict]:
    """``NAME`` or ``NAME:key=value,key=value`` (values parsed as int when they look like one)."""
    name, _, rest = text.partition(":")
    config = {}
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"--config {text!r}: {part!r} is not key=value")
        config[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value.strip()
    if name not in ENV_SPECS:
        raise ValueError(f"--config {text!r}: unknown env {name!r}; registered: {', '.join(ENV_SPECS)}")
    return name, config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="strength_ismcts", description="IS-MCTS strength report (seat-rotated paired-seed tournaments)"
    )
    parser.add_argument("--deals", type=int, default=20, help="deals (env seeds) per row; each is played in every seat")
    parser.add_argument("--budgets", default="25,100", help="comma-separated simulations per move (default 25,100)")
    parser.add_argument(
        "--options", default=None,
        help="IS-MCTS options besides simulations, e.g. 'c=0.7,rollout=heuristic,bias=1' (default: the registry's search_options)",
    )
    parser.add_argument(
        "--config", action="append", default=None,
        help="NAME[:key=value,...] to evaluate (repeatable); default: every env's default options",
    )
    parser.add_argument("--speed-only", action="store_true", help="only the speed table (every registry configuration)")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed table")
    parser.add_argument("--tag", default=None, help="suffix of the doc block names (to keep several runs of one env)")
    parser.add_argument("--json", default="runs/strength_ismcts.json", help="JSON report path")
    parser.add_argument("--doc", default=None, help="Markdown file whose generated blocks to rewrite")
    args = parser.parse_args(argv)
    from kakurega.scripts.destination import writable_file

    writable_file(args.json, "--json")  # before the games: a report that cannot be written is said at once
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    configs = [parse_config(text) for text in args.config] if args.config else [(n, {}) for n in ENV_SPECS]
    machine = f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
    report = {
        "arguments": " ".join(sys.argv[1:] if argv is None else argv),
        "machine": machine,
        "date": time.strftime("%Y-%m-%d"),
        "speed": [],
        "envs": [],
    }
    json_path = Path(args.json)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if not args.no_speed:
        for spec in ENV_SPECS.values():
            for config in spec.configurations:
                report["speed"].append(measure_speed(spec.name, config))
                print(f"speed {spec.name} {config}: {report['speed'][-1]}", flush=True)
        speed_text = speed_markdown(report["speed"], machine)
        print(speed_text)
        if args.doc:
            write_doc(Path(args.doc), "speed", speed_text)
    if args.speed_only:
        write_text_file(json_path, json.dumps(report, indent=1))
        return 0
    for name, config in configs:
        print(f"{name} {config}", flush=True)
        options = args.options if args.options is not None else ENV_SPECS[name].search_options
        env_start = time.perf_counter()
        env_result = evaluate_env(name, config, budgets, args.deals, options, log=lambda text: print(text, flush=True))
        env_result["wall_s"] = time.perf_counter() - env_start
        report["envs"].append(env_result)
        report["total_wall_s"] = time.perf_counter() - start
        write_text_file(json_path, json.dumps(report, indent=1))
        text = markdown(report, env_result)
        print(text, flush=True)
        if args.doc:
            write_doc(Path(args.doc), block_key(env_result, args.tag), text)
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
