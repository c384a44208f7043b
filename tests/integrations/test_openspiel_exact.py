"""Small configurations with explicit chance in OpenSpiel: the tree is enumerated, CFR converges, exact best
responses agree with our own, and the agent adapter gives the agent's own probabilities from its own view."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as pyspiel_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from kakurega.agents.base import RandomAgent  # noqa: E402
from kakurega.agents.policy import PolicyAgent, context_for  # noqa: E402
from kakurega.integrations import openspiel_exact as exact  # noqa: E402
from kakurega.scripts.exact_exploitability import cfr_curve, exact_exploitability, report_table  # noqa: E402

TEST_CONFIGURATIONS = ("animal_chain_tiny", "summer_tiny")


def _context(name):
    config = exact.configuration(name)
    return context_for(config.env_name, config.env_options())


def _states(game):
    """Every history of ``game``, depth first."""
    stack, states = [game.new_initial_state()], []
    while stack:
        state = stack.pop()
        states.append(state)
        if state.is_terminal():
            continue
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        stack.extend(state.child(a) for a in actions)
    return states


def _network_agent(name, sample, seed=0):
    """A policy agent with random weights (no file): what a trained bot is, to the adapter."""
    context = _context(name)
    rng = np.random.default_rng(seed)
    sizes = [context.layout.size, 16, context.num_actions]
    layers = [(rng.normal(0, 1, (b, a)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
              for a, b in zip(sizes, sizes[1:])]
    # the network alone: its logits are what the tests compare (pruning dominated moves would change them)
    return PolicyAgent(context, seed, layers=layers, metadata={"network": {"activation": "tanh"}}, sample=sample,
                       prune=False)


def test_every_configuration_is_registered_and_builds():
    for name in exact.CONFIGURATIONS:
        assert exact.GAMES[name] == f"python_kakurega_exact_{name}"
        game = exact.load(name)
        assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert game.num_players() == 2
        assert game.new_initial_state().is_chance_node()
    assert exact.load("animal_chain_tiny", max_turns=1).shared.env_kwargs["max_turns"] == 1
    with pytest.raises(ValueError, match="known: summer_tiny"):
        exact.configuration("animal_chain_huge")


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
def test_an_illegal_move_is_refused_in_words_and_kept_nowhere_in_the_tree(name):
    """A move the rules do not allow was stepped through the rules (which take legal moves only) and its node kept
    in the game's shared tree; an action id out of range failed with a bare IndexError, a move after the end was
    taken. Each is refused in words (as a chance outcome that is no outcome already was) and the tree is unchanged."""
    game = exact.load(name)
    n = game.num_distinct_actions()
    rng = np.random.default_rng(0)
    state, refused = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([outcome for outcome, _ in state.chance_outcomes()])))
            continue
        legal, node, history = state.legal_actions(), state.node, state.history()
        illegal = [a for a in range(n) if a not in legal]
        if illegal:
            with pytest.raises(ValueError, match=rf"^illegal action {illegal[0]} \(.+\) for player {state.current_player()}: "):
                state.apply_action(illegal[0])
            with pytest.raises(ValueError, match=rf"^action {n} is out of range: expected a legal action id in \[0, {n}\)"):
                state.apply_action(n)
            assert state.node is node and state.history() == history
            assert illegal[0] not in node.children and n not in node.children
            refused += 1
        state.apply_action(int(rng.choice(legal)))  # the control: a legal move plays
    assert refused
    with pytest.raises(ValueError, match=r"apply_action\(0\): the game is over"):
        state.apply_action(0)


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
def test_the_tree_is_enumerated_with_chance_summing_to_one(name):
    game = exact.load(name)
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    states = _states(game)
    size = exact.tree_size(game)
    assert size.histories == len(states) == size.chance + size.decisions + size.terminals
    assert min(size.information_states) > 1 and size.terminals > 1
    leaves = 0.0
    for state in states:
        if state.is_chance_node():
            assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    # the probabilities of chance along each history reach 1 over the terminal histories under uniform play
    for state in states:
        if state.is_terminal():
            leaves += _reach(game, state)
    assert leaves == pytest.approx(1.0)
    # the game says what its leaves pay, as the bridge does for the same configuration: the rules' bounds and
    # utility (it once said +-1000 and general-sum for every configuration)
    rules = game.shared.game
    assert (game.min_utility(), game.max_utility()) == rules.return_bounds() == (-1.0, 1.0)
    assert rules.is_zero_sum() and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.utility_sum() == 0.0
    paid = [state.returns() for state in states if state.is_terminal()]
    assert all(-1.0 <= r <= 1.0 for returns in paid for r in returns) and {sum(returns) for returns in paid} == {0.0}
    assert {r for returns in paid for r in returns} >= {-1.0, 1.0}


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
def test_a_seat_gets_a_line_only_where_it_is_to_act_or_its_view_changed(name):
    """The bridge's rule: a step the seat does not see (the child's secret moves, to a seeker) adds no line to
    its information state. A line with the digest of the line before is one where the seat was to act: it
    holds the seat's action, or it is the last line and the seat is to act now. (These games once added a line
    for every seat at every step, which split a seeker's information states by the child's unseen moves.)"""
    for state in _states(exact.load(name)):
        if state.is_chance_node():
            continue
        for seat in range(2):
            lines = state.information_lines(seat)
            for index in range(1, len(lines)):
                if lines[index].partition(" ")[0] == lines[index - 1].partition(" ")[0]:
                    last_and_to_act = index == len(lines) - 1 and state.current_player() == seat
                    assert " a" in lines[index] or last_and_to_act, (state.history(), seat, lines)


def test_the_game_info_bounds_every_history_and_the_envs_options_are_parameters():
    """``max_game_length`` is the rules' ``max_decisions()`` and ``max_chance_nodes_in_history`` bounds the chance
    nodes of every history (it once said 4, the bridge's seed draws, where a history holds up to 13); the env's
    plain options are parameters (Summer's ``max_steps``, which no configuration sets)."""
    for name in TEST_CONFIGURATIONS:
        game = exact.load(name)
        assert game.max_game_length() == game.shared.game.max_decisions()
        most_chance = most_decisions = 0
        for state in _states(game):
            if state.is_terminal():
                history = state.full_history()
                most_chance = max(most_chance, sum(item.player == pyspiel.PlayerId.CHANCE for item in history))
                most_decisions = max(most_decisions, sum(item.player >= 0 for item in history))
        assert most_decisions <= game.max_game_length() and most_chance <= game.max_chance_nodes_in_history()
        if name == "animal_chain_tiny":  # more than the bridge's seed draws, which these games once declared
            assert most_chance > 4
    assert exact.load("summer_tiny", max_steps=6).shared.env_kwargs["max_steps"] == 6
    assert "max_steps" in exact.load("summer_tiny").get_type().parameter_specification


def test_rewards_add_up_to_the_returns_along_every_history():
    """With VP as rewards (paid during play) the game declares ``RewardModel.REWARDS``, and along every history
    of the tree the rewards summed so far are the returns; OpenSpiel's ``random_sim_test`` passes."""
    game = exact.load("summer_tiny", reward="vp")
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert exact.load("summer_tiny").get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)
    paid_during_play = False
    stack = [(game.new_initial_state(), np.zeros(2))]
    while stack:
        state, total = stack.pop()
        total = total + state.rewards()
        assert np.allclose(total, state.returns()), state.history()
        paid_during_play = paid_during_play or (not state.is_terminal() and any(state.returns()))
        if not state.is_terminal():
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            stack.extend((state.child(a), total) for a in actions)
    assert paid_during_play


def _reach(game, terminal):
    """Probability of ``terminal``'s history with chance as drawn and both players uniform."""
    state, probability = game.new_initial_state(), 1.0
    for action in terminal.history():
        if state.is_chance_node():
            probability *= dict(state.chance_outcomes())[action]
        else:
            probability /= len(state.legal_actions())
        state.apply_action(action)
    return probability


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
def test_cfr_plus_nash_conv_decreases(name):
    game = exact.load(name)
    uniform = exploitability.nash_conv(game, pyspiel_policy.UniformRandomPolicy(game))
    rows = cfr_curve(game, 16, say=lambda *a: None)
    assert [r["iterations"] for r in rows] == [1, 2, 4, 8, 16]
    values = [r["nash_conv"] for r in rows]
    assert all(b < a for a, b in zip(values, values[1:])), values
    assert uniform > 0.05 and values[-1] < uniform / 5


def test_our_best_response_matches_the_hand_computed_kuhn_poker_figure():
    """Kuhn poker, both players uniform: a best response wins 1/2 as player 0 and 5/12 as player 1 (NashConv 11/12)."""
    game = pyspiel.load_game("kuhn_poker")
    uniform = pyspiel_policy.UniformRandomPolicy(game)
    assert exact.best_response_value(game, uniform, 0) == pytest.approx(1 / 2)
    assert exact.best_response_value(game, uniform, 1) == pytest.approx(5 / 12)


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
@pytest.mark.parametrize("sample", [False, True])
def test_exact_exploitability_of_a_bot_matches_our_independent_best_response(name, sample):
    game = exact.load(name)
    row = exact_exploitability(game, _network_agent(name, sample), "bot")
    for seat in row["seats"]:
        assert seat["best_response_value"] == pytest.approx(seat["best_response_value_ours"], abs=1e-9)
        assert seat["best_response_value"] >= seat["on_policy_value"] - 1e-9
    assert row["nash_conv"] == pytest.approx(sum(s["best_response_value"] - s["on_policy_value"] for s in row["seats"]))
    # control: another policy gives other figures, so the agreement above is not a constant
    random_row = exact_exploitability(game, RandomAgent(_context(name), 0), "random")
    assert random_row["nash_conv"] == pytest.approx(exploitability.nash_conv(game, pyspiel_policy.UniformRandomPolicy(game)))
    assert random_row["nash_conv"] != pytest.approx(row["nash_conv"])


@pytest.mark.parametrize("sample", [False, True])
def test_the_adapter_gives_the_bots_probabilities_from_the_bots_own_view(sample):
    name = "summer_tiny"
    game = exact.load(name)
    agent = _network_agent(name, sample, seed=1)
    policy = exact.AgentPolicy(game, agent)
    by_information_state = {}
    checked = 0
    for state in _states(game):
        if state.is_terminal() or state.is_chance_node():
            continue
        player = state.current_player()
        observation = exact.observation_of(state, player)
        legal = state.legal_actions()
        assert np.flatnonzero(observation["action_mask"]).tolist() == legal
        logits = agent.outputs(observation["observation"]).astype(np.float64)[legal]
        if sample:
            expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        else:
            expected = np.eye(len(legal))[int(np.argmax(logits))]
        probabilities = policy.action_probabilities(state)
        assert list(probabilities) == legal
        assert list(probabilities.values()) == pytest.approx(expected.tolist())
        if not sample:
            assert agent.act(observation) == legal[int(np.argmax(expected))]
        # what the agent sees depends on its information state only: every history of one gives the same row
        row = tuple(np.round(agent.move_probabilities(observation), 12))
        assert by_information_state.setdefault(state.information_state_string(), row) == row
        checked += 1
    assert checked > 100 and len(by_information_state) < checked  # information states hold several histories


def test_the_seats_hidden_facts_stay_out_of_its_view():
    """Control for the test above: the full state differs inside an information state, the view does not."""
    game = exact.load("animal_chain_tiny")
    groups = {}
    for state in _states(game):
        if state.is_terminal() or state.is_chance_node():
            continue
        player = state.current_player()
        key = state.information_state_string()
        fingerprint = state.shared.game.fingerprint(state.state)
        view = exact.observation_of(state, player)["observation"].tobytes()
        groups.setdefault(key, []).append((fingerprint, view))
    differing = [members for members in groups.values() if len({f for f, _ in members}) > 1]
    assert differing  # the opponent's hand differs inside some information states ...
    assert all(len({v for _, v in members}) == 1 for members in groups.values())  # ... and no view shows it


def test_an_agent_without_probabilities_is_refused_in_words():
    from kakurega.agents.specs import make_agent

    game = exact.load("summer_tiny")
    policy = exact.AgentPolicy(game, make_agent("heuristic", _context("summer_tiny"), 0))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(NotImplementedError, match="does not state its move probabilities"):
        policy.action_probabilities(state)


def test_report_table_lays_out_every_figure():
    report = {
        "game": "g", "env": "e", "summary": "s", "uniform_nash_conv": 0.5,
        "tree": {"histories": 10, "chance": 1, "decisions": 4, "terminals": 5, "information_states": [2, 2]},
        "cfr_plus": [{"iterations": 1, "nash_conv": 0.5, "cpu_seconds": 0.0}],
        "bot": {"learner_steps": 512},
        "exact": [{"agent": "bot (greedy)", "nash_conv": 0.4, "exploitability": 0.2, "best_response_mean": 0.2,
                   "best_response_score": 0.6, "seats": [{"best_response_value": 0.1, "best_response_value_ours": 0.1},
                                                         {"best_response_value": 0.3, "best_response_value_ours": 0.3}]}],
        "abr": [{"learner_steps": 512, "mean_reward": 0.1, "score": 0.55, "score_ci95": [0.5, 0.6]}],
        "abr_itself": {"mean_reward": 0.0, "score": 0.5},
    }
    text = report_table(report)
    assert "| 1 | 0.5000 | 0.0 |" in text
    assert "+0.1000 (+0.1000) / +0.3000 (+0.3000)" in text
    assert "| ABR (PPO) | 512 | +0.100 | 0.550 [0.500, 0.600] |" in text
    assert "| exact best response (mean of the seats) | - | +0.200 | 0.600 |" in text


@pytest.mark.slow
def test_the_whole_study_runs_on_the_tiny_configuration(tmp_path, monkeypatch):
    """The command end to end (about 10 s): bot, exact figures, ABR; the ABR's estimate stays below the truth.
    Its directories stay held between its steps: another run trying them while it measures is refused."""
    import json

    import kakurega.scripts.exact_exploitability as study
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.run_dir import RunLock

    measure, refused = study.exact_exploitability, []

    def another_writer_tries(*args, **kwargs):  # between the bot's training and the best response's
        for where in (tmp_path, tmp_path / "bot"):
            try:
                RunLock(where).acquire()
            except ConfigError:
                refused.append(where)
        return measure(*args, **kwargs)

    monkeypatch.setattr(study, "exact_exploitability", another_writer_tries)
    assert study.main(["--game", "animal_chain_tiny", "--iterations", "8", "--steps", "1024", "--abr-budget", "1024",
                       "--warm-start", "256", "--games", "100", "--output", str(tmp_path), "--quiet"]) == 0
    assert refused == [tmp_path, tmp_path / "bot"] * 2  # greedy and sampled: each time both were held
    report = json.loads((tmp_path / "exact.json").read_text())
    assert (tmp_path / "plots" / "nash_conv.png").stat().st_size > 1000
    greedy = report["exact"][0]
    for row in report["abr"]:  # an estimate from 100 games: below the exact value up to its noise
        assert row["score_ci95"][0] <= greedy["best_response_score"] + 1e-9


@pytest.mark.parametrize("name", TEST_CONFIGURATIONS)
def test_the_exact_best_response_earns_its_value_in_the_env(name):
    """The exact figures are the env's: OpenSpiel's best response to uniform play, played in the PettingZoo env
    against uniformly random opponents, earns its exact value there in each seat. The env deals and draws with its
    seeded generator (not the enumeration), and the responder's information state is rebuilt from what the env shows
    its seat (a line per step where it is to act or its view changed, with its own action): a tree whose chance or
    information states differed from the env's would miss its value or ask for a state it never holds.
    Control: the value of uniform play (0) is rejected by the same test."""
    import hashlib

    from open_spiel.python.algorithms import best_response

    import kakurega.envs as envs

    config = exact.configuration(name)
    game = exact.load(name)
    env = envs.make(config.env_name, **config.env_options())
    rng = np.random.default_rng(0)

    def digest(observation):
        return hashlib.blake2b(np.ascontiguousarray(observation).tobytes(), digest_size=8).hexdigest()

    for seat in range(2):
        responder = best_response.BestResponsePolicy(game, seat, pyspiel_policy.UniformRandomPolicy(game))
        value = responder.value(game.new_initial_state())
        agent, returns = env.possible_agents[seat], []
        for _ in range(3000):
            env.reset(seed=int(rng.integers(2**31)))
            lines, total = [], 0.0
            while not (env.terminations[agent] or env.truncations[agent]):
                view = digest(env.observe(agent)["observation"])
                if env.agent_selection == agent or not lines or lines[-1].partition(" ")[0] != view:
                    lines.append(view)
                mover = env.agent_selection
                if mover == agent:
                    action = responder.best_response_action(f"p{seat}\n" + "\n".join(lines))
                    lines[-1] += f" a{action}"
                else:
                    action = int(rng.choice(np.flatnonzero(env.observe(mover)["action_mask"])))
                env.step(action)
                total += env.rewards[agent]
            returns.append(total)
        error = 4 * np.std(returns) / np.sqrt(len(returns))
        assert abs(np.mean(returns) - value) < error, (seat, np.mean(returns), value, error)
        assert abs(np.mean(returns) - 0.0) > error and value > 0.04  # control: the test tells the value apart


def test_the_study_refuses_a_bad_setting_before_any_work(tmp_path, monkeypatch, capsys):
    """A setting the approximate best response would refuse is refused before the tree, CFR+ and the bot's
    training (minutes on the small configurations), and nothing is written (a negative warm start once failed
    only after all three, a bot run left behind)."""
    import kakurega.scripts.exact_exploitability as study

    def no_work(*args, **kwargs):
        raise AssertionError("the study started its work")

    monkeypatch.setattr(exact, "tree_size", no_work)
    output = tmp_path / "study"
    for settings, words in (({"warm_start": -1}, "warm start must be a whole number of moves from 0"),
                            ({"abr_budget": 0}, "budget must be a whole number of learner steps"),
                            ({"games": 0}, "games must be at least 1"), ({"seed": -1}, "seed: expected a non-negative")):
        with pytest.raises(ValueError, match=words):
            study.run("animal_chain_tiny", **{"iterations": 1, "steps": 64, "output": output, "quiet": True, **settings})
    assert not output.exists()
    with pytest.raises(SystemExit):
        study.main(["--game", "animal_chain_tiny", "--warm-start", "-1", "--output", str(output)])
    assert "--warm-start must be 0 or more moves (0 = none), got -1" in capsys.readouterr().err
    assert not output.exists()
    # control: a good setting reaches the work
    with pytest.raises(AssertionError, match="started its work"):
        study.run("animal_chain_tiny", iterations=1, steps=64, warm_start=0, output=output, quiet=True)


def test_exact_games_of_any_options_leave_nothing_behind(monkeypatch):
    monkeypatch.setattr(exact, "_CUSTOM_GAMES", {})
    names_before = set(vars(exact))
    first = exact.exact_game("kakurenbo_v1", num_players=3, max_steps=4)
    assert type(exact.exact_game("kakurenbo_v1", max_steps=4, num_players=3)) is type(first)  # one class per options
    for steps in range(5, 5 + exact.CUSTOM_GAMES_SIZE + 20):
        game = exact.exact_game("kakurenbo_v1", num_players=3, max_steps=steps)
        assert game.get_parameters()["max_steps"] == steps
    assert len(exact._CUSTOM_GAMES) == exact.CUSTOM_GAMES_SIZE  # the first ones kept, no more
    assert set(vars(exact)) == names_before  # no class left in the module for each call (it cannot pickle anyway)


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_our_best_response_matches_openspiels_against_a_mixed_policy(game_name):
    """Against a seeded random, non-uniform mixed policy our best response value equals OpenSpiel's for both
    players: each information state weighs its histories by how likely the others' play makes them."""
    from open_spiel.python.algorithms import best_response

    game = pyspiel.load_game(game_name)
    policy = pyspiel_policy.TabularPolicy(game)
    rng = np.random.default_rng(0)
    for row, legal in zip(policy.action_probability_array, policy.legal_actions_mask.astype(bool)):
        weights = rng.random(legal.sum()) ** 3  # far from uniform
        row[:] = 0.0
        row[legal] = weights / weights.sum()
    for player in (0, 1):
        theirs = best_response.BestResponsePolicy(game, player, policy).value(game.new_initial_state())
        assert exact.best_response_value(game, policy, player) == pytest.approx(theirs, abs=1e-9)
