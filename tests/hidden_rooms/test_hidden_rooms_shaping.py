"""The ``shaping`` option: validation, the potential on hand-made tables, telescoping in random games."""

import functools
import math

import numpy as np
import pytest
from conformance import (
    check_copy_continues_identically,
    check_determinism,
    check_global_rng_isolation,
    check_observations,
)
from pettingzoo.test import api_test

from hidden_rooms.hidden_rooms_helpers import monster, rng, table
from kakurega.envs import hidden_rooms_v0, make
from kakurega.envs.hidden_rooms.rules import (
    EMPTY,
    ESCAPED,
    MONSTER_EXITED,
    MOVE,
    NUM_CELLS,
    START_CELL,
    START_TILE,
    HiddenRoomsGame,
    cell_of,
)
from kakurega.envs.hidden_rooms.shaping import ShapedHiddenRoomsGame, potential

AGENT = "player_0"


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    "value, error, words",
    [
        ("0.5", TypeError, ["shaping", "number in [0, 1]", "'0.5'", "str"]),
        (True, TypeError, ["shaping", "bool"]),
        (None, TypeError, ["shaping", "NoneType"]),
        ([1.0], TypeError, ["shaping", "list"]),
        (-0.1, ValueError, ["shaping", "[0, 1]", "-0.1"]),
        (1.5, ValueError, ["shaping", "[0, 1]", "1.5"]),
        (math.nan, ValueError, ["shaping", "[0, 1]", "nan"]),
        (math.inf, ValueError, ["shaping", "[0, 1]", "inf"]),
    ],
)
def test_bad_shaping_is_refused(value, error, words):
    with pytest.raises(error) as raised:
        hidden_rooms_v0.raw_env(shaping=value)
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))


@pytest.mark.parametrize(
    "value, game_class",
    [
        (0, HiddenRoomsGame),
        (0.0, HiddenRoomsGame),
        (1, ShapedHiddenRoomsGame),
        (0.25, ShapedHiddenRoomsGame),
        (np.float32(0.5), ShapedHiddenRoomsGame),
    ],
)
def test_good_shaping_is_accepted(value, game_class):
    env = hidden_rooms_v0.raw_env(shaping=value)
    assert type(env.game) is game_class
    assert env.options["shaping"] == float(value) and type(env.options["shaping"]) is float
    if game_class is ShapedHiddenRoomsGame:
        assert env.game.shaping == float(value)


# ------------------------------------------------------------------- potential
def board_with(*cells):
    board = [EMPTY] * NUM_CELLS
    board[START_CELL] = START_TILE
    for r, c in cells:
        board[cell_of(r, c)] = 0  # any room tile: the potential looks only at explored or not
    return board


@pytest.mark.parametrize(
    "tiles, child, expected, why",
    [
        ((), (4, 4), 0 / 16, "round start: child and frontier 8 away"),
        (((3, 4),), (4, 4), 1 / 16, "a tile north of the child brings the frontier to 7"),
        (((3, 4),), (3, 4), 2 / 16, "standing on it: child 7, frontier 7"),
        (((3, 4), (2, 4)), (3, 4), 3 / 16, "child 7, frontier 6"),
        (((4, 3), (3, 4)), (4, 4), 1 / 16, "two tiles at distance 7: the best counts once"),
        (((0, 0), (0, 1)), (4, 4), 0 / 16, "explored cells not connected to the child do not count"),
        (((3, 4), (2, 4), (2, 3)), (2, 4), 5 / 16, "child 6, frontier 5 via (2, 3)"),
        (((4, 3), (3, 3), (2, 3), (2, 2), (1, 2), (1, 1), (0, 1), (0, 0)), (0, 1), 15 / 16, "next to the explored exit"),
        (((4, 3), (3, 3), (2, 3), (2, 2), (1, 2), (1, 1), (0, 1), (0, 0)), (4, 4), 8 / 16, "the path is built, the child still at the start"),
    ],
)
def test_potential_of_hand_made_tables(tiles, child, expected, why):
    assert potential(board_with(*tiles), cell_of(*child)) == pytest.approx(expected), why


