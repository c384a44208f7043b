"""Expert iteration: search-target data (root visit shares), the data file, the policy+value
warm start learning them, its config keys, and the value head of exported PPO files."""

from __future__ import annotations

import numpy as np
import pytest
from training_helpers import PickledTasks, tiny_config

from kakurega.agents.training.config import ConfigError, validate_config
from kakurega.agents.training.pretrain import collect_demonstrations, demonstrations, visit_distribution

SEARCH = "ismcts:simulations=24,seed=1"


def test_visit_targets_are_the_searchs_root_shares(nim, tmp_path):
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    data = collect_demonstrations(config, SEARCH, 80, seed=0, target="visits")
    targets, masks, actions = data["targets"], data["masks"], data["actions"]
    assert targets.shape == (len(actions), 3) and len(actions) >= 80
    np.testing.assert_allclose(targets.sum(axis=1), 1.0, rtol=1e-5)
    assert not (targets[~masks] > 0).any(), "a target puts weight on an illegal action"
    # the move played is a most-visited one; searched decisions spread their visits
    assert all(targets[i, a] == targets[i].max() for i, a in enumerate(actions))
    assert (targets.max(axis=1) < 1).sum() > 10
    assert len(data["returns"]) == len(actions)


def test_a_forced_move_is_one_hot():
    np.testing.assert_array_equal(visit_distribution({2: 0}, 2, 4), [0, 0, 1, 0])
    np.testing.assert_allclose(visit_distribution({0: 3, 2: 1}, 0, 4), [0.75, 0, 0.25, 0])


def test_visits_need_a_searching_agent(nim, tmp_path):
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    with pytest.raises(ValueError, match="needs a searching agent"):
        collect_demonstrations(config, "heuristic", 10, seed=0, target="visits")
    with pytest.raises(ConfigError, match="'pretrain.target': 'visits' learns a search's root visit shares"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "target": "visits"}))
    with pytest.raises(ConfigError, match="'pretrain.target': expected a string among 'action', 'visits'"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "target": "moves"}))
    with pytest.raises(ConfigError, match=r"'pretrain.value_coef': expected a finite number in \[0, 1000\]"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"value_coef": -1}))


def test_the_data_file_is_reused_only_when_made_the_same_way(nim, tmp_path):
    data_file = tmp_path / "data" / "search.npz"
    pretrain = {"agent": SEARCH, "steps": 40, "target": "visits", "data": str(data_file)}
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"], pretrain=pretrain))
    first, reused = demonstrations(config)
    assert not reused and data_file.is_file()
    again, reused = demonstrations(config)
    assert reused
    for key in ("observations", "masks", "actions", "returns", "targets"):
        np.testing.assert_array_equal(first[key], again[key])
    assert again["episodes"] == first["episodes"]
    changed = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"],
                                          pretrain=dict(pretrain, steps=50)))
    _, reused = demonstrations(changed)
    assert not reused, "data made for 40 steps were reused for 50"
    with np.load(data_file, allow_pickle=False) as archive:  # plain arrays: loads without pickles
        assert len(archive["actions"]) >= 50


def test_expert_iteration_warm_start_learns_the_search(nim, tmp_path):
    """The warm-started actor plays the search's moves; the critic learned the returns (it exports)."""
    import kakurega.agents
    from kakurega.agents.tournament import run_tournament
    from kakurega.agents.training.trainer import train

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, network={"hidden": [32]},
                         opponents=[{"agent": "random", "weight": 1.0}],
                         pretrain={"agent": "ismcts:simulations=40", "target": "visits", "steps": 1500,
                                   "epochs": 30, "batch_size": 64, "value_coef": 1.0},
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 1e-5})
    result = train(config, quiet=True)
    progress = (tmp_path / "run" / "logs" / "part0" / "progress.csv").read_text().splitlines()
    header, first = progress[0].split(","), progress[1].split(",")
    assert float(first[header.index("pretrain/accuracy")]) > 0.8
    table = run_tournament(nim.NAME, [f"policy:{result.policy_path}", "random"], games=200, seed=3)
    assert table.per_agent[0]["win_rate"] > 0.75
    bot = kakurega.agents.load(result.policy_path)
    assert bot.value_layers is not None


def test_exported_value_head_is_the_critic(nim, tmp_path):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import kakurega.agents
    from kakurega.agents.training.export import export_policy
    from kakurega.agents.training.view import SingleAgentView

    vec = DummyVecEnv([lambda: SingleAgentView(nim.NAME, {}, ["random"], illegal_action="raise")] * 2)
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs=dict(net_arch=[16, 16]))
    model.learn(64)
    path = export_policy(model, tmp_path / "policy.safetensors", nim.NAME, {})
    bot = kakurega.agents.load(path)
    observations = np.random.default_rng(0).random((5, bot.layers[0][0].shape[1])).astype(np.float32)
    with torch.no_grad():
        expected = model.policy.predict_values(torch.as_tensor(observations)).numpy().ravel()
    np.testing.assert_allclose([bot.value(o) for o in observations], expected, rtol=1e-4, atol=1e-5)


