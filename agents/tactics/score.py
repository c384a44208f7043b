"""Score agents on a tactics suite: the share of positions each one solves.

Every position is replayed through the env (its seed and moves), the agent is
``reset()`` and asked for its move exactly as in play (:func:`choose_action`:
its own observation and, if it asks, a determinization sampler for its own
seat). The agent never saw the moves before the position: an agent that
keeps memory of the game (the heuristics' per-position memory, a recurrent
state) is asked cold, and its random draws start anew from ``(seed, position
id)``: a position's verdict does not depend on the positions asked before it
(``--category``), nor on the agent's place among ``--agents``. A position is
solved when the move is in ``good`` or not in ``bad``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kakurega.agents.tournament import wilson_interval


@dataclass
class AgentScore:
    """One agent's results on a suite."""

    spec: str
    solved: dict = field(default_factory=dict)  #: category -> positions solved
    total: dict = field(default_factory=dict)  #: category -> positions asked
    failed: list = field(default_factory=list)  #: ids of the positions not solved

    def add(self, category: str, solved: bool, position_id: str) -> None:
        self.total[category] = self.total.get(category, 0) + 1
        self.solved[category] = self.solved.get(category, 0) + int(solved)
        if not solved:
            self.failed.append(position_id)

    def share(self, category: str | None = None) -> tuple[float, float, float, int]:
        """``(share, low, high, positions)`` with a 95% Wilson interval, for one category or all."""
        if category is None:
            solved, total = sum(self.solved.values()), sum(self.total.values())
        else:
            solved, total = self.solved.get(category, 0), self.total.get(category, 0)
        low, high = wilson_interval(solved, total)
        return (solved / total if total else 0.0), low, high, total

    def to_dict(self) -> dict:
        share, low, high, total = self.share()
        return {"agent": self.spec, "solved": sum(self.solved.values()), "positions": total, "share": share,
                "ci95": [low, high],
                "categories": {c: {"solved": self.solved[c], "positions": self.total[c]} for c in self.total},
                "failed": list(self.failed)}


@dataclass
class TacticsResult:
    """Every agent's score on one suite."""

    env: str
    categories: list
    scores: list
    options: dict = field(default_factory=dict)  #: the env options of the suite's table (its first position's)

    def table(self, show_failed: int = 20) -> str:
        """The shares as a text table: one row per agent, a column per category and the total."""
        columns = self.categories + ["all"]
        head = f"{'agent':<28}" + "".join(f"{c:>26}" for c in columns)
        table = "".join(f", {key}={value}" for key, value in sorted(self.options.items()))
        lines = [f"tactics: {self.env}{table}, share of positions solved [95% interval]", head, "-" * len(head)]
        for score in self.scores:
            cells = []
            for category in columns:
                share, low, high, total = score.share(None if category == "all" else category)
                solved = round(share * total)
                cells.append(f"{solved:>3}/{total:<3} {share:.2f} [{low:.2f}, {high:.2f}]")
            lines.append(f"{score.spec[:27]:<28}" + "".join(f"{cell:>26}" for cell in cells))
        for score in self.scores:
            if score.failed:
                shown = ", ".join(score.failed[:show_failed])
                more = f", ... ({len(score.failed)} in all)" if len(score.failed) > show_failed else ""
                lines.append(f"failed by {score.spec}: {shown}{more}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"env": self.env, "options": self.options, "categories": self.categories,
                "agents": [s.to_dict() for s in self.scores]}


def score_agents(suite, specs: list[str], seed: int = 0, categories: list[str] | None = None,
                 progress=None) -> TacticsResult:
    """Ask every agent of ``specs`` for its move at every position of ``suite`` (or those of ``categories``)."""
    import zlib

    from kakurega.agents.base import AgentContext, choose_action, reseed
    from kakurega.agents.specs import make_agent, parse_spec, require_unattended
    from kakurega.agents.tactics.suite import replay

    positions = [p for p in suite.positions if categories is None or p.category in categories]
    if not positions:
        raise ValueError(f"no position of {suite.source} is in the categories {categories}; "
                         f"its categories: {', '.join(suite.categories())}")
    for spec in specs:
        require_unattended(parse_spec(spec), "an agent at a tactics position")
    scores = [AgentScore(spec) for spec in specs]
    agents: dict[tuple, object] = {}  # one agent per spec and env configuration, reset at every position
    envs: dict = {}
    for index, position in enumerate(positions):
        env = replay(suite.env, position, envs)
        key_options = tuple(sorted((k, repr(v)) for k, v in position.options.items()))
        for number, (spec, score) in enumerate(zip(specs, scores)):
            agent = agents.get((number, key_options))
            if agent is None:
                context = AgentContext.from_env(env, suite.env, position.options)
                agent = agents[(number, key_options)] = make_agent(spec, context, seed=seed)
            agent.reset()
            reseed(agent, (seed, zlib.crc32(position.id.encode("utf-8"))))  # the same draws wherever it is asked
            action = choose_action(agent, env, position.seat)
            score.add(position.category, position.solved_by(action), position.id)
        if progress is not None:
            progress(index + 1, len(positions))
    ordered = [c for c in suite.categories() if any(p.category == c for p in positions)]
    return TacticsResult(env=suite.env, categories=ordered, scores=scores, options=dict(positions[0].options))
