"""The single-agent training view: gymnasium conformance, reward attribution, fresh observations."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from training_helpers import REGISTERED

from kakurega.agents.training.league import OpponentPool
from kakurega.agents.training.view import SingleAgentView
from kakurega.envs.core.aec import ILLEGAL_ACTION_PENALTY


@pytest.mark.parametrize("env_name", REGISTERED)
def test_check_env_passes_on_every_registered_env(env_name):
    check_env(SingleAgentView(env_name, {}, ["random"]), skip_render_check=True)


def test_check_env_passes_on_the_toy_game(nim):
    check_env(SingleAgentView(nim.NAME, {"num_players": 3}, ["random", "heuristic"]), skip_render_check=True)


def _scripted_view(nim, start_pile, learner_seat, opponent=None):
    view = SingleAgentView(nim.NAME, {"start_pile": start_pile}, ["random"], learner_seat=learner_seat, illegal_action="raise")
    agent = (opponent or nim.TakeMost)(view.context, 0)
    view.pool._agents[("random", 0)] = agent  # every draw now yields the scripted opponent
    return view


def test_opponent_move_that_ends_the_game_gives_the_learner_its_loss(nim):
    # pile 4, opponent (seat 0) moves first; its card decides 2 or 3 stones: choose a deal where it may take 2 only
    for seed in range(50):
        view = _scripted_view(nim, 4, learner_seat=1)
        obs, info = view.reset(seed=seed)
        if view.raw.game_state.cards[0] == 0:
            break
    assert view.raw.game_state.pile == 2  # the opponent took 2 of 4
    assert view.raw.agent_selection == "player_1"
    # learner takes 1 stone, the opponent takes the last one and wins
    obs, reward, terminated, truncated, info = view.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["outcome"] == "loss" and info["final_return"] == -1.0 and info["learner_seat"] == 1
    assert not info["action_mask"].any()


def test_learner_move_that_ends_the_game_gives_the_win(nim):
    view = _scripted_view(nim, 2, learner_seat=0)
    view.reset(seed=0)
    obs, reward, terminated, truncated, info = view.step(1)  # take both stones
    assert (reward, terminated, info["outcome"]) == (1.0, True, "win")


def test_truncation_is_reported_as_truncated(nim):
    view = SingleAgentView(nim.NAME, {"start_pile": 10, "max_turns": 2}, ["random"], learner_seat=0)
    view.reset(seed=0)
    _, reward, terminated, truncated, info = view.step(0)  # turn 1 by learner, turn 2 by opponent -> cut off
    assert (reward, terminated, truncated, info["outcome"]) == (0.0, False, True, "draw")


def test_rewards_sum_to_the_learners_final_return_on_every_registered_env():
    for env_name in REGISTERED:
        view = SingleAgentView(env_name, {}, ["random"], illegal_action="raise")
        rng = np.random.default_rng(0)
        for episode in range(5):
            view.reset(seed=episode)
            total = 0.0
            while True:
                _, reward, terminated, truncated, info = view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
                total += reward
                if terminated or truncated:
                    break
            assert total == pytest.approx(info["final_return"]), env_name


def test_observations_are_fresh_writable_copies(nim):
    view = SingleAgentView(nim.NAME, {}, ["random"], learner_seat=0)
    obs, _ = view.reset(seed=3)
    assert obs.flags.writeable and obs.dtype == np.float32
    again = view._observation()
    obs[:] = 99.0  # scribbling on what we got must not reach the env
    assert not np.shares_memory(obs, again)
    assert np.array_equal(view._observation(), again)
    assert np.array_equal(view.raw.observe("player_0")["observation"], again)


def test_learner_seat_random_covers_every_seat_and_fixed_seat_holds(nim):
    view = SingleAgentView(nim.NAME, {"num_players": 3}, ["random"])
    seats = set()
    for seed in range(40):
        view.reset(seed=seed)
        seats.add(view.raw.possible_agents.index(view._learner))
    assert seats == {0, 1, 2}
    fixed = SingleAgentView(nim.NAME, {"num_players": 3}, ["random"], learner_seat=2)
    for seed in range(10):
        fixed.reset(seed=seed)
        assert fixed._learner == "player_2"
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentView(nim.NAME, {}, ["random"], learner_seat=5)


def test_reset_with_a_seed_is_reproducible(nim):
    def trajectory(view):
        rng = np.random.default_rng(1)
        out = []
        obs, _ = view.reset(seed=11)
        out.append(obs.tobytes())
        for _ in range(30):
            obs, reward, terminated, truncated, _ = view.step(int(rng.choice(np.flatnonzero(view.action_masks()))))
            out.append((obs.tobytes(), reward))
            if terminated or truncated:
                obs, _ = view.reset()
                out.append(obs.tobytes())
        return out

    make = lambda: SingleAgentView(nim.NAME, {"num_players": 3}, ["random", "heuristic"])  # noqa: E731
    assert trajectory(make()) == trajectory(make())


def test_illegal_learner_action_penalized_or_raised(nim):
    view = SingleAgentView(nim.NAME, {"start_pile": 1}, ["random"], learner_seat=0)
    view.reset(seed=0)
    _, reward, terminated, _, info = view.step(2)  # take 3 of 1
    assert (reward, terminated, info["illegal_action"]) == (ILLEGAL_ACTION_PENALTY, True, True)
    assert (info["outcome"], info["score"]) == ("loss", 0.0)  # every final info has both (the trainer reads them)
    strict = SingleAgentView(nim.NAME, {"start_pile": 1}, ["random"], learner_seat=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match=r"illegal action 2 \(take 3\).*legal: 0 \(take 1\)"):
        strict.step(2)


def test_step_after_the_end_needs_a_reset(nim):
    view = _scripted_view(nim, 2, learner_seat=0)
    view.reset(seed=0)
    view.step(1)
    with pytest.raises(RuntimeError, match="reset"):
        view.step(0)


def test_solitaire_env_has_no_opponents():
    view = SingleAgentView("hidden_rooms_v0", {}, ["heuristic"])
    view.reset(seed=0)
    assert view._opponents == {} and view.num_players == 1


def test_pool_draws_follow_the_weights(nim):
    view = SingleAgentView(nim.NAME, {}, [{"agent": "random", "weight": 3.0}, {"agent": "heuristic", "weight": 1.0}])
    for seed in range(800):
        view.reset(seed=seed)
    counts = view.opponent_draw_counts()
    share = counts["random"] / (counts["random"] + counts["heuristic"])
    assert 0.70 < share < 0.80, counts


def test_league_entries_wait_for_weights_and_snapshots_fall_back_to_self(nim):
    from kakurega.agents.base import AgentContext
    from kakurega.envs.registry import make

    context = AgentContext.from_env(make(nim.NAME, wrapped=False), nim.NAME, {})
    pool = OpponentPool(["self", "snapshots"], context)
    with pytest.raises(RuntimeError, match="no opponent is available"):
        pool.draw(np.random.default_rng(0), 1)
    layers = [(np.zeros((3, context.layout.size), np.float32), np.zeros(3, np.float32))]
    pool.set_current({"algorithm": "ppo", "network": {"activation": "tanh"}}, layers)
    labels = {pool.draw(np.random.default_rng(s), 1)[0][0] for s in range(20)}
    assert labels == {"self"}  # snapshots fall back to the current policy while there is none


def test_each_seat_slot_gets_its_own_agent_instance(nim):
    view = SingleAgentView(nim.NAME, {"num_players": 3}, ["heuristic"])
    view.reset(seed=0)
    first, second = view._opponents.values()
    assert first is not second


def test_agents_of_dropped_snapshots_are_released(nim):
    """A league run rotates its snapshots (``league.max_snapshots``): the pool keeps agents for the snapshots
    it may still draw only, so a long run's memory does not grow with every snapshot it ever made."""
    import gc
    import weakref

    from kakurega.agents.base import AgentContext
    from kakurega.agents.policy import resolved_env_options
    from kakurega.envs.registry import make

    context = AgentContext.from_env(make(nim.NAME, wrapped=False), nim.NAME, {})
    meta = {"env": nim.NAME, "env_options": resolved_env_options(nim.NAME, {}), "algorithm": "ppo",
            "observation_size": context.layout.size, "num_actions": context.num_actions,
            "network": {"activation": "tanh"}}
    pool = OpponentPool(["snapshots"], context)
    window, slots, kept, weights = 2, 2, {}, {}
    for number in range(12):  # as the trainer does: a new snapshot file, the oldest one deleted
        path = f"run/league/snapshot_{number}.safetensors"
        layer = np.full((context.num_actions, context.layout.size), number, np.float32)
        kept[path] = (meta, [(layer, np.zeros(context.num_actions, np.float32))])
        weights[path] = weakref.ref(layer)
        del layer
        for old in list(kept)[:-window]:
            del kept[old]
        pool.set_snapshots(list(kept), loaded=kept)
        for seed in range(20):  # every kept snapshot gets drawn into every slot
            pool.draw(np.random.default_rng(100 * number + seed), slots)
        held = {key[1] for key in pool._agents if key[0] == "snapshot"}
        assert held <= set(kept), f"agents of dropped snapshots held: {sorted(held - set(kept))}"
    assert held == set(kept)  # the control: the draws did build agents of the kept snapshots
    gc.collect()
    alive = [path for path, ref in weights.items() if ref() is not None]
    assert alive == list(kept), f"weights still held: {alive}"


