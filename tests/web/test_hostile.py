"""The hostile-request suite: a real ``kakurega serve`` on the loopback interface, flooded with the requests
that once read, hung on or exhausted the server, keeps every other game intact and stops cleanly on Ctrl-C.

Bounded: one server on 127.0.0.1 (a free port), at most ~70 connections, every wait under a timeout, and
the server is stopped (SIGINT, then killed if it must be) whatever happens.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("uvicorn")
websockets_client = pytest.importorskip("websockets.sync.client")

from kakurega.agents.record import load_record, replay  # noqa: E402

pytestmark = pytest.mark.faults

SECRET = "s3cr3t-TOKEN-42"
#: the most seconds any single reply may take (the server thinks at most 1 s per bot move here)
REPLY_SECONDS = 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """``kakurega serve`` with a record dir and a data dir holding a FIFO and a link to a secret outside it."""
    data, records = tmp_path / "data", tmp_path / "records"
    data.mkdir()
    (tmp_path / "secret.yaml").write_text(f"api_token: '{SECRET}'\n")
    (data / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    os.mkfifo(data / "trap.yaml")
    os.mkfifo(tmp_path / "fifo.yaml")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "kakurega.scripts.cli", "serve", "--port", str(port), "--quiet",
         "--record-dir", str(records), "--data-dir", str(data), "--move-seconds", "1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, process.communicate()[1][-2000:]
                assert time.monotonic() < deadline, "the server did not start in 60 s"
                time.sleep(0.2)
        yield {"url": f"ws://127.0.0.1:{port}/ws", "process": process, "tmp": tmp_path, "records": records}
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


class Tab:
    """One page's websocket: a request, its reply (every reply waited for at most REPLY_SECONDS)."""

    def __init__(self, url: str):
        self.stack = ExitStack()
        self.ws = self.stack.enter_context(websockets_client.connect(url, open_timeout=REPLY_SECONDS, max_size=None))

    def ask(self, message) -> dict:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))
        return json.loads(self.ws.recv(timeout=REPLY_SECONDS))

    def close(self) -> None:
        self.stack.close()


def hostile_requests(tmp: Path) -> list:
    """Every request of the audit that read, hung on or exhausted the server."""
    fifo, secret = str(tmp / "fifo.yaml"), str(tmp / "secret.yaml")
    requests = []
    for env, option in (("summer_hide_and_seek_v1", "map"), ("hidden_rooms_v0", "booklet"),
                        ("animal_chain_v1", "deck"), ("animal_chain_v1", "shape")):
        for value in (fifo, "/dev/stdin", "/dev/zero", "trap.yaml", "link.yaml", secret, "/etc/passwd", str(tmp)):
            requests.append({"type": "new", "env": env, "options": {option: value}, "seat": 0})
    requests += [
        {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": ["HUMAN"]},  # the terminal's human agent
        {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": ["ismcts:simulations=1000000000"]},
        {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": ["ismcts:depth=99999999999,widen=1e308"]},
        {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": [f"policy:{fifo}"]},
        {"type": "new", "env": "kakurenbo_v0", "seat": 0, "agents": ["ismcts:prior=policy:/dev/stdin"]},
        "{not json", "[" * 100_000, json.dumps({"type": "seek", "position": 10**30}),
    ]
    record = {"format": "kakurega-game-record", "version": 1, "env": "summer_hide_and_seek_v1", "env_version": 1,
              "options": {"map": fifo}, "seed": 1, "agents": {"player_0": "random", "player_1": "random"},
              "moves": [], "end": "terminated", "returns": {"player_0": 0.0, "player_1": 0.0}}
    requests.append({"type": "open_record", "record": json.dumps(record)})
    requests.append({"type": "open_record", "record": json.dumps({**record, "options": {"render_mode": "human"}})})
    return requests


def answer_all(url: str, requests: list) -> list[dict]:
    tab = Tab(url)
    try:
        return [tab.ask(request) for request in requests]
    finally:
        tab.close()


def play_out(tab: Tab, state: dict, rng) -> dict:
    while not state["over"]:
        if state["waiting_for"] == "you":
            state = tab.ask({"type": "act", "action": int(rng.choice([int(a) for a in state["legal"]]))})
        else:
            state = tab.ask({"type": "next"})
        assert state["type"] == "state", state
    return state


def test_the_server_survives_hostile_requests_with_every_other_game_intact(server):
    rng = np.random.default_rng(0)
    url = server["url"]
    # a game in progress before the flood
    player = Tab(url)
    state = player.ask({"type": "new", "env": "kakurenbo_v0", "options": {"num_players": 3}, "seat": 0,
                        "agents": ["heuristic"]})
    assert state["type"] == "state", state
    for _ in range(3):
        if state["over"]:
            break
        state = player.ask({"type": "act", "action": int(rng.choice([int(a) for a in state["legal"]]))}
                           if state["waiting_for"] == "you" else {"type": "next"})
    ticket = state["ticket"]

    requests = hostile_requests(server["tmp"])
    start = time.monotonic()
    # 60 tabs at once, more than the server's 40 worker threads: once, 46 hung requests silenced it
    with ThreadPoolExecutor(max_workers=60) as pool:
        futures = [pool.submit(answer_all, url, [requests[(k + i) % len(requests)] for i in range(3)])
                   for k in range(60)]
        futures.append(pool.submit(answer_all, url, requests))
        replies = [reply for future in futures for reply in future.result(timeout=120)]
    assert time.monotonic() - start < 60
    assert len(replies) == 60 * 3 + len(requests)
    for reply in replies:
        assert reply["type"] == "error", reply
        assert SECRET not in reply["message"] and "api_token" not in reply["message"], reply
        assert "internal error" not in reply["message"], reply

    # a bot that would search for hours plays within the time per move, and a thinking bot can be abandoned
    thinker = Tab(url)
    state = thinker.ask({"type": "new", "env": "kakurenbo_v0", "seat": "watch", "seed": 2,
                         "agents": ["ismcts:simulations=100000,rollout=heuristic"]})
    for _ in range(4):
        began = time.monotonic()
        state = thinker.ask({"type": "next"})
        assert state["type"] == "state" and time.monotonic() - began < 10, state
    thinker.ws.send(json.dumps({"type": "next"}))
    thinker.ws.send(json.dumps({"type": "abandon"}))
    answers = [json.loads(thinker.ws.recv(timeout=REPLY_SECONDS)) for _ in range(2)]
    assert answers[-1]["type"] == "abandoned", answers
    thinker.close()

    # the game in progress goes on to its end, its record replays, and a new game starts
    final = play_out(player, player.ask({"type": "join", "ticket": ticket}), rng)
    replay(load_record(final["record"]))
    assert player.ask({"type": "new", "env": "animal_chain_v1", "seat": 0,
                       "options": {"deck": "animal_chain_deck.yaml"}})["type"] == "state"
    player.close()

    # Ctrl-C stops the server promptly and cleanly, with a bot of a connected tab thinking
    busy = Tab(url)
    busy.ask({"type": "new", "env": "kakurenbo_v0", "seat": "watch", "seed": 3,
              "agents": ["ismcts:simulations=100000,rollout=heuristic"]})
    busy.ws.send(json.dumps({"type": "next"}))
    process = server["process"]
    began = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the server did not stop within 20 s of Ctrl-C")
    assert time.monotonic() - began < 15
    assert process.returncode == 0, process.communicate()[1][-2000:]
    assert "Traceback" not in process.communicate()[1]
