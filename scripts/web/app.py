"""The web app's server: a Starlette app with one page, its static files, an env list and one websocket.

Messages on ``/ws`` are JSON objects with a ``type``; each request gets one
reply, a ``state`` or ``replay`` message (built in :mod:`kakurega.scripts.web.session`)
or an ``error`` message that says what was wrong and what was expected (and,
as ``request``, the type of the request it answers). A bad request never ends
the connection nor changes a game; a request that may open another game in
its tab calls off the move a bot is thinking about for it (the game stays:
the new one may be refused).

=========================================================  ==================================
``{"type": "new", "env", "options", "seat", "agents",``    start a game: ``seat`` is the person's
``"view", "seed"}``                                        seat (an int, ``"random"``) or
                                                           ``"watch"`` (bots only, seen from
                                                           ``view``: an agent or null); ``agents``
                                                           one spec for every other seat, or one
                                                           for all of them (``"human"``: a seat
                                                           another person joins by its link);
                                                           ``seed`` only to watch bots as the
                                                           spectator (the server draws the rest)
``{"type": "act", "action": 17}``                          the person's move
``{"type": "next"}``                                       the next bot's move (the page sets the
                                                           pace), or the table as it is while
                                                           another person is to move
``{"type": "look"}``                                       the table as it is now (a page polls
                                                           while another person is to move)
``{"type": "join", "ticket": T}``                          open a seat by its secret ticket (a
                                                           link, or a reload; one tab at a time)
``{"type": "view", "view": AGENT}``                        watch as another seat (or
                                                           ``"spectator"``): once the game is
                                                           over, or while bots play alone
``{"type": "open_record", "record": TEXT, "view"}``        open a game record to step through
``{"type": "seek", "position": K}``                        the record's position after K moves
``{"type": "abandon"}``                                    drop the open game, at once: a bot
                                                           thinking about it stops (reply
                                                           ``abandoned``); a game several people
                                                           play goes on for the others
=========================================================  ==================================

Every reply carries the page's own ``ticket``; the host of a table with
several people (who started it) also gets ``invites``, every other person's
seat not yet taken and its ticket, to hand out as links (``/#seat=TICKET``).
An invitation is used once: joining by it swaps it for a fresh ticket that
only the joining page is sent. A ticket
opens its own seat's view and nothing else; seeds are drawn and kept by the
server, so no request can deal a game again to look at it as another seat.

Requests of one connection are answered in order, one at a time; an
``abandon`` acts as soon as it arrives, even while a bot thinks. A request
waits for its turn as text (at most :data:`MAX_QUEUED_BYTES` of one tab's)
and is read as JSON in its turn, refused unread beyond
:data:`MAX_MESSAGE_VALUES` values; at most :data:`MAX_CONNECTIONS` tabs are
served at once, and when :data:`MAX_SESSIONS` games are open a new one takes
the place of the game left idle longest, once it has been idle
:data:`IDLE_SECONDS`; however few games are open, one no request has
touched for :data:`EXPIRE_SECONDS` is let go (checked at every request the
server answers: its tab is told so, and its link opens nothing). Every
request is bounded in time: a bot thinks at most ``move_seconds`` per move
(a search then plays its best move so far), data files are opened without
ever blocking, and a closed tab calls off its bot's thinking. Bots think in
:data:`BOT_THREADS` threads of their own and other requests run in
:data:`REQUEST_THREADS` more (the page's files are served beside them however
busy the bots are), and a reply the page does not take
within :data:`SEND_SECONDS` (it stopped reading) ends its connection. Options
that name a file take only the names the app offers
(:mod:`kakurega.scripts.web.data_files`), and the page lists for each only
the files its loader loads (those not tried yet apart), a file that does
not fit the file chosen for another option (a deck too small for the board)
marked as such; a game the env
refuses to build with a file is refused in words naming the file as the
page knows it. Animal Chain decks sent inline hold
at most :data:`MAX_INLINE_DECK_CARDS` cards in all the games held. A client
on another machine gets a share of the places: :data:`MAX_CONNECTIONS_PER_ADDRESS`
tabs, :data:`MAX_SESSIONS_PER_ADDRESS` games and :data:`MAX_INLINE_DECK_CARDS_PER_ADDRESS`
cards of inline decks of one address.

A page may only talk to the server that served it: websocket requests from
another origin are refused (a web page elsewhere cannot drive the app), and
only requests naming the server by an IP address, ``localhost``, this
machine's own names (when it listens beyond loopback) or a name given with
``--allow-host`` are answered (no DNS rebinding: a rebound page names its
own host).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import re
import secrets
import socket
import threading
import time
from pathlib import Path

from kakurega.agents.record import parse_record
from kakurega.envs.core.safe_load import short_repr
from kakurega.scripts.web.data_files import DataFiles, by_name
from kakurega.scripts.web.session import (
    MAX_RECORDS,
    MOVE_SECONDS,
    GameSession,
    RecordQuota,
    ReplaySession,
    RequestError,
)

STATIC = Path(__file__).resolve().parent / "static"
#: the largest message a page may send (a game record upload is the largest)
MAX_MESSAGE_BYTES = 2_500_000
#: games and replays kept at once (the oldest ones no tab has open are dropped first)
MAX_SESSIONS = 64
#: requests of one connection waiting for their turn (a page sends one at a time)
MAX_PENDING = 16
#: bytes (UTF-8) of one connection's requests waiting for their turn (a request beyond it is refused in words)
MAX_QUEUED_BYTES = 2 * MAX_MESSAGE_BYTES
#: JSON values of one message, at most (every ``[``, ``{`` and ``,`` outside strings counted, before it is read: a
#: game record travels as one string); as many as a data file may hold (``safe_load.MAX_NODES``)
MAX_MESSAGE_VALUES = 200_000
#: a request of at most this many characters is read as it arrives (an ``abandon`` acts at once)
READ_ON_ARRIVAL = 4096
#: websocket connections (tabs) served at once: one more is told so and closed
MAX_CONNECTIONS = 100
#: with MAX_SESSIONS games open in tabs, a game no request has touched for this long gives its place to a new one
IDLE_SECONDS = 15 * 60
#: a game or replay no request has touched for this long is let go, open in a tab or not (its bots and table freed)
EXPIRE_SECONDS = 60 * 60
#: tabs and games of one client address at once (a quarter of the server's): loopback clients, this machine's own
#: (every tab of a person at the server's machine), are held only to the server's limits
MAX_CONNECTIONS_PER_ADDRESS = MAX_CONNECTIONS // 4
MAX_SESSIONS_PER_ADDRESS = MAX_SESSIONS // 4
#: cards of the Animal Chain decks sent inline (as data, not a file name) in all the games and replays held: a game
#: of a 1,000-card deck of 2,000 card types (the most one deck may hold) takes 50 to 80 MB
MAX_INLINE_DECK_CARDS = 2000
#: the cards of those decks one remote address may hold (half: a client on another machine cannot take them all)
MAX_INLINE_DECK_CARDS_PER_ADDRESS = MAX_INLINE_DECK_CARDS // 2
#: threads in which bots think (``next`` requests), and threads that answer every other request: the page's files
#: are served by other threads still, and a person's requests do not wait for a thread behind bots thinking
BOT_THREADS = 16
REQUEST_THREADS = 16
#: the longest one reply may wait to be sent: a page that stops reading loses its connection (and its places)
SEND_SECONDS = 30.0
#: host names a server answers wherever it listens (beside IP addresses)
LOCAL_NAMES = ("localhost",)
_TYPES = ("new", "act", "next", "look", "join", "view", "open_record", "seek", "abandon")
#: the requests that may open another game in their tab, and those that act on the tab's open game (its lock)
_OPENING = ("new", "join", "open_record")
_ON_OPEN_GAME = ("act", "next", "look", "view", "seek")
#: the agent spec of a seat another person plays, joining by its own link
HUMAN = "human"

log = logging.getLogger("kakurega.scripts.web")


class DeckRoom:
    """The inline-deck cards a game being built has reserved (:meth:`Sessions.deck_room`); ``held`` once
    :meth:`Sessions.add` holds them as the game's."""

    __slots__ = ("cards", "held")

    def __init__(self, cards: int):
        self.cards, self.held = cards, False


