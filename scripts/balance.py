"""``kakurega balance ENV``: how balanced an env is and how much skill decides it.

For any registered env (its default options, or ``--config key=value``) the
report plays seeded tournaments through :func:`kakurega.agents.tournament.run_tournament`
(seat-rotated, paired deals: deal ``d`` is the same env seed in every group)
and prints:

- **tables**: games where every seat is the same kind of player (the heuristic,
  uniformly random play; ``--ismcts-table`` adds IS-MCTS): the score of the
  first player and of every seat, the share of games whose top place is
  shared (a tie), game length in plies (median and 90th percentile), and the
  share of games cut off by the step limit. In a solitaire game the score is
  the success rate: the share of games won by the rules (Hidden Rooms: the
  match won by two escapes, or the round escaped), whatever the reward scheme
  (:func:`kakurega.agents.outcome.rules_winners`; a game whose rules do not
  say: a positive return).
- **gaps**: the heuristic among random players against a random player in the
  same seat on the same deals, and IS-MCTS among heuristics against a
  heuristic in the same seat on the same deals: the difference of scores
  (solitaire: of success rates on the same deals).

**First player.** The seat of the first agent to act after the deal
(``env.reset``), unless the game's :meth:`~kakurega.envs.core.game.Game.first_player`
names the seat that took the first turn of play (for games whose first turn
is decided after a setup phase).

**Scores.** A seat scores its share of the win, as in every tournament
(:mod:`kakurega.agents.outcome`): 1 when it alone wins, 1/k when k seats
share the win (a draw of n seats, or a game nobody won: 1/n), else 0; so the
seats' scores of a game sum to 1, and a tie does not count as a win. Who won
is the rules' call where they say it (the games' ``winners``), else the
highest return: a reward scheme that does not pay for winning
(``reward=points``) does not change the scores.

**Intervals.** 95% percentile bootstrap over deals (the games of one deal,
played once per seat, are not independent), 2000 resamples from a fixed seed.

Example::

    kakurega balance kakurenbo_v1 --config num_players=4 --games 400 --ismcts-budget 25
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from kakurega.agents.outcome import WIN, classify_outcome, win_share
from kakurega.agents.specs import MAX_UNTIMED_SIMULATIONS
from kakurega.scripts.evaluate import add_import_argument, games_count, seed_number

BOOTSTRAP_RESAMPLES = 2000


def bootstrap_interval(per_deal, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``per_deal`` (one value per deal).

    Deals are resampled with replacement; ``(nan, nan)`` when there is no deal.
    """
    values = np.asarray(per_deal, dtype=np.float64)
    if values.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(values.size, size=(resamples, values.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


@dataclass
class Estimate:
    """A mean over deals with its 95% bootstrap interval."""

    value: float
    low: float
    high: float

    @classmethod
    def of(cls, per_deal, rate: bool = False, span: tuple[float, float] = (0.0, 1.0)) -> Estimate:
        """``rate``: values in ``span`` (a share of games per deal in [0, 1]; a skill gap in [-1, 1]). A rate equal
        on every deal (no game truncated, say) has a bootstrap interval of zero width: it gets the Wilson interval
        over deals instead (each deal's value mapped onto [0, 1] and counted as successes, as the tournament's
        score is, then mapped back), which holds the true rate as often as it says."""
        from kakurega.agents.tournament import wilson_interval

        values = np.asarray(per_deal, dtype=np.float64)
        mean = float(values.mean()) if values.size else float("nan")
        low, high = bootstrap_interval(values)
        if rate and values.size and low == high:
            first, last = span
            low, high = wilson_interval(float(((values - first) / (last - first)).sum()), int(values.size))
            low, high = first + (last - first) * low, first + (last - first) * high
        return cls(mean, low, high)

    def text(self, signed: bool = False) -> str:
        f = "+.3f" if signed else ".3f"
        return f"{self.value:{f}} [{self.low:{f}}, {self.high:{f}}]"

    def to_dict(self) -> dict:
        return {"value": self.value, "ci95": [self.low, self.high]}


@dataclass
class Games:
    """Per-game facts of one group of games, collected from tournament records."""

    num_players: int
    #: deal -> list of (lineup, per-seat scores, plies, truncated, first seat)
    by_deal: dict = field(default_factory=dict)

    def add(self, deal: int, lineup: tuple, wins: list, plies: int, truncated: bool, first: int) -> None:
        self.by_deal.setdefault(deal, []).append((lineup, wins, plies, truncated, first))

    def games(self) -> list:
        return [g for deal in sorted(self.by_deal) for g in self.by_deal[deal]]

    def per_deal(self, value) -> list[float]:
        """Mean of ``value(game)`` over the games of each deal, deal by deal."""
        return [float(np.mean([value(g) for g in self.by_deal[d]])) for d in sorted(self.by_deal)]

    def seat_win(self, seat: int) -> list[float]:
        return self.per_deal(lambda g: g[1][seat])

    def summary(self) -> dict:
        lengths = np.array([g[2] for g in self.games()], dtype=np.float64)
        return {
            "games": len(lengths),
            "deals": len(self.by_deal),
            "first_player_win": Estimate.of(self.per_deal(lambda g: g[1][g[4]]), rate=True),
            "seat_win": [Estimate.of(self.seat_win(s), rate=True) for s in range(self.num_players)],
            "tied": Estimate.of(self.per_deal(lambda g: float(any(0 < x < 1 for x in g[1]))), rate=True),
            "plies_median": float(np.median(lengths)),
            "plies_p90": float(np.percentile(lengths, 90)),
            "truncated": Estimate.of(self.per_deal(lambda g: float(g[3])), rate=True),
        }


def paired_gap(hero: Games, baseline: Games, hero_spec: str) -> Estimate:
    """Hero's win rate minus the baseline's in the same seats on the same deals (bootstrap over deals).

    ``hero`` holds games with one ``hero_spec`` seat among baseline players;
    ``baseline`` holds games with the baseline player on every seat. A deal
    counts when both groups played it.
    """
    differences = []
    for deal in sorted(set(hero.by_deal) & set(baseline.by_deal)):
        per_seat = {}
        for lineup, wins, *_ in hero.by_deal[deal]:
            for seat, spec in enumerate(lineup):
                if spec == hero_spec:
                    per_seat.setdefault(seat, []).append(wins[seat])
        base = baseline.by_deal[deal]
        diffs = [np.mean(w) - np.mean([g[1][seat] for g in base]) for seat, w in per_seat.items()]
        if diffs:
            differences.append(float(np.mean(diffs)))
    # a gap of two scores lies in [-1, 1]; equal on every deal, it gets the Wilson interval, not a zero-wide one
    return Estimate.of(differences, rate=True, span=(-1.0, 1.0))


def play(env_name: str, options: dict, specs: list[str], games: int, seed: int, focal: str | None = None) -> Games:
    """Play a tournament of ``specs`` (one spec: a table of it) and collect every game."""
    from kakurega.agents.tournament import run_tournament
    from kakurega.envs.registry import make

    probe = make(env_name, wrapped=False, **options)
    n = probe.game.num_players
    first_at_reset: dict[int, int] = {}
    collected = Games(n)

    def on_game(record) -> None:
        first = probe.game.first_player(record.final_state)
        if first is None:
            if record.deal_seed not in first_at_reset:
                probe.reset(seed=record.deal_seed)
                first_at_reset[record.deal_seed] = probe.possible_agents.index(probe.agent_selection)
            first = first_at_reset[record.deal_seed]
        if n == 1:  # solitaire: success (won by the rules; where they do not say, a positive return) or not
            wins = [float(classify_outcome(record.returns, 0, record.winners) == WIN)]
        else:
            wins = [win_share(record.returns, s, record.winners) for s in range(n)]
        collected.add(record.deal, record.lineup, wins, record.plies, record.truncated, first)

    run_tournament(env_name, specs, options, games, seed, focal=focal, on_game=on_game)
    return collected


def balance_report(
    env_name: str,
    options: dict | None = None,
    games: int = 200,
    seed: int = 0,
    ismcts_budget: int = 25,
    ismcts_options: str = "",
    ismcts_games: int | None = None,
    ismcts_table: bool = False,
    progress=None,
) -> dict:
    """Play every group of the report (see the module docstring) and return the figures."""
    options = dict(options or {})
    say = progress or (lambda text: None)
    ismcts_games = games if ismcts_games is None else ismcts_games
    ismcts = f"ismcts:simulations={ismcts_budget}" + (f",{ismcts_options}" if ismcts_options else "")
    tables: dict[str, Games] = {}
    start = time.perf_counter()
    for spec in ("heuristic", "random"):
        say(f"{spec} table")
        tables[spec] = play(env_name, options, [spec], games, seed)
    n = tables["heuristic"].num_players
    solitaire = n == 1
    say("heuristic among random players" if not solitaire else "(solitaire: gaps from the tables)")
    groups = {"heuristic vs random": (tables["heuristic"] if solitaire else
                                      play(env_name, options, ["heuristic", "random"], games, seed, focal="heuristic"),
                                      "heuristic", "random", tables["random"])}
    if ismcts_budget > 0:
        if solitaire or ismcts_table:
            say(f"{ismcts} table")
            tables[ismcts] = play(env_name, options, [ismcts], ismcts_games, seed)
        say(f"{ismcts} among heuristics")
        hero = tables[ismcts] if solitaire else play(env_name, options, [ismcts, "heuristic"], ismcts_games, seed,
                                                      focal=ismcts)
        baseline = tables["heuristic"]
        if set(hero.by_deal) - set(baseline.by_deal):
            # more IS-MCTS games than --games: the gap is paired over every deal IS-MCTS played, so the heuristic
            # table is played on those deals too (deal d is the same games whatever the count: the table's deals
            # come first, unchanged); else the gap would rest on the table's deals alone, under a header naming all
            say(f"heuristic table on the {len(hero.by_deal)} deals of the IS-MCTS games")
            baseline = play(env_name, options, ["heuristic"], ismcts_games, seed)
        groups["IS-MCTS vs heuristic"] = (hero, ismcts, "heuristic", baseline)
    report = {
        "env": env_name,
        "options": options,
        "num_players": n,
        "games": len(tables["heuristic"].games()),  # as played: --games rounded up to whole rotations of the seats
        "ismcts_games": len(groups["IS-MCTS vs heuristic"][0].games()) if ismcts_budget > 0 else 0,
        "seed": seed,
        "tables": {spec: g.summary() for spec, g in tables.items()},
        "gaps": {},
    }
    for label, (hero, hero_spec, base_spec, baseline) in groups.items():
        gap = paired_gap(hero, baseline, hero_spec)
        entry = {"hero": hero_spec, "baseline": base_spec, "gap": gap}
        if not solitaire:
            entry["hero_games"] = hero.summary()
        report["gaps"][label] = entry
    report["wall_seconds"] = time.perf_counter() - start
    return report


def format_report(report: dict) -> str:
    """The report as plain text."""
    n = report["num_players"]
    solitaire = n == 1
    rate = "success" if solitaire else "score"
    lines = [
        f"balance of {report['env']}{' ' + str(report['options']) if report['options'] else ''}: {n} seat(s), "
        f"{report['games']} games per group"
        + (f" ({report['ismcts_games']} with IS-MCTS)" if report["ismcts_games"] else "") + f", seed {report['seed']}",
        "95% bootstrap intervals over deals; plies = agent actions per game"
        + ("" if solitaire else "; score: a win 1, a win shared by k seats 1/k, a loss 0"),
        "",
        "tables (every seat the same player):",
    ]
    for spec, t in report["tables"].items():
        lines.append(f"  {spec}: {t['games']} games over {t['deals']} deals")
        if solitaire:
            lines.append(f"    success rate        {t['seat_win'][0].text()}")
        else:
            lines.append(f"    first player score  {t['first_player_win'].text()}")
            for seat, est in enumerate(t["seat_win"]):
                lines.append(f"    seat {seat} score        {est.text()}")
            lines.append(f"    top place shared    {t['tied'].text()}")
        lines.append(f"    plies               median {t['plies_median']:g}, 90th percentile {t['plies_p90']:g}")
        lines.append(f"    truncated           {t['truncated'].text()}")
    lines += ["", f"skill gaps ({rate} rate of the player minus the baseline's, same deals and seats):"]
    for label, g in report["gaps"].items():
        lines.append(f"  {label}: {g['gap'].text(signed=True)}   ({g['hero']} vs {g['baseline']})")
        if "hero_games" in g:
            h = g["hero_games"]
            lines.append(
                f"    those {h['games']} games: plies median {h['plies_median']:g}, 90th percentile "
                f"{h['plies_p90']:g}; truncated {h['truncated'].text()}"
            )
    lines.append(f"\n{report['wall_seconds']:.0f} s")
    return "\n".join(lines)


def _jsonable(value):
    if isinstance(value, Estimate):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="kakurega balance")
    parser.description = (
        "Balance report of one env: first-player and seat scores, game length, truncation rate, and the "
        "heuristic-vs-random and IS-MCTS-vs-heuristic skill gaps, with 95% intervals (seat-rotated, paired deals)."
    )
    parser.add_argument("env", help="env name (see `kakurega envs`), e.g. kakurenbo_v1 or kakurenbo")
    parser.add_argument("--games", type=games_count, default=200,
                        help="games per group, 1 to 1,000,000 (rounded up to a multiple of the seat count; default 200)")
    parser.add_argument("--seed", type=seed_number, default=0, help="seed of the deals and agents, 0 to 2**32 - 1 (default 0)")
    # --option as in evaluate, exploit and tactics; --config, its first name, still works
    parser.add_argument("--option", "--config", dest="config", action="append", metavar="KEY=VALUE",
                        help="env option (repeatable), e.g. num_players=3 (--config is the same)")
    parser.add_argument("--ismcts-budget", type=int, default=25,
                        help=f"IS-MCTS simulations per decision, at most {MAX_UNTIMED_SIMULATIONS:,} (default 25; 0 skips "
                             "IS-MCTS)")
    parser.add_argument("--ismcts-options", default="", help="more IS-MCTS spec options, e.g. rollout=greedy,c=0.7")
    parser.add_argument("--ismcts-games", type=games_count, default=None,
                        help="games of each IS-MCTS group, 1 to 1,000,000 (default: --games)")
    parser.add_argument("--ismcts-table", action="store_true", help="also play a table of IS-MCTS players")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_import_argument(parser, "ENV")
    return parser


def run(args) -> int:
    from kakurega.agents.tournament import check_seed
    from kakurega.scripts.evaluate import import_agent_modules, parse_options, resolve_env_name

    import_agent_modules(getattr(args, "imports", None))
    check_seed(args.seed, "--seed")  # before any game: a seed from 2**32 up would replay other seeds' deals
    if not 0 <= args.ismcts_budget <= MAX_UNTIMED_SIMULATIONS:  # nothing stops a search here before its simulations
        raise ValueError(f"--ismcts-budget must be 0 (skip) or a number of simulations per decision from 1 to "
                         f"{MAX_UNTIMED_SIMULATIONS:,}, got {args.ismcts_budget}")
    env_name = resolve_env_name(args.env)
    if args.json:  # checked before the games: a directory there or an unwritable place is said at once
        from kakurega.scripts.destination import writable_file

        destination = writable_file(args.json, "--json")
    progress = None if args.quiet else (lambda text: print(f"... {text}", file=sys.stderr, flush=True))
    report = balance_report(
        env_name, parse_options(args.config), args.games, args.seed, args.ismcts_budget, args.ismcts_options,
        args.ismcts_games, args.ismcts_table, progress,
    )
    print(format_report(report))
    if args.json:  # a new file renamed into place: a link or a FIFO there is replaced, never followed or waited on
        from kakurega.scripts.destination import write_text_file

        write_text_file(destination, json.dumps(_jsonable(report), indent=2))
    return 0


def main(argv=None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
