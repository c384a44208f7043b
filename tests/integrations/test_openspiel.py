"""The OpenSpiel bridge: every registered game loads in pyspiel, passes OpenSpiel's random simulation test,
matches the env's observations, keeps other players' secrets out of each player's view, and plays with MCTS."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kakurega.envs.registry import ENV_SPECS, make  # noqa: E402
from kakurega.integrations import openspiel as bridge  # noqa: E402

CASES = [(name, {k: v for k, v in config.items() if k in bridge.game_parameters(name)})
         for name, spec in ENV_SPECS.items() for config in spec.configurations[:2]]


def _load(env_name, params=None):
    return pyspiel.load_game(bridge.short_name(env_name), dict(params or {}))


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_every_registered_env_is_an_openspiel_game(env_name):
    assert bridge.GAMES[env_name] == bridge.short_name(env_name) == f"python_kakurega_{env_name}"
    game = _load(env_name)
    newest = max((n for n in ENV_SPECS if bridge.short_name(n, versioned=False) == bridge.short_name(env_name, versioned=False)),
                 key=lambda n: int(n.rpartition("_v")[2]))
    alias = pyspiel.load_game(bridge.short_name(env_name, versioned=False))
    assert alias.get_type().long_name == f"kakurega {newest}"  # the unversioned name is the newest version
    raw = make(env_name, wrapped=False)
    assert game.num_distinct_actions() == raw.game.num_actions
    assert game.num_players() == raw.game.num_players
    assert game.observation_tensor_shape() == [raw.layout.size]
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def _deal(game, seed_draws=(1, 2, 3, 4)):
    """A new state past its chance node (the seed drawn as ``seed_draws``)."""
    state = game.new_initial_state()
    for value in seed_draws:
        assert state.is_chance_node()
        state.apply_action(value)
    assert not state.is_chance_node()
    return state


@pytest.mark.parametrize("env_name, params", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_openspiel_random_simulation_test(env_name, params):
    game = _load(env_name, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


BOUND_CASES = CASES + [
    ("kakurenbo_v1", {"reward": "points"}), ("kakurenbo_v1", {"num_players": 3, "max_steps": 4}),
    ("summer_hide_and_seek_v2", {"reward": "vp"}), ("summer_hide_and_seek_v1", {"num_players": 4}),
    ("hidden_rooms_v0", {"reward": "per_round", "shaping": 0.5}), ("animal_chain_v1", {"max_turns": 4}),
]


@pytest.mark.parametrize("env_name, params", BOUND_CASES, ids=[f"{n}-{p}" for n, p in BOUND_CASES])
def test_the_bridge_reports_the_games_bounds_length_and_utility(env_name, params):
    """Min/max utility, max game length and the utility type are the rules' for these options, and random games
    through the bridge keep to them (decisions counted without the seed draws)."""
    game = _load(env_name, params)
    rules = make(env_name, wrapped=False, **params).game
    low, high = rules.return_bounds()
    assert (game.min_utility(), game.max_utility()) == (low, high)
    assert game.max_game_length() == rules.max_decisions()
    assert game.max_chance_nodes_in_history() == bridge.SEED_DRAWS
    zero_sum = rules.is_zero_sum()
    Utility = pyspiel.GameType.Utility
    assert game.get_type().utility == (Utility.ZERO_SUM if zero_sum else Utility.GENERAL_SUM)
    if zero_sum:
        assert game.utility_sum() == 0.0
    rng = np.random.default_rng(5)
    for _ in range(3):
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(bridge.SEED_OUTCOMES)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions += 1
        returns = state.returns()
        assert all(low <= r <= high for r in returns) and decisions <= game.max_game_length()
        assert state.move_number() <= game.max_move_number()
        if zero_sum:
            assert abs(sum(returns)) < 1e-9


def _rewards_add_up_to_returns(game, seed: int, games: int = 3) -> bool:
    """In random games (a clone taken and played on at every tenth state), the rewards summed so far equal the
    returns at every state."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state, total = game.new_initial_state(), np.zeros(game.num_players())
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(bridge.SEED_OUTCOMES)))
            else:
                if rng.random() < 0.1:
                    state = state.clone()
                state.apply_action(int(rng.choice(state.legal_actions())))
            total += state.rewards()
            if not np.allclose(total, state.returns()):
                return False
    return True


