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


@pytest.mark.parametrize("layer_norm", [True, False], ids=["layer_norm", "plain"])
def test_agilerl_q_networks_export_and_reproduce_the_networks_probabilities(layer_norm, tmp_path):
    """AgileRL's default QNetwork (LayerNorm after each hidden layer) exports through agilerl_modules, and the
    file's action probabilities equal the network's within 1e-5 on 1,000 observations."""
    import torch

    import kakurega.agents
    from kakurega.agents.training.export import agilerl_modules, export_policy
    from kakurega.envs.registry import make

    env = SingleAgentView("animal_chain_v1")
    agent = dqn_module.DQN(env.observation_space, env.action_space,
                           net_config={"encoder_config": {"hidden_size": [32], "layer_norm": layer_norm},
                                       "head_config": {"hidden_size": [16], "layer_norm": layer_norm}})
    network = agent.actor
    assert any(isinstance(m, torch.nn.LayerNorm) for m in network.modules()) == layer_norm
    with torch.no_grad():
        for module in network.modules():
            if isinstance(module, torch.nn.LayerNorm) and module.weight is not None:
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-1.0, 1.0)
    path = export_policy(agilerl_modules(network), tmp_path / "q.safetensors", "animal_chain_v1", algorithm="dqn")
    aec, rng, observations, masks = make("animal_chain_v1"), np.random.default_rng(0), [], []
    aec.reset(seed=0)
    while len(observations) < 1000:
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.reset(seed=int(rng.integers(1 << 30)))
            continue
        observations.append(np.array(obs["observation"], np.float32))
        masks.append(obs["action_mask"].astype(bool))
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    observations, masks = np.stack(observations), np.stack(masks)
    with torch.no_grad():
        expected = network(torch.as_tensor(observations)).numpy()
    ours = kakurega.agents.load(path).outputs(observations)

    def probabilities(outputs):
        scores = np.where(masks, outputs.astype(np.float64), -np.inf)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    assert np.abs(probabilities(ours) - probabilities(expected)).max() < 1e-5
    with pytest.raises(TypeError, match="only a QNetwork"):
        agilerl_modules(network.encoder)
