"""Move features (``network.move_features``): what a game's heuristic measures about each action, as
network inputs. For every game that declares them: their shape and bounds over random games, that they
see the acting seat's observation only (beside a leaky control the same check catches), and that a
network trained with them is exported, loaded and played like any policy file; bad files and configs
are refused in words."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conformance import random_states
from leak_checks import check_move_feature_leaks

from kakurega.agents.base import AgentContext, choose_action, legal_ids
from kakurega.agents.move_features import MoveFeatures
from kakurega.agents.policy import PolicyFileError, load, read_policy, save_policy
from kakurega.agents.training.config import ConfigError, validate_config
from kakurega.agents.training.trainer import train
from kakurega.agents.training.view import SingleAgentView
from kakurega.envs import ENV_SPECS, make

#: (env, configuration) of every game that declares move features, in every registered configuration
FEATURE_CASES = [
    pytest.param(name, config, id=f"{name}-{'-'.join(f'{k}={v}' for k, v in config.items()) or 'default'}")
    for name, spec in ENV_SPECS.items() if spec.move_features for config in spec.configurations
]
NO_FEATURES = next(name for name, spec in ENV_SPECS.items() if not spec.move_features)


def test_some_game_declares_move_features():
    assert FEATURE_CASES, "no registered env declares move features: the tests below would be vacuous"


def features_for(name, config):
    raw = make(name, wrapped=False, **config)
    return raw, MoveFeatures(AgentContext.from_env(raw, name, config))


def heuristic_observations(name, config, games: int, seed: int = 0):
    """The acting seat's observation at every decision of heuristic-played games (they reach deep states)."""
    from kakurega.agents.specs import make_agent

    env = make(name, **config)
    context = AgentContext.from_env(env, name, config)
    players = {agent: make_agent("heuristic", context, seed + i) for i, agent in enumerate(env.possible_agents)}
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            yield observation
            env.step(choose_action(players[agent], env, agent, observation))


@pytest.mark.parametrize("name,config", FEATURE_CASES)
def test_features_are_bounded_and_mark_the_legal_actions(name, config):
    raw, features = features_for(name, config)
    num_actions = raw.game.num_actions
    assert features.size % num_actions == 0, "the features are one row per action"
    per_action = features.size // num_actions
    varied = set()
    for observation in heuristic_observations(name, config, games=8):
        values = features(observation)
        assert values.shape == (features.size,) and values.dtype == np.float32
        assert np.all(np.isfinite(values)) and values.min() >= 0 and values.max() <= 1
        rows = values.reshape(num_actions, per_action)
        # column 0 is the legal-action flag; the rows of illegal actions hold nothing
        assert np.array_equal(rows[:, 0], np.asarray(observation["action_mask"], dtype=np.float32))
        assert not rows[~observation["action_mask"].astype(bool)].any()
        varied.update(np.flatnonzero(rows[:, 1:].std(axis=0) > 0).tolist())
    # (some measurements are constant in a configuration: Animal Chain's race without the chain rule)
    assert len(varied) >= 3, f"only feature columns {sorted(varied)} ever vary between the actions of a position"


@pytest.mark.parametrize("name,config", FEATURE_CASES)
def test_features_see_the_acting_seats_observation_only(name, config):
    raw, features = features_for(name, config)
    raw.reset(seed=0)
    states = random_states(raw.game, seed=1, num_games=20, every=2)
    # the moves the features prove dominated are compared too (random states of some configurations never hold a
    # proof: Kurayami's random games prove nothing; the control below proves that comparison can fail)
    check_move_feature_leaks(raw, features, states)


class PeekingFeatures:
    """A leaky control: besides the observation it reads the env's true state (the top of Hidden Rooms' pile)."""

    def __init__(self, raw, honest):
        self.raw, self.honest, self.size = raw, honest, honest.size

    def __call__(self, observation):
        values = self.honest(observation).copy()
        pile = self.raw.game_state.pile
        values[-1] = (pile[-1] % 2) if pile else 0
        return values


def test_move_feature_check_catches_features_that_read_the_true_state():
    name, config = "hidden_rooms_v0", {"episode": "round"}
    raw, features = features_for(name, config)
    raw.reset(seed=0)
    states = random_states(raw.game, seed=1, num_games=20, every=2)
    with pytest.raises(AssertionError, match="move features changed"):
        check_move_feature_leaks(raw, PeekingFeatures(raw, features), states)


class PeekingDominance:
    """A leaky control: honest features, but it proves a move dominated when the tile on top of the pile is odd."""

    def __init__(self, raw, honest):
        self.raw, self.honest, self.size = raw, honest, honest.size

    def __call__(self, observation):
        return self.honest(observation)

    def dominated(self, observation):
        proved = np.zeros(len(observation["action_mask"]), dtype=bool)
        pile = self.raw.game_state.pile
        if pile and pile[-1] % 2:
            proved[np.flatnonzero(observation["action_mask"])[-1]] = True
        return proved


