"""Tactics suites as data: positions reached through the rules engine, each with its claim.

A suite is one JSON file per table (a game and its options): the game's
first table is ``envs/data/tactics/<game>.json``, the others
``<game>-<key>=<value>....json`` (e.g. ``kakurenbo-num_players=3.json``).
The positions of a file share their options, which say the table
(:func:`find_suite` picks the file of the options asked)::

    {
      "format": "kakurega-tactics-suite",
      "version": 1,
      "env": "animal_chain_v1",               registry name: the engine the positions replay in
      "positions": [
        {
          "id": "animal_chain-win_now-01",
          "category": "win_now",               a pattern of kakurega.agents.tactics.patterns
          "options": {},                       keyword arguments of env()
          "seed": 1234,                        env.reset(seed=...)
          "moves": [12, 40, ...],              every action from the deal to the position
          "seat": "player_1",                  the agent to act at the position
          "good": [1017],                      playing any of them is right ("bad": any of them is a blunder)
          "reason": "r6c1 is player_0's base row: playing there wins at once",
          "named": ["play Dg|Ct onto r6c1"]    the claimed moves in words (informational)
        }, ...
      ]
    }

A position exists only as the moves that reach it, so it is always a legal
position of the engine; it stays valid while the engine is unchanged, and
:func:`kakurega.agents.tactics.patterns.verify` re-derives every claim from the
rules (``tests/test_tactics.py`` does so for every stored position). Reading
a suite never trusts it: the file goes through the safe loader, every field
is type-checked, and replaying checks each move against the legal ones.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "kakurega-tactics-suite"
VERSION = 1
#: the largest suite file read
MAX_SUITE_BYTES = 5_000_000
#: the most positions a suite may hold, and the most moves leading to one
MAX_POSITIONS, MAX_MOVES = 10_000, 10_000
#: where the shipped suites live
DIRECTORY = Path(__file__).resolve().parents[2] / "envs" / "data" / "tactics"
KINDS = ("good", "bad")


class SuiteError(ValueError):
    """A suite that cannot be read or replayed; the message names the file, the position and the field."""


@dataclass
class Position:
    """One position of a suite and its claim."""

    id: str
    category: str
    options: dict
    seed: int
    moves: list
    seat: str
    kind: str  #: "good" (any of ``claimed`` is right) or "bad" (any of ``claimed`` is a blunder)
    claimed: list
    reason: str
    named: list = field(default_factory=list)

    def solved_by(self, action: int) -> bool:
        """True when ``action`` solves the position: in ``good``, or not in ``bad``."""
        return (action in self.claimed) == (self.kind == "good")

    def to_dict(self) -> dict:
        return {"id": self.id, "category": self.category, "options": self.options, "seed": self.seed,
                "moves": [int(m) for m in self.moves], "seat": self.seat, self.kind: sorted(self.claimed),
                "reason": self.reason, "named": self.named}


@dataclass
class Suite:
    """The positions of one game, all replayed in env ``env``."""

    env: str
    positions: list
    source: str = "<suite>"

    def categories(self) -> list[str]:
        """The categories of the suite, in order of first appearance."""
        return list(dict.fromkeys(p.category for p in self.positions))

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "env": self.env,
                "positions": [p.to_dict() for p in self.positions]}

    def save(self, path: str | os.PathLike) -> Path:
        """Write the suite as JSON (one position per line; written aside, then renamed)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(p.to_dict(), separators=(", ", ": ")) for p in self.positions]
        head = json.dumps({"format": FORMAT, "version": VERSION, "env": self.env})[:-1]
        text = head + ', "positions": [\n' + ",\n".join(lines) + "\n]}\n"
        from kakurega.agents.training.run_dir import atomic_write_bytes

        atomic_write_bytes(path, text.encode("utf-8"))  # a link or a FIFO at either name is never followed
        return path


def suite_path(env_name: str) -> Path:
    """The shipped suite of ``env_name``'s game's first table: ``envs/data/tactics/<game>.json``."""
    game = env_name.rpartition("_v")[0] or env_name
    return DIRECTORY / f"{game}.json"


