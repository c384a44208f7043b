"""The opponent pool of the self-play league.

A pool is a weighted list of entries. Each entry is an agent spec
(``random``, ``heuristic``, ``policy:PATH``, any registered kind) or one of two
league entries:

- ``self``: the learner's current policy (weights pushed in by the trainer
  every ``league.sync_every`` steps with :meth:`OpponentPool.set_current`);
- ``snapshots``: a frozen past version of the learner, drawn uniformly from
  the bounded list of snapshot files (:meth:`OpponentPool.set_snapshots`).

Every opponent seat of every episode draws its entry independently, with
probability proportional to the weights of the entries *available* then
(``self`` before the first sync and ``snapshots`` before the first snapshot are
skipped; ``snapshots`` falls back to ``self`` when there is no snapshot yet).
Agents are built once per (entry, seat slot) and reused, so agents with memory
never play two seats at once; they are reset and reseeded every episode. The
agents of a snapshot dropped from the list are dropped with it, so the pool
holds at most ``league.max_snapshots`` snapshots' agents.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from kakurega.agents.base import Agent, AgentContext, reseed
from kakurega.agents.policy import PolicyAgent, check_compatible, read_policy
from kakurega.agents.specs import make_agent, parse_spec
from kakurega.envs.core.safe_load import short_repr

LEAGUE_ENTRIES = ("self", "snapshots")


@dataclass(frozen=True)
class PoolEntry:
    """One kind of opponent and its share of the draws."""

    agent: str
    weight: float


EXPECTED_ENTRIES = 'a list of agent specs (["random", "heuristic"]) or of {"agent": SPEC, "weight": NUMBER} dicts'


def _weight(agent: str, weight) -> float:
    """``weight`` as a float, or an error: a finite number >= 0 (not a bool, not a string)."""
    if isinstance(weight, (bool, np.bool_)) or not isinstance(weight, numbers.Real):
        raise TypeError(
            f"opponent {short_repr(agent)}: weight must be a number >= 0, got {short_repr(weight)} "
            f"of type {type(weight).__name__}"
        )
    weight = float(weight)
    if not (math.isfinite(weight) and weight >= 0):
        raise ValueError(f"opponent {short_repr(agent)}: weight must be a finite number >= 0, got {weight}")
    return weight


def parse_entries(entries) -> list[PoolEntry]:
    """Entries from a list of spec strings (equal weights) or ``{"agent":..., "weight":...}`` dicts."""
    if isinstance(entries, (str, bytes, Mapping, PoolEntry)) or not isinstance(entries, Iterable):
        # a bare "random" would be read letter by letter, a bare dict key by key
        hint = f"; write [{short_repr(entries)}]" if isinstance(entries, (str, Mapping, PoolEntry)) else ""
        raise TypeError(f"opponents must be {EXPECTED_ENTRIES}, got {short_repr(entries)}{hint}")
    parsed = []
    for item in entries:
        if isinstance(item, PoolEntry):
            parsed.append(PoolEntry(item.agent, _weight(item.agent, item.weight)))
        elif isinstance(item, str):
            parsed.append(PoolEntry(item, 1.0))
        elif isinstance(item, Mapping):
            unknown = sorted(map(str, set(item) - {"agent", "weight"}))
            if unknown:
                raise ValueError(
                    f"opponent entry {short_repr(item)}: unknown key {short_repr(unknown[0])}; expected agent and weight"
                )
            agent = item.get("agent")
            if not isinstance(agent, str) or not agent:
                raise TypeError(f"opponent entry {short_repr(item)}: 'agent' must be an agent spec string, "
                                f"got {short_repr(agent)}")
            parsed.append(PoolEntry(agent, _weight(agent, item.get("weight", 1.0))))
        else:
            raise TypeError(f"opponent entry {short_repr(item)}: expected a spec string or {{agent: SPEC, weight: NUMBER}}")
    if not parsed:
        raise ValueError("the opponent pool is empty; list at least one opponent (e.g. random)")
    for entry in parsed:
        if entry.agent not in LEAGUE_ENTRIES:
            parse_spec(entry.agent)
    total = sum(e.weight for e in parsed)
    if total <= 0:
        raise ValueError("the opponent pool's weights sum to 0; give at least one opponent a positive weight")
    if not math.isfinite(total):
        raise ValueError(f"the opponent pool's weights sum to {total}; use smaller weights (only their ratios count)")
    return parsed


class OpponentPool:
    """Draws opponents for each episode from weighted entries (see module docstring)."""

    def __init__(self, entries, context: AgentContext):
        self.entries = parse_entries(entries)
        self.context = context
        self._current: tuple[dict, list] | None = None
        self._snapshot_paths: list[str] = []
        self._snapshot_cache: dict[str, tuple[dict, list]] = {}
        self._agents: dict[tuple, Agent] = {}
        self.draw_counts: dict[str, int] = {e.agent: 0 for e in self.entries}
        for entry in self.entries:  # a spec that builds no agent for this env is refused now, not at a first draw
            if entry.agent not in LEAGUE_ENTRIES and (entry.agent, 0) not in self._agents:
                self._agents[(entry.agent, 0)] = make_agent(entry.agent, context, seed=0)

    # ------------------------------------------------------------- league
    def set_current(self, metadata: dict, layers: list) -> None:
        """The learner's latest weights, used by the ``self`` entry."""
        self._current = (metadata, layers)

    def set_snapshots(self, paths: list[str], loaded: dict | None = None) -> None:
        """The frozen snapshot files the ``snapshots`` entry draws from; ``loaded`` maps a path to its
        ``(metadata, layers)`` already read (a process that cannot see the files gets them as data)."""
        self._snapshot_paths = [str(p) for p in paths]
        for path in list(self._snapshot_cache):
            if path not in self._snapshot_paths:
                del self._snapshot_cache[path]
        # a dropped snapshot's agents go with it (a long run rotates through hundreds of snapshots)
        for key in [k for k in self._agents if k[0] == "snapshot" and k[1] not in self._snapshot_paths]:
            del self._agents[key]
        for path in self._snapshot_paths:
            if path not in self._snapshot_cache:
                meta, layers = loaded[path] if loaded and path in loaded else read_policy(path)
                check_compatible(meta, self.context, source=f"snapshot {path}")
                self._snapshot_cache[path] = (meta, layers)

    # -------------------------------------------------------------- draws
    def _available(self) -> tuple[list[PoolEntry], np.ndarray]:
        usable = []
        for entry in self.entries:
            if entry.agent == "self" and self._current is None:
                continue
            if entry.agent == "snapshots" and not self._snapshot_paths and self._current is None:
                continue
            if entry.weight > 0:
                usable.append(entry)
        if not usable:
            raise RuntimeError(
                "no opponent is available: the pool holds only 'self'/'snapshots' and the trainer has not "
                "pushed any weights yet; add random or heuristic to the opponents"
            )
        weights = np.array([e.weight for e in usable], dtype=np.float64)
        return usable, weights / weights.sum()

    def draw(self, rng: np.random.Generator, num_opponents: int) -> list[tuple[str, Agent]]:
        """``num_opponents`` (label, agent) pairs for one episode, reset and reseeded from ``rng``."""
        usable, probs = self._available()
        picks = rng.choice(len(usable), size=num_opponents, p=probs) if len(usable) > 1 else [0] * num_opponents
        seeds = rng.integers(2**63, size=num_opponents)
        chosen = []
        for slot in range(num_opponents):
            entry = usable[int(picks[slot])]
            label, agent = self._agent_for(entry, slot, rng)
            reseed(agent, int(seeds[slot]))
            agent.reset()
            self.draw_counts[entry.agent] = self.draw_counts.get(entry.agent, 0) + 1
            chosen.append((label, agent))
        return chosen

    def _policy_agent(self, key, meta, layers, label) -> PolicyAgent:
        agent = self._agents.get(key)
        if agent is None or agent.layers is not layers:
            # PPO opponents sample from their policy (as the learner does); DQN ones act greedily
            sample = meta.get("algorithm") == "ppo"
            agent = PolicyAgent(self.context, 0, layers=layers, metadata=meta, sample=sample, name=label)
            self._agents[key] = agent
        return agent

    def _agent_for(self, entry: PoolEntry, slot: int, rng) -> tuple[str, Agent]:
        if entry.agent == "self" or (entry.agent == "snapshots" and not self._snapshot_paths):
            meta, layers = self._current
            return "self", self._policy_agent(("self", slot), meta, layers, "self")
        if entry.agent == "snapshots":
            path = self._snapshot_paths[int(rng.integers(len(self._snapshot_paths)))]
            meta, layers = self._snapshot_cache[path]
            return f"snapshot:{path}", self._policy_agent(("snapshot", path, slot), meta, layers, path)
        key = (entry.agent, slot)
        agent = self._agents.get(key)
        if agent is None:
            agent = make_agent(entry.agent, self.context, seed=slot)
            self._agents[key] = agent
        return entry.agent, agent
