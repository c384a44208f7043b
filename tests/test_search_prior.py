"""IS-MCTS guided by a policy network (``prior=policy:PATH``, PUCT): legal deterministic play
in every env, the prior leads the search, the value head scores leaves, bad options are refused.
The leak test for this setting is in test_ismcts.py (LEAK_CASES)."""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.ismcts import ISMCTSAgent
from kakurega.agents.policy import PolicyFileError, load, resolved_env_options, save_policy
from kakurega.agents.specs import make_agent
from kakurega.envs import ENV_SPECS, kakurenbo_v0, make

#: one short configuration per env that pays at its end (``EnvSpec.search_config``)
SHORT_CASES = [pytest.param(name, spec.search_config, id=name) for name, spec in ENV_SPECS.items()]


def rollout_of(name: str) -> str:
    """The env's greedy rollouts where its registry entry names a policy (it may not), else random ones."""
    return "greedy" if ENV_SPECS[name].rollout else "random"


def network_file(path, name: str, config: dict, seed: int = 0, favourite: int | None = None, value: bool = True):
    """A policy file for ``name(**config)``: random weights, or (``favourite``) all mass on one action."""
    from kakurega.envs.registry import make as make_env

    raw = make_env(name, wrapped=False, **config)
    size, actions = raw.layout.size, raw.game.num_actions
    rng = np.random.default_rng(seed)
    hidden = 16
    if favourite is None:
        layers = [(rng.normal(0, 0.3, (hidden, size)), rng.normal(0, 0.1, hidden)),
                  (rng.normal(0, 0.3, (actions, hidden)), rng.normal(0, 0.1, actions))]
    else:
        bias = np.zeros(actions)
        bias[favourite] = 20.0
        layers = [(np.zeros((hidden, size)), np.zeros(hidden)), (np.zeros((actions, hidden)), bias)]
    value_layers = None
    if value:
        value_layers = [(rng.normal(0, 0.3, (hidden, size)), rng.normal(0, 0.1, hidden)),
                        (rng.normal(0, 0.3, (1, hidden)), rng.normal(0, 0.1, 1))]
    metadata = {
        "env": name, "env_options": resolved_env_options(name, config), "observation_size": size,
        "num_actions": actions, "num_players": raw.game.num_players, "algorithm": "ppo",
        "network": {"activation": "tanh"},
    }
    return save_policy(path, layers, metadata, value_layers=value_layers)


def play(env, agents: dict, seed: int, max_decisions: int):
    env.reset(seed=seed)
    actions = []
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose_action(agents[name], env, name, observation)
        assert observation["action_mask"][action], f"{name} chose illegal action {action}"
        actions.append(action)
        env.step(action)
        if len(actions) >= max_decisions:
            break
    return actions


@pytest.mark.parametrize("name,config", SHORT_CASES)
@pytest.mark.parametrize("leaf", ["value", "rollout"])
def test_network_guided_search_plays_legal_deterministic_games(name, config, leaf, tmp_path):
    path = network_file(tmp_path / "net.safetensors", name, config)
    rollout = rollout_of(name)

    def run():
        env = make(name, **config)
        context = AgentContext.from_env(env, name, config)
        agents = {
            agent: make_agent(f"ismcts:simulations=12,prior=policy:{path},leaf={leaf},rollout={rollout}", context, 7 + seat)
            for seat, agent in enumerate(env.possible_agents)
        }
        return play(env, agents, seed=6, max_decisions=25)

    first = run()
    assert first and first == run()


def _decision(name: str, config: dict, seed: int = 1, least: int = 3):
    """A seeded random game played on to a decision with at least ``least`` legal actions (a skip if none comes)."""
    env = make(name, **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            pytest.skip(f"{name} {config}: a random game (seed {seed}) ended before a choice of {least} actions")
        observation = env.observe(agent)
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) >= least:
            return env, agent, observation, legal
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("name,config", SHORT_CASES)
def test_the_prior_leads_the_search(name, config, tmp_path):
    """A prior sure of one move sends the search there; a prior sure of another moves it with it. The control:
    without the prior, the search gives one of the two moves less than half its visits (the check can fail)."""
    env, agent, observation, legal = _decision(name, config, least=2)
    context = AgentContext.from_env(env, name, config)
    rollout = rollout_of(name)
    favourites = [int(legal[-1]), int(legal[-2])]
    chosen = []
    for favourite in favourites:
        path = network_file(tmp_path / f"net{favourite}.safetensors", name, config, favourite=favourite)
        search = ISMCTSAgent(context, 0, simulations=30, prior=f"policy:{path}", leaf="rollout", rollout=rollout)
        chosen.append(choose_action(search, env, agent, observation))
        visits = search.last_search["visits"]
        assert visits[favourite] >= 0.5 * sum(visits.values()), visits
    assert chosen == favourites
    blind = ISMCTSAgent(context, 0, simulations=30, rollout=rollout)
    choose_action(blind, env, agent, observation)
    visits = blind.last_search["visits"]
    assert min(visits.get(favourite, 0) for favourite in favourites) < 0.5 * sum(visits.values()), (
        f"control: without the prior both favourites had half the visits: {visits}")


