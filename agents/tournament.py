"""Tournaments between any agent specs on any kakurega env and player count.

**Pairings.** With two seats, every unordered pair of agents plays; with more
seats, every ordered pair ``(A, B)`` plays with A on one seat (the *focal*
agent) and copies of B on all the others ("A against a table of B"). In a
solitaire game every agent plays the same deals alone and agents are compared
deal by deal.

**Seat rotation and paired seeds.** Deal ``d`` is a fixed env seed, the same
for every pairing; each deal is played once with the focal agent on every
seat, so ``games`` is rounded up to a multiple of the seat count. Every
agent's RNG is reseeded per game from ``(seed, pairing, deal, seat)``: a
tournament is reproducible and its games do not depend on their order.

**Where the games run.** The tournament is a :func:`schedule` of games, each
a pure function of its entry (deal seed, lineup, agent seeds) played at a
:class:`Table` rebuilt from the agents' spec strings, and a tally that adds
the results in the schedule's order. With ``tasks`` (an entered
:class:`~kakurega.agents.tasks.RayTasks`) the games run as Ray tasks and the
results are the same as in one process.

**Reports.** Per agent, from the games where it is focal (both sides count
with two seats): wins, shared wins, draws and losses (see
:mod:`kakurega.agents.outcome`: judged by the rules' winners of each game's
final state where the rules say who won, so a reward scheme that does not pay
for winning does not change them); the **score**, the mean share of the win (a
win 1, a win shared by k seats 1/k, a draw of n seats 1/n, a loss 0: what the
zero-sum rewards pay for), with a 95% Wilson interval; the win rate (outright
wins only: a shared win is not counted as a win) with its Wilson interval;
the mean reward with a 95% interval (:func:`mean_interval`); and an OpenSkill (Plackett-Luce)
rating updated game by game in a fixed order (the focal agent's return
against the mean return of the other seats; solitaire: every agent's return on the
same deal). A head-to-head matrix gives the score of the row agent against
the column agent (two seats: a draw counts ½; solitaire: the share of deals
where the row agent scored more, won where the column agent did not, ties counting half: who won is the rules'
call, as for the score, so a shaped or per-round return does not rank two lost games, or two won ones).

The Wilson interval of the score treats the summed shares as successes; a
share lies in [0, 1], so its variance is at most that of a win/loss game with
the same mean and the interval is conservative: far wider than the shares'
spread where most games are drawn (14 wins, 386 draws, no loss: [0.469,
0.566], while the 14 decided games reject an even match; docs/training.md).

**Seeds** are whole numbers from 0 to ``2**32 - 1`` (:func:`check_seed`), like
every numpy seed of kakurega: the per-game seeds are drawn from
``SeedSequence([seed, ...])``, which would read a larger seed as two numbers and
replay another seed's deals.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kakurega.agents.base import Agent, choose_action, reseed
from kakurega.agents.human import show_view
from kakurega.agents.outcome import DRAW, LOSS, SHARED, WIN, classify_outcome, rules_winners, win_share
from kakurega.agents.training.run_dir import atomic_write_bytes

#: how a table counts ties, printed under every per-agent table of a game of two or more seats (score_note)
SCORE_NOTE = ("score: a win 1, a win shared by k seats 1/k, a draw of n seats 1/n, a loss 0 (what the default "
              "zero-sum rewards pay for); won: outright wins only")
#: the same for a solitaire game (one seat: no tie, no zero-sum reward)
SOLITAIRE_SCORE_NOTE = "score: the share of games won (a won game 1, anything else 0)"


#: what a mean reward is at tables of three seats or more, where the agents' means need not add up to 0
MANY_SEATS_NOTE = ("mean reward: the agent's own seat's return in its games (one seat of it, the others copies of "
                   "another agent), so the agents' means need not add up to 0 even where every game's rewards do")


def score_note(num_players: int) -> str:
    """The lines under a table of a game of ``num_players`` seats that say what its score (and, at three seats or
    more, its mean reward) counts."""
    if num_players == 1:
        return SOLITAIRE_SCORE_NOTE
    return SCORE_NOTE if num_players == 2 else f"{SCORE_NOTE}\n{MANY_SEATS_NOTE}"

#: the most games per pairing a tournament (and every command's ``--games``) plays: the training config's bound
#: on ``evaluation.games``; more would run for weeks, and the per-game tallies would fill the memory
MAX_GAMES = 1_000_000

#: the largest tournament seed: the seeds are 32-bit, as numpy's and the training config's (``MAX_SEED`` there)
MAX_SEED = 2**32 - 1


def check_games(games, what: str = "games") -> int:
    """``games`` if it is a whole number from 1 to :data:`MAX_GAMES`, else a ``ValueError`` saying so."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"{what} must be at least 1 and at most {MAX_GAMES:,} (a whole number of games), got {games!r}")
    return int(games)


