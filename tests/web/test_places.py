"""What the server's places hold and who may take them (docs/web.md, "Limits you can rely on"): bots think in threads
of their own, so the page's files and a person's requests are answered however busy the bots are; the Animal Chain
decks sent inline are bounded in all the games held; one client address on the network holds at most its share of
the tabs and games (a client on the server's own machine is held only to the server's limits)."""

from __future__ import annotations

import json
import threading
import time
import warnings
from contextlib import ExitStack

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces a move from httpx to httpx2; httpx still drives it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.scripts.web import app as web  # noqa: E402
from kakurega.scripts.web.app import client_address, create_app, inline_deck_cards  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

#: the longest any wait here lasts (held handlers are held until the test lets them go)
WAIT_SECONDS = 20
KAKURENBO = {"type": "new", "env": "kakurenbo_v1", "seat": 0, "agents": ["random"]}


@pytest.fixture
def app(tmp_path):
    return create_app(record_dir=tmp_path, host="0.0.0.0")


def client_at(app, address: str) -> TestClient:
    """A test client whose requests come from ``address``."""
    return TestClient(app, base_url="http://127.0.0.1", client=(address, 50000))


def connect(client):
    return client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"})


def ask(ws, message) -> dict:
    ws.send_text(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.receive_text())


def test_the_page_and_a_persons_requests_are_answered_while_every_bot_thread_is_held(app, monkeypatch):
    """Tabs watching thinking bots once took every thread of the default pool, which also serves the page's files:
    with 64 such tabs ``GET /`` took 10 s. Here more tabs than that pool has threads ask for a bot's move and are
    held (their handlers wait on an event the test sets only once the page was served)."""
    import anyio.to_thread

    release, entered = threading.Event(), []
    handle = web.handle

    def held(message, sessions, connection):
        if isinstance(message, dict) and message.get("type") == "next":
            entered.append(message)
            release.wait(WAIT_SECONDS * 3)
            return {"type": "held"}
        return handle(message, sessions, connection)

    monkeypatch.setattr(web, "handle", held)
    with client_at(app, "127.0.0.1") as client, ExitStack() as stack:
        default = client.portal.call(lambda: anyio.to_thread.current_default_thread_limiter().total_tokens)
        tabs = [stack.enter_context(connect(client)) for _ in range(default + 1)]
        person = stack.enter_context(connect(client))
        for tab in tabs:
            tab.send_text(json.dumps({"type": "next"}))
        deadline = time.monotonic() + WAIT_SECONDS
        while len(entered) < web.BOT_THREADS and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the other requests reach the threads they wait for
        served = {}

        def load_the_page():
            served["/"] = client.get("/").status_code
            served["/static/app.js"] = client.get("/static/app.js").status_code
            served["new"] = ask(person, KAKURENBO)["type"]

        loader = threading.Thread(target=load_the_page, daemon=True)
        loader.start()
        loader.join(WAIT_SECONDS)
        answered, holding = not loader.is_alive(), len(entered)
        release.set()
        loader.join(WAIT_SECONDS)
        assert answered, f"the page was not served while {holding} bot threads were held"
        assert served == {"/": 200, "/static/app.js": 200, "new": "state"}
        assert holding == web.BOT_THREADS  # the bots' requests beyond them wait for a bot thread
        assert all(json.loads(tab.receive_text()) == {"type": "held"} for tab in tabs)


