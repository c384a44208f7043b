"""Role-by-role strength of the heuristic (the figures in the env card).

Each seat is driven by one agent when it is the child and another when it
seeks, so the two roles can be measured apart:

- find rate: the fraction of seekers' turns in which a piece lands on the child;
- child VP: VP a child gains per round (a round ends when found or stuck).

Run ``.venv/bin/python tests/summer_hide_and_seek/heuristic_figures.py [games] [env]`` (env: a
registry name, default ``summer_hide_and_seek_v1``).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from kakurega.agents.base import AgentContext, RandomAgent
from kakurega.agents.heuristics.summer_hide_and_seek import SummerHideAndSeekHeuristic
from kakurega.envs.registry import make
from kakurega.envs.summer_hide_and_seek.rules import FOUND_BY_GUESS, SEEK

DEFAULT_ENV = "summer_hide_and_seek_v1"


def play_roles(
    num_players: int, child_kind: str, seeker_kind: str, num_games: int, seed: int = 0, env_name: str = DEFAULT_ENV,
    **options,
):
    """Play ``num_games``; returns (found turns, seekers' turns, per-round child VP list, rounds found by guess)."""
    env = make(env_name, wrapped=False, num_players=num_players, **options)
    context = AgentContext.from_env(env, env_name, {"num_players": num_players, **options})
    kinds = {"heuristic": SummerHideAndSeekHeuristic, "random": RandomAgent}
    children = [kinds[child_kind](context, seed=seed * 100 + i) for i in range(num_players)]
    seekers = [kinds[seeker_kind](context, seed=seed * 100 + 50 + i) for i in range(num_players)]
    found_turns = seek_turns = guessed_rounds = 0
    round_vp = []
    for g in range(num_games):
        env.reset(seed=seed * 100_000 + g)
        for agent in children + seekers:
            agent.reset()
        for agent in env.agent_iter():
            obs, _r, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.game_state
            seat = int(agent.split("_")[1])
            player = children[seat] if seat == state.child else seekers[seat]
            last_seeker = state.phase == SEEK and state.seekers_placed == num_players - 2
            rounds_before = len(state.history)
            env.step(player.act(obs))
            if last_seeker:
                seek_turns += 1
                found_turns += len(state.history) > rounds_before
        for _child, _stroke, gained, _turns, how in env.game_state.history:
            round_vp.append(gained)
            guessed_rounds += how == FOUND_BY_GUESS
    return found_turns, seek_turns, round_vp, guessed_rounds


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float, float]:
    """(rate, low, high): Wilson 95% interval of a binomial rate."""
    if trials == 0:
        return 0.0, 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return p, centre - half, centre + half


def mean_ci(values, z: float = 1.96) -> tuple[float, float]:
    """(mean, half-width of the normal 95% interval)."""
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(z * a.std(ddof=1) / math.sqrt(len(a)))


def main(num_games: int = 300, env_name: str = DEFAULT_ENV) -> None:
    print(env_name)
    for n in (2, 3, 4):
        for child, seeker in (("random", "random"), ("random", "heuristic"), ("heuristic", "random"), ("heuristic", "heuristic")):
            found, turns, vps, guessed = play_roles(n, child, seeker, num_games, seed=n, env_name=env_name)
            rate, low, high = wilson(found, turns)
            vp, half = mean_ci(vps)
            print(
                f"{n}p child={child:9s} seekers={seeker:9s}: find rate {rate:.3f} [{low:.3f}, {high:.3f}] "
                f"over {turns} seekers' turns; child VP/round {vp:.2f} +- {half:.2f} over {len(vps)} rounds; "
                f"rounds ended by a guess {guessed / len(vps):.2f}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300, sys.argv[2] if len(sys.argv) > 2 else DEFAULT_ENV)
