"""A game cut off at its step limit is scored by the rules: PPO stores the reward the game paid at its last step, not
that reward plus its critic's value of the final position (what SB3 adds for a ``TimeLimit.truncated`` episode)."""

import tempfile

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnvWrapper, VecMonitor

from kakurega.agents.training.config import validate_config
from kakurega.agents.training.trainer import build_model, make_vec_env, make_view


class Paid(VecEnvWrapper):
    """The rewards each step paid, and how many episodes SB3 was told were truncated."""

    def __init__(self, venv):
        super().__init__(venv)
        self.rewards, self.truncated = [], 0

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        self.rewards.append(rewards.copy())
        self.truncated += sum(bool(info.get("TimeLimit.truncated")) for info in infos)
        return observations, rewards, dones, infos


def _stored_and_paid(config, vec):
    paid = Paid(vec)
    model = build_model(config, paid)
    model.learn(config["ppo"]["n_steps"] * config["n_envs"])
    return model.rollout_buffer.rewards, np.array(paid.rewards), paid.truncated


@pytest.mark.parametrize("distribution", ["compact", "exact"])
def test_ppo_stores_the_rewards_games_cut_off_at_their_limit_paid(distribution):
    config = validate_config({
        "env": "kakurenbo_v1", "env_kwargs": {"num_players": 3, "max_steps": 8}, "algorithm": "ppo",
        "total_timesteps": 256, "n_envs": 2, "output_dir": tempfile.mkdtemp(),
        "network": {"hidden": [16], "masked_distribution": distribution},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1}})
    stored, paid, truncated = _stored_and_paid(config, make_vec_env(config))
    assert truncated == 0 and np.count_nonzero(paid) >= 5  # every game cut off after 8 steps, paying its result
    assert np.array_equal(stored, paid)
    # the control: the same views without the trainer's wrapper, and PPO adds its critic's value at each cut-off
    views = [lambda: make_view(config["env"], config["env_kwargs"], config["opponents"], config["learner_seat"])] * 2
    bare = VecMonitor(DummyVecEnv(views))
    bare.seed(config["seed"])
    stored, paid, truncated = _stored_and_paid(config, bare)
    assert truncated >= 20 and np.count_nonzero(np.abs(stored - paid) > 1e-6) == truncated


def test_an_sb3_loop_of_the_gymnasium_ids_wrapped_in_game_ends_stores_what_the_games_paid():
    """docs/integrations.md's own SB3 loop: ``make_vec_env`` of a Gymnasium id, which SB3 bootstraps at every cut-off
    (the control), and the same wrapped in the exported ``game_ends``, which it does not."""
    import warnings

    from stable_baselines3.common.env_util import make_vec_env as sb3_vec_env

    from kakurega.agents.training import game_ends

    config = validate_config({
        "env": "kakurenbo_v1", "env_kwargs": {"num_players": 3, "max_steps": 8}, "algorithm": "ppo",
        "total_timesteps": 256, "n_envs": 2, "output_dir": tempfile.mkdtemp(), "network": {"hidden": [16]},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1}})

    def vec():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sb3_vec_env("kakurega.envs:kakurega/kakurenbo-v1", n_envs=2, seed=0,
                               env_kwargs={"num_players": 3, "max_steps": 8})

    stored, paid, truncated = _stored_and_paid(config, game_ends(vec()))
    assert truncated == 0 and np.count_nonzero(paid) >= 5 and np.array_equal(stored, paid)
    stored, paid, truncated = _stored_and_paid(config, vec())
    assert truncated >= 20 and np.count_nonzero(np.abs(stored - paid) > 1e-6) == truncated
