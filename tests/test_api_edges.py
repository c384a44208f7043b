"""Edges of the public API: wrong action types, calls after the game, windows left open, bad view options.

Each check has a control beside it: what must keep working (numpy integers, legal play, the modes that exist).
"""

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from toy_game import raw_env as toy_raw_env

import kakurega.envs  # noqa: F401 (registers the Gymnasium ids)
from kakurega.agents.training.league import OpponentPool, PoolEntry, parse_entries
from kakurega.agents.training.view import SingleAgentView
from kakurega.envs import ENV_SPECS, make
from kakurega.envs.core.aec import EnvUsageError, RenderModeError, wrap
from kakurega.envs.hidden_rooms_v0 import HiddenRoomsGymEnv

ENV = "animal_chain_v1"


def _view(**kwargs):
    return SingleAgentView(ENV, learner_seat=0, **kwargs)


def _first_legal(info) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


# ------------------------------------------------ 1. single-seat views: action types
NOT_ACTIONS = [
    ("legal + 0.9", lambda a: a + 0.9),  # int() made it the legal action a
    ("a float", lambda a: float(a)),
    ("a numpy float", lambda a: np.float32(a + 0.5)),
    ("a string", lambda a: str(a)),
    ("True", lambda a: True),
    ("np.True_", lambda a: np.True_),
    ("None", lambda a: None),
    ("nan", lambda a: math.nan),
    ("a 0-d float array", lambda a: np.array(float(a))),
]


@pytest.mark.parametrize("gym_id", ["kakurega/animal_chain-v1", "kakurega/HiddenRooms-v0"])
@pytest.mark.parametrize("label, bad", NOT_ACTIONS, ids=[label for label, _ in NOT_ACTIONS])
def test_gymnasium_ids_refuse_what_is_not_an_integer_action(gym_id, label, bad):
    env = gymnasium.make(gym_id).unwrapped
    obs, info = env.reset(seed=0)
    n = env.action_space.n
    with pytest.raises(TypeError, match=rf"action must be an integer in \[0, {n}\), got .* of type "):
        env.step(bad(_first_legal(info)))
    # nothing was played: the episode goes on with the legal action (the control)
    obs, reward, terminated, truncated, info = env.step(_first_legal(info))
    assert not info.get("illegal_action", False)


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
def test_a_view_plays_nothing_on_a_float_action(illegal_action):
    view = _view(illegal_action=illegal_action)
    obs, info = view.reset(seed=0)
    steps = view.raw.num_steps
    with pytest.raises(TypeError, match="action must be an integer"):
        view.step(_first_legal(info) + 0.9)
    assert view.raw.num_steps == steps and view.action_masks().any()


@pytest.mark.parametrize("wrap_action", [int, np.int64, np.int32, np.uint16, np.array], ids=str)
def test_a_view_still_takes_numpy_integers_and_0d_integer_arrays(wrap_action):
    view = _view()
    obs, info = view.reset(seed=0)
    legal = _first_legal(info)
    expected = _view()
    expected.reset(seed=0)
    want = expected.step(legal)
    got = view.step(wrap_action(legal))
    assert np.array_equal(got[0], want[0]) and got[1:4] == want[1:4]
    assert not got[4].get("illegal_action", False)


@pytest.mark.parametrize("bad", [-1, np.int64(-1), 10**6])
def test_a_view_refuses_an_integer_out_of_range(bad):
    view = _view()
    view.reset(seed=0)
    with pytest.raises(ValueError, match=r"action -?\d+ is out of range: expected an integer in \[0, \d+\)"):
        view.step(bad)