def check_seed(seed, what: str = "seed") -> int:
    """``seed`` if it is a whole number from 0 to :data:`MAX_SEED`, else a ``ValueError`` saying so.

    A larger seed is refused rather than folded: ``SeedSequence([seed, ...])`` splits it into 32-bit words, so seed
    ``2**32`` would play the deals that seed 0 plays under another pairing or deal number.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{what}: expected a whole number from 0 to {MAX_SEED} (2**32 - 1), got {seed!r}")
    if seed < 0:
        raise ValueError(f"{what}: expected a non-negative integer (the seed of the deals and agents), got {seed}")
    if seed > MAX_SEED:
        raise ValueError(f"{what}: expected an integer from 0 to {MAX_SEED} (2**32 - 1; seeds are 32-bit), got {seed}")
    return int(seed)


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``(0, 1)`` when ``n == 0``)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def mean_interval(rewards, bounds: tuple[float, float] | None = None, score_like: bool = False,
                  z: float = 1.96) -> tuple[float, float]:
    """95% interval of the mean of ``rewards``, every reward within ``bounds`` (the game's ``return_bounds()``).

    - **Score-like rewards** (``score_like``: every reward is ``low + (high - low) * share``, the seat's share of
      the win, as the zero-sum win rewards and any +1 / -1 (0 for a draw) two-player or solitaire reward are)
      **or rewards of at most two values**: the Wilson interval (:func:`wilson_interval`) of
      ``(mean - low) / (high - low)`` mapped back to ``[low, high]``. For score-like rewards that is the score's
      interval through the rewards' affine relation; for two values, a proportion's. A reward in ``[low, high]``
      varies at most as much as one of the two bounds with the same mean, so the interval is conservative, and it
      is never of zero width (every reward equal included).
    - **Other rewards** (three values or more, not paying the score: points, VP, Hidden Rooms'
      ``reward=per_round``, shaped rewards): the normal interval ``mean ± z s / sqrt(n)`` clipped to ``bounds``.
    - **No bounds** (a game that declares none; every kakurega game does): the normal interval (zero width when
      every reward is equal).

    With no reward: ``bounds`` (no bounds: ``(0, 0)``).

    >>> [round(x, 3) for x in mean_interval([1.0] * 20, (-1.0, 1.0))]  # the normal interval: [1.0, 1.0]
    [0.678, 1.0]
    >>> [round(x, 3) for x in mean_interval([-1.0] * 7 + [1.0], (-1.0, 1.0))]  # the normal: [-1.240, -0.260]
    [-0.955, -0.058]
    """
    values = np.asarray(rewards, dtype=np.float64)
    n = values.size
    low, high = bounds if bounds is not None else (None, None)
    bounded = bounds is not None and math.isfinite(low) and math.isfinite(high) and high > low
    if n == 0:
        return (float(low), float(high)) if bounded else (0.0, 0.0)
    mean = float(values.mean())
    if bounded and (score_like or np.unique(values).size <= 2):
        p = min(1.0, max(0.0, (mean - low) / (high - low)))
        wl, wh = wilson_interval(p * n, n, z)
        return low + (high - low) * wl, low + (high - low) * wh
    half = float(z * values.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    if not bounded:
        return mean - half, mean + half
    return max(float(low), mean - half), min(float(high), mean + half)


def play_game(
    env, seat_agents: list[Agent], seed: int, max_steps: int = 1_000_000, moves: list | None = None
) -> tuple[list[float], int]:
    """Play one game of raw env ``env`` with ``seat_agents[i]`` on seat i; ``(returns per seat, steps)``.

    ``moves``, if given, receives every ``[agent, action]`` played (a game record's moves).
    """
    env.reset(seed=seed)
    for agent in seat_agents:
        agent.reset()
    names = env.possible_agents
    totals = {name: 0.0 for name in names}
    seat_of = {name: i for i, name in enumerate(names)}
    steps = 0
    while True:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        if steps >= max_steps:
            raise RuntimeError(f"game with seed {seed} did not end within {max_steps} steps")
        agent = seat_agents[seat_of[name]]
        show_view(agent, env, name)
        action = choose_action(agent, env, name)
        mask = env.observe(name)["action_mask"]
        if not (0 <= action < len(mask)) or not mask[action]:
            raise ValueError(
                f"agent {getattr(agent, 'name', type(agent).__name__)} on {name} chose illegal action {action}"
            )
        env.step(action)
        if moves is not None:
            moves.append([name, action])
        steps += 1
        for other in names:
            totals[other] += env.rewards.get(other, 0.0)
    return [totals[name] for name in names], steps


@dataclass
class GameRecord:
    """One finished tournament game, as :func:`run_tournament` hands it to ``on_game``."""

    deal: int  #: deal index (deal ``d`` has the same env seed in every tournament with this seed)
    deal_seed: int  #: the env seed of the deal
    focal_seat: int  #: the focal agent's seat (0 in a solitaire game)
    lineup: tuple  #: the agent spec on every seat
    returns: list  #: final return of every seat
    plies: int  #: agent actions in the game
    truncated: bool  #: cut off by the env's step limit
    final_state: object  #: the game state at the end (owned by the env: read it, do not keep it)
    moves: list = field(default_factory=list)  #: every ``[agent, action]`` played, in order
    #: the rules' winners of the final state (:func:`~kakurega.agents.outcome.rules_winners`); None: by returns
    winners: tuple | None = None


@dataclass
class AgentStats:
    """Results of one agent over the games where it sat as itself (focal)."""

    spec: str
    games: int = 0
    wins: int = 0  #: outright wins
    shared: int = 0  #: wins shared with some (not all) of the table
    draws: int = 0  #: every seat won, or none did (by returns: every seat with the same return)
    losses: int = 0
    truncated: int = 0  #: games cut off by the env's step limit (scored as the rules say: by the standings, or a draw)
    shares: float = 0.0  #: summed share of the win (see :func:`~kakurega.agents.outcome.win_share`)
    rewards: list = field(default_factory=list)
    #: the game's ``return_bounds()`` (None: not declared), for the mean reward's interval (:func:`mean_interval`)
    bounds: tuple | None = None
    #: every reward so far was ``low + (high - low) * share`` (the rewards pay the score)
    score_like: bool = True

    def add(self, outcome: str, reward: float, share: float, truncated: bool = False) -> None:
        self.games += 1
        self.truncated += bool(truncated)
        self.wins += outcome == WIN
        self.shared += outcome == SHARED
        self.draws += outcome == DRAW
        self.losses += outcome == LOSS
        self.shares += share
        self.rewards.append(float(reward))
        if self.score_like and self.bounds is not None:
            low, high = self.bounds
            self.score_like = math.isclose(float(reward), low + (high - low) * share, rel_tol=1e-9, abs_tol=1e-9)

    def summary(self) -> dict:
        low, high = wilson_interval(self.wins, self.games)
        score_low, score_high = wilson_interval(self.shares, self.games)
        rewards = np.asarray(self.rewards, dtype=np.float64)
        mean = float(rewards.mean()) if rewards.size else 0.0
        reward_low, reward_high = mean_interval(rewards, self.bounds, self.score_like)
        return {
            "agent": self.spec,
            "games": self.games,
            "score": self.shares / self.games if self.games else 0.0,
            "score_ci95": [score_low, score_high],
            "wins": self.wins,
            "shared_wins": self.shared,
            "draws": self.draws,
            "losses": self.losses,
            "truncated": self.truncated,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "win_rate_ci95": [low, high],
            "mean_reward": mean,
            "mean_reward_ci95": [reward_low, reward_high],
        }


@dataclass
class TournamentResult:
    """Everything a tournament measured; see :func:`run_tournament`."""

    env: str
    env_kwargs: dict
    num_players: int
    agents: list
    games_per_pairing: int
    seed: int
    per_agent: list
    head_to_head: list  #: matrix[row][col] = score of row vs col (None on the diagonal / unplayed)
    head_to_head_games: list
    ratings: list
    #: matrix[row][col] = share of the games of that pairing whose top place was shared (a tie or a draw): with 3+
    #: seats, the games of row at a table of copies of col (as in head_to_head); the diagonal holds a pairing of
    #: an agent with copies of itself (a one-agent tournament); None where unplayed
    ties: list = field(default_factory=list)
    wall_seconds: float = 0.0
    total_steps: int = 0

    def to_dict(self) -> dict:
        return {
            "env": self.env,
            "env_kwargs": self.env_kwargs,
            "num_players": self.num_players,
            "agents": self.agents,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "per_agent": self.per_agent,
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.head_to_head_games,
            "ties": self.ties,
            "ratings": self.ratings,
            "total_steps": self.total_steps,
            "wall_seconds": self.wall_seconds,
        }

    def to_json(self, path) -> None:
        atomic_write_bytes(Path(path), json.dumps(self.to_dict(), indent=2).encode())

    def to_csv(self, path) -> None:
        """Per-agent rows; the head-to-head matrix goes to ``<stem>_head_to_head.csv`` beside it."""
        path = Path(path)
        rating_of = {r["agent"]: r for r in self.ratings}
        with _CsvOutput(path) as f:
            writer = csv.writer(f)
            writer.writerow(
                ["agent", "games", "score", "score_ci_low", "score_ci_high", "wins", "shared_wins", "draws", "losses",
                 "truncated", "win_rate", "win_rate_ci_low", "win_rate_ci_high", "mean_reward", "mean_reward_ci_low",
                 "mean_reward_ci_high", "rating_mu", "rating_sigma", "rating_ordinal"]
            )
            for row in self.per_agent:
                rating = rating_of[row["agent"]]
                writer.writerow(
                    [row["agent"], row["games"], f"{row['score']:.4f}", f"{row['score_ci95'][0]:.4f}",
                     f"{row['score_ci95'][1]:.4f}", row["wins"], row["shared_wins"], row["draws"], row["losses"],
                     row["truncated"], f"{row['win_rate']:.4f}",
                     f"{row['win_rate_ci95'][0]:.4f}", f"{row['win_rate_ci95'][1]:.4f}", f"{row['mean_reward']:.4f}",
                     f"{row['mean_reward_ci95'][0]:.4f}", f"{row['mean_reward_ci95'][1]:.4f}",
                     f"{rating['mu']:.3f}", f"{rating['sigma']:.3f}", f"{rating['ordinal']:.3f}"]
                )
        with _CsvOutput(path.with_name(path.stem + "_head_to_head.csv")) as f:
            writer = csv.writer(f)
            writer.writerow(["row_vs_column"] + self.agents)
            for name, row in zip(self.agents, self.head_to_head):
                writer.writerow([name] + ["" if v is None else f"{v:.4f}" for v in row])

    def table(self) -> str:
        """The per-agent results and the head-to-head matrix as plain text."""
        rating_of = {r["agent"]: r for r in self.ratings}
        width = max(12, *(len(a) for a in self.agents))
        lines = [
            f"{self.env} {self.env_kwargs or ''} - {self.num_players} seat(s), {self.games_per_pairing} games per pairing, seed {self.seed}",
            f"{'agent':<{width}}  {'games':>6}  {'score':>6}  {'95% CI':>15}  {'won':>5}  {'shared':>6}  {'drawn':>5}  "
            f"{'lost':>5}  {'mean reward':>11}  {'95% CI':>17}  {'rating':>7}",
        ]
        for row in self.per_agent:
            low, high = row["score_ci95"]
            rlow, rhigh = row["mean_reward_ci95"]
            lines.append(
                f"{row['agent']:<{width}}  {row['games']:>6}  {row['score']:>6.3f}  [{low:.3f}, {high:.3f}]  "
                f"{row['wins']:>5}  {row['shared_wins']:>6}  {row['draws']:>5}  {row['losses']:>5}  "
                f"{row['mean_reward']:>11.3f}  [{rlow:>+7.3f},{rhigh:>+7.3f}]  {rating_of[row['agent']]['ordinal']:>7.2f}"
            )
        lines.append(score_note(self.num_players))
        cut = [f"{row['agent']} {row['truncated']} of {row['games']}" for row in self.per_agent if row["truncated"]]
        if cut:
            lines.append("cut off by the step limit (scored as the rules score a cut-off game; where they do not, "
                         "a draw): " + ", ".join(cut))
        lines.append("")
        label = "row beats column" if self.num_players == 1 else "score of row vs column"
        lines.append(f"head to head ({label}):")
        short = [a if len(a) <= 14 else "..." + a[-11:] for a in self.agents]
        lines.append(" " * width + "  " + "  ".join(f"{s:>14}" for s in short))
        for name, row in zip(self.agents, self.head_to_head):
            cells = "  ".join(f"{'-':>14}" if v is None else f"{v:>14.3f}" for v in row)
            lines.append(f"{name:<{width}}  {cells}")
        if self.num_players > 1 and self.ties:
            pairing = "the pairing's games" if self.num_players == 2 else "row's games at a table of column's copies"
            lines += ["", f"ties (share of {pairing} whose top place was shared):"]
            lines.append(" " * width + "  " + "  ".join(f"{s:>14}" for s in short))
            for name, row in zip(self.agents, self.ties):
                cells = "  ".join(f"{'-':>14}" if v is None else f"{v:>14.3f}" for v in row)
                lines.append(f"{name:<{width}}  {cells}")
        return "\n".join(lines)

    def heatmap(self, path) -> None:
        """Save the head-to-head matrix as a PNG heatmap."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        k = len(self.agents)
        matrix = np.array([[np.nan if v is None else v for v in row] for row in self.head_to_head], dtype=float)
        fig, ax = plt.subplots(figsize=(2 + 1.2 * k, 1.5 + 1.0 * k))
        image = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
        short = [a if len(a) <= 24 else "..." + a[-21:] for a in self.agents]
        ax.set_xticks(range(k), short, rotation=30, ha="right")
        ax.set_yticks(range(k), short)
        for i in range(k):
            for j in range(k):
                if not np.isnan(matrix[i, j]):
                    ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=9)
        ax.set_title(f"{self.env}: {'row beats column' if self.num_players == 1 else 'score, row vs column'}")
        fig.colorbar(image, ax=ax)
        fig.tight_layout()
        image = io.BytesIO()
        fig.savefig(image, format="png", dpi=100)
        plt.close(fig)
        atomic_write_bytes(Path(path), image.getvalue())

    def save(self, directory, stem: str = "tournament") -> dict:
        """Write JSON, CSV (+ head-to-head CSV) and the heatmap PNG into ``directory``; returns the paths."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        paths = {
            "json": directory / f"{stem}.json",
            "csv": directory / f"{stem}.csv",
            "head_to_head_csv": directory / f"{stem}_head_to_head.csv",
            "heatmap": directory / f"{stem}_heatmap.png",
        }
        self.to_json(paths["json"])
        self.to_csv(paths["csv"])
        self.heatmap(paths["heatmap"])
        return paths


class _CsvOutput(io.StringIO):
    """A text buffer for :mod:`csv` written to its path when the ``with`` block ends (``atomic_write_bytes``: a new
    file renamed into place, a link or a FIFO there replaced, never followed)."""

    def __init__(self, path: Path):
        super().__init__(newline="")
        self.path = path

    def __exit__(self, kind, value, traceback):
        if kind is None:
            atomic_write_bytes(self.path, self.getvalue().encode("utf-8"))
        return super().__exit__(kind, value, traceback)


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament, all it needs to be played: its results depend on nothing else."""

    deal: int  #: deal index
    deal_seed: int  #: the env seed of the deal
    focal_seat: int  #: the focal agent's seat (0 in a solitaire game)
    lineup: tuple  #: the agent index (into the tournament's specs) on every seat
    agent_seeds: tuple  #: the RNG seed of the agent on every seat


@dataclass
class PlayedGame:
    """What one :class:`ScheduledGame` gave."""

    returns: list
    steps: int
    #: what only recorded games keep: cut off by the env's step limit, the final state, the moves
    truncated: bool | None = None
    final_state: object = None
    moves: list | None = None
    #: the rules' winners of the final state (:func:`~kakurega.agents.outcome.rules_winners`; None: by returns)
    winners: tuple | None = None


@dataclass(frozen=True)
class Table:
    """The env and the agents a tournament plays with, by name: what a worker rebuilds them from."""

    env_name: str
    env_kwargs: dict
    specs: tuple  #: the label of every agent
    builds: tuple  #: the spec string each label is built from (a label the caller builds: ``None``)
    record: bool = False  #: keep each game's moves and final state
    modules: tuple = ()  #: modules to import first (they register agent kinds)


class _Seats:
    """A table's env and its agents, built once and reused: each game resets and reseeds its players."""

    def __init__(self, table: Table, factories: dict | None = None):
        import importlib

        from kakurega.agents.policy import context_for
        from kakurega.envs.registry import make

        for module in table.modules:
            importlib.import_module(module)
        self.table = table
        self.factories = factories or {}
        self.env = make(table.env_name, wrapped=False, **table.env_kwargs)
        self.context = context_for(table.env_name, table.env_kwargs)
        self.instances: dict[tuple[int, int], Agent] = {}

    def agent(self, index: int, seat: int) -> Agent:
        from kakurega.agents.specs import make_agent

        key = (index, seat)
        if key not in self.instances:
            label, build = self.table.specs[index], self.table.builds[index]
            if build is None:
                self.instances[key] = self.factories[label](self.context, seat)
            else:
                self.instances[key] = make_agent(build, self.context, seed=seat)
        return self.instances[key]

    def play(self, game: ScheduledGame, copy_state: bool = False) -> PlayedGame:
        """Play ``game``: a pure function of it, whatever was played before with these agents."""
        seat_agents = []
        for seat, (index, agent_seed) in enumerate(zip(game.lineup, game.agent_seeds)):
            agent = self.agent(index, seat)
            reseed(agent, agent_seed)
            seat_agents.append(agent)
        moves = [] if self.table.record else None
        returns, steps = play_game(self.env, seat_agents, game.deal_seed, moves=moves)
        winners = rules_winners(self.env.game, self.env.game_state)
        if not self.table.record:
            return PlayedGame(list(returns), steps, any(self.env.truncations.values()), winners=winners)
        state = copy.deepcopy(self.env.game_state) if copy_state else self.env.game_state
        return PlayedGame(list(returns), steps, any(self.env.truncations.values()), state, moves, winners)


def play_scheduled(work: tuple[Table, list[ScheduledGame]]) -> list[PlayedGame]:
    """Play a list of scheduled games at one table: the body of a tournament's task."""
    table, games = work
    seats = _Seats(table)
    return [seats.play(game, copy_state=True) for game in games]


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def schedule(num_agents: int, num_players: int, deals: int, seed: int, pairings: list) -> list[ScheduledGame]:
    """Every game of a tournament in its fixed order: deal by deal, pairing by pairing, focal seat by seat."""
    return list(iter_schedule(num_agents, num_players, deals, seed, pairings))


def iter_schedule(num_agents: int, num_players: int, deals: int, seed: int, pairings: list):
    """The games of :func:`schedule`, one at a time (a tournament never holds its whole schedule in memory)."""
    for d in range(deals):
        deal_seed = _seed(seed, 1, d)
        if num_players == 1:
            for i in range(num_agents):
                yield ScheduledGame(d, deal_seed, 0, (i,), (_seed(seed, 2, i, d),))
            continue
        for i, j in pairings:
            for focal_seat in range(num_players):
                lineup = [j] * num_players
                lineup[focal_seat] = i
                seeds = tuple(_seed(seed, 3, i, j, d, focal_seat, seat) for seat in range(num_players))
                yield ScheduledGame(d, deal_seed, focal_seat, tuple(lineup), seeds)


def schedule_length(num_agents: int, num_players: int, deals: int, pairings: list) -> int:
    """How many games :func:`schedule` holds, without building it."""
    return deals * (num_agents if num_players == 1 else len(pairings) * num_players)


def _played(table: Table, games, factories: dict, tasks):
    """Every scheduled game's :class:`PlayedGame`, in order: here (``games`` read one at a time), or as tasks of
    ``tasks``."""
    if tasks is None or tasks.backend == "local":
        seats = _Seats(table, factories)
        for game in games:
            yield seats.play(game)
        return
    from kakurega.agents.tasks import chunks

    work = [(table, part) for part in chunks(list(games), 4 * tasks.cpus)]
    for results in tasks.map(play_scheduled, work):
        yield from results


def _build_table(env_name: str, env_kwargs: dict, specs: list, factories: dict, record: bool, tasks) -> Table:
    """The table of a tournament; on Ray every agent must be a spec string, rebuilt by the task."""
    from kakurega.agents.specs import kind_module

    builds = []
    for spec in specs:
        made = factories.get(spec, spec)
        builds.append(made if isinstance(made, str) else None)
    remote = tasks is not None and tasks.backend != "local"
    modules = set()
    if remote:
        for spec, build in zip(specs, builds):
            if build is None:
                raise ValueError(f"agent {spec!r} is built in this process (an in-memory policy); a tournament on Ray "
                                 "rebuilds every agent from its spec string: name it by one (e.g. policy:PATH)")
            module = kind_module(build) or "kakurega"
            if module == "__main__":
                raise ValueError(f"agent kind of {build!r} is registered in __main__; Ray workers cannot import it: "
                                 "register it in a module of its own (see kakurega evaluate --import)")
            modules.add(module)
    return Table(env_name, dict(env_kwargs), tuple(specs), tuple(builds), record, tuple(sorted(modules)))


def run_tournament(
    env_name: str,
    specs: list[str],
    env_kwargs: dict | None = None,
    games: int = 100,
    seed: int = 0,
    agents: dict | None = None,
    progress=None,
    focal: str | None = None,
    on_game=None,
    tasks=None,
) -> TournamentResult:
    """Play every pairing of ``specs`` on ``env_name(**env_kwargs)`` (see module docstring).

    ``agents`` may map a spec to a factory ``(context, seed) -> Agent`` (e.g. the
    trainer's in-memory policy) or to the spec string it is built from (a
    label for it); other specs go through
    :func:`~kakurega.agents.specs.make_agent`. ``progress(done, total)`` is
    called after each game if given. ``focal`` (one of ``specs``) restricts the
    pairings to those of that agent (its own evaluation, at half the cost).
    ``on_game(record)``, if given, receives a :class:`GameRecord` after each game, with its moves.
    ``tasks`` (a :class:`~kakurega.agents.tasks.RayTasks`, entered) plays the games as Ray tasks,
    with the same results; factories are refused there (no policy object travels).
    """
    from kakurega.agents.policy import context_for

    if not specs:
        raise ValueError("run_tournament: give at least one agent spec")
    if len(set(specs)) != len(specs):
        raise ValueError(f"run_tournament: agent specs must be distinct, got {specs}")
    games = check_games(games)
    seed = check_seed(seed)
    env_kwargs = dict(env_kwargs or {})
    context = context_for(env_name, env_kwargs)
    num_players = context.num_players
    rules = context.new_rules()
    bounds = rules.return_bounds() if rules is not None else None
    deals = math.ceil(games / num_players)
    games_per_pairing = deals * num_players
    factories = agents or {}
    table = _build_table(env_name, env_kwargs, specs, factories, on_game is not None, tasks)

    k = len(specs)
    if num_players == 1:
        pairings = [(i,) for i in range(k)]
    elif num_players == 2:
        pairings = [(i, j) for i in range(k) for j in range(i + 1, k)] or [(0, 0)]
    else:
        pairings = [(i, j) for i in range(k) for j in range(k) if i != j] or [(0, 0)]
    if focal is not None:
        if focal not in specs:
            raise ValueError(f"focal agent {focal!r} is not among the specs {specs}")
        f = specs.index(focal)
        pairings = [p for p in pairings if (p[0] == f if num_players > 2 else f in p)]
    total = schedule_length(k, num_players, deals, pairings)
    scheduled = iter_schedule(k, num_players, deals, seed, pairings)
    to_play = iter_schedule(k, num_players, deals, seed, pairings)  # the same games, read by the players
    tally = _Tally(list(specs), num_players, bounds)
    start = time.perf_counter()
    for done, (game, played) in enumerate(zip(scheduled, _played(table, to_play, factories, tasks)), start=1):
        tally.add(game, played)
        if on_game:
            on_game(GameRecord(game.deal, game.deal_seed, game.focal_seat, tuple(specs[x] for x in game.lineup),
                               played.returns, played.steps, played.truncated, played.final_state, played.moves,
                               played.winners))
        if progress:
            progress(done, total)
    return tally.result(env_name, env_kwargs, games_per_pairing, seed, time.perf_counter() - start)


class _Tally:
    """The statistics of a tournament, added game by game in the schedule's order."""

    def __init__(self, specs: list, num_players: int, bounds: tuple | None = None):
        from openskill.models import PlackettLuce

        k = len(specs)
        self.specs, self.num_players, self.k = specs, num_players, k
        bounds = None if bounds is None else (float(bounds[0]), float(bounds[1]))
        self.stats = [AgentStats(spec, bounds=bounds) for spec in specs]
        self.h2h_wins = np.zeros((k, k))
        self.h2h_games = np.zeros((k, k), dtype=int)
        self.pair_games = np.zeros((k, k), dtype=int)
        self.pair_ties = np.zeros((k, k), dtype=int)
        self.model = PlackettLuce()
        self.ratings = [self.model.rating(name=spec) for spec in specs]
        self.total_steps = 0
        self.deal_returns: list[tuple] = []  # solitaire: every agent's (return, score) on the current deal

    def add(self, game: ScheduledGame, played: PlayedGame) -> None:
        self.total_steps += played.steps
        if self.num_players == 1:
            self._add_solitaire(game, played)
        else:
            self._add_table(game, played)

    def _add_solitaire(self, game: ScheduledGame, played: PlayedGame) -> None:
        (i,), returns, winners = game.lineup, played.returns, played.winners
        share = win_share(returns, 0, winners)
        self.stats[i].add(classify_outcome(returns, 0, winners), returns[0], share, bool(played.truncated))
        self.deal_returns.append((returns[0], share))
        if len(self.deal_returns) < self.k:
            return
        deal, self.deal_returns = self.deal_returns, []
        # who beat whom on the deal is the rules' call, as every score's (a shaped or per-round return that ranks
        # two failed games, or two won ones, does not make either a win); the ratings rate the returns
        scores = [s for _, s in deal]
        for a in range(self.k):
            for b in range(self.k):
                if a != b:
                    self.h2h_wins[a, b] += 1.0 if scores[a] > scores[b] else 0.5 if scores[a] == scores[b] else 0.0
                    self.h2h_games[a, b] += 1
        if self.k > 1:
            rated = self.model.rate([[r] for r in self.ratings], scores=[float(x) for x, _ in deal])
            self.ratings = [r[0] for r in rated]

    def _add_table(self, game: ScheduledGame, played: PlayedGame) -> None:
        returns, focal_seat, winners = played.returns, game.focal_seat, played.winners
        i = game.lineup[focal_seat]
        j = next((x for s, x in enumerate(game.lineup) if s != focal_seat), i)
        tied = int(sum(win_share(returns, s, winners) > 0 for s in range(self.num_players)) > 1)  # top place shared
        # two players: one match, both cells; more: row i sits with copies of j, another table than j with copies of
        # i (one cell when an agent plays copies of itself)
        for a, b in {(i, j), (j, i)} if self.num_players == 2 else {(i, j)}:
            self.pair_games[a, b] += 1
            self.pair_ties[a, b] += tied
        focal_share = win_share(returns, focal_seat, winners)
        self.stats[i].add(classify_outcome(returns, focal_seat, winners), returns[focal_seat], focal_share,
                          bool(played.truncated))
        if i == j:
            return
        self.h2h_wins[i, j] += focal_share
        self.h2h_games[i, j] += 1
        field_seats = [s for s in range(self.num_players) if s != focal_seat]
        if self.num_players == 2:
            other = field_seats[0]
            other_share = win_share(returns, other, winners)
            self.stats[j].add(classify_outcome(returns, other, winners), returns[other], other_share,
                              bool(played.truncated))
            self.h2h_wins[j, i] += other_share
            self.h2h_games[j, i] += 1
        field_score = float(np.mean([returns[s] for s in field_seats]))
        new = self.model.rate([[self.ratings[i]], [self.ratings[j]]], scores=[float(returns[focal_seat]), field_score])
        self.ratings[i], self.ratings[j] = new[0][0], new[1][0]

    def result(self, env_name: str, env_kwargs: dict, games_per_pairing: int, seed: int,
               wall_seconds: float) -> TournamentResult:
        k, specs = self.k, self.specs
        h2h_wins, h2h_games, pair_games, pair_ties = self.h2h_wins, self.h2h_games, self.pair_games, self.pair_ties
        num_players, stats, ratings, total_steps = self.num_players, self.stats, self.ratings, self.total_steps
        head_to_head = [
            [None if i == j or h2h_games[i, j] == 0 else float(h2h_wins[i, j] / h2h_games[i, j]) for j in range(k)]
            for i in range(k)
        ]
        return TournamentResult(
            env=env_name,
            env_kwargs=env_kwargs,
            num_players=num_players,
            agents=list(specs),
            games_per_pairing=games_per_pairing,
            seed=seed,
            per_agent=[s.summary() for s in stats],
            head_to_head=head_to_head,
            head_to_head_games=h2h_games.tolist(),
            ties=[[None if pair_games[i, j] == 0 else float(pair_ties[i, j] / pair_games[i, j]) for j in range(k)]
                  for i in range(k)],
            ratings=[
                {"agent": spec, "mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())}
                for spec, r in zip(specs, ratings)
            ],
            wall_seconds=wall_seconds,
            total_steps=total_steps,
        )
