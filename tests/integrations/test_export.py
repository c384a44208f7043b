"""export_policy for SB3 MultiInputPolicy models and plain torch MLPs; external agent kinds in evaluate."""

import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import kakurega.agents  # noqa: E402
from kakurega.agents.policy import read_policy  # noqa: E402
from kakurega.agents.training.export import export_policy, layers_from_modules  # noqa: E402
from kakurega.envs.hidden_rooms_v0 import HiddenRoomsGymEnv  # noqa: E402
from kakurega.envs.registry import make  # noqa: E402


def _observations(env_name, n, seed=0, **kwargs):
    """``n`` observation dicts of ``env_name`` from random play (the acting player's)."""
    env = make(env_name, **kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    while len(out) < n:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        out.append({k: np.array(v) for k, v in obs.items()})
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_multi_input_policy_exports_and_acts_like_the_model(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", HiddenRoomsGymEnv(episode="round"), n_steps=16, batch_size=16, seed=0,
        policy_kwargs={"net_arch": [16]},
    )
    path = export_policy(model, tmp_path / "hr.safetensors", "hidden_rooms_v0", {"episode": "round"}, training_steps=0)
    meta, _ = read_policy(path)
    assert meta["inputs"] == ["action_mask", "observation"]  # SB3 concatenates the dict's keys in sorted order
    agent = kakurega.agents.load(path)
    for obs in _observations("hidden_rooms_v0", 30, episode="round"):
        with torch.no_grad():
            batch = {k: torch.as_tensor(v[None], dtype=torch.float32) for k, v in obs.items()}
            logits = model.policy.get_distribution(batch).distribution.logits.numpy()[0]
        ours = agent.outputs(agent.network_input(obs))
        # torch's Categorical keeps logits normalized to log-probabilities: compare those
        log_probs = ours - ours.max() - np.log(np.exp(ours - ours.max()).sum())
        assert np.allclose(log_probs, logits, atol=1e-4)
        assert agent.act(obs) == int(np.argmax(np.where(obs["action_mask"] > 0, logits, -np.inf)))


def test_a_torch_mlp_exports_and_matches_its_forward_pass(tmp_path):
    env = make("animal_chain_v0")
    size, actions = env.unwrapped.layout.size, env.unwrapped.game.num_actions
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(size, 32), nn.ReLU(), nn.Sequential(nn.Linear(32, 16), nn.ReLU()), nn.Linear(16, actions))
    path = export_policy(net, tmp_path / "ac.safetensors", "animal_chain_v0", algorithm="dqn")
    agent = kakurega.agents.load(path)
    assert agent.metadata["output"] == "q_values" and "inputs" not in agent.metadata
    obs = np.stack([o["observation"] for o in _observations("animal_chain_v0", 20)])
    with torch.no_grad():
        expected = net(torch.as_tensor(obs)).numpy()
    assert np.allclose(agent.outputs(obs), expected, atol=1e-5)


@pytest.mark.parametrize("modules, message", [
    ([nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2)], "mixed activations"),
    ([nn.Linear(4, 4), nn.Dropout(), nn.Linear(4, 2)], "only nn.Linear"),
    ([nn.Linear(4, 4), nn.Linear(4, 2)], "need 1 activations"),
    ([nn.Linear(4, 4), nn.ReLU()], "between Linear layers"),
    ([nn.Linear(4, 3), nn.ReLU(), nn.Linear(4, 2)], "feeds one of 4 inputs"),
])
def test_unexportable_networks_are_refused_with_the_reason(modules, message):
    with pytest.raises(TypeError, match=message):
        layers_from_modules(modules)


def test_a_torch_network_needs_its_output_kind(tmp_path):
    with pytest.raises(ValueError, match="algorithm='ppo'"):
        export_policy(nn.Linear(3, 2), tmp_path / "x", "animal_chain_v0")


def test_evaluate_imports_external_agent_kinds(tmp_path, monkeypatch, capsys):
    from kakurega.scripts.cli import main

    (tmp_path / "my_bots.py").write_text(textwrap.dedent('''
        import numpy as np
        from kakurega.agents import Agent, register_agent_kind

        class FirstLegal(Agent):
            def act(self, observation, sampler=None):
                return int(np.flatnonzero(observation["action_mask"])[0])

        register_agent_kind("firstlegal", lambda context, seed, options, argument: FirstLegal(context, seed))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["evaluate", "animal_chain", "--agents", "firstlegal", "random", "--games", "4", "--quiet"]
    assert main(argv) == 2  # the control: without --import the kind is unknown
    assert "unknown agent kind 'firstlegal'" in capsys.readouterr().err
    assert main(argv + ["--import", "my_bots"]) == 0
    assert "firstlegal" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="--import no_such_module: cannot import it"):
        main(argv + ["--import", "no_such_module"])