# ------------------------------------------------ 2. last() on the wrapped env after the game
def _play_out(env, seed=0):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    while env.agents:
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("wrapped", [True, False], ids=["wrapped", "raw"])
@pytest.mark.parametrize("observe", [True, False])
def test_last_after_every_agent_stepped_out_says_call_reset(wrapped, observe):
    env = make(ENV, wrapped=wrapped)
    _play_out(env)
    with pytest.raises(EnvUsageError, match=r"last\(\) after the game ended .*call reset\(\)"):
        env.last(observe)
    env.reset(seed=1)  # the control: after reset, last() answers again
    obs, reward, terminated, truncated, info = env.last(observe)
    assert not terminated and not truncated and (obs is None) == (not observe)


def test_last_on_the_wrapped_env_while_dead_agents_remain_still_answers():
    env = make(ENV)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    obs, reward, terminated, truncated, info = env.last()
    assert terminated or truncated


# ------------------------------------------------ 3. booleans on the wrapped env
@pytest.mark.parametrize("boolean", [True, np.True_, np.array(True)], ids=["True", "np.True_", "0-d bool"])
def test_wrapped_env_refuses_a_boolean_where_action_1_is_legal(boolean):
    env = wrap(toy_raw_env())
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"][1] == 1
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(boolean)
    assert env.unwrapped.num_steps == 0 and not any(env.terminations.values())
    env.step(np.int64(1))  # the control: the integer 1 plays
    assert env.unwrapped.game_state.total == 2