def shipped_suites() -> list[Path]:
    """Every shipped suite file."""
    return sorted(DIRECTORY.glob("*.json"))


def game_suites(env_name: str) -> list[Path]:
    """The shipped suites of ``env_name``'s game, one per table: ``<game>.json`` first, then ``<game>-*.json``."""
    game = env_name.rpartition("_v")[0] or env_name
    others = sorted(DIRECTORY.glob(f"{game}-*.json"))
    return [path for path in [DIRECTORY / f"{game}.json", *others] if path.is_file()]


def table_of(suite: Suite, env_name: str) -> dict:
    """The table of ``suite`` played in ``env_name``: its positions' options with every other at its default."""
    from kakurega.agents.policy import resolved_env_options

    return resolved_env_options(env_name, suite.positions[0].options)


def table_options(env_name: str, options: dict) -> dict:
    """``options`` checked by ``env_name``'s env (its ``TypeError``/``ValueError`` in words), defaults filled in."""
    from kakurega.agents.policy import resolved_env_options
    from kakurega.envs.registry import get_spec

    definition = get_spec(env_name).definition()
    if definition is not None:
        definition.check(dict(options))
    return resolved_env_options(env_name, options)


def find_suite(env_name: str, options: dict | None = None) -> Suite:
    """The shipped suite of ``env_name``'s table with ``options`` (defaults filled in).

    Without options: the game's first table (``<game>.json``), whatever its
    options. A table without a suite raises ``ValueError`` naming the tables
    that have one; an option the env refuses, its ``TypeError``/``ValueError``.
    """
    paths = game_suites(env_name)
    if not paths:
        names = ", ".join(p.stem for p in shipped_suites()) or "none"
        raise ValueError(f"no tactics suite for {env_name}; suites: {names}")
    if not options:
        return load_suite(paths[0])
    wanted = table_options(env_name, options)
    suites = [load_suite(path) for path in paths]
    tables = [table_of(suite, env_name) for suite in suites]
    for suite, table in zip(suites, tables):
        if table == wanted:
            return suite
    keys = sorted({key for table in tables for key in table if any(t.get(key) != table[key] for t in tables)}
                  | {key for key in wanted if any(t.get(key) != wanted[key] for t in tables)})

    def words(table: dict) -> str:
        return ", ".join(f"{key}={table.get(key)}" for key in keys)

    offers = "; ".join(f"{words(table)} ({path.name})" for path, table in zip(paths, tables))
    raise ValueError(f"no tactics suite for {env_name} with {words(wanted)}; the tables with one: {offers}")