class Sessions:
    """The games and replays the server holds, their tickets, and which ticket each connection has open.

    A ticket is the secret a page joins by: one per seat a person plays, or
    one for a bots' game or a replay. It opens that seat's view and nothing
    else; the game id, sent to every seat, opens nothing.
    """

    def __init__(self, record_dir: str | Path | None = None, max_sessions: int = MAX_SESSIONS,
                 data_dir: str | Path | None = None, move_seconds: float = MOVE_SECONDS,
                 idle_seconds: float = IDLE_SECONDS, clock=time.monotonic, max_records: int = MAX_RECORDS,
                 expire_seconds: float = EXPIRE_SECONDS):
        self.record_dir = record_dir
        self.record_quota = RecordQuota(max_records)
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.expire_seconds = expire_seconds
        self.clock = clock
        self.used_at: dict[str, float] = {}  # game id -> when a request last touched it
        self.data_files = DataFiles(data_dir)
        self.move_seconds = move_seconds
        self.by_id: dict[str, GameSession | ReplaySession] = {}
        self.tickets: dict[str, GameSession | ReplaySession] = {}  # ticket -> its game
        self.open: dict[str, object] = {}  # ticket -> the connection that has it open
        self.views: dict[str, str | None] = {}  # ticket -> the seat it watches as, once its game allows another
        self.used_invites: dict[str, str] = {}  # invite already used to take its seat -> its game's id
        self.owners: dict[str, str | None] = {}  # game id -> the client address it counts against (None: no share)
        self.cards: dict[str, int] = {}  # game id -> the cards of its inline deck (0: none)
        self.reserved = 0  # inline-deck cards of the games being built now (:meth:`deck_room`)
        # requests of several tabs run in worker threads at once; it also guards the games' tickets and invites
        # (take_seat). Lock order: a game's own lock (held while a bot thinks), then this one, never the other
        # way round: nothing waits for a game's lock while holding this one
        self.lock = threading.RLock()

    def add(self, session, connection, room: DeckRoom | None = None) -> str:
        """Hold ``session`` (built, every field checked; ``room``: its inline deck's, from :meth:`deck_room`) and
        open its first ticket in ``connection``; returns that ticket. Games that may give their place
        (:meth:`_droppable`) make room, only now and only when all of it is then found: when the server holds
        :attr:`max_sessions` games, the connection's address its share, or the inline decks their cards."""
        cards = room.cards if room is not None else 0
        with self.lock:
            owner = getattr(connection, "address", None)
            limits = self._limits(owner, cards, cards and self.reserved)  # (its cards are among the reserved)
            drops = self._room(limits, connection)
            if drops is None:
                for limit, message in zip(limits, self._limit_messages(owner, cards)):
                    if self._room([limit], connection) is None:
                        raise RequestError(message)
                raise RequestError(f"{self.max_sessions} games are open in other tabs; close one first")
            for key in drops:
                self._drop(key)
            self.by_id[session.id] = session
            self.used_at[session.id] = self.clock()
            self.owners[session.id] = owner
            self.cards[session.id] = cards
            if room is not None:  # its cards are held now, no longer reserved
                self.reserved -= cards
                room.held = True
            self.tickets.update(dict.fromkeys(session.tickets, session))
            ticket = next(iter(session.tickets))
            self.attach(ticket, connection)
            return ticket

    def _limits(self, owner: str | None, cards: int, deck: int) -> list[tuple]:
        """``(need, limit, size of a game id)`` of every limit a new game must fit: the address's share of the games
        (a remote ``owner``), the server's games, the inline decks (``deck``: the cards to fit, reserved ones
        included) and a remote address's share of them (``cards``: the new game's)."""
        limits = [(1, MAX_SESSIONS_PER_ADDRESS, lambda key: self.owners[key] == owner)] if owner is not None else []
        limits.append((1, self.max_sessions, lambda key: 1))
        if deck:
            limits.append((deck, MAX_INLINE_DECK_CARDS, self.cards.__getitem__))
            if owner is not None:
                limits.append((cards, MAX_INLINE_DECK_CARDS_PER_ADDRESS,
                               lambda key: self.cards[key] if self.owners[key] == owner else 0))
        return limits

    def _limit_messages(self, owner: str | None, cards: int) -> list[str]:
        """What :meth:`add` says when the limit of :meth:`_limits` at the same place cannot be met."""
        wait = f"close one first (or wait: a game left idle {self.idle_seconds / 60:g} minutes gives its place)"
        messages = [f"{MAX_SESSIONS_PER_ADDRESS} games of your address ({owner}) are open in its tabs, its share of "
                    f"the server's {self.max_sessions}; {wait}"] if owner is not None else []
        messages.append(f"{self.max_sessions} games are open in other tabs; {wait}")
        messages.append(self._deck_message(cards))
        if owner is not None:
            messages.append(self._deck_message(cards, owner))
        return messages

    def _deck_message(self, cards: int, owner: str | None = None) -> str:
        advice = ("close a game with an inline deck, send a smaller one, or offer it as a file (kakurega serve "
                  "--data-dir)")
        if owner is not None:
            held = sum(self.cards[key] for key in self.by_id if self.owners[key] == owner)
            return (f"this deck has {cards} cards and the decks sent inline in your address's ({owner}) games hold "
                    f"{held}; an address's share is {MAX_INLINE_DECK_CARDS_PER_ADDRESS} cards of the server's "
                    f"{MAX_INLINE_DECK_CARDS}: {advice}")
        held = sum(self.cards.values()) + self.reserved
        return (f"this deck has {cards} cards and the decks sent inline in the games open now hold {held}; the "
                f"limit is {MAX_INLINE_DECK_CARDS} cards of inline decks in all: {advice}")

    @contextlib.contextmanager
    def deck_room(self, env_name, options, connection):
        """Room for the inline deck of ``options`` (an Animal Chain deck sent as data), reserved from before its
        game is built until :meth:`add` holds it (or the request fails): yields a :class:`DeckRoom` (``cards`` 0:
        no inline deck). Refused in words when :data:`MAX_INLINE_DECK_CARDS` would be passed even once games that
        may give their place had given it; nothing is given up here (only :meth:`add`, once the game is built)."""
        room = DeckRoom(inline_deck_cards(env_name, options))
        with self.lock:
            owner = getattr(connection, "address", None)
            if room.cards:
                limits = self._limits(owner, room.cards, room.cards + self.reserved)
                for limit, mine in zip(limits[-2:], (None, owner)) if owner is not None else [(limits[-1], None)]:
                    if self._room([limit], connection) is None:
                        raise RequestError(self._deck_message(room.cards, mine))
            self.reserved += room.cards
        try:
            yield room
        finally:
            if not room.held:
                with self.lock:
                    self.reserved -= room.cards

    def _droppable(self, connection) -> list[str]:
        """The games that may give their place, in that order: those no tab has open (but ``connection``, which
        starts another), oldest first, then those left idle :attr:`idle_seconds`, the one idle longest first."""
        now = self.clock()
        closed = [key for key, held in self.by_id.items()
                  if all(self.open.get(ticket, connection) is connection for ticket in held.tickets)]
        idle = [key for key in self.by_id if key not in closed and now - self.used_at[key] >= self.idle_seconds]
        return closed + sorted(idle, key=self.used_at.__getitem__)

    def _room(self, limits: list[tuple], connection) -> list[str] | None:
        """The games to give their place so that every ``(need, limit, size)`` of ``limits`` fits beside the games
        held (those that count against a limit not yet met, in :meth:`_droppable`'s order), or None when no choice
        of them makes it all fit. Nothing is dropped here."""
        held = [sum(size(key) for key in self.by_id) for _need, _limit, size in limits]
        dropped = []
        for key in self._droppable(connection):
            short = [i for i, (need, limit, _size) in enumerate(limits) if held[i] + need > limit]
            if not short:
                break
            if any(limits[i][2](key) for i in short):
                dropped.append(key)
                held = [h - size(key) for h, (_need, _limit, size) in zip(held, limits)]
        if any(h + need > limit for h, (need, limit, _size) in zip(held, limits)):
            return None
        return dropped

    def _drop(self, key: str) -> None:
        session = self.by_id.pop(key)
        del self.used_at[key], self.owners[key], self.cards[key]
        if isinstance(session, GameSession):
            session.abandoned.set()  # a bot still thinking about it stops
        for invite in [invite for invite, game in self.used_invites.items() if game == key]:
            del self.used_invites[invite]
        for ticket in session.tickets:
            self.tickets.pop(ticket, None)
            self.open.pop(ticket, None)
            self.views.pop(ticket, None)

    def expire(self) -> list[str]:
        """Let go every game and replay no request has touched for :attr:`expire_seconds` (a bot thinking about it
        stops), open in a tab or not: a tab that had one open is told so by its next request. Their ids."""
        with self.lock:
            now = self.clock()
            stale = [key for key, at in self.used_at.items() if now - at >= self.expire_seconds]
            for key in stale:
                for ticket in self.by_id[key].tickets:
                    holder = self.open.get(ticket)
                    if isinstance(holder, Connection):
                        holder.gone = (f"this tab's game was let go: no move or request touched it for "
                                       f"{self.expire_seconds / 60:g} minutes; start a new one")
                self._drop(key)
            return stale

    def used(self, session) -> None:
        """A request touched ``session`` (it is not idle)."""
        with self.lock:
            if session.id in self.used_at:
                self.used_at[session.id] = self.clock()

    def attach(self, ticket, connection):
        """Open ``ticket`` in ``connection`` (closing what it had open); refused while another tab has it."""
        if ticket is not None and not isinstance(ticket, str):
            raise RequestError(f"join: 'ticket' must be a string (the seat's link ends in #seat=TICKET), got "
                               f"{type(ticket).__name__}")
        with self.lock:
            session = self.tickets.get(ticket)
            if session is None and ticket in self.used_invites:
                raise RequestError("join: this invitation was already used to take its seat; the person who took it "
                                   "has their own link now (ask the table's host if that was not you)")
            if session is None:
                raise RequestError(f"join: no game here has this link (the server may have restarted, the game was "
                                   f"left {self.expire_seconds / 60:g} minutes without a move, or the link was "
                                   "mistyped); start a new one")
            holder = self.open.get(ticket)
            if holder is not None and holder is not connection:
                raise RequestError("this seat is already open in another tab or window; close it there (or start "
                                   "a new game here). A tab that vanished without closing (a lost network, a "
                                   "killed browser) holds the seat until the server finds it gone: try again "
                                   "in a minute")
            self.release(connection)
            self.open[ticket] = connection
            if isinstance(connection, Connection):
                connection.gone = ""
            return session

    def take_seat(self, session: GameSession, invite: str, connection) -> str:
        """A person takes a seat by its invite: the invite is used up (the host who handed it out holds it) and
        the seat gets a fresh ticket, known only to ``connection``, which has it open; returns that ticket."""
        with self.lock:
            ticket = secrets.token_urlsafe(16)
            session.tickets[ticket] = session.tickets.pop(invite)
            session.invites.discard(invite)
            self.used_invites[invite] = session.id
            del self.tickets[invite], self.open[invite]
            self.tickets[ticket] = session
            self.open[ticket] = connection
            return ticket

    def release(self, connection) -> None:
        """``connection`` has no game open any more (the games stay, to be joined again)."""
        with self.lock:
            for key, holder in list(self.open.items()):
                if holder is connection:
                    del self.open[key]

    def ticket_of(self, connection) -> str | None:
        """The ticket ``connection`` has open, or None."""
        with self.lock:
            return next((key for key, holder in self.open.items() if holder is connection), None)

    def current(self, connection):
        """The game or replay ``connection`` has open, or None."""
        with self.lock:
            ticket = self.ticket_of(connection)
            return None if ticket is None else self.tickets[ticket]

    def seat_of(self, ticket: str) -> str | None:
        """The seat (or the chosen view of a bots' game) ``ticket`` opens."""
        return self.tickets[ticket].tickets[ticket]

    def view_of(self, ticket: str) -> str | None:
        """The view ``ticket``'s page sees now: its seat's, or the one it chose in a game that allows it."""
        return self.views.get(ticket, self.seat_of(ticket))

    def shared(self, session) -> bool:
        """Whether several people play ``session`` (one of them leaving does not end it for the others)."""
        return isinstance(session, GameSession) and len(session.persons) > 1

    def abandon(self, connection) -> str | None:
        """Drop the game ``connection`` has open (a bot thinking about it stops); its id, or None. A game several
        people play goes on for the others: this page only leaves it."""
        with self.lock:
            session = self.current(connection)
            if session is None:
                return None
            self.release(connection)
            if not self.shared(session):
                if isinstance(session, GameSession):
                    session.abandoned.set()
                self._drop(session.id)
            return session.id

    def call_off(self, connection) -> None:
        """Stop at once the bot thinking in the game ``connection`` has open (an ``abandon`` on its way)."""
        session = self.current(connection)
        if isinstance(session, GameSession) and not self.shared(session):
            session.abandoned.set()

    def abandon_all(self) -> None:
        """Call off every game (the server is stopping)."""
        with self.lock:
            for session in self.by_id.values():
                if isinstance(session, GameSession):
                    session.abandoned.set()


