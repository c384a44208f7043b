"""Shared conformance checks every kakurega env must pass.

``tests/test_conformance.py`` runs them over every registered env and every
configuration in its registry entry; game test modules may call them directly
for extra configurations.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import random
from dataclasses import dataclass

import numpy as np

from kakurega.envs.core.game import TERMINAL, Game


def registry_cases(marks=lambda spec: ()) -> list:
    """``pytest.param(name, config)`` for every registered env and configuration (ids like
    ``animal_chain_v1-attack_rule=reach``); ``marks(spec)``: marks of that env's cases."""
    import pytest

    from kakurega.envs.registry import ENV_SPECS

    return [
        pytest.param(
            spec.name, config, id=f"{spec.name}-" + "-".join(f"{k}={v}" for k, v in config.items()), marks=marks(spec)
        )
        for spec in ENV_SPECS.values()
        for config in spec.configurations
    ]


def play_random(env, seed: int, agent_seed: int = 0, max_steps: int = 100_000, on_step=None):
    """Play one game of uniformly random legal moves through the AEC loop.

    Returns the trajectory: a list of ``(agent, observation bytes, mask bytes,
    reward, terminated, truncated, action)``. ``on_step(env)`` is called before
    each live step.
    """
    rng = np.random.default_rng(agent_seed)
    env.reset(seed=seed)
    trajectory = []
    for steps, agent in enumerate(env.agent_iter()):
        if steps > max_steps:
            raise AssertionError(f"game did not end within {max_steps} steps")
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        else:
            if on_step is not None:
                on_step(env)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trajectory.append(
            (agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated, truncated, action)
        )
        env.step(action)
    return trajectory


def random_states(game, seed: int, num_games: int, every: int = 3, max_steps: int = 100_000):
    """States sampled every ``every`` steps from random games played on the rules engine alone."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(num_games):
        state = game.initial_state(rng)
        for step in range(max_steps):
            if game.is_terminal(state) or game.is_truncated(state):
                break
            if step % every == 0:
                states.append(game.clone(state))
            legal = game.legal_actions(state)
            game.apply_action(state, int(rng.choice(legal)), rng)
        else:
            raise AssertionError(f"game did not end within {max_steps} steps")
    return states


@dataclass
class OutcomeSample:
    """What random games showed: the extreme returns (any seat, any state), the longest game, the largest
    ``|sum of the seats' returns|`` in any state, and whether any state before the end had a return other than 0."""

    lowest: float
    highest: float
    longest: int
    largest_sum: float
    paid_before_end: bool = False


def random_outcomes(game, seed: int, num_games: int) -> OutcomeSample:
    """Play ``num_games`` uniformly random games on the rules engine, reading the returns after every decision."""
    rng = np.random.default_rng(seed)
    lowest, highest, longest, largest_sum, paid_before_end = np.inf, -np.inf, 0, 0.0, False
    for _ in range(num_games):
        state = game.initial_state(rng)
        decisions = 0
        while True:
            returns = np.asarray(game.returns(state), dtype=np.float64)
            lowest, highest = min(lowest, returns.min()), max(highest, returns.max())
            largest_sum = max(largest_sum, abs(returns.sum()))
            if game.current_player(state) == TERMINAL:
                break
            paid_before_end = paid_before_end or bool(returns.any())
            game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)
            decisions += 1
        longest = max(longest, decisions)
    return OutcomeSample(float(lowest), float(highest), longest, largest_sum, paid_before_end)


def check_declared_outcomes(game, sample: OutcomeSample) -> None:
    """The rules' declarations hold in ``sample``: returns within ``return_bounds()``, games within
    ``max_decisions()``, returns summing to zero where ``is_zero_sum()``, nothing paid before the end where
    ``pays_only_at_end()``."""
    bounds, max_decisions = game.return_bounds(), game.max_decisions()
    assert bounds is not None and max_decisions is not None, "the rules declare no return_bounds() or max_decisions()"
    low, high = bounds
    assert low <= sample.lowest and sample.highest <= high, f"returns in [{sample.lowest}, {sample.highest}], declared {bounds}"
    assert sample.longest <= max_decisions, f"a game of {sample.longest} decisions, declared at most {max_decisions}"
    if game.is_zero_sum():
        assert sample.largest_sum < 1e-9, f"declared zero-sum, but returns summed to {sample.largest_sum}"
    if game.pays_only_at_end():
        assert not sample.paid_before_end, "declared to pay only at the end, but a state before the end had a return"