@pytest.mark.parametrize("boolean", [True, np.True_], ids=["True", "np.True_"])
def test_wrapped_env_refuses_a_boolean_where_action_1_is_illegal(boolean):
    env = make(ENV)
    env.reset(seed=0)
    agent = env.agent_selection
    assert env.observe(agent)["action_mask"][1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(boolean)  # was: a lost game for an "illegal move" the player never made
    assert not any(env.terminations.values()) and env._cumulative_rewards[agent] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(1)  # the control: the integer 1 is an illegal move, which ends the game
    assert all(env.terminations.values()) and env._cumulative_rewards[agent] == -1


_UNDER_O = """
import warnings
import numpy as np
from kakurega.envs import make
if __debug__:
    raise SystemExit("not under -O")
warnings.simplefilter("ignore")  # PettingZoo announces an illegal move
env = make(ENV)
env.reset(seed=0)
mask = env.observe(env.agent_selection)["action_mask"]
legal, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(mask == 0)[0])
# (no assert statement below: python -O strips them, and each check would pass unread)
if mask[1] or mask[-1]:
    raise SystemExit("pick a position where True (1) and -1 (the last id) are illegal moves")
for bad in (illegal + 0.5, str(illegal), True, -1, 10**6, legal + 0.5):
    try:
        env.step(bad)
    except AssertionError as error:
        if not str(error).startswith("action is not in action space: got "):
            raise SystemExit(f"{bad!r}: {error}")
    else:
        raise SystemExit(f"{bad!r} was taken as a move")
    if env.unwrapped.num_steps != 0 or any(env.terminations.values()):
        raise SystemExit(f"{bad!r} changed the game")
env.step(legal)
print("ok", env.unwrapped.num_steps)
"""


def test_the_wrapped_env_refuses_what_is_not_an_action_under_python_O_too():
    """``python -O`` strips assert statements: the wrapped env's check was one, so a float or a string was int()-ed
    into an action id, True read as 1 and -1 as the last id: where that id was illegal the player lost the game for a
    move it never made (else the raw env's TypeError came instead); 10**6 failed with a bare IndexError."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-O", "-c", f"ENV = {ENV!r}\n" + _UNDER_O], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["ok", "1"], done.stdout + done.stderr


# ------------------------------------------------ 4. HiddenRoomsGymEnv.close() closes its window
@pytest.fixture
def dummy_display(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    yield pygame
    pygame.display.quit()


@pytest.mark.parametrize("make_env", [
    lambda: gymnasium.make("kakurega/HiddenRooms-v0", render_mode="human"),
    lambda: HiddenRoomsGymEnv(render_mode="human"),
], ids=["gymnasium.make", "HiddenRoomsGymEnv"])
def test_hidden_rooms_gym_env_close_closes_the_window(dummy_display, make_env):
    env = make_env()
    env.reset(seed=0)
    env.render()
    aec = env.unwrapped.aec
    assert aec._window is not None and dummy_display.display.get_surface() is not None
    env.close()
    assert aec._window is None and not dummy_display.display.get_init()
    env.close()  # closing twice is harmless


def test_hidden_rooms_gym_env_close_without_a_window():
    env = HiddenRoomsGymEnv(render_mode="rgb_array")
    env.reset(seed=0)
    env.render()
    env.close()
    assert getattr(env.aec, "_window", None) is None


# ------------------------------------------------ 5. views' render metadata and render() without a mode
def test_views_declare_render_fps():
    assert SingleAgentView.metadata["render_fps"] > 0


def test_check_env_does_not_warn_about_render_fps():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make("kakurega/animal_chain-v1").unwrapped)
    assert not [w for w in caught if "render_fps" in str(w.message)]


def test_gymnasium_make_human_shows_the_views_frames(dummy_display):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium says it applies HumanRendering
        env = gymnasium.make("kakurega/animal_chain-v1", render_mode="human")
    assert env.render_mode == "human" and env.unwrapped.render_mode == "rgb_array"
    obs, info = env.reset(seed=0)
    env.step(_first_legal(info))
    assert dummy_display.display.get_surface() is not None
    env.close()
    assert not dummy_display.display.get_init()


@pytest.fixture
def frames(monkeypatch):
    """The frames a human-mode window was asked to show (no window opened)."""
    import kakurega.envs.core.picture as picture

    shown = []
    monkeypatch.setattr(picture.Window, "show", lambda self, frame, fps: shown.append(frame.shape))
    return shown


@pytest.mark.parametrize("wrapped", [True, False])
def test_human_mode_draws_by_itself_on_reset_and_each_move(frames, wrapped):
    """Gymnasium's and PettingZoo's convention: ``render_mode="human"`` draws in reset() and step() without a
    render() call (it drew nothing: no window, no error); another mode draws nothing by itself (the control)."""
    env = make(ENV, render_mode="human", wrapped=wrapped)
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert len(frames) == 4
    quiet = make(ENV, render_mode="rgb_array", wrapped=wrapped)
    quiet.reset(seed=0)
    quiet.step(int(np.flatnonzero(quiet.observe(quiet.agent_selection)["action_mask"])[0]))
    assert len(frames) == 4


def test_the_hidden_rooms_gym_env_in_human_mode_draws_on_reset_and_each_step(frames):
    env = gymnasium.make("kakurega/HiddenRooms-v0", render_mode="human")
    _, info = env.reset(seed=0)
    for _ in range(3):
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert len(frames) == 4


def test_a_view_itself_refuses_human_naming_the_modes():
    with pytest.raises(RenderModeError, match=r"render_mode='human'.*\['ansi', 'rgb_array'\].*HumanRendering"):
        _view(render_mode="human")


def test_render_without_a_render_mode_returns_none():
    view = _view()
    view.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert view.render() is None
    # the controls: the modes there are still draw
    text = _view(render_mode="ansi")
    text.reset(seed=0)
    assert isinstance(text.render(), str) and text.render()
    image = _view(render_mode="rgb_array")
    image.reset(seed=0)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3


# ------------------------------------------------ 6. the views' own options
@pytest.mark.parametrize("opponents", ["random", "heuristic", {"agent": "random", "weight": 1.0}, PoolEntry("random", 1.0), 3],
                         ids=["str", "str2", "dict", "PoolEntry", "int"])
def test_opponents_must_be_a_list(opponents):
    with pytest.raises(TypeError, match=r"opponents must be a list of agent specs .* or of \{\"agent\""):
        _view(opponents=opponents)


def test_a_bare_string_says_how_to_write_it():
    with pytest.raises(TypeError, match=r"got 'random'; write \['random'\]"):
        _view(opponents="random")


@pytest.mark.parametrize("weights", [[math.nan], [1.0, math.nan], [math.inf], [1.0, math.inf], [1.0, -math.inf], [-1.0]],
                         ids=["nan", "nan+1", "inf", "inf+1", "-inf+1", "negative"])
def test_weights_must_be_finite_and_not_negative(weights):
    entries = [{"agent": agent, "weight": w} for agent, w in zip(["heuristic", "random"], weights)]
    with pytest.raises(ValueError, match=r"weight must be a finite number >= 0, got (nan|inf|-inf|-1.0)"):
        _view(opponents=entries)


def test_a_pool_entry_weight_is_checked_too():
    with pytest.raises(ValueError, match="finite"):
        parse_entries([PoolEntry("random", math.nan)])


@pytest.mark.parametrize("weight", ["2", True, None, [1]], ids=["str", "bool", "None", "list"])
def test_weights_must_be_numbers(weight):
    with pytest.raises(TypeError, match=r"weight must be a number >= 0, got .* of type"):
        parse_entries([{"agent": "random", "weight": weight}])


def test_weights_that_overflow_are_refused():
    with pytest.raises(ValueError, match="weights sum to inf"):
        parse_entries([{"agent": "random", "weight": 1e308}, {"agent": "heuristic", "weight": 1e308}])


def test_an_entry_needs_an_agent_string_and_no_unknown_keys():
    with pytest.raises(ValueError, match="unknown key 'wieght'; expected agent and weight"):
        parse_entries([{"agent": "random", "wieght": 2}])
    with pytest.raises(TypeError, match="'agent' must be an agent spec string, got None"):
        parse_entries([{"weight": 2}])


def test_good_opponent_lists_still_work():
    for opponents in (["random"], ("random", "heuristic"), [{"agent": "random", "weight": 2}, {"agent": "heuristic"}],
                      [PoolEntry("random", 1.0)], [{"agent": "random", "weight": np.float32(0.5)}, "self"]):
        view = _view(opponents=opponents)
        view.reset(seed=0)
    entries = parse_entries([{"agent": "random", "weight": 3}, "heuristic", {"agent": "self", "weight": 0}])
    assert [(e.agent, e.weight) for e in entries] == [("random", 3.0), ("heuristic", 1.0), ("self", 0.0)]
    pool = OpponentPool([{"agent": "random", "weight": 1.0}, {"agent": "heuristic", "weight": 3.0}], _view().context)
    counts = {"random": 0, "heuristic": 0}
    rng = np.random.default_rng(0)
    for _ in range(200):
        for label, _agent in pool.draw(rng, 1):
            counts[label] += 1
    assert 20 < counts["random"] < 90 and counts["heuristic"] > 110


@pytest.mark.parametrize("seat", [True, False, np.True_, 1.0, "1", -1, 2])
def test_learner_seat_must_be_an_int_seat_or_random(seat):
    with pytest.raises(ValueError, match=r"learner_seat must be 'random' or a seat number \(an int\) in 0..1, got .* of type"):
        SingleAgentView(ENV, learner_seat=seat)


@pytest.mark.parametrize("seat", [0, 1, np.int64(1), "random"])
def test_learner_seat_control(seat):
    view = SingleAgentView(ENV, learner_seat=seat)
    obs, info = view.reset(seed=0)
    if seat != "random":
        assert view._learner == f"player_{int(seat)}"


@pytest.mark.parametrize("flag", ["yes", "no", 1, 0, None])
def test_move_features_must_be_a_bool(flag):
    with pytest.raises(TypeError, match=r"move_features must be True or False, got .* of type"):
        _view(move_features=flag)


@pytest.mark.parametrize("flag", [True, False, np.True_])
def test_move_features_control(flag):
    view = _view(move_features=flag)
    obs, info = view.reset(seed=0)
    plain = _view().observation_space.shape[0]
    assert (obs.shape[0] > plain) == bool(flag)


@pytest.mark.parametrize("name", sorted(kakurega.envs.ENV_SPECS))
def test_every_game_names_an_out_of_range_action_in_words_and_a_missing_piece_with_the_pieces(name):
    """An error message names the action it refuses through action_to_string: every game gives words for any id
    (one raised instead); an unknown observation piece lists the pieces (it was a bare KeyError)."""
    raw = make(name, wrapped=False)
    raw.reset(seed=0)
    n = raw.game.num_actions
    for action in (n, n + 7, -1):
        words = raw.game.action_to_string(raw.game_state, action)
        assert isinstance(words, str) and words.startswith(f"action {action} (")
    assert "out of range" not in raw.game.action_to_string(raw.game_state, raw.legal_actions()[0])  # control
    observation = raw.observe(raw.agent_selection)["observation"]
    first = next(iter(raw.layout.pieces))
    assert raw.layout.view(observation, first).shape == raw.layout.pieces[first].shape
    with pytest.raises(KeyError, match=rf"no observation piece 'nothing'; the pieces are {first}, "):
        raw.layout.view(observation, "nothing")


def test_a_games_name_in_python_points_to_its_newest_version():
    """`kakurega evaluate GAME` takes a game's name; `make(GAME)` says which env it means."""
    from kakurega.envs.registry import ENV_SPECS, latest_version

    game = next(iter(ENV_SPECS)).rpartition("_v")[0]
    with pytest.raises(ValueError, match=rf"unknown env '{game}'; did you mean '{latest_version(game)}', the game's newest"):
        make(game)
    with pytest.raises(ValueError, match=r"unknown env 'chess'; registered envs: "):  # no game of that name: no hint
        make("chess")


def test_a_pettingzoo_id_names_the_env_for_agents_and_views_as_make_takes_it():
    """``make("kakurega/<game>-vN")`` works, so do the single-seat view and an agent's context of that id: the
    context keeps the registry name (the shipped bots and policy files go by it)."""
    from kakurega.agents.base import AgentContext
    from kakurega.envs.registry import ENV_SPECS

    spec = next(iter(ENV_SPECS.values()))
    env = make(spec.pettingzoo_id)
    assert AgentContext.from_env(env, spec.pettingzoo_id).env_name == spec.name
    view = SingleAgentView(spec.pettingzoo_id)
    assert view.reset(seed=0)[0].shape == view.observation_space.shape
    other = next(s for s in ENV_SPECS.values() if s.name != spec.name)
    with pytest.raises(ValueError, match=rf"the env is {spec.name}, not '{other.pettingzoo_id}'"):  # the control
        AgentContext.from_env(env, other.pettingzoo_id)


def test_a_layout_index_outside_its_piece_or_with_the_wrong_coordinates_and_a_piece_declared_twice_are_refused():
    """ObservationLayout.index gives the flat offset of one entry of a piece, and refuses an index outside the piece's
    shape (each coordinate, negative ones too) or with another number of coordinates than the shape has; a layout
    declaring one piece name twice is refused."""
    from kakurega.envs.core.layout import ObservationLayout

    layout = ObservationLayout([("scores", (3,)), ("board", (2, 4))])
    assert layout.size == 11
    assert [layout.index("scores", i) for i in range(3)] == [0, 1, 2]
    assert layout.index("board", 0, 0) == 3 and layout.index("board", 1, 2) == 9 and layout.index("board", 1, 3) == 10
    for name, index in [("scores", (3,)), ("scores", (-1,)), ("board", (2, 0)), ("board", (0, 4)), ("board", (1, -1))]:
        with pytest.raises(IndexError, match=rf"piece '{name}' has shape"):
            layout.index(name, *index)
    for name, index in [("board", (1,)), ("board", (1, 2, 0)), ("scores", ()), ("scores", (0, 0))]:
        with pytest.raises(IndexError, match=rf"piece '{name}' has shape"):
            layout.index(name, *index)
    with pytest.raises(ValueError, match="observation piece 'a' declared twice"):
        ObservationLayout([("a", (1,)), ("b", (2,)), ("a", (2,))])


@pytest.mark.parametrize("name", sorted(ENV_SPECS))
def test_a_layout_decodes_every_piece_of_an_env_observation(name):
    """``env.unwrapped.layout.decode(obs)`` gives every piece by name, shaped, covering the vector once in order
    (so a reader can name each bit); an observation dict and its vector decode alike, and a vector of another
    length is refused in words."""
    env = make(name)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    layout = env.unwrapped.layout
    decoded = layout.decode(obs)
    assert list(decoded) == list(layout.pieces)
    assert np.array_equal(np.concatenate([v.ravel() for v in decoded.values()]), obs["observation"])
    for piece_name, values in decoded.items():
        assert values.shape == layout.pieces[piece_name].shape
        assert np.array_equal(values, layout.view(obs["observation"], piece_name))
    assert all(np.array_equal(a, b) for a, b in zip(layout.decode(obs["observation"]).values(), decoded.values()))
    with pytest.raises(ValueError, match=rf"shape \({layout.size + 1},\); this layout decodes vectors of shape"):
        layout.decode(np.zeros(layout.size + 1, dtype=np.float32))


@pytest.mark.parametrize("name", sorted(ENV_SPECS))
def test_every_reward_handed_out_is_a_float(name):
    """Rewards are floats at every step, the dead steps included (PettingZoo's own clearing wrote int 0s), and in
    the illegal-move verdict of ``env()`` (its non-offenders were paid int 0s)."""
    env = make(name)
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            assert type(reward) is float, (agent, reward)
            assert all(type(r) is float for r in env.rewards.values()), env.rewards
            seen += 1
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo announces the illegal move
        env.step(illegal)
    assert all(type(r) is float for r in [*env.rewards.values(), *env._cumulative_rewards.values()]), env.rewards
    for _agent in env.agent_iter():
        assert type(env.last()[1]) is float
        env.step(None)
    assert seen


@pytest.mark.parametrize("seed", ["1", 1.0, True, b"1", np.array(1.0), np.array(True), np.array("1")],
                         ids=repr)
def test_reset_refuses_a_seed_that_is_not_an_integer_in_words(seed):
    env = make(ENV, wrapped=False)
    with pytest.raises(TypeError, match=r"reset\(seed=.*\): expected None or a non-negative integer, got"):
        env.reset(seed=seed)
    env.reset(seed=np.int64(3))  # numpy integers are integers (the control)
    assert env.agent_selection in env.agents


def test_reset_takes_a_numpy_integer_held_as_an_array():
    """``np.array(3)`` (what ``rng.integers(10, size=())`` gives) seeds as 3 does (numpy's own ``default_rng`` failed
    on it: "len() of unsized object")."""
    env, twin = make(ENV, wrapped=False), make(ENV, wrapped=False)
    env.reset(seed=np.array(3))
    twin.reset(seed=3)
    assert env.game_state == twin.game_state or repr(env.game_state) == repr(twin.game_state)
    assert np.array_equal(env.observe(env.agent_selection)["observation"],
                          twin.observe(twin.agent_selection)["observation"])


def test_a_step_limit_that_leaves_the_learner_no_move_is_named_when_every_deal_ends_first():
    """A limit of one step ends every deal before the last seat moves: the view's refusal names the limit."""
    name = next(n for n in sorted(ENV_SPECS) if "max_steps" in make(n, wrapped=False).options)
    last_seat = len(make(name, wrapped=False).possible_agents) - 1
    view = SingleAgentView(name, {"max_steps": 1}, learner_seat=last_seat)
    with pytest.raises(RuntimeError, match=r"games in a row ended before the learner acted .*step limit.*"
                                           r"'max_steps': 1"):
        view.reset(seed=0)
