"""A bot cannot learn the deal from the objects a table hands it: its generator's seed and its stop signal.

A bot reads ``self.rng.bit_generator.seed_seq.entropy`` by plain attribute
access. When `kakurega play --seed S` and the web app seeded their bots with
``deal seed + 1 + seat``, a bot subtracted, dealt the game again in an env of
its own and saw every hidden card. Each check below deals the game again from
what the bot holds, and a control shows the same check catches the old seeds.
The web app's stop signal is walked like every other object handed to an
agent (``tests/leak_checks.py``), with the old closure as its control.
"""

from __future__ import annotations

import numpy as np
import pytest
from leak_checks import env_targets, find_path
from terminal_player import typist

from kakurega.agents.base import RandomAgent, seat_seed
from kakurega.envs.registry import make
from kakurega.scripts.cli import main
from kakurega.scripts.web.session import GameSession, StopSignal

GAME, OPTIONS = "kakurenbo_v1", {"num_players": 3}


def hands_of_deal(seed: int) -> list:
    """Every hand of the game dealt from ``seed``: what a cheating bot would read in the env it deals itself."""
    raw = make(GAME, wrapped=False, **OPTIONS)
    raw.reset(seed=int(seed))
    return [list(hand) for hand in raw.game_state.hands]


def deal_found_from(bot_entropy, seat: int, truth: list) -> bool:
    """Whether a bot at ``seat`` finds the deal by trying seeds near its own (the old ``seed + 1 + seat``)."""
    own = int(np.atleast_1d(bot_entropy)[0])
    return any(hands_of_deal(candidate) == truth for candidate in {own - 1 - seat, own - 1, own, own - seat}
               if candidate >= 0)


class Capturing(RandomAgent):
    """A random bot that keeps what it is handed while it thinks (the stop signal)."""

    handed: list = []

    def act(self, observation, sampler=None):
        Capturing.handed.append(self.should_stop)
        return super().act(observation, sampler)


def test_the_deal_check_catches_the_old_seeds():
    seed = 1234
    truth = hands_of_deal(seed)
    assert all(deal_found_from(seed + 1 + seat, seat, truth) for seat in range(3))  # the control
    assert not any(deal_found_from(seat_seed(seed, seat), seat, truth) for seat in range(3))


@pytest.mark.parametrize("typed_seed", [None, 77], ids=["drawn", "typed"])
def test_web_bots_do_not_hold_the_deal_seed(typed_seed):
    session = GameSession(GAME, OPTIONS, [None, "random", "random"], seed=typed_seed)
    truth = [list(hand) for hand in session.raw.game_state.hands]
    assert truth == hands_of_deal(session.seed)  # the deal is the session's seed, as the record says
    for seat, name in enumerate(session.raw.possible_agents[1:], start=1):
        entropy = session.agents[name].rng.bit_generator.seed_seq.entropy
        assert not deal_found_from(entropy, seat, truth), f"{name}'s generator shows the deal's seed"
        if typed_seed is not None:  # a typed seed seeds the bots reproducibly, through the hash
            assert entropy == seat_seed(typed_seed, seat)


def test_play_bots_do_not_hold_the_deal_seed(monkeypatch, capsys):
    import kakurega.agents.specs as specs

    made, make_agent = [], specs.make_agent

    def keep(spec, context, seed=None, **kwargs):
        made.append(make_agent(spec, context, seed=seed, **kwargs))
        return made[-1]

    monkeypatch.setattr(specs, "make_agent", keep)
    monkeypatch.setattr("builtins.input", typist(capsys))
    assert main(["play", "kakurenbo", "--opponents", "random", "--seat", "0", "--seed", "9",
                 "--option", "num_players=3"]) == 0
    truth = hands_of_deal(9)
    assert len(made) == 2
    for seat, bot in enumerate(made, start=1):
        entropy = bot.rng.bit_generator.seed_seq.entropy
        assert entropy == seat_seed(9, seat)
        assert not deal_found_from(entropy, seat, truth)


def test_a_thinking_web_bot_reaches_nothing_of_the_game_through_its_stop_signal():
    session = GameSession(GAME, OPTIONS, [None, "random", "random"])
    for name in session.raw.possible_agents[1:]:
        session.agents[name] = Capturing(session.agents[name].context, 0)
    Capturing.handed.clear()
    while not Capturing.handed and not session.over:
        if session.raw.agent_selection == session.person:
            session.act(session.raw.legal_actions()[0])
        else:
            session.advance()
    assert Capturing.handed, "no bot thought"
    signal = Capturing.handed[0]
    assert isinstance(signal, StopSignal) and signal() is False  # not abandoned, not out of time
    targets = {**env_targets(session.raw), "the session": session}
    assert find_path({"the stop signal": signal}, targets) is None, find_path({"the stop signal": signal}, targets)
    # the control: the closure the signal replaced reaches the session, and through it the state
    old = lambda: session.abandoned.is_set()  # noqa: E731
    assert find_path({"the stop signal": old}, targets) is not None


def test_the_stop_signal_stops_on_a_flag_or_the_deadline():
    import threading
    import time

    flag = threading.Event()
    assert StopSignal(flag.is_set)() is False
    flag.set()
    assert StopSignal(flag.is_set)() is True
    assert StopSignal(None, deadline=time.monotonic() - 1)() is True
    assert StopSignal(None, deadline=time.monotonic() + 60)() is False
