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


# ------------------------------------------------ every supported network kind reproduces or refuses
N_OBSERVATIONS = 1000


@pytest.fixture(scope="module")
def played():
    """1,000 (observation, mask) pairs of Animal Chain v1 from random play, as float32 arrays."""
    found = _observations("animal_chain_v1", N_OBSERVATIONS, seed=5)
    return (np.stack([o["observation"] for o in found]).astype(np.float32),
            np.stack([o["action_mask"] for o in found]).astype(bool))


def _legal_probabilities(outputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    scores = np.where(masks, outputs.astype(np.float64), -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def assert_reproduces(path, network_outputs: np.ndarray, played) -> None:
    """The file's action probabilities (softmax over the legal actions) equal the network's within 1e-5."""
    observations, masks = played
    agent = kakurega.agents.load(path)
    ours = agent.outputs(observations)
    assert np.abs(_legal_probabilities(ours, masks) - _legal_probabilities(network_outputs, masks)).max() < 1e-5
    assert all(agent.act({"observation": o, "action_mask": m.astype(np.int8)}) == int(np.argmax(np.where(m, n, -np.inf)))
               for o, m, n in zip(observations[:50], masks[:50], network_outputs[:50]))


def _randomize_norms(net):
    """LayerNorm weights away from their 1/0 start, so a dropped normalization shows."""
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, nn.LayerNorm) and module.weight is not None:
                module.weight.uniform_(0.5, 1.5)
                if module.bias is not None:
                    module.bias.uniform_(-1.0, 1.0)
    return net


TORCH_NETS = {
    "plain": lambda size, actions: nn.Sequential(nn.Linear(size, 32), nn.Tanh(), nn.Linear(32, actions)),
    "layer_norm": lambda size, actions: nn.Sequential(
        nn.Linear(size, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 16), nn.LayerNorm(16), nn.ReLU(),
        nn.Linear(16, actions)),
    "layer_norm_without_affine_or_bias": lambda size, actions: nn.Sequential(
        nn.Linear(size, 32), nn.LayerNorm(32, elementwise_affine=False), nn.ReLU(), nn.Linear(32, 16),
        nn.LayerNorm(16, bias=False), nn.ReLU(), nn.Linear(16, actions), nn.Identity()),
}


@pytest.mark.parametrize("kind", list(TORCH_NETS))
def test_torch_mlps_reproduce_the_networks_probabilities(kind, played, tmp_path):
    torch.manual_seed(1)
    net = _randomize_norms(TORCH_NETS[kind](played[0].shape[1], played[1].shape[1]))
    path = export_policy(net, tmp_path / "net.safetensors", "animal_chain_v1", algorithm="ppo")
    with torch.no_grad():
        assert_reproduces(path, net(torch.as_tensor(played[0])).numpy(), played)


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
def test_sb3_policies_reproduce_the_networks_probabilities(algorithm, played, tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kakurega.agents.training import MaskedDQN, SingleAgentView

    env = SingleAgentView("animal_chain_v1")
    model_class = MaskablePPO if algorithm == "ppo" else MaskedDQN
    model = model_class("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [32, 16]})
    path = export_policy(model, tmp_path / "sb3.safetensors", "animal_chain_v1", training_steps=0)
    with torch.no_grad():
        x = torch.as_tensor(played[0])
        if algorithm == "ppo":
            outputs = model.policy.get_distribution(x).distribution.logits.numpy()
        else:
            outputs = model.policy.q_net(x).numpy()
    assert_reproduces(path, outputs, played)


def test_tianshou_nets_with_layer_norm_reproduce_the_networks_probabilities(played, tmp_path):
    pytest.importorskip("tianshou")
    from tianshou.utils.net.common import Net

    torch.manual_seed(2)
    net = Net(state_shape=played[0].shape[1], action_shape=played[1].shape[1], hidden_sizes=[32, 16],
              norm_layer=nn.LayerNorm)
    _randomize_norms(net)
    path = export_policy(net.model.model, tmp_path / "ts.safetensors", "animal_chain_v1", algorithm="dqn")
    with torch.no_grad():
        outputs, _ = net(played[0])
    assert_reproduces(path, outputs.numpy(), played)


@pytest.mark.parametrize("layer_norm", [False, True], ids=["plain", "layer_norm"])
def test_rllib_modules_reproduce_the_networks_probabilities(layer_norm, played, tmp_path):
    pytest.importorskip("ray.rllib")
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from kakurega.integrations.rllib import KakuregaMultiAgentEnv, export_module

    torch.manual_seed(3)
    env = KakuregaMultiAgentEnv({"env": "animal_chain_v1"})
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [32, 16], "fcnet_activation": "tanh", "head_fcnet_hiddens": [],
                      "vf_share_layers": False, "fcnet_use_layernorm": layer_norm},
    ).build()
    _randomize_norms(module)
    path = export_module(module, tmp_path / "rllib.safetensors", "animal_chain_v1")
    batch = {Columns.OBS: {"observations": torch.as_tensor(played[0]),
                           "action_mask": torch.as_tensor(played[1], dtype=torch.float32)}}
    with torch.no_grad():
        outputs = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    assert_reproduces(path, outputs, played)


@pytest.mark.parametrize("modules, message", [
    ([nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)], "BatchNorm1d.*only nn.Linear, nn.LayerNorm"),
    ([nn.Linear(4, 4), nn.ReLU(), nn.LayerNorm(4), nn.Linear(4, 2)], "LayerNorm must follow a hidden Linear"),
    ([nn.Linear(4, 4), nn.LayerNorm(3), nn.ReLU(), nn.Linear(4, 2)], "normalize its outputs"),
    ([nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2), nn.LayerNorm(2)], "LayerNorm must follow a hidden Linear"),
])
def test_networks_the_format_cannot_reproduce_are_refused_by_name(modules, message):
    with pytest.raises(TypeError, match=message):
        layers_from_modules(modules)