@pytest.mark.parametrize("env_name, params", BOUND_CASES, ids=[f"{n}-{p}" for n, p in BOUND_CASES])
def test_rewards_are_what_each_transition_paid(env_name, params):
    """A game whose rules pay during play (points, VP, a match per round, shaping) declares
    ``RewardModel.REWARDS`` and pays each transition's change of the returns; one that pays at the end
    declares ``TERMINAL``; either way the rewards add up to the returns at every state, as OpenSpiel's
    ``random_sim_test`` checks."""
    game = _load(env_name, params)
    rules = make(env_name, wrapped=False, **params).game
    RewardModel = pyspiel.GameType.RewardModel
    assert game.get_type().reward_model == (RewardModel.TERMINAL if rules.pays_only_at_end() else RewardModel.REWARDS)
    assert _rewards_add_up_to_returns(game, seed=3)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_rewards_check_fails_on_terminal_rewards_of_a_game_that_pays_during_play():
    """Control: KAKURENBO with ``reward="points"`` paid as a terminal-reward game (what the bridge once declared
    for every game) fails both checks."""
    game = _load("kakurenbo_v1", {"reward": "points", "num_players": 3})
    game.shared.pays_during = False
    assert not _rewards_add_up_to_returns(game, seed=3)
    with pytest.raises(pyspiel.SpielError):
        pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_a_state_put_in_place_pays_nothing_until_its_next_move():
    game = _load("kakurenbo_v1", {"reward": "points", "num_players": 3})
    state, rng = _deal(game), np.random.default_rng(0)
    while not any(state.returns()):
        state.apply_action(int(rng.choice(state.legal_actions())))
    other = _deal(game, (9, 9, 9, 9))
    other.state = state.shared.game.clone(state.state)
    assert other.rewards() == [0.0, 0.0, 0.0] and other.returns() == state.returns()
    # on until a move scores: that move pays what it scored, counted from the assigned state's returns
    while True:
        before = np.array(other.returns())
        other.apply_action(int(rng.choice(other.legal_actions())))
        paid = np.array(other.returns()) - before
        assert np.allclose(paid, other.rewards())
        if paid.any() or other.is_terminal():
            break
    assert paid.any(), "no move scored after the assignment: the check compared zeros only"
    with pytest.raises(ValueError, match="still drawing its seed"):  # before the deal there is nothing to replace
        game.new_initial_state().state = state.shared.game.clone(state.state)


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_games_and_states_pickle_deepcopy_and_serialize(env_name):
    import copy
    import pickle

    game = _load(env_name)
    state = _deal(game)
    rng = np.random.default_rng(0)
    for _ in range(8):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    restored = [pickle.loads(pickle.dumps(state)), copy.deepcopy(state),
                pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]]
    for copy_ in restored:
        assert copy_.history() == state.history() and str(copy_) == str(state)
        assert all(copy_.observation_tensor(p) == state.observation_tensor(p) for p in range(game.num_players()))
        assert copy_.legal_actions() == state.legal_actions()


def test_the_history_determines_the_state():
    """Two states given the same seed draws and moves are the same game (and other draws another deal)."""
    game = _load("kakurenbo_v0", {"num_players": 3})
    first, second, other = _deal(game), _deal(game), _deal(game, (4, 3, 2, 1))
    assert first.observation_tensor(0) == second.observation_tensor(0)
    assert any(first.observation_tensor(p) != other.observation_tensor(p) for p in range(3))