def test_value_head_scores_the_leaves_and_rollouts_do_not_call_it(tmp_path):
    name, config = "kakurenbo_v0", {}
    env, agent, observation, legal = _decision(name, config)
    context = AgentContext.from_env(env, name, config)
    path = network_file(tmp_path / "net.safetensors", name, config)
    calls = {}
    for leaf in ("value", "rollout"):
        search = ISMCTSAgent(context, 0, simulations=20, prior=f"policy:{path}", leaf=leaf)
        original = search.network.value
        calls[leaf] = 0

        def counting(vector, original=original, leaf=leaf):
            calls[leaf] += 1
            return original(vector)

        search.network.value = counting
        choose_action(search, env, agent, observation)
    players = env.unwrapped.game.num_players
    assert calls["rollout"] == 0
    assert calls["value"] >= players * 10, calls  # every seat's value at (almost) every new leaf


def test_value_head_matches_the_file(tmp_path):
    path = network_file(tmp_path / "net.safetensors", "animal_chain_v0", {})
    agent = load(path)
    vector = np.random.default_rng(0).random(agent.layers[0][0].shape[1]).astype(np.float32)
    hidden = np.tanh(agent.value_layers[0][0] @ vector + agent.value_layers[0][1])
    expected = float((agent.value_layers[1][0] @ hidden + agent.value_layers[1][1])[0])
    assert agent.value(vector) == pytest.approx(expected, rel=1e-5)
    probabilities = agent.probabilities(vector, [0, 3, 5])
    assert probabilities.shape == (3,) and probabilities.sum() == pytest.approx(1.0)


def test_bad_network_options_are_refused(tmp_path):
    env = make("animal_chain_v0")
    context = AgentContext.from_env(env, "animal_chain_v0", {})
    no_value = network_file(tmp_path / "novalue.safetensors", "animal_chain_v0", {}, value=False)
    with pytest.raises(ValueError, match="prior must be one of heuristic, greedy or a policy network"):
        make_agent("ismcts:prior=random", context)
    with pytest.raises(ValueError, match="leaf=value needs prior=policy:PATH with a file that has a value head"):
        make_agent(f"ismcts:prior=policy:{no_value},leaf=value", context)
    with pytest.raises(ValueError, match="leaf must be one of value, rollout"):
        make_agent(f"ismcts:prior=policy:{no_value},leaf=deep", context)
    # without a value head the leaves are rolled out
    assert make_agent(f"ismcts:prior=policy:{no_value}", context).leaf == "rollout"
    other = network_file(tmp_path / "other.safetensors", "kakurenbo_v0", {})
    with pytest.raises(ValueError, match="does not fit this env"):
        make_agent(f"ismcts:prior=policy:{other}", context)


def test_half_precision_files_load_as_float32_and_act_the_same(tmp_path):
    """float16 files: the loaded network is float32 and close to the original."""
    from kakurega.agents.policy import read_policy

    full = network_file(tmp_path / "full.safetensors", "kakurenbo_v0", {})
    meta, layers, value_layers = read_policy(full, with_value=True)
    half = save_policy(tmp_path / "half.safetensors", layers, meta, value_layers=value_layers, precision="float16")
    assert half.stat().st_size < 0.6 * full.stat().st_size
    a, b = load(full), load(half)
    assert all(w.dtype == np.float32 for w, _ in b.layers + b.value_layers)
    vectors = np.random.default_rng(1).random((50, a.layers[0][0].shape[1])).astype(np.float32)
    np.testing.assert_allclose(b.outputs(vectors), a.outputs(vectors), atol=2e-2)
    assert abs(a.value(vectors[0]) - b.value(vectors[0])) < 2e-2
    with pytest.raises(ValueError, match="precision must be one of float32, float16, int8"):
        save_policy(tmp_path / "x.safetensors", layers, meta, precision="int4")
    big = [(w.copy(), b) for w, b in layers]
    big[0][0][0, 0] = 70_000.0  # beyond float16's 65504: it would be stored as infinity, a file no reader takes
    with pytest.raises(ValueError, match=r"layer_0.weight holds 70000, beyond float16's largest value 65504: save it "
                                         r"with precision float32 or int8"):
        save_policy(tmp_path / "inf.safetensors", big, meta, precision="float16")
    assert not (tmp_path / "inf.safetensors").exists()
    assert load(save_policy(tmp_path / "big.safetensors", big, meta)).layers[0][0][0, 0] == 70_000.0