def check_outcomes_reached(sample: OutcomeSample, bounds=None, max_decisions=None) -> None:
    """``bounds`` / ``max_decisions`` are the true extremes: ``sample`` returned both bounds / took that long."""
    if bounds is not None:
        reached = (sample.lowest, sample.highest)
        assert np.allclose(reached, bounds, rtol=0, atol=1e-9), f"declared {tuple(bounds)}, random play reached {reached}"
    if max_decisions is not None:
        assert sample.longest == max_decisions, f"declared {max_decisions} decisions, the longest game took {sample.longest}"


def greedy_states(game, policy, seed: int, num_games: int, every: int = 2, max_steps: int = 2000):
    """States of games the rollout ``policy`` plays against itself (its own rollout distribution)."""
    rng = np.random.default_rng(seed)
    draw = random.Random(seed).random
    states = []
    for _ in range(num_games):
        state = game.initial_state(rng)
        for step in range(max_steps):
            player = game.current_player(state)
            if player == TERMINAL:
                break
            legal = game.legal_actions(state)
            if step % every == 0:
                states.append(game.clone(state))
            game.apply_action(state, policy(game, state, player, legal, draw), rng)
    return states


def rollout_cases(name: str, config: dict, greedy_play: bool, seed: int = 0, games: int = 6) -> list:
    """``(game, state, seat, legal, action)``: the registry's rollout policy of env ``name`` choosing ``action``
    at states of random games (``greedy_play`` False) or of games the policy plays against itself."""
    from kakurega.agents.specs import load_rollout_policy
    from kakurega.envs.registry import make

    game = make(name, wrapped=False, **config).game
    policy = load_rollout_policy(name)
    if greedy_play:
        states = greedy_states(game, policy, seed, games)
    else:
        states = random_states(game, seed, games)
    draw = random.Random(seed).random
    cases = []
    for state in states:
        seat = game.current_player(state)
        legal = game.legal_actions(state)
        if seat != TERMINAL and legal:
            cases.append((game, state, seat, legal, policy(game, state, seat, legal, draw)))
    return cases


def check_determinism(make_env, seeds=(0, 1, 2)):
    """Same seed, same game; different seeds, different games (over a few seeds)."""
    trajectories = []
    for seed in seeds:
        a = play_random(make_env(), seed)
        b = play_random(make_env(), seed)
        assert a == b, f"seed {seed}: two runs with the same seed differ"
        trajectories.append(a)
    assert any(t != trajectories[0] for t in trajectories[1:]), "different seeds gave identical games"


def check_global_rng_isolation(make_env, seed=3):
    """Reseeding Python's and numpy's global RNGs between steps changes nothing."""
    reference = play_random(make_env(), seed)
    counter = iter(range(10**9))

    def scramble(_env):
        k = next(counter)
        random.seed(k)
        np.random.seed(k % (2**32))

    assert play_random(make_env(), seed, on_step=scramble) == reference


def check_copy_continues_identically(make_env, seed=5, cut_at=7):
    """A mid-game env that is pickled or deep-copied continues exactly like the original."""
    rng = np.random.default_rng(11)
    env = make_env()
    env.reset(seed=seed)
    for _ in range(cut_at):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]

    def finish(e, action_rng):
        out = []
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            # copies hand out read-only arrays too (numpy arrays come back writable from a copy)
            assert not obs["observation"].flags.writeable and not obs["action_mask"].flags.writeable
            assert not info["action_mask"].flags.writeable
            action = None if term or trunc else int(action_rng.choice(np.flatnonzero(obs["action_mask"])))
            out.append((agent, obs["observation"].tobytes(), reward, term, trunc, action))
            e.step(action)
        return out

    reference = finish(env, np.random.default_rng(99))
    for clone in clones:
        assert finish(clone, np.random.default_rng(99)) == reference