class Connection:
    """One websocket: ``closed`` is set when it goes away (its bot's thinking is then called off); ``queued``:
    the bytes of its requests waiting for their turn as text; ``address``: the client address whose share of the
    places it takes (None: a loopback client, held only to the server's limits)."""

    def __init__(self, address: str | None = None):
        self.closed = threading.Event()
        self.queued = 0
        #: requests waiting or being answered that may open another game (new, join, open_record, a long one):
        #: while there are some, an ``abandon`` arriving is for a game not open yet, so it calls nothing off at once
        self.switching = 0
        self.address = address
        #: why the game this tab had open is gone ("" when none went): said to its next request
        self.gone = ""

    def interrupted(self) -> bool:
        """Whether a bot thinking for this tab should stop: the tab went away, or a request that may open another
        game in it is waiting (the game being left is kept: only that move is called off)."""
        return self.closed.is_set() or self.switching > 0


class Queued:
    """A long request waiting for its turn as text (read as JSON in its turn: a parsed message can take 25 times
    its text's memory), and its size in bytes."""

    __slots__ = ("text", "size", "kind")

    def __init__(self, text: str, size: int):
        self.text, self.size = text, size
        self.kind = None  # the request's type, once read


def switches(message) -> bool:
    """Whether a request waiting in its tab's queue may open another game in it (a long one is read in its turn)."""
    return isinstance(message, Queued) or (isinstance(message, dict) and message.get("type") in _OPENING)


