"""The fast paths against plain reference implementations.

The belief update runs a compiled dynamic programme with packed images and
caches, and the encoder joins cached float32 bytes (with a kept stroke plane and,
during the child's turn, the public pieces kept in the state);
both are checked here against straightforward versions written for clarity:
a dictionary dynamic programme over (cost spent, icons left), and an encoder
that writes every piece through ``layout.view``.
"""

import copy
import pickle
import random

import numpy as np
import pytest
from conformance import random_states

from kakurega.envs.summer_hide_and_seek import reference
from kakurega.envs.summer_hide_and_seek.belief import PATH_CATEGORY, _image, iter_bits
from kakurega.envs.summer_hide_and_seek.map_data import parse_map
from kakurega.envs.summer_hide_and_seek.observation import SummerObserver
from kakurega.envs.summer_hide_and_seek.rules import BUDGET, CHILD, SummerHideAndSeekGame
from kakurega.envs.summer_hide_and_seek_v0 import raw_env


def reference_propagate(model, mask, cost, icons, blocked):
    """End squares of walks from ``mask`` costing ``cost`` that reach exactly ``icons`` (plain DP)."""
    layers = [{} for _ in range(cost + 1)]
    layers[0][icons] = mask
    for spent in range(cost):
        for rem, squares in layers[spent].items():
            if not squares:
                continue
            for k in model.costs:
                if spent + k > cost:
                    continue
                reached = _image(model.forward[k], squares) & ~blocked
                target = layers[spent + k]
                target[rem] = target.get(rem, 0) | reached & model.category_mask[PATH_CATEGORY]
                for icon in set(rem):
                    i = rem.index(icon)
                    rest = rem[:i] + rem[i + 1 :]
                    target[rest] = target.get(rest, 0) | reached & model.category_mask[icon]
    return layers[cost].get((), 0) if cost else (mask if not icons else 0)


@pytest.mark.parametrize("strict", [False, True])
def test_propagate_matches_the_plain_dynamic_programme(strict):
    game = raw_env(num_players=2, strict_moves=strict).game
    model, S = game.belief_model, game.num_squares
    rng = random.Random(7)
    for _ in range(3000):
        mask = rng.getrandbits(S) & (rng.getrandbits(S) if rng.random() < 0.5 else -1)
        cost = rng.randrange(BUDGET + 1)
        icons = tuple(sorted(rng.randrange(len(game.map.icons)) for _ in range(rng.randrange(4))))
        blocked = rng.getrandbits(S) & rng.getrandbits(S) & rng.getrandbits(S)
        expected = reference_propagate(model, mask, cost, icons, blocked)
        assert model.propagate(mask, cost, icons, blocked) == expected, (mask, cost, icons, blocked)
        assert model.propagate(mask, cost, icons, blocked) == expected  # again, from the caches


def reference_encode(observer, state, seat):
    """The plain definition (the game's reference encoder)."""
    return reference.encode(observer.game, state, seat)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_encoder_matches_the_reference_encoder(num_players):
    env = raw_env(num_players=num_players)
    observer = env.encode.__self__
    states = random_states(env.game, seed=num_players, num_games=12, every=1)
    seats = [(i, seat) for i in range(len(states)) for seat in range(num_players)]
    # in play order (the kept stroke plane grows), then shuffled (it must start afresh)
    for order in (seats, random.Random(num_players).sample(seats, len(seats))):
        for i, seat in order:
            assert np.array_equal(observer.encode(states[i], seat), reference_encode(observer, states[i], seat))
    for clone in (copy.deepcopy(observer), pickle.loads(pickle.dumps(observer))):
        for i, seat in seats[::7]:
            assert np.array_equal(clone.encode(states[i], seat), reference_encode(observer, states[i], seat))
    assert isinstance(SummerObserver(env.game).encode(states[0], 0), np.ndarray)


@pytest.mark.parametrize("num_players", [2, 3])
def test_public_view_kept_through_the_child_turn_matches_the_reference(num_players):
    # The observer keeps the child's public pieces during its turn with the
    # public facts they show (the state knows nothing of it): play whole games
    # on one state and compare every observation with the reference.
    env = raw_env(num_players=num_players)
    game, observer = env.game, env.encode.__self__
    kept = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        while True:
            seats = range(num_players) if seed % 4 == 0 else [game.current_player(state)]
            for seat in seats:
                if seat >= 0:
                    assert np.array_equal(observer.encode(state, seat), reference_encode(observer, state, seat))
            if game.is_terminal(state):
                break
            kept += state.phase == CHILD and observer._child_public[0] is not None
            twin = game.clone(state)
            assert twin == state and game.fingerprint(twin) == game.fingerprint(state)
            legal = game.legal_actions(state)
            game.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
    assert kept > 100, "the child's public view was never kept"


