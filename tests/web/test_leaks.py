"""The web app sends a page only what its player may know: checked on the messages themselves.

For states met in random games of every registered env and configuration,
the message a page is sent (:meth:`GameSession.message`: picture, text,
turn, legal actions, events, result) must be byte for byte the same when
the hidden part of the state is re-dealt consistently with what the page's
view knows. A deliberately leaky message (one carrying another seat's
picture) must fail the same check: the control proves the check can fail.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conformance import registry_cases

from kakurega.agents.specs import seat_lineup
from kakurega.scripts.web.session import GameSession, view_message

pytest.importorskip("PIL")


def _sessions(env_name, options, seed):
    """One session per view: the person on each seat in turn (random agents elsewhere), and a spectator."""
    from kakurega.envs.registry import make

    n = len(make(env_name, wrapped=False, **options).possible_agents)
    for seat in range(n):
        yield GameSession(env_name, options, seat_lineup(env_name, n, seat, ["random"] if n > 1 else []), seed=seed)
    yield GameSession(env_name, options, seat_lineup(env_name, n, None, ["random"]), view=None, seed=seed)


def _check_messages(session, message_of, rng, max_states: int = 12) -> tuple[int, int]:
    """Play ``session`` to the end (random moves for the person); at up to ``max_states`` states, the message
    of a re-deal for the view equals the true one, and at the end (the result). Returns (states checked, re-deals
    that changed the state)."""
    raw, game = session.raw, session.raw.game
    checked = changed = 0
    step = 0
    while True:
        if step % 3 == 0 and checked < max_states or session.over:
            seat = raw.possible_agents.index(session.view) if session.view else int(rng.integers(game.num_players))
            truth = raw.game_state
            expected = json.dumps(message_of(session))
            for _k in range(2):
                sample = game.resample_hidden(truth, seat, rng)
                changed += game.fingerprint(sample) != game.fingerprint(truth)
                raw.game_state = sample
                try:
                    got = json.dumps(message_of(session))
                finally:
                    raw.game_state = truth
                assert got == expected, (
                    f"{session.env_name}: the message to view {session.view} changed when the hidden part of the "
                    f"state was re-dealt (step {step}, re-deal for seat {seat})")
            checked += 1
        if session.over:
            return checked, changed
        if raw.agent_selection == session.person:
            session.act(int(rng.choice(raw.legal_actions())))
        else:
            session.advance()
        step += 1


@pytest.mark.parametrize("env_name,options", registry_cases())
def test_messages_hold_only_the_view(env_name, options):
    rng = np.random.default_rng(11)
    checked = changed = 0
    for seed in range(5, 15):  # a short game checks few states a game: more games until a re-deal changed one
        for session in _sessions(env_name, options, seed=seed):
            c, h = _check_messages(session, lambda s: s.message(), rng)
            checked, changed = checked + c, changed + h
        if changed:
            break
    assert checked and changed, "no re-deal changed a state: the check would be vacuous"


def _leaky_message(session):
    """A deliberately leaky control: the message also carries the next seat's picture."""
    raw = session.raw
    seat = (raw.possible_agents.index(session.view) + 1) % len(raw.possible_agents) if session.view else 0
    return {**session.message(), "also": view_message(raw, raw.possible_agents[seat])["svg"]}


@pytest.mark.parametrize("env_name,options", [("kakurenbo_v0", {"num_players": 3}), ("summer_hide_and_seek_v1", {}),
                                              ("animal_chain_v1", {})])
def test_control_a_leaky_message_is_caught(env_name, options):
    rng = np.random.default_rng(3)
    caught = 0
    for session in _sessions(env_name, options, seed=2):
        try:
            _check_messages(session, _leaky_message, rng)
        except AssertionError:
            caught += 1
    assert caught, "the check did not catch a message carrying another seat's picture"


def test_a_page_tells_every_move_in_its_seats_words():
    session = GameSession("kakurenbo_v0", {"num_players": 3}, ["random", None, "random"], seed=4)
    rng = np.random.default_rng(0)
    expected = []
    while not session.over:
        raw = session.raw
        before = raw.game.clone(raw.game_state)
        if raw.agent_selection == session.person:
            action = int(rng.choice(raw.legal_actions()))
            session.act(action)
        else:
            session.advance()
            action = session.record.moves[-1][1]
        expected.append(raw.game.public_action_string(before, action, raw.game_state, 1))
    moves = session.events[:-1]
    assert session.events[-1].startswith("Game over. ")
    assert moves == expected  # player_1's words for every move (tests/test_move_words.py: they leak nothing)
    assert any(e.startswith("you ") for e in moves)
    assert any(e.startswith(("player_0 gives a", "player_2 gives a", "player_0 takes", "player_2 takes")) for e in moves)


def _check_every_seat(session, message_of, rng, max_states: int = 6) -> tuple[int, int]:
    """Play a table of people to the end (random moves, each by its own seat); at up to ``max_states`` states, the
    message to every seat is unchanged by a re-deal of what that seat does not know, and at the end (the result).
    Returns (checks, changes)."""
    raw, game = session.raw, session.raw.game
    checked = changed = step = 0
    while True:
        if step % 4 == 0 and checked < max_states * len(session.persons) or session.over:
            truth = raw.game_state
            for view in session.persons:
                seat = raw.possible_agents.index(view)
                expected = json.dumps(message_of(session, view))
                sample = game.resample_hidden(truth, seat, rng)
                changed += game.fingerprint(sample) != game.fingerprint(truth)
                raw.game_state = sample
                try:
                    got = json.dumps(message_of(session, view))
                finally:
                    raw.game_state = truth
                assert got == expected, (f"{session.env_name}: the message to seat {view} of a table of people "
                                         f"changed when its hidden part was re-dealt (step {step})")
                checked += 1
        if session.over:
            return checked, changed
        session.act(int(rng.choice(raw.legal_actions())), raw.agent_selection)
        step += 1


def _table_of_people(env_name, options, seed):
    from kakurega.envs.registry import make

    n = len(make(env_name, wrapped=False, **options).possible_agents)
    return GameSession(env_name, options, [None] * n, seed=seed)


@pytest.mark.parametrize("env_name,options", registry_cases())
def test_every_seat_of_a_table_of_people_gets_only_its_own_view(env_name, options):
    rng = np.random.default_rng(4)
    checked = changed = 0
    for seed in range(9, 19):  # a short game checks few states a game: more games until a re-deal changed one
        session = _table_of_people(env_name, options, seed=seed)
        c, h = _check_every_seat(session, lambda s, view: s.message(view=view), rng)
        checked, changed = checked + c, changed + h
        if changed:
            break
    assert checked >= len(session.persons) and changed, "no re-deal changed a state: the check would be vacuous"


@pytest.mark.parametrize("env_name,options", [("kakurenbo_v1", {"num_players": 3}), ("animal_chain_v1", {})])
def test_control_a_table_message_with_another_seats_picture_is_caught(env_name, options):
    session = _table_of_people(env_name, options, seed=9)

    def leaky(s, view):  # the next seat's picture beside the seat's own message
        agents = s.raw.possible_agents
        return {**s.message(view=view), "also": view_message(s.raw, agents[(agents.index(view) + 1) % len(agents)])}

    with pytest.raises(AssertionError, match="changed when its hidden part was re-dealt"):
        _check_every_seat(session, leaky, np.random.default_rng(4), max_states=30)