def utf8_size(text: str) -> int:
    """The bytes of ``text`` in UTF-8 (as it came over the wire)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def queued(text, connection) -> object:
    """What a frame waits in its tab's queue as: a short request read now (an ``abandon`` acts at once), a long one
    as text, or the error that answers it (too large, malformed, or too much of this tab's text waiting)."""
    try:
        size = utf8_size(text) if isinstance(text, str) else 0
        if not isinstance(text, str) or size <= READ_ON_ARRIVAL or size > MAX_MESSAGE_BYTES:
            return parse_request(text)
        if connection.queued + size > MAX_QUEUED_BYTES:
            raise RequestError(f"{connection.queued} bytes of this tab's requests are waiting already; the limit "
                               f"is {MAX_QUEUED_BYTES}: wait for their replies")
    except RequestError as error:
        return error
    connection.queued += size
    return Queued(text, size)


def client_address(client) -> str | None:
    """The address whose share of the places a websocket's client takes: its IP address, or None for a loopback
    client (this machine: every tab of the person at it) or one without an IP address."""
    try:
        address = ipaddress.ip_address(client[0])
    except (TypeError, IndexError, ValueError):
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return None if address.is_loopback else str(address)


def inline_deck_cards(env_name: str, options) -> int:
    """The cards of an Animal Chain deck given inline in ``options`` (data, not a file name): every line's copies
    (read before the env checks the deck: a line it would refuse counts one card)."""
    deck = options.get("deck") if env_name.startswith("animal_chain") and isinstance(options, dict) else None
    lines = deck.get("cards") if isinstance(deck, dict) else None
    if not isinstance(lines, list):
        return 0
    copies = [line.get("copies", 1) if isinstance(line, dict) else 1 for line in lines]
    return sum(n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1 for n in copies)


def _env_list() -> list[dict]:
    """Every registered env: its name for players, whether a newer version supersedes it, its summary, its options
    as form fields, default options, tested configurations (seats, default opponent) and the shipped bots' options."""
    from kakurega.agents.policy import resolved_env_options, served_options
    from kakurega.agents.pretrained import default_opponent, shipped
    from kakurega.envs.registry import ENV_SPECS, latest_envs, make
    from kakurega.envs.rules_pages import title

    latest = set(latest_envs())
    bots = [meta for _, meta in shipped()]
    envs = []
    for spec in ENV_SPECS.values():
        configurations = []
        for options in spec.configurations:
            raw = make(spec.name, wrapped=False, **options)
            configurations.append({"options": options, "agents": raw.possible_agents,
                                   "opponent": default_opponent(spec.name, options)})
        definition = spec.definition()
        version = spec.name.rpartition("_v")[2]
        envs.append({
            "name": spec.name,
            "title": title(spec.name),
            "label": title(spec.name) if spec.name in latest else f"{title(spec.name)} (version {version}, older)",
            "latest": spec.name in latest,
            "summary": spec.summary,
            "fields": [] if definition is None else [option_field(option) for option in definition.options],
            "defaults": resolved_env_options(spec.name, {}),
            "configurations": configurations,
            "bots": [options for meta in bots if meta["env"] == spec.name for options in served_options(meta)],
        })
    return envs


def option_field(option) -> dict:
    """The form field of a declared env option: a select (choices, or a data file), a number (with its bounds),
    a checkbox (a bool)."""
    field = {"name": option.name, "doc": option.doc, "default": option.default, "describe": option.describe()}
    if option.choices:
        return {**field, "type": "select", "choices": list(option.choices)}
    if option.kind is bool:
        return {**field, "type": "checkbox"}
    if option.kind in (int, float):
        return {**field, "type": "number", "integer": option.kind is int, "min": option.low, "max": option.high}
    # a tuple of accepted classes: a data file (by the names the app offers) or the default (None)
    return {**field, "type": "file", "default": None}


def _data_file_lists(data_files: DataFiles, env_names: list[str]) -> tuple[list[str], dict, dict, dict]:
    """Every offered data file's name (``data_files``, what a request may name), each env's file options with the
    names of those the option loads (``file_choices``, what the page offers it), and with the names of those its
    loader has not tried yet (``unchecked_files``, offered apart as not checked yet), and each env's pairs of file
    options that must suit each other with the numbers that say which files fit (``file_fits``: the page marks
    those that do not fit the other option's choice; see :meth:`DataFiles.listing`)."""
    offered = data_files.offered()
    return sorted(offered), *data_files.listing(env_names, offered)


def _agent_kinds() -> dict:
    from kakurega.agents.specs import agent_kinds

    kinds = agent_kinds()
    kinds.pop("human", None)  # the person plays on the page
    kinds.setdefault("pretrained", "the shipped bot of this configuration (pretrained[:sample=true])")
    kinds.setdefault("ismcts", "information-set Monte Carlo tree search (ismcts:simulations=200,...)")
    return kinds


def _new_game(message: dict, sessions: Sessions, connection) -> tuple[GameSession, str]:
    """A :class:`GameSession` from a ``new`` request, every field checked, held and open in ``connection``; with
    its ticket."""
    from kakurega.scripts.evaluate import resolve_env_name

    env = message.get("env")
    if not isinstance(env, str):
        raise RequestError("new: 'env' must be an env name such as 'kakurenbo_v1'")
    name = resolve_env_name(env)
    options = message.get("options") or {}
    if not isinstance(options, dict):
        raise RequestError("new: 'options' must be an object of env options, e.g. {\"num_players\": 3}")
    resolved = sessions.data_files.resolve(name, options, "new: options")  # file names, never paths
    try:
        with sessions.deck_room(name, resolved, connection) as room:  # an inline deck: room before it is built
            session = _build_game(name, resolved, message, sessions)
            return session, sessions.add(session, connection, room)
    except ValueError as error:  # e.g. a deck too small for the board: the env names the file by its path
        raise RequestError(by_name(str(error), options, resolved)) from error


def _build_game(name: str, options: dict, message: dict, sessions: Sessions) -> GameSession:
    """The game of a ``new`` request (env ``name`` with checked ``options``): seats, agents, view and seed checked."""
    import numpy as np

    from kakurega.agents.pretrained import default_opponent
    from kakurega.agents.specs import parse_spec, require_unattended, seat_lineup
    from kakurega.envs.registry import make

    num_players = len(make(name, wrapped=False, **options).possible_agents)
    seat = message.get("seat", "random")
    view = message.get("view")
    if view == "spectator":
        view = None
    seed = message.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**53):
        raise RequestError("new: 'seed' must be null or an integer in [0, 2**53)")
    if seed is not None and (seat != "watch" or view is not None):
        # a deal known in advance would show a hidden hand: the same seed watched as another seat deals it again
        raise RequestError("new: a seed may be chosen only to watch bots as the spectator; the server draws the "
                           "deal of every other game (leave the seed empty)")
    if seat == "random":
        seat = int(np.random.default_rng().integers(num_players))
    elif seat == "watch":
        seat = None
    elif isinstance(seat, bool) or not isinstance(seat, int):
        raise RequestError(f"new: 'seat' must be a seat number (0..{num_players - 1}), \"random\" or \"watch\"")
    agents = message.get("agents") or [default_opponent(name, options)]
    if isinstance(agents, str):
        agents = [agents]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise RequestError("new: 'agents' must be a list of agent spec strings, e.g. [\"heuristic\"]")
    if seat is not None and num_players == 1:
        agents = []  # a solitaire game: the agents field of the page has no seat to fill
    if seat is None and HUMAN in agents:
        raise RequestError("new: people play a game with \"human\" seats; take a seat to start it (not \"watch\")")
    for spec in agents:
        if spec != HUMAN:
            require_unattended(parse_spec(spec), "a bot seat of the web app",
                               "a person plays on the page: give \"human\" for a seat another person joins by "
                               "link; nobody answers at the server's terminal", clock=True)  # --move-seconds
    lineup = [None if spec == HUMAN else spec for spec in seat_lineup(name, num_players, seat, agents)]
    return GameSession(name, options, lineup, view=view, seed=seed, record_dir=sessions.record_dir,
                       move_seconds=sessions.move_seconds, host=seat, record_quota=sessions.record_quota)