def test_env_kwargs_must_be_a_mapping_and_render_view_is_refused(nim):
    """Each said in words: a string of options (once Python's "'str' object is not a mapping"), and a
    render_view the view would ignore (it always draws the learner's view)."""
    with pytest.raises(TypeError, match=r"SingleAgentView: env_kwargs must be a dict of env options .* got "
                                        r"'start_pile=4' of type str"):
        SingleAgentView(nim.NAME, "start_pile=4", ["random"])
    with pytest.raises(TypeError, match="render_view is not an option of the single-seat view"):
        SingleAgentView(nim.NAME, {"render_view": "player_1"}, ["random"])
    with pytest.raises(TypeError, match=r"given both in env_kwargs and as keyword arguments"):
        SingleAgentView(nim.NAME, {"start_pile": 4}, ["random"], start_pile=5)
    assert SingleAgentView(nim.NAME, None, ["random"], start_pile=4).env_kwargs == {"start_pile": 4}  # control


def test_pool_entries_are_checked_when_the_pool_is_made(nim):
    """A spec's syntax and the weights are refused where the pool is made, not at the first deal; an entry of weight
    0 is never drawn."""
    from kakurega.agents.base import AgentContext
    from kakurega.agents.training.league import parse_entries
    from kakurega.envs.registry import make

    with pytest.raises(ValueError, match="option 'seed' is given twice"):
        parse_entries(["random:seed=1,seed=2"])
    with pytest.raises(ValueError, match="weights sum to 0"):
        parse_entries([{"agent": "random", "weight": 0}])
    assert parse_entries([{"agent": "random", "weight": 0}, "heuristic"])[0].weight == 0  # the control
    context = AgentContext.from_env(make(nim.NAME, wrapped=False), nim.NAME, {})
    pool = OpponentPool([{"agent": "self", "weight": 1}, {"agent": "random", "weight": 0}], context)
    with pytest.raises(RuntimeError, match="no opponent is available"):  # self has no weights yet; random weighs 0
        pool.draw(np.random.default_rng(0), 1)


