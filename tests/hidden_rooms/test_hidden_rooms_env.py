"""The Hidden Rooms env: options, the env card's example, observation pieces, rendering, Gymnasium form."""

import gymnasium
import numpy as np
import pytest

from hidden_rooms.hidden_rooms_helpers import game_with, monster, table, tile
from kakurega.envs import hidden_rooms_v0
from kakurega.envs.hidden_rooms.booklet import BookletError
from kakurega.envs.hidden_rooms.rules import cell_of


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"episode": "game"}, ValueError, ["episode", "'game'", "'match' or 'round'"]),
        ({"reward": "dense"}, ValueError, ["reward", "'dense'", "per_round"]),
        ({"max_turns": 0}, ValueError, ["max_turns", "from 1 to 10000"]),
        ({"max_turns": 2.5}, TypeError, ["max_turns", "integer"]),
        ({"max_turns": True}, TypeError, ["max_turns"]),
        ({"booklet": 3}, TypeError, ["booklet", "file path"]),
        ({"booklet": "/nonexistent/booklet.yaml"}, BookletError, ["/nonexistent/booklet.yaml: cannot read the booklet file: no such file"]),
        ({"render_mode": "rgb"}, ValueError, ["render_mode", "ansi", "rgb_array"]),
        ({"render_view": "player_1"}, ValueError, ["render_view", "player_0"]),
    ],
)
def test_bad_options_are_refused(kwargs, error, words):
    with pytest.raises(error) as raised:
        hidden_rooms_v0.raw_env(**kwargs)
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))
    with pytest.raises(TypeError):
        hidden_rooms_v0.raw_env(episodes="match")  # unknown option names are refused too


def test_env_card_worked_example():
    env = hidden_rooms_v0.raw_env()
    env.reset(seed=0)
    state = env.game_state
    assert env.game.monsters[state.monster].name == "Nurikabe" and state.turn == 1
    assert env.legal_actions() == [5, 11]
    env.step(5)
    assert state.drawn == tile("green 4") and env.legal_actions() == [12, 15, 16]
    env.step(12)
    assert state.board[cell_of(3, 4)] == tile("green 4") and state.turn == 2 and env.legal_actions() == [0, 4]
    env.step(0)
    assert env.legal_actions() == [2, 4]
    env.step(4)
    env.step(5)
    assert state.memory == [tile("red 2")] and state.turn == 3
    assert env.action_to_string(6) == "search memory slot 0 (red 2)"


def test_observation_pieces_show_the_table():
    env = hidden_rooms_v0.raw_env()
    env.reset(seed=0)
    env.step(5)
    obs = env.observe("player_0")["observation"]
    view = lambda name: env.layout.view(obs, name)  # noqa: E731
    state = env.game_state
    assert view("drawn").tolist() == [0, 0, 1, 0] + [0, 0, 0, 1, 0, 0]  # green 4 in hand
    assert view("drawn_from").tolist() == [1, 0] and view("phase").tolist() == [0, 0, 1]
    assert view("child")[4, 4] == 1 and view("explored").sum() == 1
    r, c = divmod(state.monster_cell, 5)
    assert view("monster")[r, c] == 1
    assert view("pile_tiles").sum() == 23 and view("pile_tiles")[2, 3] == 0  # green 4 is in hand, not in the pile
    assert view("monster_id").argmax() == state.monster
    assert np.isclose(view("path_progress")[0], state.progress / (len(env.game.paths[state.monster]) - 1))
    env.step(12)
    obs = env.observe("player_0")["observation"]
    assert env.layout.view(obs, "tile_colour")[3, 4].tolist() == [0, 0, 1, 0]
    assert env.layout.view(obs, "tile_number")[3, 4].tolist() == [0, 0, 0, 1, 0, 0]


