"""Gymnasium-side fixes: int8 masks in every info, rgb_array renders (SB3's make_vec_env asks for them) and a
TypeError for unsupported render modes,
ids that work from a fresh process, and no hard failure without PettingZoo's registry."""

import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

from kakurega.agents.training.view import SingleAgentView
from kakurega.envs.core.aec import RenderModeError
from kakurega.envs.hidden_rooms_v0 import HiddenRoomsGymEnv
from kakurega.envs.registry import ENV_SPECS, register_with_pettingzoo

REGISTERED = list(ENV_SPECS)
GYM_IDS = [spec.pettingzoo_id for spec in ENV_SPECS.values()] + [
    env_id for spec in ENV_SPECS.values() for env_id in spec.gymnasium_envs
]


def _play_with_info_masks(env, episodes, seed):
    """Play ``episodes`` choosing only from info["action_mask"]; return the number of steps."""
    rng = np.random.default_rng(seed)
    steps = 0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        done = False
        while not done:
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
            assert np.array_equal(mask, env.action_masks().astype(np.int8))
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            assert not info.get("illegal_action", False)
            done = terminated or truncated
            steps += 1
        assert not info["action_mask"].any()  # nothing is legal once the episode is over
        assert 1 - info["action_mask"].sum() == 1  # arithmetic as libraries do it: int8, not bool
    return steps


@pytest.mark.parametrize("env_name", REGISTERED)
def test_single_agent_view_info_masks_are_int8_and_drive_legal_play(env_name):
    assert _play_with_info_masks(SingleAgentView(env_name, {}, ["random"]), 3, seed=1) > 0


def test_hidden_rooms_gym_env_has_the_mask_in_every_info():
    env = HiddenRoomsGymEnv(episode="round")
    assert _play_with_info_masks(env, 20, seed=2) > 0
    obs, info = env.reset(seed=0)
    assert np.array_equal(info["action_mask"], obs["action_mask"])


def test_an_illegal_action_info_has_an_all_zero_int8_mask():
    env = HiddenRoomsGymEnv()
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and info["illegal_action"] and info["action_mask"].dtype == np.int8 and not info["action_mask"].any()


GYM_FORMS = [
    lambda mode: HiddenRoomsGymEnv(render_mode=mode),
    lambda mode: SingleAgentView("animal_chain_v0", {}, ["random"], render_mode=mode),
    lambda mode: gymnasium.make("kakurega/HiddenRooms-v0", render_mode=mode),
]
GYM_FORM_IDS = ["HiddenRoomsGymEnv", "SingleAgentView", "gymnasium.make"]


@pytest.mark.parametrize("make_env", GYM_FORMS, ids=GYM_FORM_IDS)
def test_an_unsupported_render_mode_raises_a_type_error_naming_the_modes(make_env):
    with pytest.raises(TypeError, match="render_mode='rgb' is not supported.*'rgb_array'"):
        make_env("rgb")
    with pytest.raises(RenderModeError):  # also a ValueError, as before
        make_env("rgb")
    make_env("ansi")  # a supported mode still works


@pytest.mark.parametrize("make_env", GYM_FORMS, ids=GYM_FORM_IDS)
def test_rgb_array_renders_an_image_of_the_learners_view(make_env):
    env = make_env("rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] > 100


def test_sb3_make_vec_env_renders_rgb_array():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    # make_vec_env asks for render_mode="rgb_array"
    vec = make_vec_env("kakurega/HiddenRooms-v0", n_envs=2, env_kwargs={"episode": "round"})
    obs = vec.reset()
    assert obs["observation"].shape == (2, HiddenRoomsGymEnv().observation_space["observation"].shape[0])
    assert vec.render_mode == "rgb_array"
    images = vec.get_images()
    assert len(images) == 2 and all(image.dtype == np.uint8 and image.shape[2] == 3 for image in images)
    vec.close()


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_every_gymnasium_id_makes_an_env(env_id):
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()


def _fresh_python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_module_prefixed_ids_work_from_a_fresh_process():
    ids = ", ".join(repr(f"kakurega.envs:{env_id}") for env_id in GYM_IDS)
    done = _fresh_python(
        "import gymnasium\n"
        f"for env_id in [{ids}]:\n"
        "    env = gymnasium.make(env_id)\n"
        "    env.reset(seed=0)\n"
        "print('ok')\n"
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    # the control: without the prefix nothing has imported kakurega.envs, so the id is unknown
    done = _fresh_python("import gymnasium\ngymnasium.make('kakurega/HiddenRooms-v0')\n")
    assert done.returncode != 0 and "kakurega" in done.stderr


def test_spawned_vector_workers_find_the_ids():
    envs = gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make("kakurega.envs:kakurega/animal_chain-v0")] * 2, context="spawn"
    )
    try:
        obs, info = envs.reset(seed=0)
        assert obs.shape[0] == 2 and info["action_mask"].dtype == np.int8
        actions = np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
        envs.step(actions)
    finally:
        envs.close()


def test_a_pettingzoo_without_registry_is_no_hard_failure(monkeypatch):
    import pettingzoo

    monkeypatch.delattr(pettingzoo, "aec_registry", raising=False)  # PettingZoo < 1.27 has none
    assert register_with_pettingzoo() is False
    done = _fresh_python(
        "import pettingzoo\n"
        "for name in ('aec_registry', 'register'):\n"
        "    if hasattr(pettingzoo, name):\n"
        "        delattr(pettingzoo, name)\n"
        "import kakurega.envs\n"
        "env = kakurega.envs.make('animal_chain_v0')\n"
        "env.reset(seed=0)\n"
        "print('ok')\n"
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def _options_of(env) -> dict:
    inner = env.unwrapped
    return (inner.raw if hasattr(inner, "raw") else inner.aec).game.options


OPTION_CASES = [(env_id, spec.configurations[-1]) for spec in ENV_SPECS.values()
                for env_id in [spec.pettingzoo_id, *spec.gymnasium_envs]]


@pytest.mark.parametrize("env_id, options", OPTION_CASES, ids=[env_id for env_id, _ in OPTION_CASES])
def test_every_gymnasium_id_takes_env_options_as_keyword_arguments(env_id, options):
    direct = _options_of(gymnasium.make(env_id, **options))
    for name, value in options.items():
        assert direct[name] == value
    assert _options_of(gymnasium.make(env_id, env_kwargs=options)) == direct  # the older form, on every id
    with pytest.raises(TypeError, match="given both"):
        gymnasium.make(env_id, env_kwargs=options, **options)


def test_a_misspelt_option_names_the_options():
    with pytest.raises(TypeError, match="no option 'num_player'.*num_players"):
        gymnasium.make("kakurega/kakurenbo-v0", num_player=3)
