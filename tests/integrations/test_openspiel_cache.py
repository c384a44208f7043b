"""The bridge's kept answers equal fresh ones.

A bridge state keeps the player to act (set at each move) and the legal
actions (until the next move), answers ``legal_actions`` and
``is_chance_node`` in Python instead of through pyspiel's C++ ``State``, and
builds its generators from the seed words directly. These tests compare
every kept answer with one computed afresh from the rules state (and with
pyspiel's C++ answers) at every position of random games mixing moves,
clones, resampled worlds and replaced rules states; a control corrupts a kept
value and checks that the comparison notices.
"""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kakurega.envs.core.game import TERMINAL  # noqa: E402
from kakurega.envs.registry import ENV_SPECS  # noqa: E402
from kakurega.integrations import openspiel as bridge  # noqa: E402


def _newest(alias):
    return max((n for n in ENV_SPECS if bridge.short_name(n, versioned=False) == alias), key=lambda n: int(n.rpartition("_v")[2]))


GAMES = sorted({_newest(bridge.short_name(name, versioned=False)) for name in ENV_SPECS}) + ["kakurenbo_v1-3"]


def _game(case):
    name, _, players = case.partition("-")
    return pyspiel.load_game(bridge.short_name(name), {"num_players": int(players)} if players else {})


def _mismatches(state) -> list[str]:
    """What the state answers differently from a fresh computation (the rules, pyspiel's C++ ``State``)."""
    found = []
    rules, rules_state = state.shared.game, state.state
    if rules_state is None:
        fresh_player, fresh_legal = pyspiel.PlayerId.CHANCE, list(range(bridge.SEED_OUTCOMES))
    else:
        player = rules.current_player(rules_state)
        fresh_player = pyspiel.PlayerId.TERMINAL if player == TERMINAL else player
        fresh_legal = [] if player == TERMINAL else rules.legal_actions(rules_state)
    if state.current_player() != fresh_player:
        found.append(f"current_player {state.current_player()} != {fresh_player}")
    if state.is_terminal() != (fresh_player == pyspiel.PlayerId.TERMINAL):
        found.append("is_terminal")
    if state.is_chance_node() != (fresh_player == pyspiel.PlayerId.CHANCE) or \
            state.is_chance_node() != pyspiel.State.is_chance_node(state):
        found.append("is_chance_node")
    if state.legal_actions() != fresh_legal or pyspiel.State.legal_actions(state) != fresh_legal:
        found.append(f"legal_actions {state.legal_actions()} != {fresh_legal}")
    for seat in range(state.num_players()):
        if state.legal_actions(seat) != pyspiel.State.legal_actions(state, seat):
            found.append(f"legal_actions({seat})")
    if rules_state is not None and fresh_player != pyspiel.PlayerId.TERMINAL:
        expected_mask = [int(a in fresh_legal) for a in range(state.get_game().num_distinct_actions())]
        if state.legal_actions_mask() != expected_mask:
            found.append("legal_actions_mask")
    return found


@pytest.mark.parametrize("case", GAMES)
def test_kept_answers_equal_fresh_ones_over_random_games(case):
    game = _game(case)
    rng = np.random.default_rng(7)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    checked = clones = worlds = 0
    for deals in range(100):  # four deals; a short game has few positions in each, so it is dealt on until the counts
        if deals >= 4 and checked > 100 and clones and worlds:
            break
        state = game.new_initial_state()
        assert _mismatches(state) == []
        states = [state]
        while states:
            state = states.pop()
            while not state.is_terminal():
                assert _mismatches(state) == [], (case, checked)
                checked += 1
                roll = rng.random()
                if roll < 0.05 and len(states) < 3:
                    states.append(state.clone())  # a clone carries on later, from this position
                    clones += 1
                elif roll < 0.08 and not state.is_chance_node():
                    state = state.resample_from_infostate(state.current_player(), sampler)
                    worlds += 1
                    continue
                legal = state.legal_actions()
                legal.append(-1)  # the list handed out is the caller's: changing it changes nothing kept
                state.apply_action(int(rng.choice(legal[:-1])))
            assert _mismatches(state) == []
    assert checked > 100 and clones and worlds, (checked, clones, worlds, deals)