def test_sight_and_chase_pieces():
    game = game_with(monster([(2, 2), (1, 2), (0, 2)], sight_range=1, sight_shape="line"))
    from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver

    observer = HiddenRoomsObserver(game)
    state = table(game, tiles={(2, 3): "red 1"}, child=(2, 3), chasing=True)
    obs = observer.encode(state, 0)
    sight = observer.layout.view(obs, "monster_sight")
    assert sorted(zip(*np.nonzero(sight))) == [(1, 2), (2, 1), (2, 2), (2, 3), (3, 2)]
    assert observer.layout.view(obs, "in_sight")[0] == 1 and observer.layout.view(obs, "chasing")[0] == 1
    eta = observer.layout.view(obs, "path_eta") * 200
    assert eta[1, 2] == 1 and eta[0, 2] == 2 and observer.layout.view(obs, "path_end")[0, 2] == 1


def test_render_draws_room_monster_path_and_memory():
    env = hidden_rooms_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for action in (5, 12, 0, 4, 5):
        env.step(action)
    text = env.render()
    assert "Nurikabe" in text and "@G4" in text and "S0" in text and "M" in text
    assert "Memory (1/5): [0] red 2" in text and "X" in text
    assert text == env.unwrapped.render_text("player_0") == env.unwrapped.render_text(None)


@pytest.mark.parametrize("reward", ["match", "per_round"])
def test_rewards_through_the_env(reward):
    env = hidden_rooms_v0.env(reward=reward)
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        total = 0.0
        for _ in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            total += r
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.unwrapped.game_state
        if reward == "match":
            assert total == (1.0 if state.escapes >= 2 else -1.0)
        else:
            assert total == state.escapes - state.fails


# ------------------------------------------------------------- Gymnasium form
def test_gymnasium_check_env_passes():
    from gymnasium.utils.env_checker import check_env

    check_env(hidden_rooms_v0.HiddenRoomsGymEnv(), skip_render_check=True)
    # through gymnasium.make, so the checker also tries the render modes from the spec
    check_env(gymnasium.make("kakurega/HiddenRooms-v0", episode="round", render_mode="ansi").unwrapped)


def test_gymnasium_make_and_action_masks():
    env = gymnasium.make("kakurega/HiddenRooms-v0", episode="round")
    obs, info = env.reset(seed=3)
    masks = env.unwrapped.action_masks()
    assert masks.dtype == bool and np.array_equal(masks, obs["action_mask"].astype(bool))
    rng = np.random.default_rng(0)
    done = False
    steps = 0
    while not done:
        obs, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        done = terminated or truncated
        steps += 1
    assert reward in (1.0, -1.0) and not env.unwrapped.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(0)


def test_maskable_ppo_smoke():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny network: threads only add overhead
    try:
        env = hidden_rooms_v0.HiddenRoomsGymEnv(episode="round")
        model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
        model.learn(total_timesteps=256)
    finally:
        torch.set_num_threads(threads)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_gymnasium_illegal_action_ends_the_episode_with_the_penalty():
    env = hidden_rooms_v0.HiddenRoomsGymEnv()
    obs, _ = env.reset(seed=0)
    assert not obs["action_mask"][0]
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert info["action_mask"].dtype == np.int8 and not info["action_mask"].any()
    assert not obs["action_mask"].any() and not env.action_masks().any()
    with pytest.raises(ValueError, match="out of range"):
        env.reset(seed=0)
        env.step(17)


def test_gym_env_kwargs_must_be_a_mapping():
    with pytest.raises(TypeError, match=r"HiddenRoomsGymEnv: env_kwargs must be a dict of env options .* of type str"):
        hidden_rooms_v0.HiddenRoomsGymEnv(env_kwargs="episode=round")
    assert hidden_rooms_v0.HiddenRoomsGymEnv(env_kwargs={"episode": "round"}).aec.game.episode == "round"  # control


def test_exploit_refuses_a_game_played_alone(tmp_path):
    """No target sits at a solitaire table: `kakurega exploit --target heuristic` once reported a "best
    response" (a child trained alone) and the heuristic playing alone as the target's row."""
    from kakurega.agents.exploit import exploit

    with pytest.raises(ValueError, match="is played alone: no target sits at its table"):
        exploit("hidden_rooms_v0", "heuristic", output_dir=tmp_path / "x", quiet=True)
    assert not (tmp_path / "x").exists()
