"""Ray RLlib: the multi-agent env (masks, rewards, private observations, mappings) on every registered env,
and a local Ray with 2 env-runner processes that trains through `kakurega train --backend rllib`, exports a
policy file equal to the RLlib module's actor, and plays it in `kakurega evaluate`."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from kakurega.agents.outcome import classify_outcome, win_share  # noqa: E402
from kakurega.envs.registry import ENV_SPECS, make  # noqa: E402
from kakurega.integrations import rllib as bridge  # noqa: E402
from kakurega.integrations.rllib_train import config_mapping  # noqa: E402

CASES = [(name, mapping) for name in ENV_SPECS for mapping in ("shared", "learner")]


def _play(env, seed):
    """One masked random game; returns (rewards paid per agent, final observations' agents)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    paid = {}
    while True:
        assert len(obs) == 1
        (agent, observation), = obs.items()
        own = env.raw.observe(agent)
        assert np.array_equal(observation["observations"], own["observation"])  # its own view, nobody else's
        assert env.observation_spaces[agent].contains(observation)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        obs, rewards, terminated, truncated, _ = env.step({agent: action})
        for name, reward in rewards.items():
            paid[name] = paid.get(name, 0.0) + reward
        if terminated["__all__"] or truncated["__all__"]:
            for name, observation in obs.items():
                assert np.array_equal(observation["observations"], env.raw.observe(name)["observation"])
            return paid, set(obs)


@pytest.mark.parametrize("env_name, mapping", CASES)
def test_multi_agent_env_pays_each_seat_its_return(env_name, mapping):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = bridge.KakuregaMultiAgentEnv({"env": env_name, "mapping": mapping, "opponents": ["heuristic"], "seed": 0})
    check_multiagent_environments(env)
    env.take_outcomes()  # the pre-check's games
    for seed in range(3):
        paid, final = _play(env, seed)
        returns = env.raw.unwrapped.game.returns(env.raw.unwrapped.game_state)
        for name in final:
            assert paid[name] == pytest.approx(returns[env.raw.possible_agents.index(name)])
        if mapping == "learner":
            assert len(final) <= 1  # heuristic seats are frozen kakurega agents inside the env
        # the outcome the training logs count is the rules' result, taken once per game: the learning agent's, or
        # player_0's when every seat learns (every seat's together would make the mean score 1/n)
        seats = sorted(env.raw.possible_agents.index(name) for name in final)
        if mapping != "learner":
            assert len(final) == len(env.raw.possible_agents)
            seats = [0]
        assert env.take_outcomes() == [(classify_outcome(returns, s), win_share(returns, s)) for s in seats]
        assert env.take_outcomes() == []


def test_env_runners_envs_deal_their_own_games():
    """RLlib seeds env i of runner w with seed + w + i: runner 1's second env and runner 2's first both get seed 2,
    and still deal different games; the same runner and seed deal the same ones (the control)."""
    from ray.rllib.env.env_context import EnvContext

    def deals(worker, seed):
        config = EnvContext({"env": "summer_hide_and_seek_v2", "env_kwargs": {"num_players": 2}, "mapping": "learner",
                             "opponents": ["random"], "seed": 0}, worker_index=worker)
        env = bridge.KakuregaMultiAgentEnv(config)
        firsts = []
        for game in range(4):
            obs, _ = env.reset(seed=seed if game == 0 else None)
            firsts.append(next(iter(obs.values()))["observations"].tobytes())
        return firsts

    assert deals(1, 2) == deals(1, 2)
    assert deals(1, 2) != deals(2, 2)


NOT_ACTIONS = [(1.5, TypeError), ("1", TypeError), (True, TypeError), (np.array([0]), TypeError), (None, TypeError),
               (10**6, ValueError), (-1, ValueError)]


@pytest.mark.parametrize("bad, error", NOT_ACTIONS, ids=[repr(bad) for bad, _ in NOT_ACTIONS])
def test_step_refuses_what_is_not_an_integer_action_in_words(bad, error):
    """int() made 1.5 and "1" the action 1 and True action 1 (a move played, or an illegal move that lost the game),
    and a 1-element array a numpy error: each is refused as the views refuse it, and nothing is played."""
    env = bridge.KakuregaMultiAgentEnv({"env": "kakurenbo_v1", "seed": 0})
    (agent, observation), = env.reset(seed=0)[0].items()
    n = env.action_spaces[agent].n
    with pytest.raises(error, match=rf"action .*expected an integer in \[0, {n}\)|action must be an integer in \[0, {n}\)"):
        env.step({agent: bad})
    assert env.raw.unwrapped.num_steps == 0 and not any(env.raw.terminations.values())
    env.step({agent: np.int64(np.flatnonzero(observation["action_mask"])[0])})  # the control: numpy integers play
    assert env.raw.unwrapped.num_steps >= 1


def test_a_step_limit_that_leaves_no_learning_seat_a_move_is_named():
    """Deals that end before any learning seat acts are dealt again, at most MAX_REDEALS times, then refused in words
    (as the single-seat view does); the re-deal recursed without a bound and overflowed the stack."""
    config = {"env": "kakurenbo_v1", "env_kwargs": {"num_players": 3, "max_steps": 1}, "mapping": "learner",
              "opponents": ["random"], "seed": 0}
    with pytest.raises(RuntimeError, match=r"1000 games in a row ended before a learning seat acted .*'max_steps': 1") as refused:
        bridge.KakuregaMultiAgentEnv({**config, "learner_seat": 2}).reset(seed=0)
    assert not isinstance(refused.value, RecursionError)
    obs, _ = bridge.KakuregaMultiAgentEnv({**config, "learner_seat": 0}).reset(seed=0)  # the control: seat 0 moves first
    assert list(obs) == ["player_0"]


def test_each_agent_has_its_own_observation_space_sampler():
    """Seeding one agent's space leaves another's stream alone (one space object served every agent)."""
    env = bridge.KakuregaMultiAgentEnv({"env": "kakurenbo_v1"})
    first, second = env.observation_spaces["player_0"], env.observation_spaces["player_1"]
    assert first is not second and first == second
    first.seed(0)
    expected = first.sample()["observations"]
    first.seed(0)
    second.seed(1)
    second.sample()
    assert np.array_equal(first.sample()["observations"], expected)


def test_mappings_name_their_modules():
    assert bridge.module_ids("per_seat", 3) == ["seat_0", "seat_1", "seat_2"]
    assert bridge.policy_mapping_fn("per_seat")("player_2", None) == "seat_2"
    assert bridge.policy_mapping_fn("shared")("player_1", None) == "shared"
    assert config_mapping({"opponents": [{"agent": "self", "weight": 1}]}, "auto") == "learner"  # as the SB3 backend
    assert config_mapping({"opponents": [{"agent": "self", "weight": 1}]}, "shared") == "shared"
    with pytest.raises(ValueError, match="mapping must be one of"):
        bridge.KakuregaMultiAgentEnv({"env": "animal_chain_v0", "mapping": "everyone"})


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", num_cpus=3, include_dashboard=False, log_to_driver=False)  # never a cluster found here
    yield
    ray.shutdown()


def test_the_exported_file_acts_as_the_rllib_module(local_ray, tmp_path):
    import torch
    from ray.rllib.core.columns import Columns

    import kakurega.agents

    algo = bridge.algorithm_config("kakurenbo_v0", {"num_players": 3}, mapping="per_seat", num_env_runners=0,
                                   hidden=(16, 8), ppo={"train_batch_size_per_learner": 64, "minibatch_size": 32,
                                                        "num_epochs": 1}).build_algo()
    try:
        algo.train()
        module = algo.get_module("seat_1")
        path = bridge.export_module(module, tmp_path / "seat_1.safetensors", "kakurenbo_v0", {"num_players": 3})
        agent = kakurega.agents.load(path)
        env = make("kakurenbo_v0", num_players=3)
        env.reset(seed=4)
        observations = []
        for _ in env.agent_iter(60):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            observations.append({k: np.array(v) for k, v in observation.items()})
            env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        batch = {Columns.OBS: {
            "observations": torch.as_tensor(np.stack([o["observation"] for o in observations])),
            "action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in observations]), dtype=torch.float32),
        }}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        for observation, row in zip(observations, logits):
            ours = agent.outputs(observation["observation"])
            legal = observation["action_mask"] > 0
            assert np.allclose(ours[legal], row[legal], atol=1e-4)
            assert agent.act(observation) == int(np.argmax(np.where(legal, row, -np.inf)))
    finally:
        algo.stop()


def test_frozen_seats_never_share_an_agent_object():
    """Two seats that draw the same spec get two agents (own generator, own caches), as the training view does."""
    env = bridge.KakuregaMultiAgentEnv({"env": "kakurenbo_v0", "env_kwargs": {"num_players": 4}, "mapping": "learner",
                                        "opponents": ["heuristic"], "seed": 0})
    for seed in range(3):
        env.reset(seed=seed)
        frozen = list(env._frozen.values())
        assert len(frozen) == 3
        assert len({id(agent) for agent in frozen}) == 3
        assert len({id(agent.rng) for agent in frozen}) == 3


def test_a_game_cut_off_at_its_limit_ends_terminated_with_the_rules_result():
    """RLlib's value targets bootstrap through a truncation (V(final observation) added to the last reward): a game
    cut off at its step limit is scored by the rules, so the env reports it terminated, paying the rules' returns."""
    from ray.rllib.utils.postprocessing.value_predictions import compute_value_targets

    env = bridge.KakuregaMultiAgentEnv({"env": "kakurenbo_v1", "env_kwargs": {"num_players": 3, "max_steps": 6},
                                        "mapping": "shared", "seed": 0})
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, _ = env.reset()
        paid = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            agent = next(iter(obs))
            obs, rewards, terminated, truncated, _ = env.step(
                {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))})
            for name, reward in rewards.items():
                paid[name] += reward
            if terminated["__all__"] or truncated["__all__"]:
                break
        assert any(env.raw.unwrapped.truncations.values())  # the control: the rules' env says truncated
        assert terminated["__all__"] and not truncated["__all__"]
        returns = env.raw.unwrapped.game.returns(env.raw.unwrapped.game_state)
        assert [paid[name] for name in env.possible_agents] == pytest.approx(list(returns))
    # why: at a truncation RLlib's targets keep the bootstrap term, at a termination they drop it
    # (the last move pays 1.0 from s0; RLlib appends the final observation s1, valued 0.9, as one more timestep)
    values, rewards = np.array([0.5, 0.9]), np.array([1.0, 0.0])
    truncated_target = compute_value_targets(values, rewards, np.array([0.0, 0.0]), np.array([1.0, 0.0]), 0.9, 1.0)
    terminated_target = compute_value_targets(values, rewards, np.array([1.0, 0.0]), np.array([0.0, 0.0]), 0.9, 1.0)
    assert terminated_target[0] == pytest.approx(1.0) and truncated_target[0] == pytest.approx(1.0 + 0.9 * 0.9)



