"""Masks are respected: untrained and trained policies, SB3 predict, and MaskedDQN's exploration and targets."""

import numpy as np
import pytest
import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv
from training_helpers import REGISTERED

from kakurega.agents.policy import PolicyAgent
from kakurega.agents.training.export import policy_metadata
from kakurega.agents.training.masked_dqn import MaskedDQN, masked_td_target
from kakurega.agents.training.view import SingleAgentView

STEPS = 2000


def _untrained(algorithm, env_name):
    vec = DummyVecEnv([lambda: SingleAgentView(env_name, {}, ["random"], illegal_action="raise")])
    cls = MaskablePPO if algorithm == "ppo" else MaskedDQN
    return cls("MlpPolicy", vec, seed=0, policy_kwargs=dict(net_arch=[16]), **({"buffer_size": 100} if algorithm == "dqn" else {}))


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
@pytest.mark.parametrize("env_name", REGISTERED)
def test_untrained_policies_never_choose_illegal_actions(env_name, algorithm):
    """Both the exported numpy agent and SB3's own predict, over thousands of learner steps."""
    model = _untrained(algorithm, env_name)
    view = SingleAgentView(env_name, {}, ["random"], illegal_action="raise")
    meta, layers = policy_metadata(model, env_name, {})
    agent = PolicyAgent(view.context, 0, layers=layers, metadata=meta)
    obs, _ = view.reset(seed=0)
    illegal_mass = 0
    for step in range(STEPS):
        mask = view.action_masks()
        if step % 10:
            action = agent.act({"observation": obs, "action_mask": mask})
        else:  # SB3's own predict (slower): every tenth step, greedy and sampling alternately
            action, _ = model.predict(obs, deterministic=bool(step % 20), action_masks=mask)
        assert mask[int(action)], f"{env_name}: illegal action {action}"
        # the raw network does prefer illegal actions sometimes: masking is what saves us
        illegal_mass += int(np.argmax(agent.outputs(obs)) not in np.flatnonzero(mask))
        obs, _, terminated, truncated, _ = view.step(int(action))
        if terminated or truncated:
            obs, _ = view.reset()
    assert illegal_mass > 0, "the test would not notice missing masking on this env"


def test_masked_dqn_exploration_samples_legal_actions_only(nim):
    vec = DummyVecEnv([lambda: SingleAgentView(nim.NAME, {}, ["random"], illegal_action="raise")] * 2)
    model = MaskedDQN("MlpPolicy", vec, seed=0, buffer_size=100, policy_kwargs=dict(net_arch=[8]))
    model.exploration_rate = 1.0
    obs = np.zeros((500, 14), dtype=np.float32)  # 2 players: pile 11 + card 1 + seat 2
    masks = np.zeros((500, 3), dtype=bool)
    masks[:, 1] = True
    masks[::2, 2] = True
    actions, _ = model.predict(obs, action_masks=masks)
    assert set(actions[1::2]) == {1} and set(actions[::2]) == {1, 2}
    # warm-up sampling (before learning_starts) goes through the same legal sampler
    model.learn(200)  # the view raises on any illegal action


def test_masked_td_target_ignores_illegal_next_actions_and_ended_games():
    next_q = th.tensor([[1.0, 50.0, 2.0], [5.0, 6.0, 7.0], [3.0, 3.0, 3.0]])
    masks = th.tensor([[True, False, True], [False, False, False], [True, True, True]])
    rewards = th.tensor([[0.5], [1.0], [0.0]])
    dones = th.tensor([[0.0], [0.0], [1.0]])
    target = masked_td_target(next_q, masks, rewards, dones, 0.9)
    # row 0: max over legal {1, 2} = 2 (not the illegal 50); row 1: no legal action -> no bootstrap;
    # row 2: terminal -> reward only
    assert target.flatten().tolist() == pytest.approx([0.5 + 0.9 * 2.0, 1.0, 0.0])


def test_replay_buffer_stores_next_masks(nim):
    vec = DummyVecEnv([lambda: SingleAgentView(nim.NAME, {}, ["random"], illegal_action="raise")])
    model = MaskedDQN("MlpPolicy", vec, seed=0, buffer_size=500, learning_starts=400, policy_kwargs=dict(net_arch=[8]))
    model.learn(300)
    buffer = model.replay_buffer
    n = buffer.pos
    next_obs = buffer.next_observations[:n, 0]
    masks = buffer.next_action_masks[:n, 0]
    dones = buffer.dones[:n, 0].astype(bool)
    # at the end of a game the stored mask is empty; otherwise it is the legal set of the stored next observation
    assert not masks[dones].any() and masks[~dones].any(axis=1).all()
    pile = np.argmax(next_obs[:, :11], axis=1)
    card = next_obs[:, 11]
    for p, c, m, d in zip(pile, card, masks, dones):
        if not d:
            assert m.tolist() == [a + 1 <= min(3 if c else 2, p) for a in range(3)]