# ------------------------------------------------------------- random games
def play(episode: str, reward: str, shaping: float, seed: int):
    """A random game played on a shaped and an unshaped env side by side.

    Returns per step: (shaped reward, unshaped reward, phi before, phi after, round before, round after).
    """
    shaped = hidden_rooms_v0.raw_env(episode=episode, reward=reward, shaping=shaping)
    plain = hidden_rooms_v0.raw_env(episode=episode, reward=reward)
    shaped.reset(seed=seed)
    plain.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = shaped.game
    rows = []
    while not plain.terminations[AGENT]:
        assert np.array_equal(shaped.observe(AGENT)["observation"], plain.observe(AGENT)["observation"])
        before, round_before = game.potential(shaped.game_state), shaped.game_state.rounds
        action = int(rng.choice(plain.legal_actions()))
        shaped.step(action)
        plain.step(action)
        assert shaped.terminations[AGENT] == plain.terminations[AGENT]
        rows.append((shaped.rewards[AGENT], plain.rewards[AGENT], before, game.potential(shaped.game_state),
                     round_before, shaped.game_state.rounds))
    return rows, shaped


@pytest.mark.parametrize("episode, reward", [("round", "match"), ("match", "match"), ("match", "per_round")])
@pytest.mark.parametrize("shaping", [1.0, 0.3])
def test_shaped_rewards_telescope_in_random_games(episode, reward, shaping):
    shaped_steps = rounds = 0
    for seed in range(12):
        rows, env = play(episode, reward, shaping, seed)
        # every step: r' = r + k * (phi(s') - phi(s))
        for shaped, plain, before, after, _, _ in rows:
            assert shaped == pytest.approx(plain + shaping * (after - before), abs=1e-12)
            shaped_steps += shaped != plain
        # Each round starts at phi 0. Its shaped rewards sum to its unshaped ones plus
        # k * (phi(end) - phi(start)): phi(end) is the final table's for the last round, and
        # 0 for an earlier round of a match (the step that ends it lands on the next round's first table).
        starts = [0] + [i + 1 for i, row in enumerate(rows[:-1]) if row[5] != row[4]]
        for begin, end in zip(starts, starts[1:] + [len(rows)]):
            assert rows[begin][2] == 0.0
            last = end == len(rows)
            phi_end = env.game.potential(env.game_state) if last else rows[end - 1][3]
            assert phi_end == (rows[-1][3] if last else 0.0)
            shaped_sum = sum(row[0] for row in rows[begin:end])
            plain_sum = sum(row[1] for row in rows[begin:end])
            assert shaped_sum == pytest.approx(plain_sum + shaping * (phi_end - 0.0), abs=1e-9)
            rounds += 1
        # the episode: unshaped return + k * phi(final table), and the sign of the return is unchanged
        total, plain_total = sum(r[0] for r in rows), sum(r[1] for r in rows)
        final_phi = env.game.potential(env.game_state)
        assert total == pytest.approx(plain_total + shaping * final_phi, abs=1e-9)
        assert np.sign(total) == np.sign(plain_total) or plain_total == 0
    assert shaped_steps > 50  # the shaping does change step rewards
    assert rounds > 12 if episode == "match" else rounds == 12


def test_shaping_zero_gives_the_default_rewards_exactly():
    for seed in range(20):
        default = hidden_rooms_v0.raw_env()
        zero = hidden_rooms_v0.raw_env(shaping=0.0)
        default.reset(seed=seed)
        zero.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not default.terminations[AGENT]:
            action = int(rng.choice(default.legal_actions()))
            default.step(action)
            zero.step(action)
            assert zero.rewards[AGENT] == default.rewards[AGENT]
            assert zero.terminations[AGENT] == default.terminations[AGENT]
        assert zero._cumulative_rewards == default._cumulative_rewards


