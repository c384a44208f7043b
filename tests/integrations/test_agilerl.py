"""AgileRL: its DQN acts through the single-seat view's int8 info["action_mask"] (exploring and greedy)
and never plays an illegal move."""

import numpy as np
import pytest

pytest.importorskip("agilerl")
dqn_module = pytest.importorskip("agilerl.algorithms")  # AgileRL 2.58 needs peft for this import

from kakurega.agents.training import SingleAgentView  # noqa: E402


@pytest.mark.parametrize("epsilon", [1.0, 0.0], ids=["exploring", "greedy"])
def test_agilerl_dqn_acts_legally_through_the_info_mask(epsilon):
    env = SingleAgentView("animal_chain_v0", {}, opponents=["random"])
    agent = dqn_module.DQN(env.observation_space, env.action_space, net_config={"encoder_config": {"hidden_size": [16]}})
    obs, info = env.reset(seed=0)
    episodes = 0
    for _ in range(150):
        action = int(np.asarray(agent.get_action(obs[None], epsilon=epsilon, action_mask=info["action_mask"][None]))[0])
        assert info["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info.get("illegal_action", False)
        if terminated or truncated:
            episodes += 1
            obs, info = env.reset()
    assert episodes > 0