def test_asking_for_an_information_state_tensor_says_there_is_none():
    state = _deal(_load("animal_chain_v0"))
    with pytest.raises(Exception, match="no information-state tensor.*information_state_string"):
        state.information_state_tensor(0)


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_apply_action_refuses_what_is_no_legal_move_in_words_and_changes_nothing(env_name):
    """The rules' apply_action takes legal moves only: fed an illegal one, Animal Chain's played it into a finished
    game, Summer's and Hidden Rooms' failed with a bare KeyError or IndexError; a move after the end and a seed
    value that is no chance outcome were taken too. Each is refused in words and the state plays on unchanged,
    whether or not its legal actions were asked for first."""
    game = _load(env_name)
    n = game.num_distinct_actions()
    fresh = game.new_initial_state()
    with pytest.raises(ValueError, match=rf"seed draw {bridge.SEED_OUTCOMES} is not an outcome of this chance node"):
        fresh.apply_action(bridge.SEED_OUTCOMES)
    assert fresh.history() == [] and fresh.is_chance_node()
    rules = game.shared.game
    rng = np.random.default_rng(0)
    state, refused = _deal(game), 0
    while not state.is_terminal():
        asked = refused % 2 == 0  # the legal actions asked for first (as play does), or not (as a replay)
        legal = state.legal_actions() if asked else rules.legal_actions(state.state)
        illegal = [a for a in range(n) if a not in legal]
        if illegal and refused < 4:
            history, player = state.history(), state.current_player()
            action = illegal[int(rng.integers(len(illegal)))]
            with pytest.raises(ValueError, match=rf"^illegal action {action} \(.+\) for player {player}: .+"):
                state.apply_action(action)
            with pytest.raises(ValueError, match=rf"^action {n} is out of range: expected a legal action id in \[0, {n}\)"):
                state.apply_action(n)
            with pytest.raises(ValueError, match=rf"^action -2 is out of range: expected a legal action id in \[0, {n}\)"):
                state.apply_action(-2)  # pyspiel refuses -1 itself; a check reading a table at -2 could find a move
            assert state.history() == history and state.legal_actions() == legal
            refused += 1
        state.apply_action(int(rng.choice(legal)))  # the control: a legal move plays
    assert refused
    returns = state.returns()
    with pytest.raises(ValueError, match=r"apply_action\(0\): the game is over"):
        state.apply_action(0)
    assert state.is_terminal() and state.returns() == returns


def test_serialized_states_round_trip():
    game = _load("animal_chain_v0")
    state = _deal(game)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    copy = game.deserialize_state(state.serialize())
    assert copy.history() == state.history() and copy.observation_tensor(0) == state.observation_tensor(0)
    assert copy.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_observation_tensors_are_the_envs_observations(env_name):
    """Replaying the same seed and actions in the env gives the same vectors, for clones on diverging branches too."""
    game = _load(env_name)
    rng = np.random.default_rng(0)
    for _ in range(3):
        state = _deal(game, rng.integers(256, size=4))
        branch = None
        moves = 0
        while not state.is_terminal() and moves < 60:
            if moves == 5:
                branch = state.clone()
            state.apply_action(int(rng.choice(state.legal_actions())))
            moves += 1
        for checked in [s for s in (state, branch) if s is not None]:
            env = make(env_name, wrapped=False)
            env.reset()
            env.game_state = checked.state  # the bridge's state, encoded by a fresh env
            for player in range(game.num_players()):
                assert np.array_equal(np.asarray(checked.observation_tensor(player), np.float32),
                                      env.encode(checked.state, player))


