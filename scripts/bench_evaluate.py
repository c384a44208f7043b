"""Evaluation speed: games/s of a shipped bot against the game's heuristic, over random self-play.

``kakurega evaluate ENV --agents pretrained heuristic`` spends its time in the
two agents; this measures how much slower it plays than the same games between
two uniformly random agents, on every configuration with a shipped bot of the
newest version of its game (``--only`` picks others by name). Both sides play
through :func:`~kakurega.agents.tournament.play_game`, the loop of ``kakurega
evaluate``, on one raw env, with the agents built once and kept across games
(as a tournament keeps them); the bot takes seat ``g mod n`` in game ``g``,
the heuristic every other seat. The two sides take turns in short chunks and
each pools its chunks (CPU time of the process), so a slow spell of the
machine slows both; the ratio is the bot's games/s over random play's,
median over repeats.

Usage: ``kakurega bench --evaluate [--seconds S] [--repeats R] [--chunks C] [--only NAME]``
"""

from __future__ import annotations

import statistics
import time

#: the clock of the measurements: CPU time of this process
CLOCK = time.process_time


class Lineup:
    """Whole games on one raw env between agents built once, continued across calls of :meth:`play`."""

    def __init__(self, name: str, config: dict, specs: tuple[str, str], seed: int = 0):
        from kakurega.agents.policy import context_for
        from kakurega.agents.specs import make_agent
        from kakurega.envs.registry import make

        self.env = make(name, wrapped=False, **config)
        context = context_for(name, config)
        n = context.num_players
        self.focal = [make_agent(specs[0], context, seed=seat) for seat in range(n)]
        self.others = [make_agent(specs[1], context, seed=n + seat) for seat in range(n)]
        self.seed = seed
        self.games = 0
        self.seconds = 0.0

    def play(self, seconds: float) -> None:
        """Play whole games for about ``seconds`` of CPU time, adding to the totals."""
        from kakurega.agents.base import reseed
        from kakurega.agents.tournament import play_game

        n = len(self.focal)
        start = CLOCK()
        while True:
            focal_seat = self.games % n
            seats = [self.focal[s] if s == focal_seat else self.others[s] for s in range(n)]
            for s, agent in enumerate(seats):
                reseed(agent, (self.seed, self.games, s))
            play_game(self.env, seats, seed=self.seed * 1_000_003 + self.games)
            self.games += 1
            if CLOCK() - start >= seconds:
                break
        self.seconds += CLOCK() - start

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def configurations(only: str | None = None) -> list[tuple[str, dict]]:
    """``(env, options)`` of every shipped bot: of the newest version of each game, or those matching ``only``."""
    from kakurega.agents.pretrained import shipped
    from kakurega.envs.registry import get_spec, latest_envs

    newest = set(latest_envs())
    cases = []
    for _path, meta in shipped():
        name = meta["env"]
        if (only is None and name in newest) or (only is not None and only in name):
            defaults = get_spec(name).option_defaults()
            cases.append((name, {k: v for k, v in meta["env_options"].items() if defaults.get(k, v) != v}))
    return cases


def evaluation_speed(seconds: float = 4.0, repeats: int = 3, chunks: int = 4, only: str | None = None) -> dict:
    """Per configuration: games/s of the bot against the heuristic and of random self-play, and their ratio."""
    rows = []
    for name, config in configurations(only):
        label = " ".join([name] + [f"{k}={v}" for k, v in sorted(config.items())])
        ratios, bot_rates, random_rates = [], [], []
        for repeat in range(repeats):
            bot = Lineup(name, config, ("pretrained", "heuristic"), seed=repeat)
            rand = Lineup(name, config, ("random", "random"), seed=repeat)
            for _ in range(chunks):
                bot.play(seconds / chunks)
                rand.play(seconds / chunks)
            bot_rates.append(bot.games_per_s)
            random_rates.append(rand.games_per_s)
            ratios.append(bot.games_per_s / rand.games_per_s)
        rows.append({
            "env": label,
            "bot_vs_heuristic_games_per_s": statistics.median(bot_rates),
            "random_games_per_s": statistics.median(random_rates),
            "ratio": statistics.median(ratios),
            "ratio_min": min(ratios),
            "ratios": ratios,
        })
        print(format_row(rows[-1]), flush=True)
    return {"kind": "evaluate", "seconds": seconds, "repeats": repeats, "chunks": chunks, "rows": rows}


HEADER = "| env | bot vs heuristic games/s | random self-play games/s | ratio (median) | min |\n|---|---:|---:|---:|---:|"


def format_row(row: dict) -> str:
    return (f"| {row['env']} | {row['bot_vs_heuristic_games_per_s']:,.1f} | {row['random_games_per_s']:,.1f} | "
            f"{row['ratio']:.3f} | {row['ratio_min']:.3f} |")


def format_table(report: dict) -> str:
    return "\n".join([HEADER] + [format_row(row) for row in report["rows"]])