class _Recorder:
    """Wraps an agent and keeps every observation it was asked to act on."""

    wants_sampler = False

    def __init__(self, agent):
        self.agent, self.seen, self.masks = agent, [], []

    def reset(self):
        self.agent.reset()

    def act(self, observation, sampler=None):
        self.seen.append(np.array(observation["observation"]))
        self.masks.append(np.array(observation["action_mask"]))
        return self.agent.act(observation)


def test_dagger_rounds_label_the_states_the_student_reaches(nim, tmp_path):
    """With a student, the student's moves are played and the teacher only labels them: the recorded
    states are exactly those the student acted on, and the labels are the teacher's moves there."""
    from kakurega.agents.policy import context_for

    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    context = context_for(nim.NAME, {})
    student = _Recorder(nim.TakeMost(context))
    data = collect_demonstrations(config, "heuristic", 60, seed=0, student=student)
    np.testing.assert_array_equal(np.stack(student.seen), data["observations"])
    teacher = nim.SecretNimHeuristic(context)
    labels = [teacher.act({"observation": o, "action_mask": m.astype(np.int8)})
              for o, m in zip(data["observations"], data["masks"])]
    np.testing.assert_array_equal(labels, data["actions"])
    played = [student.agent.act({"observation": o, "action_mask": m.astype(np.int8)})
              for o, m in zip(data["observations"], data["masks"])]
    assert (np.asarray(played) != data["actions"]).sum() > 5, "the control: the student and teacher must disagree"
    # without a student the teacher's own games are recorded: other states than the student's
    alone = collect_demonstrations(config, "heuristic", 60, seed=0)
    assert not np.array_equal(alone["observations"][: len(student.seen)], data["observations"][: len(alone["observations"])])


def test_dagger_in_training_aggregates_and_logs_its_rounds(nim, tmp_path):
    """pretrain.dagger_rounds: the trainer refits on first imitation + each round's labelled states, logs
    each round as pretrain/dagger_*, and the result imitates the teacher on the student's own states."""
    from kakurega.agents.training.trainer import train

    config = tiny_config(nim.NAME, "ppo", tmp_path / "run", total_timesteps=64, network={"hidden": [32]},
                         opponents=[{"agent": "random", "weight": 1.0}],
                         pretrain={"agent": "heuristic", "steps": 300, "epochs": 20, "batch_size": 32,
                                   "dagger_rounds": 2, "dagger_steps": 200},
                         ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1, "learning_rate": 1e-6})
    result = train(config, quiet=True)
    rows = (tmp_path / "run" / "logs" / "part0" / "progress.csv").read_text().splitlines()
    header = rows[0].split(",")
    dagger_rows = [r.split(",") for r in rows[1:] if r.split(",")[header.index("pretrain/dagger_samples")]]
    assert [float(r[header.index("pretrain/dagger_samples")]) >= 300 + 200 * (i + 1) for i, r in enumerate(dagger_rows)] == [True, True]
    assert float(dagger_rows[-1][header.index("pretrain/dagger_accuracy")]) > 0.9
    # the network now plays the teacher's move on the states it reaches itself
    import kakurega.agents
    from kakurega.agents.policy import context_for

    bot = kakurega.agents.load(result.policy_path)
    student = _Recorder(bot)
    collect_demonstrations(validate_config(config), "heuristic", 100, seed=5, student=student)
    teacher = nim.SecretNimHeuristic(context_for(nim.NAME, {}))
    agree = np.mean([bot.act({"observation": o, "action_mask": m}) == teacher.act({"observation": o, "action_mask": m})
                     for o, m in zip(student.seen, student.masks)])
    assert agree > 0.8


def test_dagger_keys_are_checked(nim, tmp_path):
    with pytest.raises(ConfigError, match="'pretrain.dagger_rounds': DAgger refines a first imitation"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 0, "dagger_rounds": 2}))
    with pytest.raises(ConfigError, match=r"'pretrain.dagger_rounds': expected an integer in \[0, 100\]"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "dagger_rounds": 101}))
    with pytest.raises(ConfigError, match=r"'pretrain.dagger_steps': expected an integer"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 10, "dagger_steps": "many"}))