def _reply(session, ticket: str, sessions: Sessions, events_from: int = 0) -> dict:
    """The message ``ticket``'s page is sent: its own view only, its ticket, and for the host of a table with
    several people the other seats' tickets (the links the host hands out)."""
    if isinstance(session, ReplaySession):
        return {**session.message(), "ticket": ticket}
    seat, view = sessions.seat_of(ticket), sessions.view_of(ticket)
    events = session.events_of[view]
    message = session.message(min(events_from, len(events)), view, seat if seat in session.persons else None)
    message["ticket"] = ticket
    # a guest taking a seat changes the game's tickets and invites under sessions.lock (Sessions.take_seat), not
    # under this page's session.lock: they are read under it too (the one order: session.lock, then sessions.lock;
    # nothing holding sessions.lock waits for a game's lock)
    with sessions.lock:
        if ticket == next(iter(session.tickets)) and session.invites:
            message["invites"] = {session.tickets[invite]: invite for invite in session.invites}
    return message


def _choose_view(session, ticket: str, view, sessions: Sessions) -> None:
    """Watch the open game as ``view``: offered once it is over, or while bots play it alone."""
    if not isinstance(session, GameSession):
        raise RequestError("view: the open game is a replay; open the record again with another view")
    if session.persons and not session.over:
        raise RequestError("view: the table may be seen as another seat only once the game is over (or when bots "
                           "play alone)")
    agents = session.raw.possible_agents
    view = None if view == "spectator" else view
    if view is not None and view not in agents:
        raise RequestError(f"view: expected \"spectator\" or one of {', '.join(agents)}, got {short_repr(view)}")
    sessions.views[ticket] = view


