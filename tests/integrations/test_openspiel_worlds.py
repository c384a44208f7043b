"""A resampled world is made from draws that reproduce it, and holds nothing of the true deal.

``resample_from_infostate`` re-deals the state with a generator set from four
sampler draws, draws the world's chance seed from it (by Lemire's method,
without numpy's ``integers`` call), and builds the world as a new pyspiel
state (not a clone, whose history is the true one): these tests pin the world
to that recipe, written out with numpy's own calls, check that the world
shares nothing with its origin and leaves it as it was, and that its history,
seed and serialized text are the same for two true states the player cannot
tell apart. ``deserialize_state`` replays a history and never unpickles.
"""

import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kakurega.integrations import openspiel as bridge  # noqa: E402
from kakurega.scripts.bench_bridge import newest_envs  # noqa: E402


def _load(env_name):
    return pyspiel.load_game(bridge.short_name(env_name), {})


def test_world_seeds_are_numpys_bounded_integers_and_use_the_same_draws():
    ours = np.random.Generator(np.random.PCG64(0))
    theirs = np.random.Generator(np.random.PCG64(0))
    pick = random.Random(3)
    for _ in range(3000):
        state = {"bit_generator": "PCG64", "state": {"state": pick.getrandbits(128), "inc": pick.getrandbits(127) * 2 + 1},
                 "has_uint32": 0, "uinteger": 0}
        ours.bit_generator.state = theirs.bit_generator.state = state
        size = pick.randrange(40)  # a re-deal's draws first, 32-bit ones leaving a half word buffered
        ours.permutation(size)
        theirs.permutation(size)
        if pick.random() < 0.5:
            ours.integers(7)
            theirs.integers(7)
        assert bridge._world_seed(ours.bit_generator) == int(theirs.integers(2**63 - 1))
        assert ours.bit_generator.state == theirs.bit_generator.state


def test_a_world_seed_rejects_a_raw_draw_as_lemires_method_does():
    """numpy rejects a raw draw whose low product word is below 2**64 mod the range: here 2."""
    assert (2**64 - bridge._WORLD_SEEDS) % bridge._WORLD_SEEDS == 2

    class Raw:
        def __init__(self, draws):
            self.draws = list(draws)

        def random_raw(self):
            return self.draws.pop(0)

    raw = Raw([0, 2**64 - 1, 1])  # low words 0 (rejected), then 2**63 + 1 (kept)
    assert bridge._world_seed(raw) == (2**64 - 1) * bridge._WORLD_SEEDS >> 64 and raw.draws == [1]


class Scripted:
    """A probability sampler replaying given draws."""

    def __init__(self, draws):
        self.draws = list(draws)

    def __call__(self):
        return self.draws.pop(0)


def _positions(game, seed, count):
    """States met in random play (some with their information state read)."""
    choose = random.Random(seed).randrange
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(bridge.SEED_DRAWS):
            state.apply_action(choose(bridge.SEED_OUTCOMES))
        while not state.is_terminal() and len(out) < count:
            if choose(4) == 0:
                if choose(2):
                    state.information_state_string(state.current_player())
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply_action(legal[choose(len(legal))])
    return out


@pytest.mark.parametrize("env_name", newest_envs())
def test_a_world_is_the_redeal_its_draws_give_and_shares_nothing(env_name):
    game = _load(env_name)
    rules = game.shared.game
    draws = random.Random(env_name)
    for state in _positions(game, 7, 12):
        player = state.current_player()
        before_string = state.information_state_string(player)
        history, held, fingerprint = state.history(), state.state, rules.fingerprint(state.state)
        core = state._core
        owned = (core.rng_owned, core.moves_owned, core.lines_owned)
        values = [draws.random() for _ in range(4)]

        world = state.resample_from_infostate(player, Scripted(values))

        redeal = np.random.Generator(np.random.PCG64(0))
        redeal.bit_generator.state = {"bit_generator": "PCG64", "state": {
            "state": sum((int(v * 2**32) & 0xFFFFFFFF) << (32 * (3 - i)) for i, v in enumerate(values)),
            "inc": bridge._REDEAL_INCREMENT}, "has_uint32": 0, "uinteger": 0}
        expected = rules.resample_hidden(held, player, redeal)
        assert rules.fingerprint(world.state) == rules.fingerprint(expected)
        assert pickle.dumps(world.state) == pickle.dumps(expected)
        assert world._core.rng == int(redeal.integers(2**63 - 1))
        assert world.history() == [] and world._core.seed == () and world.current_player() == player
        assert world.information_state_string(player) == before_string
        # the origin is as it was, and owns what it owned: the world holds nothing of it
        assert state.state is held and rules.fingerprint(held) == fingerprint
        assert (core.rng_owned, core.moves_owned, core.lines_owned) == owned
        assert getattr(core, "world", None) is None
        world_core = world._core
        assert world_core.state is not held and world_core.moves is not core.moves
        assert world_core.lines is not core.lines
        assert all(mine is not theirs for mine in world_core.lines.lines for theirs in core.lines.lines)
        assert state.information_state_string(player) == before_string
        # the world plays on, its origin's lines untouched
        if not world.is_terminal():
            world.apply_action(world.legal_actions()[0])
            world.information_state_string(player)
        assert state.information_state_string(player) == before_string and state.history() == history