def test_escape_and_fail_keep_the_progress():
    # A hand-made table next to the explored exit: phi = 15/16. Stepping onto the exit
    # ends the round on a table of phi 1: the step pays 1 + k * (1 - 15/16).
    game = ShapedHiddenRoomsGame(monsters=(monster([(4, 0), (3, 0), (2, 0)]),), episode="round", shaping=0.5)
    path = {(3, 4): "red 1", (2, 4): "red 2", (1, 4): "red 3", (0, 4): "red 4", (0, 3): "red 5",
            (0, 2): "red 6", (0, 1): "blue 1", (0, 0): "blue 2"}
    state = table(game, tiles=path, child=(0, 1), phase=MOVE)
    assert game.returns(state)[0] == pytest.approx(0.5 * 15 / 16)
    assert game.legal_actions(state) == [1, 3, 4]
    game.apply_action(state, 3, rng())  # west onto the exit
    assert game.is_terminal(state) and state.results == [ESCAPED] and game.returns(state)[0] == 1.5
    # The same table, but the child stops and the monster then reaches its path's end: a fail keeping phi 15/16.
    state = table(game, tiles=path, child=(0, 1), phase=MOVE, progress=1)
    game.apply_action(state, 4, rng())  # stop moving
    game.apply_action(state, 11, rng())  # don't search: the monster walks to (2, 0), its last cell
    assert game.is_terminal(state) and state.results == [MONSTER_EXITED]
    assert game.returns(state)[0] == pytest.approx(-1.0 + 0.5 * 15 / 16)


def test_gymnasium_form_takes_the_option():
    gym_env = hidden_rooms_v0.HiddenRoomsGymEnv(episode="round", shaping=0.5)
    obs, _ = gym_env.reset(seed=3)
    rng = np.random.default_rng(3)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(gym_env.action_masks())))
        obs, reward, terminated, truncated, _ = gym_env.step(action)
        total += reward
        done = terminated or truncated
    phi = gym_env.aec.game.potential(gym_env.aec.game_state)
    assert 0 < phi < 1 and total == pytest.approx(-1.0 + 0.5 * phi)  # random play fails, keeping its progress


# ------------------------------------------------------------- conformance
# The shared checks on the shaped env (the registry sweeps only unshaped configurations,
# so that benchmarks and search tests keep measuring the rules' env).
@pytest.mark.parametrize(
    "check",
    [check_determinism, check_global_rng_isolation, check_copy_continues_identically, check_observations],
    ids=lambda check: check.__name__,
)
def test_shaped_env_passes_the_shared_checks(check):
    check(functools.partial(make, "hidden_rooms_v0", episode="round", shaping=1.0))


def test_shaped_env_passes_the_pettingzoo_api_test():
    api_test(make("hidden_rooms_v0", episode="round", shaping=0.5), num_cycles=200)


class PileShapedGame(ShapedHiddenRoomsGame):
    """A leaky control: the potential also pays a hundredth when the tile on top of the face-down pile is odd."""

    def returns(self, state):
        returns = super().returns(state)
        returns[0] += 0.01 * (state.pile[-1] % 2 if state.pile else 0)
        return returns


@pytest.mark.parametrize("episode", ["round", "match"])
def test_shaped_rewards_pay_only_what_the_child_sees(episode):
    """The potential reads the placed tiles and the child's cell, never the pile's hidden order: the shared return
    check (the registry sweeps only unshaped configurations, whose returns change only at a round's end) passes on
    re-deals of the pile at every step, and catches a potential that reads the pile's top."""
    from conformance import random_states
    from leak_checks import check_return_leaks

    raw = make("hidden_rooms_v0", wrapped=False, episode=episode, shaping=0.5)
    states = random_states(raw.game, seed=7, num_games=3, every=2)
    counts = check_return_leaks(raw.game, states)
    assert counts["paid"] > counts["compared"] // 2, counts
    leaky = PileShapedGame(**raw.game.options)
    with pytest.raises(AssertionError, match="seat 0's return changed"):
        check_return_leaks(leaky, states)
