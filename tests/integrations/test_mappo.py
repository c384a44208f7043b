"""The centralised-critic example (examples/mappo_critic.py) trains briefly: its critic reads ``env.state()``,
its actor only the acting seat's observation, and the exported actor plays ``kakurega evaluate``."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kakurega.envs.core.aec import StandardWrapper, TurnBasedAECEnv

torch = pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mappo_critic.py"


def _example():
    spec = importlib.util.spec_from_file_location("mappo_critic_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_critic_reads_the_state_and_actors_only_their_observation(monkeypatch):
    example = _example()
    acting_observations, states = [], []
    last, state = StandardWrapper.last, TurnBasedAECEnv.state

    def recording_last(self, observe=True):
        result = last(self, observe)
        if not (result[2] or result[3]):  # a live decision: what the acting seat observes
            acting_observations.append(np.array(result[0]["observation"]))
        return result

    def recording_state(self):
        states.append(state(self))
        return states[-1]

    monkeypatch.setattr(StandardWrapper, "last", recording_last)
    monkeypatch.setattr(TurnBasedAECEnv, "state", recording_state)
    actor_inputs, critic_inputs = [], []
    mlp = example.mlp

    def recording_mlp(inputs, hidden, outputs):
        network = mlp(inputs, hidden, outputs)
        network.register_forward_pre_hook(lambda _, args: actor_inputs.append(args[0].detach().numpy().copy()))
        return network

    monkeypatch.setattr(example, "mlp", recording_mlp)
    monkeypatch.setattr(example.Critic, "forward", _recording_forward(example.Critic.forward, critic_inputs))
    args = example.parse_args(["--env", "kakurenbo_v0", "--option", "num_players=3", "--iterations", "1",
                               "--games", "3", "--epochs", "1", "--hidden", "16"])
    actor, critic, stats = example.train(args)
    decisions = stats["decisions"]
    assert decisions == len(acting_observations) == len(states) > 0
    # the critic's net is an mlp too: its inputs are the state plus a seat one-hot, the actor's the observation
    observation_size = acting_observations[0].size
    actor_calls = [x for x in actor_inputs if x.shape[1] == observation_size]
    assert all(x.shape[1] in (observation_size, states[0].size + 3) for x in actor_inputs)
    np.testing.assert_array_equal(np.concatenate(actor_calls[:decisions]), np.stack(acting_observations))
    np.testing.assert_array_equal(np.concatenate(actor_calls[decisions:]), np.stack(acting_observations))
    (critic_states,) = critic_inputs
    np.testing.assert_array_equal(critic_states, np.stack(states))
    assert states[0].size > observation_size * 3  # the control: the state is more than all observations


def _recording_forward(forward, record):
    def recording(self, states, seats):
        record.append(states.detach().numpy().copy())
        return forward(self, states, seats)

    return recording


def test_the_exported_actor_plays_kakurega_evaluate(tmp_path, capsys):
    from kakurega.scripts.cli import main

    path = tmp_path / "policy.safetensors"
    stats = _example().main(["--env", "kakurenbo_v0", "--option", "num_players=3", "--iterations", "1",
                             "--games", "2", "--epochs", "1", "--hidden", "16", "--export", str(path)])
    assert stats["games"] == 2 and path.exists()
    assert main(["evaluate", "kakurenbo_v0", "--option", "num_players=3", "--agents", f"policy:{path}",
                 "heuristic", "--games", "3", "--quiet"]) == 0
    assert "policy" in capsys.readouterr().out