def test_a_failed_resample_leaves_the_state_whole():
    game = _load(newest_envs("hidden_rooms")[0])
    state = _positions(game, 2, 1)[0]
    held, string = state.state, state.information_state_string(0)

    def broken():
        raise RuntimeError("sampler failed")

    with pytest.raises(RuntimeError, match="sampler failed"):
        state.resample_from_infostate(0, broken)
    with pytest.raises(IndexError):
        state.resample_from_infostate(5, Scripted([0.1, 0.2, 0.3, 0.4]))  # no such player's lines
    assert state.state is held and getattr(state._core, "world", None) is None
    assert state.information_state_string(0) == string
    clone = state.clone()
    assert clone.state is not held and clone.information_state_string(0) == string


def _twins(game, player: int, tries: int = 400):
    """Two dealt states with equal information-state strings for ``player`` and different histories, or None."""
    seen = {}
    rng = random.Random(5)
    for _ in range(tries):
        state = game.new_initial_state()
        for _ in range(bridge.SEED_DRAWS):
            state.apply_action(rng.randrange(bridge.SEED_OUTCOMES))
        for _ in range(rng.randrange(4)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        if state.is_terminal() or state.current_player() != player:
            continue
        key = state.information_state_string(player)
        other = seen.setdefault(key, state)
        if other is not state and other.history() != state.history():
            return other, state
    return None


def test_a_world_carries_nothing_of_the_true_deal():
    """Two true states a player cannot tell apart give, from the same sampler draws, worlds with the same
    history, seed and serialized text: a world made by clone() carried the true history (the seed draws and
    the moves), whose replay dealt the true state. The control: the two true states' own texts differ. Checked
    in every newest game where random play meets such twins soon (a solitaire game has none to meet)."""
    checked = []
    for env_name in newest_envs():
        game = _load(env_name)
        twins = _twins(game, 0)
        if twins is None:
            continue
        first, second = twins
        assert first.serialize() != second.serialize()
        worlds = [state.resample_from_infostate(0, Scripted([0.1, 0.2, 0.3, 0.4])) for state in (first, second)]
        assert worlds[0].history() == worlds[1].history() == [], env_name
        assert worlds[0]._core.seed == worlds[1]._core.seed == (), env_name
        assert worlds[0].serialize() == worlds[1].serialize(), env_name
        checked.append(env_name)
    assert len(checked) >= 2, checked


@pytest.mark.parametrize("env_name", newest_envs())
def test_deserialize_state_replays_the_history_and_never_unpickles(env_name, tmp_path):
    """The game's ``deserialize_state`` rebuilds a state from its history (checked move by move) and never reads
    the pickled attributes, where pyspiel's own deserialization of a Python game runs whatever they hold."""
    import base64
    import os

    game = _load(env_name)
    state = _positions(game, 3, 1)[0]
    text = state.serialize()
    again = game.deserialize_state(text)
    assert again.history() == state.history() and str(again) == str(state)
    assert again.information_state_string(0) == state.information_state_string(0)
    mark = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {mark}",))

    head = text.split("__dict__=")[0]
    crafted = head + "__dict__=" + base64.b64encode(pickle.dumps({"_core": Payload()})).decode()
    assert str(game.deserialize_state(crafted)) == str(state)  # the history decides; the payload is never read
    assert not mark.exists()
    history = [f"{move.player}:{move.action}" for move in state.full_history()]
    bad = "history=" + ",".join(history[:-1] + [f"{history[-1].split(':')[0]}:999999"])  # no move of any node
    with pytest.raises(ValueError, match=r"history entry \d+ .* is not a legal move"):
        game.deserialize_state(bad + "\nmove_number=0\n__dict__=")
    with pytest.raises(ValueError, match="expected 'history=...' and 'move_number=...' lines"):
        game.deserialize_state("hello")
    with pytest.raises(TypeError, match="expects the text of state.serialize"):
        game.deserialize_state(b"history=")