def handle(message, sessions: Sessions, connection) -> dict:
    """The reply to one request (a parsed JSON value) of ``connection`` (run in a worker thread: bots think)."""
    if not isinstance(message, dict) or message.get("type") not in _TYPES:
        kind = message.get("type") if isinstance(message, dict) else None
        raise RequestError(f"unknown message type {kind!r}; expected a JSON object with \"type\" one of "
                           f"{', '.join(_TYPES)}")
    kind = message["type"]
    sessions.expire()
    if kind == "new":
        session, ticket = _new_game(message, sessions, connection)
        return _reply(session, ticket, sessions)
    if kind == "open_record":
        text = message.get("record")
        if not isinstance(text, str):
            raise RequestError("open_record: 'record' must be the text of a game record (JSON)")
        view = message.get("view")
        if view is not None and not isinstance(view, str):
            raise RequestError("open_record: 'view' must be null (spectator), an agent name or a seat number")
        record = parse_record(text, "the uploaded record")
        with sessions.deck_room(record.env, record.options, connection) as room:
            session = ReplaySession(record, view, data_files=sessions.data_files)
            return _reply(session, sessions.add(session, connection, room), sessions)
    if kind == "abandon":
        return {"type": "abandoned", "game": sessions.abandon(connection)}
    if kind == "join":
        ticket = message.get("ticket")
        session = sessions.attach(ticket, connection)
        sessions.used(session)
        if isinstance(session, GameSession) and ticket in session.invites:
            ticket = sessions.take_seat(session, ticket, connection)
        with session.lock:  # a bot of the tab that had it open may still be moving
            return _reply(session, ticket, sessions)
    ticket = sessions.ticket_of(connection)
    if ticket is None:
        raise RequestError(getattr(connection, "gone", "") or f"{kind}: no game is open in this tab; start one first")
    session = sessions.tickets[ticket]
    sessions.used(session)
    if kind == "seek":
        if not isinstance(session, ReplaySession):
            raise RequestError("seek: the open game is not a replay; open a record first")
        with session.lock:
            session.seek(message.get("position"))
            return _reply(session, ticket, sessions)
    if kind == "view":
        with session.lock:
            _choose_view(session, ticket, message.get("view"), sessions)
            return _reply(session, ticket, sessions)
    if not isinstance(session, GameSession):
        raise RequestError(f"{kind}: the open game is a replay; use seek to move through it")
    with session.lock:
        seen = message.get("seen", 0)
        seen = seen if isinstance(seen, int) and not isinstance(seen, bool) and 0 <= seen else 0
        seat = sessions.seat_of(ticket)
        if kind == "act":
            session.act(message.get("action"), seat if seat in session.persons else None)
        elif kind == "next":
            stop = connection.interrupted if isinstance(connection, Connection) else None
            session.advance(stop, seat if seat in session.persons else None)
        return _reply(session, ticket, sessions, seen)


