"""Requests of several tabs at once: a guest taking a seat while the host's page polls, two pages loading the game
list together on a fresh server."""

from __future__ import annotations

import asyncio
import collections
import sys
import threading
import time

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from kakurega.scripts.web import app as web_app  # noqa: E402
from kakurega.scripts.web.app import Connection, Sessions, create_app, handle  # noqa: E402

#: the longest the test waits for a guest's join that the host's reply should hold back
HOLD_SECONDS = 0.5


def table(sessions: Sessions, people: int = 5):
    """A kakurenbo_v1 table of ``people`` persons started by a host; (host's connection, the game, its invites)."""
    host = Connection()
    state = handle({"type": "new", "env": "kakurenbo_v1", "options": {"num_players": people}, "seat": 0,
                    "agents": ["human"]}, sessions, host)
    return host, sessions.by_id[state["game"]], list(state["invites"].values())


def test_a_guest_taking_a_seat_waits_for_the_hosts_list_of_invites():
    """A guest joins by invite exactly while the host's reply goes through the invites: the reply is one consistent
    list (once failed with "Set changed size during iteration" or a KeyError), and the guest gets the seat."""
    sessions = Sessions()
    host, session, invites = table(sessions)
    guest_replies, guest_errors, seated = [], [], threading.Event()
    take_seat = sessions.take_seat

    def take_seat_and_tell(*args):
        ticket = take_seat(*args)
        seated.set()
        return ticket

    sessions.take_seat = take_seat_and_tell

    def guest():
        try:
            guest_replies.append(handle({"type": "join", "ticket": invites[0]}, sessions, Connection()))
        except Exception as error:  # noqa: BLE001 (reported below)
            guest_errors.append(error)

    guest_thread = threading.Thread(target=guest)

    class GuestJoinsMidway(set):
        """The invites, where a guest takes a seat as the host's reply is half way through them."""

        def __iter__(self):
            for position, invite in enumerate(super().__iter__()):
                yield invite
                if position == 0 and not guest_thread.is_alive() and not seated.is_set():
                    guest_thread.start()
                    seated.wait(HOLD_SECONDS)  # the seat is taken now, or the guest waits for this reply

    session.invites = GuestJoinsMidway(session.invites)
    reply = handle({"type": "look"}, sessions, host)
    guest_thread.join(10)
    assert not guest_thread.is_alive() and not guest_errors, guest_errors
    # the host saw the invites as they were before the guest came, all of them seats' links
    assert sorted(reply["invites"].values()) == sorted(invites)
    assert set(reply["invites"]) == set(session.raw.possible_agents[1:])
    # ... and sees the guest's seat taken on the next look
    assert sorted(handle({"type": "look"}, sessions, host)["invites"].values()) == sorted(invites[1:])
    assert guest_replies[0]["ticket"] not in invites


def test_the_hosts_reply_holds_the_lock_that_guards_taking_a_seat():
    """The host's reply reads the invites under the lock :meth:`Sessions.take_seat` changes them under."""
    sessions = Sessions()
    host, session, _ = table(sessions, 3)
    held = []

    class Watched(set):
        def __iter__(self):
            held.append(sessions.lock._is_owned())
            return super().__iter__()

    session.invites = Watched(session.invites)
    assert handle({"type": "look"}, sessions, host)["invites"]
    assert held and all(held)


def test_guests_taking_their_seats_while_the_host_polls():
    """The same race with real threads, briefly (it once failed about once in 150 to 300 such tables)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors = []
    try:
        for _ in range(15):
            sessions = Sessions()
            host, _, invites = table(sessions)
            stop = threading.Event()

            def poll(sessions=sessions, host=host, stop=stop):
                while not stop.is_set():
                    try:
                        handle({"type": "look"}, sessions, host)
                    except Exception as error:  # noqa: BLE001 (reported below)
                        errors.append(f"host: {type(error).__name__}: {error}")

            def join(invite, sessions=sessions):
                try:
                    handle({"type": "join", "ticket": invite}, sessions, Connection())
                except Exception as error:  # noqa: BLE001 (reported below)
                    errors.append(f"guest: {type(error).__name__}: {error}")

            poller = threading.Thread(target=poll)
            poller.start()
            guests = [threading.Thread(target=join, args=(invite,)) for invite in invites]
            for thread in guests:
                thread.start()
            for thread in guests:
                thread.join()
            stop.set()
            poller.join()
            assert "invites" not in handle({"type": "look"}, sessions, host)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, sorted(set(errors))[:5]


def test_two_pages_loading_the_game_list_at_once_list_every_game_once(monkeypatch):
    """Two pages ask ``/api/envs`` together on a fresh server: both, and every later page, list each game once."""
    listing = web_app._env_list()
    calls = []

    def slow_env_list():
        calls.append(time.monotonic())
        time.sleep(0.3)  # the other request comes in while this one is listing
        return [dict(env) for env in listing]

    monkeypatch.setattr(web_app, "_env_list", slow_env_list)

    async def load_twice():
        transport = httpx.ASGITransport(app=create_app(host="127.0.0.1"))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            both = await asyncio.gather(client.get("/api/envs"), client.get("/api/envs"))
            return [*both, await client.get("/api/envs")]

    replies = asyncio.run(load_twice())
    assert len(calls) == 2  # both requests did list the games (at once): the race was really run
    for reply in replies:
        assert reply.status_code == 200
        names = [env["name"] for env in reply.json()["envs"]]
        assert names == [env["name"] for env in listing]
        assert [name for name, count in collections.Counter(names).items() if count > 1] == []