def load_suite(path: str | os.PathLike) -> Suite:
    """The suite in the JSON file at ``path``, every field checked (no move replayed yet)."""
    from kakurega.envs.core.safe_load import load_file

    data = load_file(path, max_bytes=MAX_SUITE_BYTES, json_only=True, error=SuiteError, max_nodes=2_000_000)
    return parse_suite(data, os.fspath(path))


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_suite(data, source: str = "<suite>") -> Suite:
    """A :class:`Suite` from parsed JSON data, each field checked; raises :class:`SuiteError`."""
    from kakurega.envs.core.safe_load import short_repr
    from kakurega.envs.registry import ENV_SPECS

    if not isinstance(data, dict):
        raise SuiteError(f"{source}: a tactics suite is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise SuiteError(f"{source}: format: expected {FORMAT!r}, got {short_repr(data.get('format'))}")
    if data.get("version") != VERSION:
        raise SuiteError(f"{source}: version: expected {VERSION}, got {short_repr(data.get('version'))}")
    env = data.get("env")
    if env not in ENV_SPECS:
        raise SuiteError(f"{source}: env: expected a registered env ({', '.join(ENV_SPECS)}), got {short_repr(env)}")
    entries = data.get("positions")
    if not isinstance(entries, list) or not 0 < len(entries) <= MAX_POSITIONS:
        raise SuiteError(f"{source}: positions: expected a list of 1 to {MAX_POSITIONS} positions")
    positions, seen = [], set()
    for index, entry in enumerate(entries):
        position = _parse_position(entry, f"{source}: position {index}")
        if position.id in seen:
            raise SuiteError(f"{source}: position {index}: id {position.id!r} appears twice")
        seen.add(position.id)
        positions.append(position)
    return Suite(env=env, positions=positions, source=source)


def _parse_position(entry, where: str) -> Position:
    from kakurega.envs.core.safe_load import short_repr

    if not isinstance(entry, dict):
        raise SuiteError(f"{where}: expected a JSON object, got {type(entry).__name__}")
    kinds = [kind for kind in KINDS if kind in entry]
    allowed = {"id", "category", "options", "seed", "moves", "seat", "reason", "named", *KINDS}
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise SuiteError(f"{where}: unknown field(s) {', '.join(map(short_repr, unknown))}; expected {sorted(allowed)}")
    checks = {
        "id": lambda v: isinstance(v, str) and 0 < len(v) <= 200,
        "category": lambda v: isinstance(v, str) and v.isidentifier(),
        "options": lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v),
        "seed": lambda v: _is_int(v) and 0 <= v < 2**63,
        "moves": lambda v: isinstance(v, list) and len(v) <= MAX_MOVES and all(_is_int(m) and m >= 0 for m in v),
        "seat": lambda v: isinstance(v, str) and v.startswith("player_"),
        "reason": lambda v: isinstance(v, str) and v.strip() != "",
    }
    expected = {"id": "a non-empty string", "category": "a pattern name", "options": "an object of env options",
                "seed": "an integer in [0, 2**63)", "moves": f"a list of at most {MAX_MOVES} action ids",
                "seat": "an agent name such as 'player_0'", "reason": "a sentence"}
    for name, check in checks.items():
        if name not in entry or not check(entry[name]):
            raise SuiteError(f"{where}: {name}: expected {expected[name]}, got {short_repr(entry.get(name))}")
    if len(kinds) != 1:
        raise SuiteError(f"{where}: expected exactly one of 'good' (right moves) or 'bad' (blunders)")
    kind = kinds[0]
    claimed = entry[kind]
    if not isinstance(claimed, list) or not claimed or not all(_is_int(a) and a >= 0 for a in claimed):
        raise SuiteError(f"{where}: {kind}: expected a non-empty list of action ids, got {short_repr(claimed)}")
    named = entry.get("named", [])
    if not isinstance(named, list) or not all(isinstance(n, str) for n in named):
        raise SuiteError(f"{where}: named: expected a list of strings, got {short_repr(named)}")
    return Position(id=entry["id"], category=entry["category"], options=dict(entry["options"]), seed=entry["seed"],
                    moves=list(entry["moves"]), seat=entry["seat"], kind=kind, claimed=sorted(set(claimed)),
                    reason=entry["reason"], named=list(named))


def replay(env_name: str, position: Position, envs: dict | None = None):
    """A raw env of ``env_name`` at ``position``: reset with its seed, its moves played; checks every step.

    ``envs`` (a dict the caller keeps) reuses one env per set of options across
    calls: building an env loads its data files. Raises :class:`SuiteError`
    naming the move when one is illegal or the game ends early, or when the
    seat to act is not the position's.
    """
    from kakurega.envs.registry import make

    key = (env_name, json.dumps(position.options, sort_keys=True, default=repr))
    env = None if envs is None else envs.get(key)
    if env is None:
        try:
            env = make(env_name, wrapped=False, **position.options)
        except (TypeError, ValueError) as error:
            raise SuiteError(f"position {position.id}: options {position.options}: {error}") from None
        if envs is not None:
            envs[key] = env
    env.reset(seed=position.seed)
    for index, action in enumerate(position.moves):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            raise SuiteError(f"position {position.id}: the game is over before move {index}")
        if action >= env.game.num_actions or not env.infos[agent]["action_mask"][action]:
            raise SuiteError(f"position {position.id}: move {index} (action {action}) is not legal for {agent}: "
                             "the engine changed since the suite was generated (regenerate it)")
        env.step(action)
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        raise SuiteError(f"position {position.id}: the game is over at the position")
    if agent != position.seat:
        raise SuiteError(f"position {position.id}: {agent} is to act, the suite says {position.seat}")
    return env
