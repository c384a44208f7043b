"""Game records: one small JSON file per played game, replayed move by move.

A record holds what it takes to play a game again exactly: the env, its
options, the seed of the deal, and every move with the agent that made it
(the agent specs and final returns come along for reading and checking).
``kakurega play --record FILE``, ``kakurega evaluate ... --record-dir DIR``
and the web app (``kakurega serve --record-dir DIR``) write records;
``kakurega replay FILE`` and the web app read them. The format
(docs/web.md)::

    {
      "format": "kakurega-game-record",
      "version": 1,
      "env": "kakurenbo_v0",              registry name (its version is the suffix)
      "env_version": 0,
      "options": {"num_players": 3},      keyword arguments of env(); {} for the defaults
      "seed": 12345,                      env.reset(seed=...): every chance draw follows from it
      "agents": {"player_0": "human", "player_1": "heuristic", "player_2": "random"},
      "moves": [["player_0", 17], ["player_1", 3], ...],
      "end": "terminated",                or "truncated" (cut off by the step limit)
      "returns": {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0},
      "kakurega_version": "0.1.0",        optional, informational
      "created": "2026-12-01T16:34:17Z"   optional, informational
    }

A record is a complete log: with the seed, it determines every hidden card.
Whoever watches a replay chooses a view (:func:`describe_move`: every move
in the words that view may know, and the renders of that view), and a
player's view shows, at each move, only what that player knew then. Reading a record never trusts it: the file goes
through the safe loader (size, depth and duplicate keys), every field is
type-checked, and replaying checks that each move is its agent's turn and
legal, and that the game ends with the recorded returns
(:class:`RecordError` says which move and why).
"""

from __future__ import annotations

import datetime
import errno
import json
import math
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from kakurega.envs.core.safe_load import check_printable, is_printable_text, short_repr

