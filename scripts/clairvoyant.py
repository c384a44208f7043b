"""The clairvoyant bound: how much one seat can win when it sees everything. A diagnostic, not an agent.

    python -m kakurega.scripts.clairvoyant kakurenbo_v1 --option num_players=4 \\
        --option variant=kurayami --search ismcts:simulations=100,rollout=greedy --games 600

It plays the tournament that docs/strength.md uses to measure a bot
(:func:`~kakurega.agents.tournament.run_tournament`: the searching seat
rotates, every other seat is ``--opponent``, seed 12345; in a one-seat game
the seat plays alone), except that every
determinization the search draws is **the true state**: the hidden cards, the
deck or pile order, everything but the chance still to come. Such a seat
cheats. What it wins says how far any honest player could climb above the
opponents. If even the clairvoyant seat wins little more than the heuristic
in that seat, the game is luck-bound there and no trained bot will separate
from the heuristic. If it wins far more, a bot that falls short is a weak
method.

The cheat stays inside :func:`clairvoyant_sampling`. No agent spec gives it,
and the env's own ``determinization_sampler`` is put back when the tournament
ends.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time

from kakurega.envs.core.aec import TurnBasedAECEnv


@contextlib.contextmanager
def clairvoyant_sampling():
    """While active, every env's ``determinization_sampler(agent)`` returns copies of the true state."""
    honest = TurnBasedAECEnv.determinization_sampler

    def true_state_sampler(self, agent):
        self._seat[agent]  # a KeyError for a name that is not an agent, as the honest sampler raises
        state = self.game.clone(self.game_state)
        return lambda rng: self.game.clone(state)

    TurnBasedAECEnv.determinization_sampler = true_state_sampler
    try:
        yield
    finally:
        TurnBasedAECEnv.determinization_sampler = honest


def run(env_name: str, options: dict, search: str, opponent: str, games: int, seed: int = 12345) -> dict:
    """The searching seat's row of a clairvoyant tournament (win rate with its 95 % interval, CPU seconds)."""
    from kakurega.agents.specs import parse_spec
    from kakurega.agents.tournament import run_tournament

    if parse_spec(search).kind != "ismcts":
        raise ValueError(f"--search must be an ismcts spec (a search that draws determinizations), got {search!r}")
    start = time.process_time()
    with clairvoyant_sampling():
        result = run_tournament(env_name, [search, opponent], options, games, seed, focal=search)
    row = result.per_agent[0]
    return {"env": env_name, "options": options, "num_players": result.num_players, "search": search,
            "opponent": opponent if result.num_players > 1 else None, "games": row["games"],
            "score": row["score"], "score_ci95": row["score_ci95"],
            "cpu_seconds": round(time.process_time() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    from kakurega.scripts.evaluate import games_count, parse_options, seed_number

    parser = argparse.ArgumentParser(prog="python -m kakurega.scripts.clairvoyant", description=__doc__.splitlines()[0])
    parser.add_argument("env", help="registered env name, e.g. kakurenbo_v1")
    parser.add_argument("--option", action="append", help="env option KEY=VALUE (repeatable)")
    parser.add_argument("--search", default="ismcts:simulations=100,rollout=greedy", help="the IS-MCTS spec of the seeing seat")
    parser.add_argument("--opponent", default="heuristic", help="the agent spec of every other seat (default heuristic)")
    parser.add_argument("--games", type=games_count, default=600, help="games, 1 to 1,000,000 (default 600)")
    parser.add_argument("--seed", type=seed_number, default=12345, help="tournament seed (default 12345, as docs/strength.md)")
    args = parser.parse_args(argv)
    try:
        row = run(args.env, parse_options(args.option), args.search, args.opponent, args.games, args.seed)
    except ValueError as error:
        print(f"clairvoyant: {error}", file=sys.stderr)
        return 2
    lo, hi = row["score_ci95"]
    where = f"at {row['opponent']} tables" if row["opponent"] else "alone (solitaire)"
    print(f"{row['search']} seeing everything, {where}: score {row['score']:.3f} "
          f"[{lo:.3f}, {hi:.3f}] over {row['games']} games ({row['cpu_seconds']} s CPU)")
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
