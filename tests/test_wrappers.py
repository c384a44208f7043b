"""The shared AEC base and the fused StandardWrapper, checked on a toy game.

StandardWrapper must behave exactly like PettingZoo's stack
OrderEnforcing(AssertOutOfBounds(TerminateIllegal(raw))).
"""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils import wrappers
from toy_game import LAYOUT, ToyGame, encode, raw_env, render_text

from kakurega.envs.core.aec import ILLEGAL_ACTION_PENALTY, TurnBasedAECEnv, wrap
from kakurega.envs.core.game import TERMINAL, flags_of


def pettingzoo_stack():
    env = wrappers.TerminateIllegalWrapper(raw_env(), illegal_reward=ILLEGAL_ACTION_PENALTY)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def trace(env, seed, illegal_rate):
    """Play with some illegal actions; record everything an AEC user can read."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    for agent in env.agent_iter(max_iter=200):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            action = None
        elif rng.random() < illegal_rate and not obs["action_mask"].all():
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        out.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward, term, trunc, action,
                    dict(env.rewards), dict(env._cumulative_rewards), list(env.agents)))
        env.step(action)
    return out


def masks_emptied_after_a_verdict(steps):
    """``steps`` with every mask after an illegal move all zero: the one thing ``env()`` does otherwise than
    PettingZoo's stack, which leaves the offender its mask (in its info, and in its observation if it was read
    before the move) though the game is over."""
    out, over = [], False
    for agent, obs, mask, *rest in steps:
        out.append((agent, obs, [0] * len(mask) if over else mask, *rest))
        action = rest[3]
        over = over or (action is not None and not mask[action])
    return out


@pytest.mark.parametrize("seed", range(40))
def test_fused_wrapper_matches_pettingzoo_stack(seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = trace(wrap(raw_env()), seed, 0.15), trace(pettingzoo_stack(), seed, 0.15)
    assert ours == masks_emptied_after_a_verdict(theirs)


def test_after_a_verdict_every_mask_is_empty_and_the_stack_leaves_the_offenders():
    """The difference the trace comparison allows is real on PettingZoo's side (the control) and absent from ours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = [trace(pettingzoo_stack(), seed, 0.15) for seed in range(40)]
        ours = [trace(wrap(raw_env()), seed, 0.15) for seed in range(40)]
    assert any(masks_emptied_after_a_verdict(steps) != steps for steps in theirs)
    for steps in ours:
        assert masks_emptied_after_a_verdict(steps) == steps
    env = wrap(raw_env())
    env.reset(seed=0)
    env.step(0)  # total 1: odd, "add 3" is illegal now
    offender = env.agent_selection
    assert env.observe(offender)["action_mask"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(2)
    assert not env.observe(offender)["action_mask"].any() and not env.infos[offender]["action_mask"].any()
    assert env.unwrapped.legal_actions() == []


def test_a_reset_amid_the_dead_steps_forgets_them():
    """Reset after some agents stepped out of a finished game: the next game's dead steps go as a fresh env's."""
    def ending(env):
        for _agent in env.agent_iter(max_iter=500):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        return env.agent_selection

    reused, fresh = raw_env(), raw_env()
    reused.reset(seed=3)
    while not (reused.terminations[reused.agent_selection] or reused.truncations[reused.agent_selection]):
        reused.step(int(np.flatnonzero(reused.observe(reused.agent_selection)["action_mask"])[0]))
    reused.step(None)  # one agent steps out, the others not yet
    reused.reset(seed=3)
    fresh.reset(seed=3)
    assert getattr(reused, "_skip_agent_selection", None) is None
    assert ending(reused) == ending(fresh)


def test_illegal_action_penalty_and_raw_error():
    env = wrap(raw_env())
    env.reset(seed=0)
    env.step(0)  # total 1: odd, "add 3" is illegal now
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(2)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == ILLEGAL_ACTION_PENALTY
    assert sum(env._cumulative_rewards.values()) == ILLEGAL_ACTION_PENALTY

    raw = raw_env()
    raw.reset(seed=0)
    raw.step(0)
    with pytest.raises(ValueError, match=r"illegal action 2 \(add 3\) for player_1: adding 3 is allowed only while the total is even"):
        raw.step(2)
    assert raw.game_state.total == 1  # nothing lost


@pytest.mark.parametrize("bad", [3, -1, 1.0, "1", None])
def test_out_of_space_actions(bad):
    env = wrap(raw_env())
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(bad)
    raw = raw_env()
    raw.reset(seed=0)
    with pytest.raises((ValueError, TypeError), match="action"):
        raw.step(bad)


OUTSIDE_THE_SPACE = [(1.5, r"1\.5 of type float for player_0"), ("1", "'1' of type str for player_0"),
                     (True, "True of type bool for player_0"), (np.array([1]), r"array\(\[1\]\) of type ndarray for player_0"),
                     (3, "3 of type int for player_0"), (-1, "-1 of type int for player_0"),
                     (None, r"None for player_0, whose game goes on \(None steps out an agent whose game is over\)")]


@pytest.mark.parametrize("bad, given", OUTSIDE_THE_SPACE, ids=[repr(bad) for bad, _ in OUTSIDE_THE_SPACE])
def test_an_action_outside_the_space_is_named_with_what_was_expected(bad, given):
    """PettingZoo's words, then what was given and what was expected (they said neither)."""
    env = wrap(raw_env())
    env.reset(seed=0)
    with pytest.raises(AssertionError, match=rf"^action is not in action space: got {given}; expected an integer "
                                             r"in \[0, 3\)$"):
        env.step(bad)
    assert env.unwrapped.num_steps == 0 and not any(env.terminations.values())
    env.step(np.int64(1))  # the control: an integer plays
    assert env.unwrapped.num_steps == 1


def test_an_action_outside_the_space_for_a_done_agent_says_none_is_expected():
    env = wrap(raw_env())
    env.reset(seed=0)
    while not env.terminations[env.agent_selection]:
        env.step(0)
    with pytest.raises(AssertionError, match=r"got 1\.5 of type float for player_\d; expected None \(its game is over\)"):
        env.step(1.5)
    env.step(None)  # the control: None steps the done agent out
    assert len(env.agents) == 2


def test_each_agent_has_its_own_observation_space_sampler():
    """Seeding one agent's space (PettingZoo's seed_test seeds each agent's) leaves another's stream alone: the
    agents shared one space object, so seeding player_1's reseeded player_0's."""
    env = wrap(raw_env())
    first, second = (env.observation_space(agent) for agent in env.possible_agents[:2])
    assert first is not second and first == second
    first.seed(0)
    expected = first.sample()["observation"]
    first.seed(0)
    second.seed(1)
    second.sample()
    assert np.array_equal(first.sample()["observation"], expected)
    assert env.action_space("player_0") is not env.action_space("player_1")  # as the action spaces already were


def test_raw_env_refuses_booleans():
    raw = raw_env()
    raw.reset(seed=0)
    with pytest.raises(TypeError, match="action must be an integer"):
        raw.step(True)


def test_order_enforcement():
    env = wrap(raw_env())
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        env.agent_selection  # noqa: B018 (reading the attribute is the test)
    with pytest.raises(Exception, match="reset"):
        env.step(0)
    with pytest.raises(Exception, match="reset"):
        env.observe("player_0")


def test_api_test_passes_on_toy():
    api_test(wrap(raw_env()), num_cycles=100)


def test_observations_are_read_only_and_cached_per_step():
    env = wrap(raw_env())
    env.reset(seed=1)
    first = env.observe("player_0")
    again = env.observe("player_0")
    # the arrays are cached (one encoding per step); each call gets its own dict, so editing one changes no other
    assert again is not first and again["observation"] is first["observation"]
    first.pop("observation")
    assert "observation" in env.observe("player_0")
    with pytest.raises(ValueError):
        again["observation"][0] = 5
    env.step(0)
    assert env.observe("player_0")["observation"] is not again["observation"]


def test_final_reward_reaches_every_agent():
    env = wrap(raw_env())
    env.reset(seed=3)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert sorted(totals.values()) == [-1.0, 1.0, 1.0]


def test_determinization_sampler_is_a_snapshot():
    env = raw_env()
    env.reset(seed=5)
    sampler = env.determinization_sampler("player_0")
    before = env.game_state.total
    env.step(0)
    state = sampler(np.random.default_rng(0))
    assert state.total == before
    assert state.secrets[0] == env.game_state.secrets[0]


def test_bad_render_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb")


class FlagsToyGame(ToyGame):
    """The toy game building its own legality flags (as Animal Chain does)."""

    def legal_flags(self, state):
        return flags_of(self.legal_actions(state), self.num_actions)


def test_games_with_their_own_flags_play_identically():
    plain, flagged = raw_env(), TurnBasedAECEnv(FlagsToyGame(), LAYOUT, encode, render_text)
    assert flagged._flags_from_game and not plain._flags_from_game
    for seed in range(5):
        for env in (plain, flagged):
            env.reset(seed=seed)
        while plain.agents:
            agent = plain.agent_selection
            assert flagged.agent_selection == agent
            expected, got = plain.observe(agent), flagged.observe(agent)
            for key in ("observation", "action_mask"):
                assert np.array_equal(expected[key], got[key]) and expected[key].dtype == got[key].dtype
            assert plain.legal_actions() == flagged.legal_actions()
            assert not flagged.observe(agent)["action_mask"].flags.writeable
            action = None if plain.terminations[agent] else plain.legal_actions()[-1]
            plain.step(action)
            flagged.step(action)
            assert (plain.rewards, plain.terminations) == (flagged.rewards, flagged.terminations)
        assert not flagged.agents


class TerminalTooEarly(ToyGame):
    def current_player(self, state):
        return TERMINAL if state.total >= 4 else state.turn % 3


class NoFlags(FlagsToyGame):
    def legal_flags(self, state):
        return bytes(self.num_actions)


@pytest.mark.parametrize(
    "game,message", [(TerminalTooEarly(), "current_player is TERMINAL but the game is not over"), (NoFlags(), "has no legal action")]
)
def test_inconsistent_games_fail_loudly(game, message):
    env = TurnBasedAECEnv(game, LAYOUT, encode, render_text)
    with pytest.raises(RuntimeError, match=message):
        env.reset(seed=0)
        for _ in range(10):
            env.step(0)