FORMAT = "kakurega-game-record"
VERSION = 1
#: the largest record file read (a 1,000-move game takes about 20 kB)
MAX_RECORD_BYTES = 2_000_000
#: the most moves a record may hold
MAX_MOVES = 100_000
#: the longest agent spec a record holds (as ``kakurega.agents.specs.MAX_SPEC_LENGTH``)
MAX_SPEC_LENGTH = 4096
_MAX_NODES = 4 * MAX_MOVES  # JSON values in a record of MAX_MOVES moves, with room to spare
#: seeds are drawn below 2**53 so that a record read by JavaScript keeps them exact
SEED_LIMIT = 2**53
#: env options that choose how a game is shown, not how it is played: never recorded
COSMETIC_OPTIONS = ("render_mode", "render_view")
_REQUIRED = ("format", "version", "env", "env_version", "options", "seed", "agents", "moves", "end", "returns")
_OPTIONAL = ("kakurega_version", "created")
ENDS = ("terminated", "truncated")


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message names the file, the field or move, and why."""


def new_seed() -> int:
    """A fresh deal seed for a game that will be recorded (below :data:`SEED_LIMIT`)."""
    return secrets.randbelow(SEED_LIMIT)


@dataclass
class Record:
    """One game: everything :func:`replay` needs, plus the agent specs and final returns."""

    env: str
    options: dict
    seed: int
    agents: dict  #: agent name -> spec string (``"human"`` for a person)
    moves: list = field(default_factory=list)  #: ``[agent, action]`` pairs in the order played
    end: str = ""  #: "terminated" or "truncated" once the game is over
    returns: dict = field(default_factory=dict)  #: agent name -> final return
    #: where the record was read from, for messages (not written)
    source: str = field(default="<record>", compare=False, repr=False)

    @classmethod
    def start(cls, env_name: str, options: dict, seed: int, agents: dict) -> Record:
        """An empty record of a game about to be played (moves are appended as played). An option naming a data
        file is written as the file's absolute path, so the record replays from any folder."""
        files = _file_options(env_name)
        options = {k: os.path.abspath(os.fspath(v)) if k in files and isinstance(v, (str, os.PathLike)) else v
                   for k, v in options.items() if k not in COSMETIC_OPTIONS}
        try:
            json.dumps(options, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise RecordError(f"env options {options!r} cannot be written to a record as JSON: {error}") from None
        return cls(env=env_name, options=options, seed=int(seed), agents={str(k): str(v) for k, v in agents.items()})

    def add(self, agent: str, action: int) -> None:
        """Append one move."""
        self.moves.append([agent, int(action)])

    def finish(self, raw) -> None:
        """Note how the game of raw env ``raw`` (over now) ended and the final returns."""
        if not raw.agents or not any(raw.terminations.values()) and not any(raw.truncations.values()):
            raise RecordError("the record of a game can only be finished once the game is over")
        self.end = "terminated" if any(raw.terminations.values()) else "truncated"
        returns = raw.game.returns(raw.game_state)
        self.returns = {agent: float(value) for agent, value in zip(raw.possible_agents, returns)}

    def to_dict(self) -> dict:
        """The record as JSON data (the documented format)."""
        data = {
            "format": FORMAT,
            "version": VERSION,
            "env": self.env,
            "env_version": env_version(self.env),
            "options": self.options,
            "seed": self.seed,
            "agents": self.agents,
            "moves": [[agent, int(action)] for agent, action in self.moves],
            "end": self.end,
            "returns": self.returns,
            "kakurega_version": _package_version(),
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        return data

    def save(self, path: str | os.PathLike, replace: bool = True) -> Path:
        """Write the record as JSON to ``path`` (written aside, then renamed: never half a file).

        The data goes to a new file ``<name>.partial`` (created exclusively, never
        through a link or into a FIFO), then renamed to ``path``: a link at either
        name is replaced, never followed. With ``replace=False`` an existing
        ``path`` (a file, a link, anything) is left alone and :class:`FileExistsError`
        raised. A failed write leaves no ``.partial`` behind.
        """
        from kakurega.agents.training.run_dir import write_new

        if not self.end:
            raise RecordError(f"{path}: the game is not over; only finished games are recorded")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        text = json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False)
        partial = path.with_name(path.name + ".partial")
        partial.unlink(missing_ok=True)  # a leftover (or a planted link) is removed, never written through
        write_new(partial, (text + "\n").encode("utf-8"))
        try:
            if replace:
                os.replace(partial, path)
            else:
                _rename_new(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        return path


def _rename_new(source: Path, target: Path) -> None:
    """Move ``source`` to ``target`` unless ``target`` exists (as anything, a dangling link included)."""
    try:
        os.link(source, target, follow_symlinks=False)  # fails on an existing target, atomically
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "exists already; not overwritten", str(target)) from None
    except OSError:  # a file system without hard links: check, then rename
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "exists already; not overwritten", str(target)) from None
        os.replace(source, target)


def env_version(env_name: str) -> int:
    """The version number in a registry name: ``"animal_chain_v1"`` -> 1."""
    _, _, version = env_name.rpartition("_v")
    return int(version) if version.isdigit() else 0


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kakurega")
    except PackageNotFoundError:  # a checkout used without installing it
        return "unknown"


# ------------------------------------------------------------------- reading
def load_record(path: str | os.PathLike) -> Record:
    """The record in the JSON file at ``path``, checked field by field (no move replayed yet)."""
    from kakurega.envs.core.safe_load import load_file

    data = load_file(path, max_bytes=MAX_RECORD_BYTES, max_nodes=_MAX_NODES, json_only=True, error=RecordError)
    return _check_fields(data, os.fspath(path))


def parse_record(text: str | bytes | dict, source: str = "<record>") -> Record:
    """A :class:`Record` from JSON text (or data already parsed), each field checked; raises :class:`RecordError`."""
    from kakurega.envs.core.safe_load import load_text

    if isinstance(text, (str, bytes)):
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(
                f"{source}: larger than {MAX_RECORD_BYTES} bytes; a game record is at most {MAX_RECORD_BYTES} bytes"
            )
        data = load_text(text, source, json_only=True, max_bytes=MAX_RECORD_BYTES, max_nodes=_MAX_NODES,
                         error=RecordError)
    else:
        data = text
    return _check_fields(data, source)