def json_values(text: str) -> int:
    """How many values the JSON ``text`` holds, at most: its ``[``, ``{`` and ``,`` outside strings, plus one
    (linear in the text, whatever it holds: strings are skipped quote to quote)."""
    values, at, end = 1, 0, len(text)
    while at < end:
        quote = text.find('"', at)
        stop = end if quote < 0 else quote
        values += text.count(",", at, stop) + text.count("[", at, stop) + text.count("{", at, stop)
        if quote < 0:
            break
        at = quote + 1
        while True:  # the string's closing quote: one not escaped (an even run of backslashes before it)
            close = text.find('"', at)
            if close < 0:
                return values  # unterminated: json.loads says so
            slash = close
            while text[slash - 1] == "\\":
                slash -= 1
            at = close + 1
            if (close - slash) % 2 == 0:
                break
    return values


def parse_request(text) -> object:
    """A websocket text frame as JSON, refused in words when too large or malformed."""
    if not isinstance(text, str):
        raise RequestError("messages are JSON text frames")
    if (size := utf8_size(text)) > MAX_MESSAGE_BYTES:
        raise RequestError(f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    # every bracket and comma, strings included, is a bound computed at C speed; the exact count only when above
    if text.count(",") + text.count("[") + text.count("{") >= MAX_MESSAGE_VALUES and json_values(text) > MAX_MESSAGE_VALUES:
        raise RequestError(f"message of more than {MAX_MESSAGE_VALUES} JSON values; the limit is {MAX_MESSAGE_VALUES} "
                           "(a game record is sent as one string)")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise RequestError(f"not valid JSON: {error}") from None


def error_message(error: Exception, request: str | None = None) -> dict:
    """The ``error`` reply: what was wrong, in words, and the type of the request it answers (when it was read)."""
    message = {"type": "error", "message": str(error)}
    if request is not None:
        message["request"] = request
    return message


def request_type(message) -> str | None:
    """The ``type`` of a request (a long one once read in its turn), when it is one of the known types."""
    kind = message.kind if isinstance(message, Queued) else message.get("type") if isinstance(message, dict) else None
    return kind if kind in _TYPES else None


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` serves this machine only: ``localhost`` or an address of 127.0.0.0/8 or ::1."""
    try:
        return host.lower() == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_names(host: str, allow_hosts=()) -> frozenset[str]:
    """The host names a server listening on ``host`` answers (beside IP addresses): ``localhost``, those in
    ``allow_hosts`` (``--allow-host``) and, beyond loopback, the bound name and this machine's own names (its host
    name, the same with ``.local`` as mDNS names it, its fully qualified name)."""
    names = {*LOCAL_NAMES, *allow_hosts}
    if not is_loopback(host):
        machine = socket.gethostname()
        names |= {host, machine, machine.partition(".")[0] + ".local", socket.getfqdn()}
    return frozenset(name.lower().rstrip(".") for name in names if name)


#: a Host header: a name or IPv4 address, or an IPv6 address in brackets, and maybe a port
_HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[^\[\]:/@\s]+))(?::\d{1,5})?")


def host_allowed(header: str | None, names: frozenset[str]) -> bool:
    """Whether a request's Host header names this server: an IP address (a page a DNS name was rebound for names
    that name, never an address) or one of ``names``."""
    match = _HOST_HEADER.fullmatch(header or "")
    if match is None:
        return False
    host = match["ipv6"] or match["name"]
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host.lower().rstrip(".") in names


def origin_allowed(headers) -> bool:
    """A request without an Origin (not from a browser page) or from the page this server served."""
    origin = headers.get("origin")
    if origin is None:
        return True
    host = headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


def create_app(record_dir: str | Path | None = None, host: str = "127.0.0.1", data_dir: str | Path | None = None,
               move_seconds: float = MOVE_SECONDS, allow_hosts=(), max_records: int = MAX_RECORDS):
    """The Starlette app; ``record_dir``: where finished games' records are written (None: nowhere), at most
    ``max_records`` of them;
    ``host``: the interface it listens on, ``allow_hosts``: more host names it answers by (:func:`host_names`);
    ``data_dir``: a directory whose data files requests may name (beside the shipped ones);
    ``move_seconds``: the longest a bot thinks about one move."""
    import anyio
    from starlette.applications import Starlette
    from starlette.datastructures import Headers
    from starlette.middleware import Middleware
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocketDisconnect

    sessions = Sessions(record_dir, data_dir=data_dir, move_seconds=move_seconds, max_records=max_records)
    # not the default threads: they serve the page's files
    bot_threads, request_threads = anyio.CapacityLimiter(BOT_THREADS), anyio.CapacityLimiter(REQUEST_THREADS)
    env_list: list = []

    async def index(request):
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def envs(request):
        if not env_list:
            listed = await anyio.to_thread.run_sync(_env_list)
            if not env_list:  # a request at the same time may have filled it during the await
                env_list.extend(listed)
        # a directory listing, and files tried by their options' loaders: not on the event loop
        names, file_choices, unchecked, fits = await anyio.to_thread.run_sync(_data_file_lists, sessions.data_files,
                                                                              [env["name"] for env in env_list])
        return JSONResponse({"envs": env_list, "agent_kinds": _agent_kinds(), "record_dir": str(record_dir or ""),
                             "data_files": names, "file_choices": file_choices, "unchecked_files": unchecked,
                             "file_fits": fits,
                             "move_seconds": move_seconds, "max_message_bytes": MAX_MESSAGE_BYTES})

    async def rules(request):
        from kakurega.envs.rules_pages import game_of, rules_page, title

        name = request.path_params["env"]
        try:
            return JSONResponse({"game": game_of(name), "title": title(name), "text": rules_page(name)})
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=404)

    def read_and_handle(message, connection) -> dict:
        if isinstance(message, Queued):  # a long request, read in its turn
            text, message = message, parse_request(message.text)
            text.kind = message.get("type") if isinstance(message, dict) else None
        return handle(message, sessions, connection)

    async def game_settled(message, connection) -> None:
        """Wait in the event loop while a bot thinks about the game ``message`` is for (the tab's open game, or the
        one a ``join`` names): a request waiting for a game's lock in a worker thread held that thread for up to
        ``move_seconds`` (the guests' ``look`` of six tables of four people kept every other page waiting). A bot
        that starts thinking after this check is still waited for in the thread (the check is made for every
        request)."""
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "join" and isinstance(message.get("ticket"), str):
            session = sessions.tickets.get(message["ticket"])
        elif kind in _ON_OPEN_GAME:  # those that take the tab's game's lock
            session = sessions.current(connection)
        else:  # new, open_record, abandon: never wait for the game the tab leaves
            return
        lock = getattr(session, "lock", None)
        while lock is not None and lock.locked() and not connection.closed.is_set():
            await anyio.sleep(0.05)

    async def answer(message, connection) -> dict:
        """The reply to one request (an exception, a malformed frame, is answered in words)."""
        if isinstance(message, Exception):
            return error_message(message)
        try:
            bot = isinstance(message, dict) and message.get("type") == "next"
            await game_settled(message, connection)  # while a bot thinks about its game: here, holding no thread
            return await anyio.to_thread.run_sync(read_and_handle, message, connection,
                                                  limiter=bot_threads if bot else request_threads)
        except (RequestError, ValueError, TypeError) as error:
            return error_message(error, request_type(message))
        except Exception as error:  # a bug must not end the server: log it, tell the page
            log.exception("request failed")  # the details go to the server's log only: a bot's exception may
            # speak of its own hand, which the page must not read
            return error_message(RuntimeError(f"internal error ({type(error).__name__}); the game was left as it "
                                              "was (the server's log has the details)"), request_type(message))

    async def reply_in_order(ws, requests, connection, scope) -> None:
        async with requests:
            async for message in requests:
                if isinstance(message, Queued):
                    connection.queued -= message.size
                reply = await answer(message, connection)
                if switches(message):
                    connection.switching -= 1
                try:
                    with anyio.fail_after(SEND_SECONDS):
                        await ws.send_text(json.dumps(reply))
                except (WebSocketDisconnect, RuntimeError, TimeoutError):  # the page went away or stopped reading
                    connection.closed.set()
                    scope.cancel()  # the connection ends (kakurega serve then drops it: connections.py)
                    return

    tabs = set()  # the connections served now (the event loop's own: no lock)

    async def refuse(ws, words: str) -> None:
        with anyio.move_on_after(SEND_SECONDS):
            await ws.send_text(json.dumps(error_message(RequestError(words))))
            await ws.close(code=1013)  # try again later

    async def websocket(ws):
        if not origin_allowed(ws.headers):
            await ws.close(code=1008)
            return
        await ws.accept()
        address = client_address(ws.client)
        if len(tabs) >= MAX_CONNECTIONS:
            await refuse(ws, f"the server has {MAX_CONNECTIONS} tabs open, its limit; close one and reload")
            return
        if address is not None and sum(tab.address == address for tab in tabs) >= MAX_CONNECTIONS_PER_ADDRESS:
            await refuse(ws, f"your address ({address}) has {MAX_CONNECTIONS_PER_ADDRESS} tabs open, its share of "
                             f"the server's {MAX_CONNECTIONS}; close one and reload")
            return
        connection = Connection(address)
        tabs.add(connection)
        send, requests = anyio.create_memory_object_stream(MAX_PENDING)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(reply_in_order, ws, requests, connection, group.cancel_scope)
                async with send:
                    while not connection.closed.is_set():
                        frame = await ws.receive()
                        if frame["type"] == "websocket.disconnect":
                            break
                        text = frame.get("text")
                        message = queued(text, connection)
                        if isinstance(message, dict) and message.get("type") == "abandon":
                            if not connection.switching:  # else it is for a game a request before it opens
                                sessions.call_off(connection)  # at once, not after the request a bot is thinking on
                        elif switches(message):
                            connection.switching += 1
                        await send.send(message)
                # the tab is gone: its bot stops thinking, and what it had queued is dropped
                connection.closed.set()
                group.cancel_scope.cancel()
        except WebSocketDisconnect:
            pass
        finally:
            connection.closed.set()
            tabs.discard(connection)
            sessions.release(connection)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        sessions.abandon_all()  # Ctrl-C: every bot stops thinking, so the server stops at once

    def check_host(app):
        """Answers only requests that name this server (:func:`host_allowed`); others get 400."""
        names = host_names(host, allow_hosts)

        async def checked(scope, receive, send):
            if scope["type"] in ("http", "websocket") and not host_allowed(Headers(scope=scope).get("host"), names):
                await PlainTextResponse("Invalid host header", status_code=400)(scope, receive, send)
                return
            await app(scope, receive, send)
        return checked

    middleware = [Middleware(check_host)]
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/envs", envs),
            Route("/api/rules/{env}", rules),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.sessions = sessions
    return app