def test_information_states_are_perfect_recall_and_private():
    game = _load("animal_chain_v0")
    state = _deal(game)
    seen = [state.information_state_string(p) for p in range(2)]
    player = state.current_player()
    action = state.legal_actions()[0]
    state.apply_action(action)
    after = [state.information_state_string(p) for p in range(2)]
    for p in range(2):
        assert after[p].startswith(seen[p])  # perfect recall: the history only grows
    assert f"a{action}" in after[player].splitlines()[-2] and f"a{action}" not in after[1 - player]


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_a_players_view_does_not_depend_on_what_it_cannot_know(env_name):
    """Re-deal the hidden part for a player: its tensor and strings stay; the control (another seat's) may change."""
    game = _load(env_name)
    rng = np.random.default_rng(1)
    state = _deal(game, (3, 0, 0, 0))
    for _ in range(4):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    rules = state.shared.game
    for player in range(game.num_players()):
        before = (state.observation_tensor(player), state.observation_string(player))
        original = state.state
        state.state = rules.resample_hidden(original, player, np.random.default_rng(11))
        assert (state.observation_tensor(player), state.observation_string(player)) == before
        state.state = original


def test_resampled_worlds_keep_the_players_information_state():
    game = _load("summer_hide_and_seek_v0")
    state = _deal(game, (2, 0, 0, 0))
    rng = np.random.default_rng(0)
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(5)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()


def test_ismcts_bot_plays_through_the_bridge():
    from kakurega.integrations.openspiel_bots import ISMCTSBot

    game = _load("animal_chain_v0")
    bots = [ISMCTSBot.with_random_rollouts(game, simulations=8, seed=0), pyspiel.make_uniform_random_bot(1, 0)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiel_ismcts_with_the_same_seed_plays_the_same_moves():
    """OpenSpiel draws IS-MCTS's worlds with an OS-seeded sampler; the bridge's bot draws them from its own
    seeded generator, so a seed reproduces a game (before, two bots seeded 0 parted at their first move)."""
    from kakurega.integrations.openspiel_bots import ISMCTSBot

    def moves(seed):
        game = _load("animal_chain_v0")
        bot = ISMCTSBot.with_random_rollouts(game, simulations=5, seed=seed)
        state = game.new_initial_state()
        for draw in (1, 2, 3, 4):
            state.apply_action(draw)
        played = []
        for _ in range(12):
            played.append(bot.step(state))
            state.apply_action(played[-1])
        return played

    assert moves(0) == moves(0)
    assert moves(0) != moves(1)  # control: the seed matters


@pytest.mark.parametrize("spec", ["heuristic", "random", "ismcts:simulations=8", "pretrained"])
def test_any_kakurega_agent_spec_is_a_pyspiel_bot(spec):
    from kakurega.integrations.openspiel_bots import KakuregaBot

    game = _load("kakurenbo_v0", {"num_players": 4})
    bots = [KakuregaBot(game, seat, spec if seat == 0 else "random", seed=seat) for seat in range(4)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert len(returns) == 4 and all(r in (-1.0, 1.0) for r in returns)


def test_a_bots_agent_sees_only_its_own_seat():
    """The agent's observations equal its seat's env observation; re-dealing what it cannot know changes none
    of its moves (the control: re-dealing what another seat cannot know, its own hand included, changes what
    it is shown)."""
    from kakurega.integrations.openspiel_bots import KakuregaBot

    game = _load("kakurenbo_v0", {"num_players": 3})
    bot = KakuregaBot(game, 0, "heuristic", seed=0)
    seen = []
    act = bot.agent.act
    bot.agent.act = lambda observation, sampler=None: seen.append(observation["observation"].copy()) or act(observation)
    state, rng, checked, changed = _deal(game), np.random.default_rng(0), 0, 0
    rules = state.shared.game
    while not state.is_terminal() and checked < 5:
        if state.current_player() == 0:
            action = bot.step(state)
            assert np.array_equal(seen[-1], state.observation_tensor(0))
            original = state.state
            state.state = rules.resample_hidden(original, 0, np.random.default_rng(checked))
            assert bot.step(state) == action and np.array_equal(seen[-1], seen[-2])
            state.state = rules.resample_hidden(original, 1, np.random.default_rng(checked))
            bot.step(state)
            changed += not np.array_equal(seen[-1], seen[-2])
            state.state = original
            checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 0 and changed > 0