def deck(cards: int, lines: int = 10) -> dict:
    """An inline Animal Chain deck of ``cards`` cards in ``lines`` lines (cheap to build: few card types)."""
    animals = [{"name": f"a{i}", "label": f"{i:02d}"} for i in range(8)]
    pairs = [(a, b) for a in range(8) for b in range(8) if a != b][:lines]
    copies = [cards // lines + (i < cards % lines) for i in range(lines)]
    return {"name": "big", "animals": animals,
            "cards": [{"left": f"a{a}", "right": f"a{b}", "copies": n} for (a, b), n in zip(pairs, copies)]}


def chain_game(cards: int) -> dict:
    return {"type": "new", "env": "animal_chain_v1", "options": {"deck": deck(cards)}, "seat": 0,
            "agents": ["random"]}


def test_inline_deck_cards_are_counted_from_the_request():
    assert inline_deck_cards("animal_chain_v1", {"deck": deck(1000)}) == 1000
    assert inline_deck_cards("animal_chain_v1", {"deck": "animal_chain_deck.yaml"}) == 0  # a file: offered names
    assert inline_deck_cards("kakurenbo_v1", {"deck": deck(10)}) == 0
    assert inline_deck_cards("animal_chain_v1", {"deck": {"cards": [{"copies": "x"}, 7, {"copies": 3}]}}) == 5


def test_decks_sent_inline_hold_at_most_the_budget_in_all_the_games_held(app):
    """64 games of a 1,000-card inline deck once held about 2.5 GB: the decks sent inline now hold at most
    MAX_INLINE_DECK_CARDS cards in all (refused in words beyond, before the deck is built), and a game no tab has
    open gives its cards to a new one."""
    sessions = app.state.sessions
    limit = web.MAX_INLINE_DECK_CARDS
    with client_at(app, "127.0.0.1") as client, connect(client) as one, connect(client) as two:
        assert ask(one, chain_game(limit // 2))["type"] == "state"
        assert ask(two, chain_game(limit - limit // 2))["type"] == "state"
        assert sum(sessions.cards.values()) == limit
        with connect(client) as three:
            refused = ask(three, chain_game(10))
            assert refused["type"] == "error"
            assert (f"this deck has 10 cards and the decks sent inline in the games open now hold {limit}; the "
                    f"limit is {limit} cards of inline decks in all") in refused["message"]
            assert ask(three, KAKURENBO)["type"] == "state"  # a game without an inline deck is not counted
            # a deck the env refuses gives its room back
            bad = chain_game(10)
            bad["options"]["deck"]["cards"][0]["left"] = "nobody"
            assert ask(three, bad)["type"] == "error" and sessions.reserved == 0
            # a tab that starts another game frees its own game's cards
            assert ask(one, chain_game(limit // 2))["type"] == "state"
            assert sum(sessions.cards.values()) == limit
        # once a tab with a deck is closed, its game gives its cards to a new one (the closed game is dropped)
        first = ask(two, {"type": "look"})["game"]
    with client_at(app, "127.0.0.1") as client, connect(client) as four:
        assert ask(four, chain_game(limit // 2))["type"] == "state"
        assert first not in sessions.by_id and sum(sessions.cards.values()) <= limit


def test_client_addresses_take_a_share_and_loopback_clients_the_whole():
    assert client_address(("192.0.2.7", 1)) == "192.0.2.7"
    assert client_address(("::ffff:192.0.2.7", 1)) == "192.0.2.7"
    assert client_address(("127.0.0.2", 1)) is None and client_address(("::1", 1)) is None
    assert client_address(None) is None and client_address(("testclient", 1)) is None


def test_one_address_holds_at_most_its_share_of_the_tabs(app, monkeypatch):
    monkeypatch.setattr(web, "MAX_CONNECTIONS_PER_ADDRESS", 2)
    with ExitStack() as stack:
        lan, other, here = (stack.enter_context(client_at(app, address))
                            for address in ("192.0.2.7", "192.0.2.8", "127.0.0.1"))
        stack.enter_context(connect(lan))
        with connect(lan):
            with connect(lan) as beyond:
                refused = ask(beyond, {"type": "look"})  # the refusal comes first (else: no game is open)
                assert refused["type"] == "error"
                assert "your address (192.0.2.7) has 2 tabs open, its share of the server's 100" in refused["message"]
            for client in (other, other, here, here, here):  # another address, and this machine's tabs
                assert ask(stack.enter_context(connect(client)), KAKURENBO)["type"] == "state"
        with connect(lan) as again:  # the closed tab freed its place
            assert ask(again, KAKURENBO)["type"] == "state"


def test_one_address_holds_at_most_its_share_of_the_games(app, monkeypatch):
    monkeypatch.setattr(web, "MAX_SESSIONS_PER_ADDRESS", 2)
    sessions = app.state.sessions
    with ExitStack() as stack:
        lan, other, here = (stack.enter_context(client_at(app, address))
                            for address in ("192.0.2.7", "192.0.2.8", "127.0.0.1"))
        two, three = (stack.enter_context(connect(lan)) for _ in range(2))
        with connect(lan) as one:
            first = ask(one, KAKURENBO)["game"]
            ask(two, KAKURENBO)
            refused = ask(three, KAKURENBO)
            assert refused["type"] == "error"
            assert "2 games of your address (192.0.2.7) are open in its tabs, its share of the server's 64" in \
                refused["message"]
            for client in (other, other, here, here, here):  # another address, and this machine's games
                assert ask(stack.enter_context(connect(client)), KAKURENBO)["type"] == "state"
            # a tab that starts another game gives its own place to it
            assert ask(one, KAKURENBO)["type"] == "state" and first not in sessions.by_id
            assert sum(owner == "192.0.2.7" for owner in sessions.owners.values()) == 2
        # the closed tab's game, open in no tab now, gives its place to the address's next one
        assert ask(three, KAKURENBO)["type"] == "state"
        assert sum(owner == "192.0.2.7" for owner in sessions.owners.values()) == 2
        assert sum(owner is None for owner in sessions.owners.values()) == 3


def test_a_refused_game_gives_up_no_other_game_for_its_deck(app):
    """Room for an inline deck is found before the game is built but taken only once it is held: a request refused
    for another reason (a seat out of range) leaves the tab's own game, and a game no tab has open, where they were."""
    sessions = app.state.sessions
    limit = web.MAX_INLINE_DECK_CARDS
    with client_at(app, "127.0.0.1") as client, connect(client) as one, connect(client) as two:
        assert ask(one, chain_game(limit // 2))["type"] == "state"
        assert ask(two, chain_game(limit - limit // 2))["type"] == "state"
        held = dict(sessions.cards)
        bad = {**chain_game(200), "seat": 7}  # room would be found by the tab's own game giving its place
        refused = ask(one, bad)
        assert refused["type"] == "error" and "seat" in refused["message"]
        assert sessions.cards == held and sessions.reserved == 0
        assert ask(one, {"type": "look"})["type"] == "state"  # the tab's game is still open
        assert ask(one, chain_game(200))["type"] == "state"  # the control: a good request takes that room
        assert len(sessions.cards) == 2 and sum(sessions.cards.values()) == limit - limit // 2 + 200


def test_a_deck_held_is_no_longer_counted_as_reserved(app, monkeypatch):
    """Between a game's holding its deck and the end of its request, its cards count once: another deck that fits
    beside them is not refused."""
    sessions = app.state.sessions
    limit = web.MAX_INLINE_DECK_CARDS
    seen = []
    add = sessions.add

    def add_and_count(session, connection, room=None):
        ticket = add(session, connection, room)
        seen.append((sum(sessions.cards.values()), sessions.reserved))  # still within the request's deck room
        return ticket

    monkeypatch.setattr(sessions, "add", add_and_count)
    with client_at(app, "127.0.0.1") as client, connect(client) as one:
        assert ask(one, chain_game(limit // 2))["type"] == "state"
    assert seen == [(limit // 2, 0)]  # held, and no longer reserved
    assert sessions.reserved == 0


def test_one_address_holds_at_most_its_share_of_the_inline_decks(app):
    """A client on another machine holds at most half the inline-deck budget; a loopback client (the person at the
    server's machine) the whole of it."""
    share = web.MAX_INLINE_DECK_CARDS_PER_ADDRESS
    with client_at(app, "10.0.0.5") as client, connect(client) as one, connect(client) as two:
        assert ask(one, chain_game(share - 100))["type"] == "state"
        refused = ask(two, chain_game(200))
        assert refused["type"] == "error"
        assert (f"this deck has 200 cards and the decks sent inline in your address's (10.0.0.5) games hold "
                f"{share - 100}; an address's share is {share} cards") in refused["message"]
        assert ask(two, chain_game(100))["type"] == "state"  # what fits in the share is held
    with client_at(app, "127.0.0.1") as client, connect(client) as three:  # the control: loopback, the whole budget
        assert ask(three, chain_game(200))["type"] == "state"


def test_requests_for_a_game_whose_bot_thinks_wait_without_holding_a_request_thread(app, monkeypatch):
    """While a bot thinks about a game (its lock held), the requests of that game's tabs (``look``, ``act``, ...)
    once waited for the lock inside a request thread: more such tabs than threads left an unrelated person's
    ``new`` waiting for the bots. They now wait in the event loop; the page and that person are answered."""
    from kakurega.scripts.web import session as session_module

    made = []
    original = session_module.GameSession.__init__

    def keep(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(session_module.GameSession, "__init__", keep)
    with client_at(app, "127.0.0.1") as client, ExitStack() as stack:
        tabs = [stack.enter_context(connect(client)) for _ in range(web.REQUEST_THREADS + 2)]
        for tab in tabs:
            assert ask(tab, KAKURENBO)["type"] == "state"
        locks = [game.lock for game in made]
        assert len(locks) == len(tabs)
        for lock in locks:  # every game's bot "thinks"
            lock.acquire()
        try:
            for tab in tabs:
                tab.send_text(json.dumps({"type": "look"}))
            time.sleep(0.5)  # the looks reach whatever they wait in
            person = stack.enter_context(connect(client))
            answered = {}
            asker = threading.Thread(target=lambda: answered.setdefault("new", ask(person, KAKURENBO)["type"]),
                                     daemon=True)
            asker.start()
            asker.join(WAIT_SECONDS)
            waited = asker.is_alive()
        finally:
            for lock in locks:
                lock.release()
        asker.join(WAIT_SECONDS)
        assert not waited, "a person's new game waited for the bots of other games"
        assert answered == {"new": "state"}
        assert all(json.loads(tab.receive_text())["type"] == "state" for tab in tabs)  # each look answered after