def test_rules_objects_of_a_map_share_its_static_line_tables(monkeypatch):
    """The tables are built once per (map, strict_moves), equal to those built afresh, and kept for at most
    STATIC_TABLES_SIZE maps; the closed lines of a position are those ``open_lines`` refuses."""
    from kakurega.envs.summer_hide_and_seek import rules as rules_module

    from .helpers import TEST_MAP, new_game

    game = SummerHideAndSeekGame(num_players=3)
    again = SummerHideAndSeekGame(num_players=2, reward="vp")
    assert again.out_lines is game.out_lines and again._lines_from is game._lines_from
    assert SummerHideAndSeekGame(strict_moves=True).out_lines is not game.out_lines
    env = raw_env()
    env.reset(seed=0)
    for _ in range(60):  # play on a rules object of the map: nothing it does changes the shared tables
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.game.out_lines is game.out_lines
    fresh = rules_module._static_tables(game.map, game.strict_moves)
    assert fresh == (game.reach, game.lines, game.out_lines, game._line_of, game.conflicts, game.directed_lines,
                     game._into, game.lines_out, game.shortcut_lines, game._lines_from, game.directed_moves,
                     game._conflict_closes)
    monkeypatch.setattr(rules_module, "_STATIC_TABLES", {})
    monkeypatch.setattr(rules_module, "STATIC_TABLES_SIZE", 1)
    SummerHideAndSeekGame()
    small, _state = new_game()
    assert len(rules_module._STATIC_TABLES) == 1 and small.out_lines == rules_module._static_tables(
        parse_map(TEST_MAP, "test map"), False)[2]
    rng = random.Random(0)
    for _ in range(200):
        p = rng.randrange(game.num_squares)
        visited, drawn, blocked = rng.getrandbits(game.num_squares) | 1 << p, rng.getrandbits(len(game.lines)), 0
        drawn &= rng.getrandbits(len(game.lines)) & rng.getrandbits(len(game.lines))  # a few lines
        blocked = rng.getrandbits(game.num_squares) & rng.getrandbits(game.num_squares)
        visited &= rng.getrandbits(game.num_squares) | 1 << p
        open_now = game.lines_out[p] & ~game.closed_lines_at(visited, drawn, blocked)
        expected = [q for q, _b, _l, _c in game.open_lines(p, visited, drawn, blocked, BUDGET)]
        assert [game.directed_moves[d][0] for d in iter_bits(open_now)] == expected


def test_kept_public_view_is_not_reused_for_another_belief():
    """The child's kept public pieces are keyed with the seekers' belief: two child-turn states alike in every other
    public fact (round, guesses, announcements, scores, pieces) but with other beliefs, encoded back to back by one
    observer, each match the reference (the second does not show the first's belief plane)."""
    from kakurega.envs.summer_hide_and_seek.rules import SEEK

    env = raw_env(num_players=2)
    game, observer = env.game, env.encode.__self__
    rng = np.random.default_rng(1)
    groups = {}
    for _ in range(80):  # first rounds; the seekers place on their lowest legal square, so their guesses repeat
        state = game.initial_state(rng)
        while not (game.is_terminal(state) or game.is_truncated(state)) and state.round == 0:
            if state.phase == CHILD:
                said = state.announcements
                key = (state.first_child, state.round, state.guessed, len(said), said[-1] if said else None,
                       tuple(state.vp), tuple(state.pieces))
                groups.setdefault(key, {}).setdefault(state.belief, game.clone(state))
            legal = game.legal_actions(state)
            game.apply_action(state, legal[0] if state.phase == SEEK else int(rng.choice(legal)), rng)
    pairs = [list(by_belief.values())[:2] for by_belief in groups.values() if len(by_belief) > 1]
    assert len(pairs) >= 5, "no two child-turn states differ only in the belief"
    for first, second in pairs:
        seat = (first.first_child + first.round) % game.num_players
        for x, y in ((first, second), (second, first)):
            observer.encode(x, seat)
            assert np.array_equal(observer.encode(y, seat), reference_encode(observer, y, seat))
