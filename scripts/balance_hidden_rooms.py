"""Escape rates of the heuristic child and of uniformly random legal play in Hidden Rooms.

Plays ``--rounds`` seeded single rounds (``episode="round"``) for each player
and prints the escape rate with a 95% Wilson confidence interval, overall and
per monster. Round ``i`` uses env seed ``seed + i`` and agent seed ``seed + i``,
so the figures are reproducible. The default booklet is tuned so that the
heuristic escapes 35-75% of rounds and random play under 15%.

Usage: ``python -m kakurega.scripts.balance_hidden_rooms [--rounds 2000] [--seed 0] [--booklet PATH] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsHeuristic
from kakurega.agents.tournament import wilson_interval
from kakurega.envs import hidden_rooms_v0
from kakurega.envs.hidden_rooms.rules import ESCAPED, OUTCOME_NAMES

HEURISTIC_BAND = (0.35, 0.75)
RANDOM_CEILING = 0.15



def play_rounds(agent_class, rounds: int, seed: int = 0, booklet=None, max_turns: int = 60) -> dict:
    """Play ``rounds`` single rounds with ``agent_class``; outcome counts overall and per monster."""
    env = hidden_rooms_v0.raw_env(booklet=booklet, episode="round", max_turns=max_turns)
    game = env.game
    context = AgentContext.from_env(env, "hidden_rooms_v0")  # the env's own options (booklet, round, turn limit)
    outcomes = {name: 0 for name in OUTCOME_NAMES.values()}
    per_monster = {m.name: [0, 0] for m in game.monsters}  # [escapes, rounds]
    turns = []
    for i in range(rounds):
        agent = agent_class(context, seed=seed + i)
        agent.reset()
        env.reset(seed=seed + i)
        monster = game.monsters[env.game_state.monster].name
        while not env.terminations["player_0"]:
            env.step(agent.act(env.observe("player_0")))
        result = env.game_state.results[-1]
        outcomes[OUTCOME_NAMES[result]] += 1
        per_monster[monster][0] += result == ESCAPED
        per_monster[monster][1] += 1
        turns.append(env.game_state.turn)
    escapes = outcomes[OUTCOME_NAMES[ESCAPED]]
    low, high = wilson_interval(escapes, rounds)
    return {
        "rounds": rounds,
        "escapes": escapes,
        "rate": escapes / rounds,
        "ci95": [low, high],
        "outcomes": outcomes,
        "mean_turns": float(np.mean(turns)),
        "per_monster": {name: {"escapes": e, "rounds": n, "rate": e / n if n else None} for name, (e, n) in per_monster.items()},
    }


def main(argv=None) -> int:
    from kakurega.scripts.evaluate import seed_number

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds per player (default 2000)")
    parser.add_argument("--seed", type=seed_number, default=0, help="first seed (default 0)")
    parser.add_argument("--booklet", default=None, help="booklet file (default: the shipped booklet)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    report = {}
    for label, agent_class in (("heuristic", HiddenRoomsHeuristic), ("random", RandomAgent)):
        start = time.perf_counter()
        result = play_rounds(agent_class, args.rounds, args.seed, args.booklet)
        result["seconds"] = time.perf_counter() - start
        report[label] = result
        low, high = result["ci95"]
        print(
            f"{label:9s}: escaped {result['escapes']}/{result['rounds']} = {result['rate']:.1%} "
            f"(95% CI {low:.1%}..{high:.1%}); mean turns {result['mean_turns']:.1f}; "
            + ", ".join(f"{k} {v}" for k, v in result["outcomes"].items())
        )
        for name, row in result["per_monster"].items():
            rate = "-" if row["rate"] is None else f"{row['rate']:.1%}"
            print(f"    {name:16s} {row['escapes']:5d}/{row['rounds']:<5d} {rate}")
    h, r = report["heuristic"]["rate"], report["random"]["rate"]
    in_band = HEURISTIC_BAND[0] <= h <= HEURISTIC_BAND[1] and r < RANDOM_CEILING
    print(f"balance target (heuristic {HEURISTIC_BAND[0]:.0%}-{HEURISTIC_BAND[1]:.0%}, random < {RANDOM_CEILING:.0%}): "
          + ("met" if in_band else "NOT met"))
    if args.json:
        from kakurega.scripts.destination import write_text_file

        write_text_file(args.json, json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
