"""Balance of Animal Chain v1 under the four readings of the connection and attack rules.

For every reading (``connection_rule`` x ``attack_rule`` of ``animal_chain_v1``:
"v0 rules page" = any/rules_page, "reach" = any/reach, "chain" = chain/rules_page
(the default), "chain + reach" = chain/reach) it plays three matches under one
harness: heuristic vs heuristic, random vs random, and IS-MCTS vs heuristic.
Each match plays ``--deals`` paired deals: deal ``i`` (env seed ``seed + i``)
twice, the first-named agent on ``player_0`` then on ``player_1`` (seat
rotation); the first player is drawn by chance inside the deal, so it is the
same in both games of a pair. Agent seeds are ``seed + i`` (first-named agent)
and ``seed + i + 1_000_000`` (second).

Printed per reading and match: games, first-player win rate (95 % Wilson
interval), draws (drawn by passes or truncated), median and 90th-percentile
game length in plies (play-phase turns; base building not counted), the share
of games won on the winner's first or second own turn; and the first-named
agent's win rate (heuristic vs random is the "skill gap"; random vs random
and heuristic vs heuristic read about 50 % by symmetry).

Usage: ``python -m kakurega.scripts.balance_animal_chain [--deals 200] [--seed 0]
[--ismcts-simulations 16] [--readings chain,...] [--matches hh,rr,ih] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from kakurega.agents.base import AgentContext
from kakurega.agents.specs import make_agent
from kakurega.agents.tournament import play_game, wilson_interval
from kakurega.envs.registry import make

ENV = "animal_chain_v1"
#: reading name -> options of ``animal_chain_v1``
READINGS = {
    "v0 rules page": {"connection_rule": "any", "attack_rule": "rules_page"},
    "reach": {"connection_rule": "any", "attack_rule": "reach"},
    "chain": {"connection_rule": "chain", "attack_rule": "rules_page"},
    "chain + reach": {"connection_rule": "chain", "attack_rule": "reach"},
}
#: IS-MCTS options besides the budget (the project's Animal Chain preset, scripts/strength_ismcts.py)
ISMCTS_OPTIONS = "rollout=greedy,prior=greedy,bias=1,widen=1"


def matches(ismcts_simulations: int) -> dict[str, tuple[str, str]]:
    """Match key -> (first-named agent spec, second agent spec)."""
    return {
        "hh": ("heuristic", "heuristic"),
        "rr": ("random", "random"),
        "hr": ("heuristic", "random"),
        "ih": (f"ismcts:simulations={ismcts_simulations},{ISMCTS_OPTIONS}", "heuristic"),
    }


def own_turns_of_winner(state) -> int:
    """How many turns the winner had taken when it won (1 = it won on its first own turn)."""
    if state.winner == state.first_player:
        return (state.turn + 1) // 2
    return state.turn // 2


def play_match(options: dict, specs: tuple[str, str], deals: int, seed: int = 0) -> dict:
    """Play ``deals`` seat-rotated paired deals of ``specs[0]`` against ``specs[1]`` under ``options``."""
    env = make(ENV, wrapped=False, **options)
    context = AgentContext.from_env(env, ENV, options)
    games = first_wins = draws = first_named_wins = 0
    plies, won_on = [], {1: 0, 2: 0}
    for i in range(deals):
        for first_named_seat in (0, 1):
            agents = [make_agent(specs[0], context, seed=seed + i), make_agent(specs[1], context, seed=seed + i + 1_000_000)]
            seat_agents = agents if first_named_seat == 0 else agents[::-1]
            play_game(env, seat_agents, seed=seed + i)
            state = env.game_state
            games += 1
            plies.append(state.turn)
            if state.winner < 0:
                draws += 1
                continue
            first_wins += state.winner == state.first_player
            first_named_wins += state.winner == first_named_seat
            turns = own_turns_of_winner(state)
            if turns in won_on:
                won_on[turns] += 1
    return {
        "games": games,
        "first_player_wins": first_wins,
        "first_player_rate": first_wins / games,
        "first_player_ci95": list(wilson_interval(first_wins, games)),
        "draws": draws,
        "median_plies": float(np.median(plies)),
        "p90_plies": float(np.percentile(plies, 90)),
        "won_on_own_turn_1": won_on[1] / games,
        "won_on_own_turn_2": won_on[2] / games,
        "first_named_wins": first_named_wins,
        "first_named_rate": first_named_wins / games,
        "first_named_ci95": list(wilson_interval(first_named_wins, games)),
    }


def percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def table(results: dict, specs: dict) -> str:
    """The Markdown table of ``results[reading][match]``."""
    lines = [
        "| reading | match | games | first player wins (95 % CI) | draws | median / p90 plies | "
        "won on own turn 1 / 2 | first-named agent wins (95 % CI) |",
        "|---|---|---:|---|---:|---|---|---|",
    ]
    for reading, by_match in results.items():
        for key, r in by_match.items():
            low, high = r["first_player_ci95"]
            nlow, nhigh = r["first_named_ci95"]
            name = {"hh": "heuristic vs heuristic", "rr": "random vs random", "hr": "heuristic vs random",
                    "ih": "IS-MCTS vs heuristic"}[key]
            lines.append(
                f"| {reading} | {name} | {r['games']} | {percent(r['first_player_rate'])} ({percent(low)} .. {percent(high)}) "
                f"| {r['draws']} | {r['median_plies']:g} / {r['p90_plies']:g} "
                f"| {percent(r['won_on_own_turn_1'])} / {percent(r['won_on_own_turn_2'])} "
                f"| {percent(r['first_named_rate'])} ({percent(nlow)} .. {percent(nhigh)}) |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    from kakurega.scripts.evaluate import seed_number

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="paired deals per match (2 games each)")
    parser.add_argument("--seed", type=seed_number, default=0)
    parser.add_argument("--ismcts-simulations", type=int, default=16, help="IS-MCTS budget per move")
    parser.add_argument("--readings", default=",".join(READINGS), help="comma-separated readings: " + ", ".join(READINGS))
    parser.add_argument("--matches", default="hh,rr,hr,ih", help="comma-separated: hh, rr, hr, ih")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    readings = [r.strip() for r in args.readings.split(",")]
    unknown = [r for r in readings if r not in READINGS]
    if unknown:
        parser.error(f"unknown reading(s) {unknown}; expected some of {list(READINGS)}")
    specs = matches(args.ismcts_simulations)
    keys = [k.strip() for k in args.matches.split(",")]
    if any(k not in specs for k in keys):
        parser.error(f"--matches: expected some of {list(specs)}, got {args.matches!r}")
    results: dict = {}
    started = time.time()
    for reading in readings:
        results[reading] = {}
        for key in keys:
            results[reading][key] = play_match(READINGS[reading], specs[key], args.deals, args.seed)
            print(f"# {reading} / {key}: {time.time() - started:.0f} s", flush=True)
    print(table(results, specs))
    if args.json:
        from kakurega.scripts.destination import write_text_file

        write_text_file(args.json, json.dumps({"deals": args.deals, "seed": args.seed, "specs": specs,
                                               "readings": READINGS, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