def check_observations(make_env, seed=0, num_games=3):
    """Masks equal the rules' legal actions; observations fit their space; non-actors get zero masks (in their
    observations and their infos)."""
    env = make_env()
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    for game_index in range(num_games):
        env.reset(seed=seed + game_index)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            game, state = raw.game, raw.game_state
            if term or trunc:
                # Game's contract: current_player is TERMINAL exactly when the game ended or was cut off
                assert game.current_player(state) == TERMINAL and (game.is_terminal(state) or game.is_truncated(state))
                assert raw.legal_actions() == [] and not obs["action_mask"].any()
                assert not any(game.is_legal(state, a) for a in range(game.num_actions)), "a move is legal at the end"
                env.step(None)
                continue
            assert not (game.is_terminal(state) or game.is_truncated(state)), "a seat acts in a finished game"
            space = env.observation_space(agent)
            assert space.contains(obs), f"{agent}: observation outside its space"
            legal = game.legal_actions(state)
            assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal) == raw.legal_actions()
            # a game's own legal_flags (if it has one) agrees with the list (Game's default builds them from it)
            assert game.legal_flags(state) == Game.legal_flags(game, state)
            # and its own is_legal, action by action (Game's default looks the action up in the list)
            assert [a for a in range(game.num_actions) if game.is_legal(state, a)] == legal, "is_legal differs"
            assert np.array_equal(info["action_mask"], obs["action_mask"])
            assert raw.possible_agents[raw.game.current_player(raw.game_state)] == agent
            for other in env.agents:
                if other != agent:
                    other_obs = env.observe(other)
                    assert not other_obs["action_mask"].any(), f"{other} has a mask while {agent} acts"
                    assert not raw.infos[other]["action_mask"].any(), f"{other}'s info has a mask while {agent} acts"
                    assert space.contains(other_obs)
            assert not obs["observation"].flags.writeable, "observations must be read-only views"
            assert not obs["action_mask"].flags.writeable, "masks must be read-only views"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def reference_encoder(raw_env):
    """``encode(game, state, seat)`` of the env's game package (``envs/<game>/reference.py``)."""
    package = type(raw_env.game).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(package + ".reference")
    except ModuleNotFoundError as error:
        if error.name != package + ".reference":
            raise
        raise AssertionError(f"{package}.reference not found: write encode(game, state, seat) there, the observation "
                             "written plainly piece by piece, which the fast encoder is checked against "
                             "(docs/adding_a_game.md, step 3)") from None
    return module.encode


def check_encoder_matches_reference(make_raw_env, seed=0, min_steps=300):
    """The fast encoder equals the game's reference encoder for every seat at every step of random
    games (at least ``min_steps`` steps in all). Seats are observed in a shuffled order, now and then
    an earlier state is observed again, and now and then the children of other legal moves from the same
    state (siblings, as a search or a game tree meets them), so that the observer's caches meet states in
    any order."""
    raw = make_raw_env()
    game, encode, reference = raw.game, raw.encode, reference_encoder(raw)
    seats = list(range(len(raw.possible_agents)))
    rng = np.random.default_rng(seed)
    steps, earlier = 0, []
    while steps < min_steps:
        state = game.initial_state(rng)
        while True:
            rng.shuffle(seats)
            for seat in seats:
                fast = encode(state, seat)
                assert fast.dtype == np.float32 and fast.shape == (raw.layout.size,)
                expected = reference(game, state, seat)
                if not np.array_equal(fast, expected):
                    wrong = [name for name in raw.layout.pieces
                             if not np.array_equal(raw.layout.view(fast, name), raw.layout.view(expected, name))]
                    raise AssertionError(f"step {steps}, seat {seat}: the fast encoder differs from the reference in {wrong}")
            if earlier and rng.random() < 0.05:  # an earlier state, then the live one again
                old = earlier[int(rng.integers(len(earlier)))]
                seat = int(rng.integers(len(seats)))
                assert np.array_equal(encode(old, seat), reference(game, old, seat)), f"step {steps}: an earlier state"
            if game.is_terminal(state) or game.is_truncated(state):
                break
            if rng.random() < 0.1:
                earlier.append(game.clone(state))
            legal = game.legal_actions(state)
            if rng.random() < 0.2:  # siblings: the children of up to four legal moves, each seen by every seat
                for action in rng.permutation(legal)[:4]:
                    child = game.clone(state)
                    game.apply_action(child, int(action), np.random.default_rng(int(rng.integers(2**32))))
                    for seat in seats:
                        assert np.array_equal(encode(child, seat), reference(game, child, seat)), (
                            f"step {steps}: the child by {game.action_to_string(state, int(action))!r}, seat {seat}: "
                            "the fast encoder differs from the reference")
            game.apply_action(state, int(rng.choice(legal)), rng)
            steps += 1