def test_a_layer_norm_file_is_version_2_and_an_older_reader_refuses_it(tmp_path, monkeypatch):
    from kakurega.agents import policy

    net = TORCH_NETS["layer_norm"](make("animal_chain_v1").unwrapped.layout.size, 1269)
    plain = export_policy(TORCH_NETS["plain"](674, 1269), tmp_path / "plain.safetensors", "animal_chain_v1", algorithm="ppo")
    normed = export_policy(net, tmp_path / "normed.safetensors", "animal_chain_v1", algorithm="ppo")
    assert read_policy(plain)[0]["format_version"] == 1 and read_policy(normed)[0]["format_version"] == 2
    monkeypatch.setattr(policy, "FORMAT_VERSION", 1)  # a reader from before layer normalization
    read_policy(plain)
    with pytest.raises(policy.PolicyFileError, match="format version 2; this kakurega reads up to 1"):
        read_policy(normed)


def test_a_tampered_layer_norm_is_refused(tmp_path):
    import json

    from safetensors.numpy import load_file, save_file

    from kakurega.agents.policy import METADATA_KEY, PolicyFileError

    path = export_policy(TORCH_NETS["layer_norm"](674, 1269), tmp_path / "n.safetensors", "animal_chain_v1", algorithm="ppo")
    meta, _ = read_policy(path)
    tensors = load_file(str(path))
    for change, message in [({"layer_norm": [1e-5]}, "one per hidden layer"), ({"layer_norm": [1e-5, -1]}, "epsilon")]:
        bad = dict(meta, network=dict(meta["network"], **change))
        save_file(tensors, str(tmp_path / "bad.safetensors"), metadata={METADATA_KEY: json.dumps(bad)})
        with pytest.raises(PolicyFileError, match=message):
            read_policy(tmp_path / "bad.safetensors")
    tensors["layer_1.norm_bias"] = tensors["layer_1.norm_bias"][:3]
    save_file(tensors, str(tmp_path / "bad.safetensors"), metadata={METADATA_KEY: json.dumps(meta)})
    with pytest.raises(PolicyFileError, match="layer 1 normalization"):
        read_policy(tmp_path / "bad.safetensors")


def test_play_and_exploit_import_external_agent_kinds(tmp_path, monkeypatch, capsys):
    """docs/training.md names --import for play as for evaluate; play and exploit once had no such option."""
    import io

    from kakurega.scripts.cli import main

    (tmp_path / "my_play_bots.py").write_text(textwrap.dedent('''
        import numpy as np
        from kakurega.agents import Agent, register_agent_kind

        class LastLegal(Agent):
            def act(self, observation, sampler=None):
                return int(np.flatnonzero(observation["action_mask"])[-1])

        register_agent_kind("lastlegal", lambda context, seed, options, argument: LastLegal(context, seed))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the person leaves at once
    play = ["play", "animal_chain", "--opponents", "lastlegal", "--seat", "0", "--seed", "1"]
    main(play)
    assert "unknown agent kind 'lastlegal'" in capsys.readouterr().err  # the control
    main(play + ["--import", "my_play_bots"])
    captured = capsys.readouterr()
    assert "unknown agent kind" not in captured.err and "abandoned" in captured.out + captured.err
    # exploit reaches its own checks once the kind is known: here, a budget it refuses before any work
    exploit = ["exploit", "animal_chain", "--target", "lastlegal", "--budget", "0", "--output", str(tmp_path / "x")]
    assert main(exploit + ["--import", "my_play_bots"]) == 2
    assert "budget must be a whole number" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--import no_such_module: cannot import it"):
        main(exploit + ["--import", "no_such_module"])


@pytest.mark.parametrize("name", ["../../etc", ".relative", ""])
def test_import_of_a_path_or_a_relative_name_is_refused_in_words(name):
    from kakurega.scripts.cli import main

    with pytest.raises(SystemExit, match="expected a module name such as my_bots"):
        main(["evaluate", "animal_chain", "--agents", "random", "heuristic", "--games", "2", "--import", name])