def test_an_imitation_data_set_too_large_for_memory_is_refused(nim, tmp_path):
    """steps plus every DAgger round's labels are held in memory: a config that would need more than
    MAX_BUFFER_BYTES is refused when it loads; the same rounds at a small size pass (the control)."""
    validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"steps": 1000, "dagger_rounds": 100}))
    with pytest.raises(ConfigError, match=r"'pretrain.steps': 1010000000 imitation states .* the limit is 8 GiB"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path,
                                    pretrain={"steps": 10_000_000, "dagger_rounds": 100}))


def test_the_demonstrator_is_reset_at_the_start_of_every_episode(nim, tmp_path, monkeypatch):
    """An agent that keeps memory of a game must start each demonstration game fresh (one reset per game)."""
    import kakurega.agents.specs as specs
    from kakurega.agents.base import Agent

    events = []

    class Counting(Agent):
        def reset(self):
            events.append("reset")

        def act(self, observation, sampler=None):
            events.append("act")
            return int(np.flatnonzero(observation["action_mask"])[0])

    monkeypatch.setitem(specs._KINDS, "counting", lambda context, seed, options, argument: Counting(context, seed))
    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    data = collect_demonstrations(config, "counting", 40, seed=0)
    assert data["episodes"] > 3
    # a reset before the first move of each episode (the last reset may open an episode cut off by the step count)
    assert events[0] == "reset" and events.count("reset") in (data["episodes"], data["episodes"] + 1)
    games = "".join("R" if e == "reset" else "a" for e in events).split("R")[1:]
    assert all(games[:data["episodes"]]), "every episode's moves follow a reset"


@pytest.mark.parametrize("target, agent", [("visits", "ismcts:simulations=4"), ("action", "heuristic")])
def test_demonstration_games_cut_into_tasks_give_the_same_data(tmp_path, target, agent):
    """Game e of the data step is dealt and seeded from (seed, e) alone: played in separate work items, the data
    are the same arrays, cut at the same game."""
    config = validate_config(tiny_config("animal_chain_v1", "ppo", tmp_path, opponents=["random", "heuristic"]))
    local = collect_demonstrations(config, agent, 60, seed=3, target=target)
    tasks = PickledTasks()
    split = collect_demonstrations(config, agent, 60, seed=3, target=target, tasks=tasks)
    assert tasks.items > 1 and local["episodes"] > 1
    assert set(split) == set(local)
    for key, value in local.items():
        np.testing.assert_array_equal(split[key], value, err_msg=key)
    other = collect_demonstrations(config, agent, 60, seed=4, target=target)
    assert not np.array_equal(other["actions"][:50], local["actions"][:50])  # the comparison can fail


def test_an_episode_does_not_depend_on_the_episodes_played_before(nim, tmp_path):
    from kakurega.agents.training.pretrain import DemonstrationSetup, _Demonstrator

    setup = DemonstrationSetup(nim.NAME, {}, ({"agent": "random", "weight": 1.0},), "random", False,
                               "ismcts:simulations=6", "visits", 0.99, 7)
    alone = [_Demonstrator(setup).episode(e) for e in range(6)]
    player = _Demonstrator(setup)
    backwards = [player.episode(e) for e in reversed(range(6))][::-1]
    for a, b in zip(alone, backwards):
        assert a["actions"] == b["actions"] and a["returns"] == b["returns"]
        np.testing.assert_array_equal(a["targets"], b["targets"])
    assert len({tuple(e["actions"]) for e in alone}) > 1


def test_the_data_step_backend_is_checked(nim, tmp_path):
    with pytest.raises(ConfigError, match=r"'pretrain.address': an address is for backend ray"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"address": "10.0.0.5:6379"}))
    with pytest.raises(ConfigError, match=r"'pretrain.address': Ray address 'head': expected auto, HOST:PORT"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"backend": "ray", "address": "head"}))
    with pytest.raises(ConfigError, match=r"'pretrain.backend': expected a string among 'local', 'ray'"):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"backend": "dask"}))
    for address in ("auto", "10.0.0.5:6379", "ray://head.example:10001", None):
        validate_config(tiny_config(nim.NAME, "ppo", tmp_path, pretrain={"backend": "ray", "address": address}))


def test_dagger_labelling_stays_in_this_process(nim, tmp_path):
    from kakurega.agents.base import RandomAgent
    from kakurega.agents.policy import context_for

    config = validate_config(tiny_config(nim.NAME, "ppo", tmp_path, opponents=["random"]))
    student = RandomAgent(context_for(nim.NAME, {}), 0)
    with pytest.raises(ValueError, match="DAgger's labelling plays the network being trained"):
        collect_demonstrations(config, "heuristic", 10, seed=0, student=student, tasks=PickledTasks())