def _fail(source: str, where: str, message: str) -> RecordError:
    return RecordError(f"{source}: {where}: {message}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_fields(data, source: str) -> Record:
    """The fields of record data, type-checked (the env, agent names and moves are checked by :func:`replay`)."""
    from kakurega.envs.registry import ENV_SPECS

    def printable(value, where: str) -> None:  # a record's names are printed by replays: no terminal escapes
        check_printable(value, source, where, quote=True, error=RecordError)

    if not isinstance(data, dict):
        raise RecordError(f"{source}: a game record is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise _fail(source, "format", f"expected {FORMAT!r}, got {short_repr(data.get('format'))} (is this a kakurega game record?)")
    version = data.get("version")
    if not _is_int(version) or version < 1:
        raise _fail(source, "version", f"expected the integer {VERSION}, got {short_repr(version)}")
    if version > VERSION:
        raise _fail(source, "version", f"version {version} is newer than this kakurega reads ({VERSION}); upgrade kakurega")
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise RecordError(f"{source}: missing key(s) {', '.join(missing)}; a record has {', '.join(_REQUIRED)}")
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise RecordError(f"{source}: unknown key(s) {', '.join(short_repr(k, 30) for k in unknown)}; "
                          f"expected {', '.join(_REQUIRED + _OPTIONAL)}")
    for key in _OPTIONAL:
        if key in data and not isinstance(data[key], str):
            raise _fail(source, key, f"expected a string, got {short_repr(data[key])}")
        if key in data:
            printable(data[key], key)
    env = data["env"]
    if not isinstance(env, str) or env not in ENV_SPECS:
        raise _fail(source, "env", f"unknown env {short_repr(env)}; registered envs: {', '.join(ENV_SPECS)}")
    if data["env_version"] != env_version(env) or not _is_int(data["env_version"]):
        raise _fail(source, "env_version", f"expected {env_version(env)} (the version of {env}), got {short_repr(data['env_version'])}")
    options = data["options"]
    if not isinstance(options, dict):
        raise _fail(source, "options", f"expected an object of env options (keyword arguments), got {short_repr(options)}")
    _check_option_text(options, source)
    shown = [key for key in COSMETIC_OPTIONS if key in options]
    if shown:
        raise _fail(source, "options", f"{', '.join(shown)} chooses how a game is shown, not how it is played: a "
                                       "record never holds it (choose the view when replaying: --view)")
    seed = data["seed"]
    if not _is_int(seed) or not 0 <= seed < 2**64:
        raise _fail(source, "seed", f"expected an integer in [0, 2**64), got {short_repr(seed)}")
    agents = data["agents"]
    if not isinstance(agents, dict) or not all(isinstance(v, str) for v in agents.values()):
        raise _fail(source, "agents", f"expected an object agent name -> agent spec string, got {short_repr(agents)}")
    for agent, spec in agents.items():  # printed as they are by replays: no terminal escapes, no screenfuls
        if len(spec) > MAX_SPEC_LENGTH or not spec.isprintable():
            raise _fail(source, f"agents.{short_repr(agent, 40)}", f"expected an agent spec of at most {MAX_SPEC_LENGTH} "
                        f"printable characters (no control characters), got {short_repr(spec)}")
        printable(agent, "agents (an agent name)")
    moves = data["moves"]
    if not isinstance(moves, list):
        raise _fail(source, "moves", f"expected a list of [agent, action] pairs, got {short_repr(moves)}")
    if len(moves) > MAX_MOVES:
        raise _fail(source, "moves", f"{len(moves)} moves; a record holds at most {MAX_MOVES}")
    for index, move in enumerate(moves):
        if not (isinstance(move, list) and len(move) == 2 and isinstance(move[0], str) and _is_int(move[1])):
            raise _fail(source, f"moves[{index}]", f"expected [agent name, action id], e.g. [\"player_0\", 12], got {short_repr(move)}")
        printable(move[0], f"moves[{index}][0] (an agent name)")
    end = data["end"]
    if end not in ENDS:
        raise _fail(source, "end", f"expected one of {', '.join(ENDS)}, got {short_repr(end)}")
    returns = data["returns"]
    if not isinstance(returns, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in returns.values()
    ):
        raise _fail(source, "returns", f"expected an object agent name -> final return (a number), got {short_repr(returns)}")
    for agent in returns:
        printable(agent, "returns (an agent name)")
    return Record(env=env, options=dict(options), seed=seed, agents=dict(agents), moves=[list(m) for m in moves],
                  end=end, returns={k: float(v) for k, v in returns.items()}, source=source)


def _check_option_text(options: dict, source: str) -> None:
    """Every option name, and every string among the option values (a data file's path...), printable text: replays
    print them, and an env refusing one quotes it back."""
    stack = []
    for key, value in options.items():
        check_printable(key, source, "options (an option name)", quote=True, error=RecordError)
        stack.append((value, f"options.{key}"))
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            check_printable(value, source, where, quote=True, error=RecordError)
        elif isinstance(value, dict):
            stack.extend((v, f"{where}.{short_repr(k, 30)}") for k, v in value.items())
            stack.extend((k, f"{where} (a key)") for k in value)
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(value))


def _named(value) -> str:
    """A record's agent name in a message: as it is when it is short printable text, else quoted (escaped, cut)."""
    return value if is_printable_text(value) and len(value) <= 40 else short_repr(value, 40)


# ------------------------------------------------------------------ replaying
class Replayer:
    """Plays a record's moves on a fresh raw env, checking each one; ``raw`` is the env at the current move.

    ``step()`` plays the next move (``RecordError`` if it is not that agent's
    turn or is illegal), ``seek(k)`` goes to the position after ``k`` moves
    (backwards by replaying from the deal), and ``check_end()`` checks that
    the game is over with the recorded ending and returns.
    """

    def __init__(self, record: Record, **env_kwargs):
        from kakurega.envs.registry import make

        self.record = record
        self.source = record.source
        try:
            self.raw = make(record.env, wrapped=False, **record.options, **env_kwargs)
        except (TypeError, ValueError) as error:
            raise RecordError(f"{self.source}: options: {record.env} refuses them: {error}") from None
        agents = self.raw.possible_agents
        for key, what in (("agents", record.agents), ("returns", record.returns)):
            if set(what) != set(agents):
                raise RecordError(f"{self.source}: {key}: expected one entry for each of {', '.join(agents)}, "
                                  f"got {', '.join(map(_named, what)) or 'none'}")
        self.reset()

    @property
    def position(self) -> int:
        """Moves played so far."""
        return self._position

    def reset(self) -> None:
        """Back to the deal (no move played)."""
        self.raw.reset(seed=self.record.seed)
        self._position = 0

    def next_move(self) -> tuple[str, int] | None:
        """The move :meth:`step` will play, or None at the end of the record."""
        if self._position >= len(self.record.moves):
            return None
        agent, action = self.record.moves[self._position]
        return agent, action

    def step(self) -> tuple[str, int]:
        """Play the next move, after checking that it is its agent's turn and legal; returns it."""
        move = self.next_move()
        if move is None:
            raise RecordError(f"{self.source}: no move left after move {self._position}")
        agent, action = move
        raw = self.raw
        where = f"move {self._position + 1} of {len(self.record.moves)} ({_named(agent)}, action {short_repr(action)})"
        current = raw.agent_selection
        if raw.terminations[current] or raw.truncations[current]:
            raise RecordError(f"{self.source}: {where}: the game was already over after {self._position} moves")
        if agent != current:
            raise RecordError(f"{self.source}: {where}: it is {current}'s turn, not {_named(agent)}'s")
        try:
            raw.step(action)
        except (TypeError, ValueError) as error:  # out of range or illegal: the env says why in words
            raise RecordError(f"{self.source}: {where}: {error}") from None
        self._position += 1
        return agent, action

    def seek(self, position: int) -> None:
        """Go to the position after ``position`` moves (0: the deal)."""
        if not 0 <= position <= len(self.record.moves):
            raise RecordError(f"{self.source}: position {position} is outside the record (0..{len(self.record.moves)})")
        if position < self._position:
            self.reset()
        while self._position < position:
            self.step()

    def check_end(self) -> None:
        """After the last move: the game is over, ended as recorded, with the recorded returns."""
        raw, record = self.raw, self.record
        if self._position != len(record.moves):
            raise RecordError(f"{self.source}: {len(record.moves) - self._position} move(s) not replayed yet")
        current = raw.agent_selection
        if not (raw.terminations[current] or raw.truncations[current]):
            raise RecordError(f"{self.source}: the record ends after {len(record.moves)} moves, but the game is not "
                              f"over: {current} is to move")
        end = "terminated" if raw.terminations[current] else "truncated"
        if end != record.end:
            raise RecordError(f"{self.source}: end: the record says {record.end}, the replay {end}")
        replayed = dict(zip(raw.possible_agents, raw.game.returns(raw.game_state).tolist()))
        wrong = [a for a in raw.possible_agents if not math.isclose(replayed[a], record.returns[a], abs_tol=1e-9)]
        if wrong:
            pairs = ", ".join(f"{a}: recorded {record.returns[a]:+g}, replayed {replayed[a]:+g}" for a in wrong)
            raise RecordError(f"{self.source}: returns differ ({pairs}); was the record made with another "
                              "version of kakurega or of the env?")


def replay(record: Record, **env_kwargs) -> Replayer:
    """Replay every move of ``record`` and check the ending; returns the replayer at the final position."""
    replayer = Replayer(record, **env_kwargs)
    while replayer.next_move() is not None:
        replayer.step()
    replayer.check_end()
    return replayer


# --------------------------------------------------------------------- views
def describe_move(raw, agent: str, action: int, view: str | None, before, after=None) -> str:
    """``agent``'s move ``action`` from state ``before`` to ``after`` (default: ``raw``'s current one) as ``view`` may know it.

    The rules' words (``Game.public_action_string``): the whole move where it
    is public, its public part where it is not, and what followed that the
    view sees (a hand swap, an announcement, the monster's steps, the end).
    A view's own seat is "you"; the spectator (None) gets the public part only.
    """
    game = raw.game
    seat = game.current_player(before)
    if raw.possible_agents[seat] != agent:
        raise ValueError(f"describe_move: {agent} did not move in the state given, {raw.possible_agents[seat]} did")
    viewer = None if view is None else raw.possible_agents.index(view)
    return game.public_action_string(before, int(action), raw.game_state if after is None else after, viewer)


def describe_opening(raw, view: str | None) -> list[str]:
    """What the rules played before the first decision of ``raw``'s new game, as ``view`` may know it
    (``Game.opening_words``; [] for a game whose table alone shows its start)."""
    viewer = None if view is None else raw.possible_agents.index(view)
    return raw.game.opening_words(raw.game_state, viewer)


def parse_view(raw, view: str | None) -> str | None:
    """An agent name of ``raw`` or None (the spectator) from a ``--view`` value: an agent name, a seat number or ``spectator``."""
    if view is None or view == "spectator":
        return None
    if view.isascii() and view.isdigit() and int(view) < len(raw.possible_agents):
        return raw.possible_agents[int(view)]
    if view in raw.possible_agents:
        return view
    raise ValueError(f"view {view!r}: expected spectator, an agent name ({', '.join(raw.possible_agents)}) or a seat number")


def _file_options(env_name: str) -> set[str]:
    """The options of registered env ``env_name`` that name a data file (none for an env not registered)."""
    from kakurega.envs.registry import get_spec

    try:
        return set(get_spec(env_name).file_options())
    except ValueError:
        return set()