def test_move_feature_check_catches_a_dominance_proof_that_reads_the_true_state():
    name, config = "hidden_rooms_v0", {"episode": "round"}
    raw, features = features_for(name, config)
    raw.reset(seed=0)
    states = random_states(raw.game, seed=1, num_games=20, every=2)
    with pytest.raises(AssertionError, match="the moves proved dominated for seat . changed"):
        check_move_feature_leaks(raw, PeekingDominance(raw, features), states)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, bool, np.int64, np.float32])
def test_the_legal_ids_are_flatnonzeros_for_every_mask_type(dtype):
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = rng.choice([0, 0, 0, 1, 2, -1] if dtype not in (np.uint8, bool) else [0, 0, 0, 1], size=1269).astype(dtype)
        assert legal_ids(mask).tolist() == np.flatnonzero(mask).tolist()
        if dtype in (np.int8, np.int64):  # control: a reader of the positive entries misses the -1s
            assert np.flatnonzero(mask > 0).tolist() != np.flatnonzero(mask).tolist()


def test_an_env_without_move_features_is_refused():
    raw = make(NO_FEATURES, wrapped=False)
    with pytest.raises(ValueError, match="declares no move features"):
        MoveFeatures(AgentContext.from_env(raw, NO_FEATURES, {}))
    with pytest.raises(ConfigError, match="network.move_features.*declares no move features"):
        validate_config({"env": NO_FEATURES, "algorithm": "ppo", "total_timesteps": 64,
                         "network": {"move_features": True}})