@pytest.mark.parametrize("case", GAMES)
def test_replacing_or_restoring_the_rules_state_renews_what_is_kept(case):
    game = _game(case)
    state = game.new_initial_state()
    for value in (3, 1, 4, 1):
        state.apply_action(value)
    rules, rng = state.shared.game, np.random.default_rng(0)
    while rules.current_player(state.state) != TERMINAL:
        state.apply_action(int(rng.choice(state.legal_actions())))
        if rng.random() < 0.3:
            original = state.state
            state.state = rules.resample_hidden(original, state.current_player(), np.random.default_rng(1))
            assert _mismatches(state) == []
            state.state = original
            assert _mismatches(state) == []
    restored = game.deserialize_state(state.serialize())
    assert restored.is_terminal() and _mismatches(restored) == []


def test_the_check_notices_a_stale_kept_value():
    """Control: each kept value, changed behind the state's back, is caught."""
    game = _game("kakurenbo_v1")
    state = game.new_initial_state()
    for value in (3, 1, 4, 1):
        state.apply_action(value)
    assert _mismatches(state) == []
    core = state._core
    legal = state.legal_actions()
    core.legal = legal[:-1]
    assert any(m.startswith("legal_actions") for m in _mismatches(state))
    core.legal = None
    player = core.player
    core.player = (player + 1) % game.num_players()
    assert any(m.startswith("current_player") for m in _mismatches(state))
    core.player = pyspiel.PlayerId.TERMINAL
    assert "is_terminal" in _mismatches(state)
    core.player = pyspiel.PlayerId.CHANCE
    assert "is_chance_node" in _mismatches(state)
    core.player = player
    assert _mismatches(state) == []


def test_legal_actions_refuses_what_pyspiel_refuses():
    state = _game("kakurenbo_v1").new_initial_state()
    for value in (3, 1, 4, 1):
        state.apply_action(value)
    with pytest.raises(pyspiel.SpielError) as ours:
        state.legal_actions(-3)
    with pytest.raises(pyspiel.SpielError) as theirs:
        pyspiel.State.legal_actions(state, -3)
    assert str(ours.value) == str(theirs.value)


def test_generators_built_from_seed_words_equal_default_rng():
    draws = np.random.default_rng(5)
    for _ in range(500):
        seed = tuple(int(draws.choice([0, bridge.SEED_OUTCOMES - 1, draws.integers(bridge.SEED_OUTCOMES)]))
                     for _ in range(bridge.SEED_DRAWS))
        assert bridge._seed_generator(seed).bit_generator.state == np.random.default_rng(seed).bit_generator.state
    for seed in [0, 1, 2**32 - 1, 2**32, 2**63 - 2] + [int(draws.integers(2**63 - 1)) for _ in range(300)]:
        assert bridge._world_generator(seed).bit_generator.state == np.random.default_rng(seed).bit_generator.state


def test_a_core_deep_copied_within_a_larger_copy_keeps_the_memo_intact():
    """A core makes deepcopy's keep-alive list itself (the cheap clone) without dropping what it holds."""
    import copy

    state = _game("kakurenbo_v1").new_initial_state()
    for value in (3, 1, 4, 1):
        state.apply_action(value)
    core, kept = state._core, object()
    memo = {}
    memo[id(memo)] = [kept]
    copied = core.__deepcopy__(memo)
    assert memo[id(memo)] == [kept] and copied is not core
    first, second = copy.deepcopy([core, core])
    assert first is second and first is not core
    assert first.shared.game.fingerprint(first.state) == core.shared.game.fingerprint(core.state)