def _to_a_decision_with_an_illegal_action(env, seed, games=20, steps=400):
    """Reset ``env`` (raw or wrapped) and play random legal moves until the seat to act has an illegal action; its
    mask, or None when none was met in ``games`` games (a game whose every action is always legal). The first
    decision comes first: a game whose first decision has an illegal action is checked there, as before."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed + game)
        for _ in range(steps):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            mask = obs["action_mask"]
            if not mask.all():
                return np.array(mask)
            env.step(int(rng.choice(np.flatnonzero(mask))))
    return None


def check_illegal_actions(make_raw_env, make_env, seed=0):
    """The raw env raises with words; the wrapped env ends the game with the penalty (at the first decision that
    has an illegal action: the first decision, or one met in random play)."""
    raw = make_raw_env()
    mask = _to_a_decision_with_an_illegal_action(raw, seed)
    if mask is None:  # every action always legal: only the out-of-range and wrong-type actions below apply
        raw.reset(seed=seed)
        mask = np.array(raw.observe(raw.agent_selection)["action_mask"])
    illegal = np.flatnonzero(mask == 0)
    if illegal.size:
        bad = int(illegal[0])
        try:
            raw.step(bad)
        except ValueError as error:
            message = str(error)
            assert str(bad) in message and raw.action_to_string(bad) in message, message
        else:
            raise AssertionError("raw env accepted an illegal action")
        # nothing was lost: the game goes on
        assert np.array_equal(raw.observe(raw.agent_selection)["action_mask"], mask)
    for bad_value, error_type in ((raw.game.num_actions, ValueError), (-1, ValueError), (1.5, TypeError), ("0", TypeError)):
        try:
            raw.step(bad_value)
        except error_type as error:
            assert "action" in str(error)
        else:
            raise AssertionError(f"raw env accepted action {bad_value!r}")

    env = make_env()
    mask = _to_a_decision_with_an_illegal_action(env, seed)
    illegal = np.flatnonzero(mask == 0) if mask is not None else []
    if len(illegal):
        offender = env.agent_selection
        env.step(int(illegal[0]))
        assert all(env.terminations.values()) or all(env.truncations.values())
        assert env._cumulative_rewards[offender] == -1.0
    env.reset(seed=seed)
    try:
        env.step(env.unwrapped.game.num_actions)
    except AssertionError:
        pass
    else:
        raise AssertionError("wrapped env accepted an out-of-range action")


def check_leaks(raw_env, states, min_changed_fraction=0.05, samples=3):
    """Determinization leak test over ``states``.

    For every state and seat: each ``resample_hidden`` output looks identical
    to that seat (same observation, same current player, same legal actions
    when it is the seat's turn); the output does not depend on the hidden part
    of the input; and over all samples the hidden part really changes.
    """
    game, encode = raw_env.game, raw_env.encode
    changed = total = 0
    for index, state in enumerate(states):
        fingerprint = game.fingerprint(state)
        for seat in range(game.num_players):
            reference = encode(state, seat)
            for k in range(samples):
                sample = game.resample_hidden(state, seat, np.random.default_rng(1000 * index + k))
                assert np.array_equal(encode(sample, seat), reference), (
                    f"state {index}, seat {seat}: the observation changed when hidden information was re-dealt"
                )
                assert game.current_player(sample) == game.current_player(state)
                if game.current_player(state) == seat:
                    assert game.legal_actions(sample) == game.legal_actions(state)
                total += 1
                changed += game.fingerprint(sample) != fingerprint
            # Independence: re-dealing first must not influence the result.
            redealt = game.resample_hidden(state, seat, np.random.default_rng(7 + index))
            a = game.resample_hidden(state, seat, np.random.default_rng(123))
            b = game.resample_hidden(redealt, seat, np.random.default_rng(123))
            assert game.fingerprint(a) == game.fingerprint(b), (
                f"state {index}, seat {seat}: resample_hidden depends on the hidden part of its input"
            )
    assert total and changed / total >= min_changed_fraction, (
        f"resample_hidden changed the hidden state in only {changed}/{total} samples: the leak test would be vacuous"
    )


def check_unseen_order_in_state(env, field: str, steps: int = 4) -> None:
    """Swapping the two bottom cards of ``state.<field>`` (a pile whose order nobody sees) changes ``state()``.

    The control of the state vector's hidden-facts check: every seat's
    observation stays the same, so only the unseen pieces can tell the two
    states apart. ``env`` is a raw env; it is reset and played ``steps`` moves.
    """
    env.reset(seed=0)
    for _ in range(steps):
        env.step(int(env.legal_actions()[0]))
    game, state = env.game, env.game_state
    other = game.clone(state)
    order = getattr(other, field)
    assert len(order) >= 3 and order[0] != order[1], f"play fewer steps: {field} is {order}"
    order[0], order[1] = order[1], order[0]
    for seat in range(game.num_players):
        assert np.array_equal(env.encode(state, seat), env.encode(other, seat)), "an observation shows the order"
    assert not np.array_equal(env.state_vector.encode(state), env.state_vector.encode(other))