@pytest.mark.parametrize("name,config", FEATURE_CASES[:1])
def test_the_view_appends_the_features_to_each_observation(name, config):
    plain = SingleAgentView(name, config)
    view = SingleAgentView(name, config, move_features=True)
    size = plain.observation_space.shape[0]
    assert view.observation_space.shape == (size + view.move_features.size,)
    obs, _ = view.reset(seed=3)
    raw_observation = view.raw.observe(view._learner)
    assert np.array_equal(obs[:size], raw_observation["observation"])
    assert np.array_equal(obs[size:], view.move_features(raw_observation))
    assert view.observation_space.contains(obs)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny PPO run with move features (Hidden Rooms, one round per episode): its policy file."""
    out = tmp_path_factory.mktemp("move_features")
    config = validate_config({
        "env": "hidden_rooms_v0", "env_kwargs": {"episode": "round"}, "algorithm": "ppo", "total_timesteps": 128,
        "n_envs": 2, "seed": 0, "output_dir": str(out), "network": {"hidden": [16], "move_features": True},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
        "pretrain": {"steps": 300, "epochs": 2, "dagger_rounds": 1, "dagger_steps": 100},
        "evaluation": {"every": 0, "final_games": 0}, "checkpoint": {"every": 0, "keep": 1},
        "logging": {"tensorboard": False, "progress_bar": False},
    })
    train(config, quiet=True)
    return out / "policy.safetensors"


@pytest.mark.train
def test_a_network_trained_with_features_is_exported_with_them_and_plays(trained):
    meta, layers = read_policy(trained)
    raw, features = features_for("hidden_rooms_v0", {"episode": "round"})
    assert meta["inputs"] == ["observation", "move_features"]
    assert meta["move_features_size"] == features.size
    assert layers[0][0].shape[1] == raw.layout.size + features.size
    agent = load(trained)
    assert agent.move_features is not None
    env = make("hidden_rooms_v0", episode="round")
    env.reset(seed=5)
    decisions = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose_action(agent, env, name, observation)
        assert observation["action_mask"][action]
        # the network read the observation and its features, in that order
        expected = np.concatenate([observation["observation"], features(observation)])
        assert np.array_equal(agent.network_input(observation), expected)
        env.step(action)
        decisions += 1
    assert decisions > 0


def rewritten(path, tmp_path, **changes):
    """A copy of the policy file at ``path`` with metadata fields changed (None: removed)."""
    meta, layers, value_layers = read_policy(path, with_value=True)
    meta = json.loads(json.dumps(meta))
    for key, value in changes.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    return save_policy(tmp_path / "edited.safetensors", layers, meta, value_layers=value_layers)


@pytest.mark.train
def test_bad_move_feature_metadata_is_refused_in_words(trained, tmp_path):
    with pytest.raises(PolicyFileError, match="move_features_size.*expected an integer"):
        read_policy(rewritten(trained, tmp_path, move_features_size=None))
    with pytest.raises(PolicyFileError, match="move_features_size.*expected an integer"):
        read_policy(rewritten(trained, tmp_path, move_features_size="170"))
    with pytest.raises(PolicyFileError, match="inputs .* must list distinct pieces"):
        read_policy(rewritten(trained, tmp_path, inputs=["observation", "move_features", "move_features"]))


@pytest.mark.train
def test_a_file_whose_feature_count_differs_from_the_games_is_refused(trained, tmp_path):
    meta, layers, value_layers = read_policy(trained, with_value=True)
    size = meta["move_features_size"] - 10
    (w, b), rest = layers[0], layers[1:]
    meta = {**meta, "move_features_size": size, "network": {**meta["network"], "sizes": [w.shape[1] - 10] + meta["network"]["sizes"][1:]}}
    meta["network"].pop("value_sizes", None)
    path = save_policy(tmp_path / "short.safetensors", [(w[:, :-10], b), *rest], meta)
    with pytest.raises(PolicyFileError, match=f"reads {size} move features; hidden_rooms_v0 computes {size + 10}"):
        load(path)


@pytest.mark.train
def test_a_search_guided_by_a_network_with_features_gives_it_the_features(trained):
    from kakurega.agents.ismcts import ISMCTSAgent
    from kakurega.agents.policy import context_for

    context = context_for("hidden_rooms_v0", {"episode": "round"})
    search = ISMCTSAgent(context, seed=0, simulations=8, prior=f"policy:{trained}")
    assert search.leaf == "value"  # the file has a critic: leaves are scored by it, with the features too
    widths = []
    network = search.network
    for method in ("probabilities", "value"):
        original = getattr(network, method)

        def recording(x, *rest, _original=original):
            widths.append(len(x))
            return _original(x, *rest)

        setattr(network, method, recording)
    env = make("hidden_rooms_v0", episode="round")
    env.reset(seed=2)
    for decision, name in enumerate(env.agent_iter()):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated or decision >= 6:
            break
        action = choose_action(search, env, name, observation)
        assert observation["action_mask"][action]
        env.step(action)
    size = context.layout.size + network.move_features.size
    assert widths and set(widths) == {size}, f"the network was given inputs of widths {set(widths)}, expected {size}"


# ------------------------------------------------------------ the feature head
def feature_head_config(env, output_dir, **network):
    return validate_config({
        "env": env, "algorithm": "ppo", "total_timesteps": 64, "n_envs": 1, "seed": 0, "output_dir": str(output_dir),
        "network": {"hidden": [16], "move_features": True, "feature_head": True, **network},
        "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
        "evaluation": {"every": 0, "final_games": 0}, "logging": {"tensorboard": False, "progress_bar": False},
    })


@pytest.mark.train
def test_the_numpy_forward_pass_of_a_feature_head_file_is_the_torch_policys(tmp_path):
    import torch as th

    from kakurega.agents.training.export import export_policy
    from kakurega.agents.training.trainer import build_model, make_vec_env

    config = feature_head_config("animal_chain_v1", tmp_path)
    vec_env = make_vec_env(config)
    model = build_model(config, vec_env)
    with th.no_grad():  # a head that matters (a fresh one is all zeros)
        model.policy.feature_head.copy_(th.linspace(-2.0, 3.0, model.policy.feature_head.numel()))
    path = export_policy(model, tmp_path / "head.safetensors", "animal_chain_v1", {}, move_features=True)
    meta, layers = read_policy(path)
    raw, features = features_for("animal_chain_v1", {})
    from kakurega.agents.training.feature_head import HEAD_SCALE

    assert meta["network"]["feature_head"] == pytest.approx((HEAD_SCALE * np.linspace(-2.0, 3.0, features.per_action)).tolist())
    assert meta["network"]["sizes"][0] == raw.layout.size  # the MLP reads the observation only
    agent = load(path)
    compared = 0
    for observation in heuristic_observations("animal_chain_v1", {}, games=2):
        x = agent.network_input(observation)
        legal = np.flatnonzero(observation["action_mask"])
        with th.no_grad():
            obs = th.as_tensor(x[None])
            torch_logits = model.policy.get_distribution(obs).distribution.logits[0].numpy()
            torch_value = float(model.policy.predict_values(obs)[0, 0])
        # (softmax logits are defined up to a constant: compare the log-probabilities over the legal moves)
        ours = agent.outputs(x)[legal]
        theirs = torch_logits[legal]
        assert np.allclose(ours - ours.max(), theirs - theirs.max(), atol=1e-4)
        assert agent.value(x) == pytest.approx(torch_value, abs=1e-4)
        compared += 1
    assert compared > 20


@pytest.mark.train
def test_bad_feature_head_configs_and_files_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="feature_head.*needs network.move_features"):
        validate_config({"env": "animal_chain_v1", "algorithm": "ppo", "total_timesteps": 64,
                         "network": {"feature_head": True}})
    with pytest.raises(ConfigError, match="feature_head.*needs network.move_features: true and algorithm ppo"):
        validate_config({"env": "animal_chain_v1", "algorithm": "dqn", "total_timesteps": 64,
                         "network": {"move_features": True, "feature_head": True}})
    from kakurega.agents.training.export import export_policy
    from kakurega.agents.training.trainer import build_model, make_vec_env

    config = feature_head_config("hidden_rooms_v0", tmp_path)
    path = export_policy(build_model(config, make_vec_env(config)), tmp_path / "head.safetensors", "hidden_rooms_v0",
                         {}, move_features=True)
    head = read_policy(path)[0]["network"]["feature_head"]
    for bad in (head[:-1], head + [0.0], [float("nan")] * len(head), ["1"] * len(head), []):
        meta, layers, value_layers = read_policy(path, with_value=True)
        meta["network"]["feature_head"] = bad
        with pytest.raises(PolicyFileError, match="feature_head"):
            read_policy(save_policy(tmp_path / "bad.safetensors", layers, meta, value_layers=value_layers))


@pytest.mark.parametrize("change", ["shorter", "longer"])
def test_features_of_another_length_than_declared_are_refused_in_words(change, monkeypatch):
    """A game's features class that returns more or fewer numbers than its declared ``size`` is refused at the
    call, in words: a network reading them would otherwise take misplaced inputs."""
    import importlib

    name, config = FEATURE_CASES[0].values
    raw, features = features_for(name, config)
    raw.reset(seed=0)
    observation = raw.observe(raw.agent_selection)
    assert features(observation).shape == (features.size,)
    module, _, attribute = ENV_SPECS[name].move_features.partition(":")
    cls = getattr(importlib.import_module(module), attribute)
    compute = cls.__call__
    wrong = (lambda values: values[:-1]) if change == "shorter" else (lambda values: np.append(values, 0.0))
    monkeypatch.setattr(cls, "__call__", lambda self, seen: wrong(compute(self, seen)))
    size = features.size + (-1 if change == "shorter" else 1)
    with pytest.raises(ValueError, match=rf"move features of shape \({size},\); expected \({features.size},\)"):
        features(observation)


def test_dominance_is_proved_only_by_features_that_offer_dominated():
    """``proves_dominance`` (whether a policy's default pruning can remove anything, and so whether a run reports
    a "network alone" row) is true for the games whose features class offers ``dominated(observation)`` (and,
    where the class says under which options its proofs hold, says so for the env's own options), and false for
    a game whose features have none (their ``dominated`` is always None) or that has no features."""
    import importlib

    from kakurega.agents.move_features import proves_dominance

    offered = {}
    for name, spec in ENV_SPECS.items():
        if not spec.move_features:
            assert proves_dominance(name) is False, name
            continue
        module, _, attribute = spec.move_features.partition(":")
        features_class = getattr(importlib.import_module(module), attribute)
        offered[name] = callable(getattr(features_class, "dominated", None))
        holds = getattr(features_class, "proves_dominance", lambda game: True)(make(name, wrapped=False).game)
        assert proves_dominance(name) is (offered[name] and holds), name
        if not offered[name]:
            raw, features = features_for(name, {})
            raw.reset(seed=0)
            assert features.dominated(raw.observe(raw.agent_selection)) is None
    assert set(offered.values()) == {True, False}, "the control: features with and without dominated are registered"


@pytest.mark.parametrize("name,config", FEATURE_CASES)
def test_a_waiting_seat_gets_features_and_no_dominance(name, config):
    """The features and ``dominated`` of a seat that does not act (its mask empty): finite rows beside no legal
    action, and nothing proved (Summer's ``dominated`` read a waiting seeker's empty stroke and raised
    IndexError during the child's turn)."""
    raw, features = features_for(name, config)
    waiting = 0
    for seed in range(3):
        raw.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:  # every seat at every step, and at the end (where the solitaire game's seat waits too)
            for agent in raw.agents:
                observation = raw.observe(agent)
                if observation["action_mask"].any():
                    continue
                waiting += 1
                beaten = features.dominated(observation)
                assert beaten is None or not np.asarray(beaten).any()
                values = features(observation)
                assert values.shape == (features.size,) and np.isfinite(values).all()
            if not raw.agents or raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
                break
            raw.step(int(rng.choice(legal_ids(raw.observe(raw.agent_selection)["action_mask"]))))
    assert waiting, "no waiting seat was observed: the check above never ran"
