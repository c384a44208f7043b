"""Games and replays of the web app, as plain Python: what the server holds and every message it sends.

The server (:mod:`kakurega.scripts.web.app`) only routes JSON messages to these
classes; everything a browser is ever sent is built here, by
:func:`view_message` from one view of the table:

- the picture of the table as that view sees it (``to_svg`` of the env's
  scene for the view: clickable shapes carry the action ids they stand for),
  and the same view as text;
- whose turn it is (the order of turns is public), and the legal actions of
  the view's player by name, only when it is that player's turn;
- public events: every move in the words the view may know (the rules'
  ``public_action_string``), a line for each round that ends, and how the
  game ended;
- the finished rounds in words, and once the game is over the result in
  words (who won and why: the game's ``result_words`` for that view) and the
  final returns.

Nothing else of the game state is read, so a player's page holds nothing that
player may not know (tests/web/test_leaks.py re-deals the hidden part of the
state for the player and checks that every message stays byte for byte the
same, beside a leaky control that the check catches).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path

from kakurega.agents.base import StopSignal
from kakurega.agents.record import Record, Replayer, describe_move, describe_opening, new_seed, parse_record
from kakurega.envs.core.safe_load import short_repr
from kakurega.scripts.serve import MAX_RECORDS, MOVE_SECONDS  # defaults: records per server run, a bot's time per move

#: the person's seat in a lineup of agent specs
PERSON = "you"
log = logging.getLogger("kakurega.scripts.web")


class RequestError(ValueError):
    """A request the app refuses (unknown env, illegal action, malformed message...): sent back in words."""


class RecordQuota:
    """How many more game records one server run may write (``--max-records``), shared by its games' threads."""

    def __init__(self, limit: int = MAX_RECORDS):
        self.limit, self.written = int(limit), 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Count one more record, or False (counting nothing) when the run has written its ``limit``."""
        with self._lock:
            if self.written >= self.limit:
                return False
            self.written += 1
            return True


def view_message(raw, view: str | None, state=None) -> dict:
    """The table of ``state`` (default: raw env ``raw``'s current one) as ``view`` sees it (None: the spectator).

    Reads the state only through what ``view`` may know: that view's picture
    and text render, whose turn it is, on that player's own turn its legal
    actions by name, the finished rounds in words, and the result (in words
    and returns) once the game is over.
    """
    from kakurega.envs.core.game import TERMINAL
    from kakurega.envs.core.picture import to_svg

    game = raw.game
    state = raw.game_state if state is None else state
    seat = None if view is None else raw.possible_agents.index(view)
    current = game.current_player(state)
    over = current == TERMINAL
    to_move = None if over else raw.possible_agents[current]
    message = {
        "view": view,
        "svg": to_svg(raw.picture.scene(state, seat, raw.last_move if state is raw.game_state else None)),
        "text": raw.render_state(state, seat),
        "to_move": to_move,
        "legal": {},
        "over": over,
        "rounds": game.round_words(state, seat),
    }
    if not over and to_move == view:
        message["legal"] = {str(a): game.action_to_string(state, a) for a in game.legal_actions(state)}
    if over:
        end = "terminated" if game.is_terminal(state) else "truncated"
        from kakurega.agents.outcome import rules_winners

        message["result"] = result_of(raw.possible_agents, game.returns(state).tolist(), end,
                                      game.result_words(state, seat), rules_winners(game, state))
    return message


def result_of(agents: list[str], returns: list[float], end: str, words: list[str], winners=None) -> dict:
    """The result of a finished game: in words (headline first), returns, outcomes (the rules' ``winners`` decide,
    :func:`~kakurega.agents.outcome.rules_winners`) and how it ended."""
    from kakurega.agents.outcome import classify_outcome

    return {
        "words": words,
        "end": end,
        "returns": {a: float(r) for a, r in zip(agents, returns)},
        "outcomes": {a: classify_outcome(returns, seat, winners) for seat, a in enumerate(agents)},
    }


class GameSession:
    """One game of the web app: people on some seats (or nobody: bots only), agents on the others.

    People's moves come through :meth:`act`, the agents' through
    :meth:`advance` (one move per call: the pages set the pace). Every seat
    a person plays has its own secret ticket (:attr:`tickets`: the link that
    seat joins by; the host's first, the others as one-time invites that the
    app swaps for a fresh ticket when a person takes the seat), and each
    page is sent :meth:`message` for its own view only; when bots play alone, the page sees the view the person chose. A
    failing request changes nothing.
    """

    def __init__(self, env_name: str, options: dict, lineup: list[str | None], view: str | None = None,
                 seed: int | None = None, record_dir: str | Path | None = None, move_seconds: float = MOVE_SECONDS,
                 host: int | None = None, record_quota: RecordQuota | None = None):
        from kakurega.agents.base import AgentContext, seat_seed
        from kakurega.agents.specs import make_agent
        from kakurega.envs.registry import make
        from kakurega.scripts.destination import writable_dir

        if record_dir is not None:  # checked before the first move: a finished game is never lost to it
            writable_dir(record_dir, "the record directory (--record-dir)")
        self.id = secrets.token_urlsafe(12)
        self.env_name = env_name
        self.move_seconds = move_seconds
        #: set when the game is abandoned: a bot thinking stops, and the game takes no more moves
        self.abandoned = threading.Event()
        self.raw = make(env_name, wrapped=False, **options)
        context = AgentContext.from_env(self.raw, env_name, options)
        agents = self.raw.possible_agents
        if len(lineup) != len(agents):
            raise RequestError(f"{env_name} has {len(agents)} seats, got {len(lineup)} players")
        #: the seats people play (None in the lineup), in seat order
        self.persons = [agents[s] for s, spec in enumerate(lineup) if spec is None]
        if host is not None and lineup[host] is not None:
            raise RequestError(f"the host's seat {host} is not a person's seat")
        self.person = agents[host] if host is not None else self.persons[0] if self.persons else None
        self.view = self.person if self.person is not None else view
        if self.view is not None and self.view not in agents:
            raise RequestError(f"view {short_repr(self.view)}: expected null (spectator) or one of {', '.join(agents)}")
        #: secret ticket -> the view it opens: one per person's seat, or one for the bots' game
        seats = [self.person, *(a for a in self.persons if a != self.person)] if self.persons else [self.view]
        self.tickets = {secrets.token_urlsafe(16): view for view in seats}
        #: the other people's tickets not yet used to take their seat (each is swapped for a fresh one when used)
        self.invites = set(list(self.tickets)[1:])
        self.seed = new_seed() if seed is None else int(seed)
        self.agents = {}
        for seat, spec in enumerate(lineup):
            if spec is not None:  # a bot's seed never shows the deal's: drawn apart, or a hash of a typed seed
                bot_seed = new_seed() if seed is None else seat_seed(self.seed, seat)
                self.agents[agents[seat]] = make_agent(spec, context, seed=bot_seed)
        self.record = Record.start(env_name, options, self.seed,
                                   {a: "human" if spec is None else spec for a, spec in zip(agents, lineup)})
        self.record_dir = None if record_dir is None else Path(record_dir)
        #: the server run's count of records written (None: no limit of its own, as for one game made in code)
        self.record_quota = record_quota
        self.record_path: Path | None = None
        #: the events in every view's words (:attr:`events`: those of the first view); a view is shown only to its
        #: seat's page, and to others only once the game is over (or when bots play alone)
        self.events_of: dict[str | None, list[str]] = {view: [] for view in [*agents, None]}
        self.events = self.events_of[self.view]
        self.lock = threading.Lock()  # one request at a time: a bot's move runs in a worker thread
        self.raw.reset(seed=self.seed)
        for view, events in self.events_of.items():  # what the rules played before the first decision
            events += describe_opening(self.raw, view)
        for agent in self.agents.values():
            agent.reset()

    @property
    def over(self) -> bool:
        agent = self.raw.agent_selection
        return self.raw.terminations[agent] or self.raw.truncations[agent]

    def seats(self, view: str | None = None) -> dict:
        """Who plays each seat, as ``view``'s page shows it (public: specs were chosen by the table's host)."""
        return {a: PERSON if a == view else "a person" if a in self.persons
                else str(self.record.agents[a]) for a in self.raw.possible_agents}

    def message(self, events_from: int = 0, view: str | None | object = ..., you: str | None | object = ...) -> dict:
        """The ``state`` message for ``view`` (default: the first view) sent to the page of person ``you`` (default:
        ``view`` where a person plays it): the seats, the events from index ``events_from`` on."""
        view = self.view if view is ... else view
        you = (view if view in self.persons else None) if you is ... else you
        events = self.events_of[view]
        message = {"type": "state", "game": self.id, "env": self.env_name, "you": you, "seats": self.seats(you),
                   **view_message(self.raw, view), "events": events[events_from:], "event_count": len(events)}
        agent = self.raw.agent_selection
        message["waiting_for"] = (None if self.over else "you" if agent == you else
                                  "person" if agent in self.persons else "bot")
        if self.over and self.record_path is not None:
            message["record"] = str(self.record_path)
        return message

    def _play(self, agent: str, action: int) -> None:
        """Play a checked legal move: events (the move in each view's words, a round that ended, the result), record,
        step, and the record file once the game is over."""
        game, agents = self.raw.game, self.raw.possible_agents
        rounds = {view: len(game.round_words(self.raw.game_state, _seat(agents, view))) for view in self.events_of}
        before = game.clone(self.raw.game_state)
        self.raw.step(action)
        self.record.add(agent, action)
        for view, events in self.events_of.items():
            seat = _seat(agents, view)
            events.append(describe_move(self.raw, agent, action, view, before))
            events += game.round_words(self.raw.game_state, seat)[rounds[view]:]
            if self.over:
                events.append("Game over. " + game.result_words(self.raw.game_state, seat)[0])
        if self.over:
            # nothing moves any more: the bots (a search's rules and heuristics, their caches: tens of MB for a
            # Summer game against ismcts) are let go now, not when the finished game gives its place
            self.agents.clear()
            self.record.finish(self.raw)
            if self.record_dir is not None and self.record_quota is not None and not self.record_quota.take():
                for events in self.events_of.values():
                    events.append(f"no record was written: this server writes at most {self.record_quota.limit:,} "
                                  "records in a run (--max-records)")
            elif self.record_dir is not None:
                path = self.record_dir / f"{self.env_name}-{self.id}.json"
                try:
                    self.record_path = self.record.save(path)
                except OSError as error:  # e.g. the disk filled during the game: the game stands, say so
                    for events in self.events_of.values():
                        events.append(f"the record could not be written to {path} ({error.strerror or error})")

    def act(self, action, seat: str | None | object = ...) -> None:
        """The move ``action`` of the person on ``seat`` (default: the first person); refused in words when it is
        not theirs to make or illegal."""
        seat = self.person if seat is ... else seat
        if self.abandoned.is_set():
            raise RequestError("this game was abandoned; start a new one")
        if seat not in self.persons:
            raise RequestError("nobody plays in this game: the bots play it alone (send next to see their moves)"
                               if not self.persons else "you watch this game; only its players move")
        if self.over:
            raise RequestError("the game is over; start a new one")
        if self.raw.agent_selection != seat:
            raise RequestError(f"it is {self.raw.agent_selection}'s turn, not yours ({seat})")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"action must be an integer action id, got {short_repr(action)}")
        if not 0 <= action < self.raw.game.num_actions or action not in self.raw.legal_actions():
            names = self.raw.legal_actions()
            raise RequestError(f"action {action} is not one of your legal actions now ({len(names)} legal: "
                               f"{', '.join(map(str, names[:20]))}{'...' if len(names) > 20 else ''})")
        self._play(seat, action)

    def advance(self, should_stop=None, seat: str | None | object = ...) -> None:
        """Let the bot whose turn it is make its move; while another person is to move, nothing happens (the page
        of ``seat``, default the first person, just gets the table again). Refused on ``seat``'s own turn and
        once the game is over.

        A searching bot thinks at most :attr:`move_seconds`, then plays its best
        move so far; when ``should_stop()`` (the tab went away, or asks for another game) or the game is
        abandoned while it thinks, nothing is played.
        """
        from kakurega.agents.base import choose_action

        seat = self.person if seat is ... else seat
        if self.abandoned.is_set():
            raise RequestError("this game was abandoned; start a new one")
        if self.over:
            raise RequestError("the game is over; start a new one")
        agent = self.raw.agent_selection
        if agent == seat and agent in self.persons:
            raise RequestError("it is your turn: click the table to move")
        if agent in self.persons:
            return  # another person's turn: their page moves
        bot = self.agents[agent]
        called_off = StopSignal(self.abandoned.is_set, should_stop)
        bot.should_stop = StopSignal(self.abandoned.is_set, should_stop, deadline=time.monotonic() + self.move_seconds)
        try:
            action = choose_action(bot, self.raw, agent)
        except Exception as error:  # a bot's bug: its words may speak of its own hand, so only the log reads them
            log.exception("the bot %s on %s failed", self.record.agents[agent], agent)
            raise RequestError(f"{self.record.agents[agent]} on {agent} failed to choose a move "
                               f"({type(error).__name__}; the server's log has the details); nothing was played, "
                               "the game was left as it was") from None
        finally:
            bot.should_stop = None
        if called_off():
            raise RequestError(f"{agent}'s move was called off (the game was abandoned, its tab closed, or the tab "
                               "asked for another game); nothing was played")
        if action not in self.raw.legal_actions():  # an agent's bug must not end the game in an exception
            raise RequestError(f"{self.record.agents[agent]} on {agent} chose the illegal action {action}")
        self._play(agent, action)


def _seat(agents: list[str], view: str | None) -> int | None:
    return None if view is None else agents.index(view)


class ReplaySession:
    """A record opened in the web app: positions sent one at a time, as the chosen view saw them."""

    def __init__(self, text: str | Record, view: str | None, source: str = "the uploaded record", data_files=None):
        """``text``: the record's text, or the record as read from it (:func:`parse_record`)."""
        from kakurega.agents.record import parse_view

        self.id = secrets.token_urlsafe(12)
        self.record = text if isinstance(text, Record) else parse_record(text, source)
        from kakurega.scripts.web.data_files import DataFiles, by_name

        # the record's options may name only files the app offers (default: the shipped ones)
        data_files = DataFiles() if data_files is None else data_files
        named = self.record.options
        self.record.options = data_files.resolve(self.record.env, named, f"{source}: options")
        try:
            self.replayer = Replayer(self.record)
        except ValueError as error:  # e.g. a deck too small for the board: the env names the file by its path
            raise RequestError(by_name(str(error), named, self.record.options)) from error
        try:
            self.view = parse_view(self.replayer.raw, view)
        except ValueError as error:
            raise RequestError(str(error)) from None
        self.tickets = {secrets.token_urlsafe(16): self.view}  # the link that reopens it
        self.lock = threading.Lock()
        self.last_move = ""
        # every move and the ending checked now, so a bad record is refused when opened
        self.replayer.seek(len(self.record.moves))
        self.replayer.check_end()
        self.seek(0)

    def seek(self, position) -> None:
        """Go to the position after ``position`` moves (the deal is 0); the move that led there is described."""
        moves = len(self.record.moves)
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position <= moves:
            raise RequestError(f"position must be an integer in 0..{moves}, got {short_repr(position)}")
        self.last_move = ""
        if position == 0:
            self.replayer.seek(0)
            self.last_move = "; ".join(describe_opening(self.replayer.raw, self.view))
            return
        self.replayer.seek(position - 1)
        agent, action = self.replayer.next_move()
        before = self.replayer.raw.game.clone(self.replayer.raw.game_state)
        self.replayer.step()
        self.last_move = describe_move(self.replayer.raw, agent, action, self.view, before)
        if position == moves:
            self.replayer.check_end()

    def message(self) -> dict:
        """The ``replay`` message of the current position."""
        record = self.record
        return {"type": "replay", "game": self.id, "env": record.env, "seats": dict(record.agents),
                "position": self.replayer.position, "moves": len(record.moves), "move": self.last_move,
                **view_message(self.replayer.raw, self.view)}