def test_a_spec_that_builds_no_agent_is_refused_when_the_view_is_made(nim):
    """An unknown kind, an option the kind does not take or a missing policy file is said when the view (or the pool)
    is made: from Python, a view used to be made and the error came at its first reset."""
    with pytest.raises(ValueError, match=r"unknown agent kind 'wizard'"):
        SingleAgentView(nim.NAME, None, ["random", "wizard"])
    with pytest.raises(ValueError, match=r"'heuristic' .* takes no option 'depth'"):
        SingleAgentView(nim.NAME, None, ["random", {"agent": "heuristic:depth=2", "weight": 0}])  # weighs 0: still checked
    with pytest.raises((FileNotFoundError, ValueError), match=r"no_such_policy\.safetensors"):
        SingleAgentView(nim.NAME, None, ["policy:no_such_policy.safetensors"])
    view = SingleAgentView(nim.NAME, None, ["random", "heuristic", "self"])  # the control: buildable specs
    view.reset(seed=0)


def test_new_snapshots_keep_the_pools_other_agents(nim):
    """Agents are built once per entry and seat slot: a snapshot sync rebuilds none but the dropped snapshots'."""
    from kakurega.agents.base import AgentContext
    from kakurega.envs.registry import make

    context = AgentContext.from_env(make(nim.NAME, wrapped=False), nim.NAME, {})
    pool = OpponentPool(["heuristic", "random"], context)
    for seed in range(10):
        pool.draw(np.random.default_rng(seed), 2)
    before = dict(pool._agents)
    assert {key[0] for key in before} >= {"heuristic", "random"}
    pool.set_snapshots([])
    assert all(pool._agents.get(key) is agent for key, agent in before.items())