def test_int8_files_are_a_quarter_of_float32_and_keep_the_greedy_move(tmp_path):
    """Shipped bots store int8 weights with a scale per row: every weight within half a step of the
    original, outputs close, and the greedy move of a trained-size network kept on real observations."""
    from kakurega.agents.policy import quantize_rows, read_policy

    full = network_file(tmp_path / "full.safetensors", "kakurenbo_v0", {})
    meta, layers, value_layers = read_policy(full, with_value=True)
    small = save_policy(tmp_path / "int8.safetensors", layers, meta, value_layers=value_layers, precision="int8")
    assert small.stat().st_size < 0.35 * full.stat().st_size
    a, b = load(full), load(small)
    for (w, _), (v, _) in zip(a.layers + a.value_layers, b.layers + b.value_layers):
        assert v.dtype == np.float32
        step = np.abs(w).max(axis=1, keepdims=True) / 127
        assert np.all(np.abs(v - w) <= step / 2 + 1e-7)
    env = kakurenbo_v0.raw_env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    observations = []
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        observation = env.observe(env.agent_selection)
        observations.append(observation)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    vectors = np.stack([o["observation"] for o in observations])
    np.testing.assert_allclose(b.outputs(vectors), a.outputs(vectors), atol=5e-2)
    agree = np.mean([a.act(o) == b.act(o) for o in observations])
    assert agree >= 0.95, agree
    # an all-zero row quantizes to zeros with a harmless scale
    q, scale = quantize_rows(np.zeros((2, 3), dtype=np.float32))
    assert not q.any() and np.all(scale == 1.0)


def test_int8_files_with_a_broken_scale_are_refused(tmp_path):
    """An int8 weight without its scale, or a scale of the wrong shape, is refused in words."""
    from safetensors.numpy import load_file, save_file

    from kakurega.agents.policy import METADATA_KEY, read_policy

    full = network_file(tmp_path / "full.safetensors", "kakurenbo_v0", {})
    meta, layers, value_layers = read_policy(full, with_value=True)
    small = save_policy(tmp_path / "int8.safetensors", layers, meta, value_layers=value_layers, precision="int8")
    from safetensors import safe_open

    with safe_open(str(small), framework="numpy") as f:
        header = f.metadata()
    tensors = load_file(str(small))
    without = {k: v for k, v in tensors.items() if k != "layer_0.weight_scale"}
    save_file(without, str(tmp_path / "no_scale.safetensors"), metadata=header)
    with pytest.raises(PolicyFileError, match="layer 0 weights are int8 but layer_0.weight_scale is missing"):
        read_policy(tmp_path / "no_scale.safetensors")
    wrong = dict(tensors, **{"layer_0.weight_scale": tensors["layer_0.weight_scale"][:3]})
    save_file(wrong, str(tmp_path / "wrong.safetensors"), metadata=header)
    with pytest.raises(PolicyFileError, match=r"weight_scale is float32 of shape \(3,\)"):
        read_policy(tmp_path / "wrong.safetensors")
    assert METADATA_KEY in header


def test_a_prior_file_in_a_folder_named_with_commas_is_named_in_quotes(tmp_path):
    """A sweep's run folder (``lr=1e-3,bs=64``) holds the prior: ``prior=policy:"PATH"`` names it, the quotes kept
    for the prior's own spec; unquoted, the path is cut at its comma (the control)."""
    from kakurega.agents.specs import with_path

    env = make("animal_chain_v0")
    context = AgentContext.from_env(env, "animal_chain_v0", {})
    folder = tmp_path / "lr=1e-3,bs=64"
    folder.mkdir()
    path = network_file(folder / "policy.safetensors", "animal_chain_v0", {})
    agent = make_agent(f"ismcts:simulations=5,prior={with_path('policy', path)},leaf=value", context)
    assert agent.leaf == "value" and agent.network is not None
    with pytest.raises(ValueError, match=r"unknown option\(s\) bs"):
        make_agent(f"ismcts:simulations=5,prior=policy:{path},leaf=value", context)