@pytest.mark.parametrize("env_name, options", [("kakurenbo_v1", {"reward": "points"}),
                                               ("summer_hide_and_seek_v2", {"reward": "vp"})])
@pytest.mark.parametrize("mapping", ["shared", "learner"])
def test_rewards_paid_during_play_reach_each_seat_once(env_name, options, mapping):
    """Reward modes that pay during play (KAKURENBO's points, Summer's VP as scored) reach RLlib once each: a
    seat's rewards summed over the episode equal its rules' return, however many were paid before the end."""
    env = bridge.KakuregaMultiAgentEnv({"env": env_name, "env_kwargs": options, "mapping": mapping,
                                        "opponents": ["heuristic"], "seed": 0})
    assert not env.raw.unwrapped.game.pays_only_at_end()
    paid_before_the_end = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        paid = {}
        while True:
            (agent, observation), = obs.items()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            obs, rewards, terminated, _, _ = env.step({agent: action})
            for name, reward in rewards.items():
                paid[name] = paid.get(name, 0.0) + reward
            if terminated["__all__"]:
                break
            paid_before_the_end += sum(reward != 0 for reward in rewards.values())
        returns = env.raw.unwrapped.game.returns(env.raw.unwrapped.game_state)
        for name in obs:
            assert paid[name] == pytest.approx(returns[env.raw.possible_agents.index(name)])
    assert paid_before_the_end > 0  # the case this test is for: rewards paid while the game goes on
