"""IS-MCTS agent: decisions in tiny known positions, legal full games in every env,
determinism, no peeking at the true state, the spec kind, a smoke tournament;
the greedy rollout policies (legal moves over random and greedy-play states of
every configuration, and each policy's main rule), the greedy prior and
progressive widening."""

from __future__ import annotations

import re

import numpy as np
import pytest
import toy_game
from conformance import registry_cases, rollout_cases

from kakurega.agents.base import Agent, AgentContext, RandomAgent, choose_action
from kakurega.agents.ismcts import ISMCTSAgent
from kakurega.agents.specs import load_rollout_policy, make_agent
from kakurega.envs import ENV_SPECS, make
from kakurega.envs.core.aec import TurnBasedAECEnv, wrap
from kakurega.envs.core.game import TERMINAL, Game
from kakurega.envs.registry import latest_envs

CASES = registry_cases()
#: the configurations of every env whose registry entry names a greedy rollout policy
ROLLOUT_CASES = [case for case in CASES if ENV_SPECS[case.values[0]].rollout]
DEFAULT_CASES = [pytest.param(name, {}, id=name) for name in ENV_SPECS]
#: one short configuration per env that pays at its end (``EnvSpec.search_config``; e.g. one
#: Hidden Rooms round instead of a match)
SHORT_CASES = [pytest.param(name, spec.search_config, id=name) for name, spec in ENV_SPECS.items()]
#: leak test cases: env, options, search options, check every k-th step. Rollouts are cut
#: after 25 steps and scored by the returns so far, so that they tell moves apart even where
#: random play to the end almost always scores alike (a Hidden Rooms round: caught).
LEAK_CASES = [
    pytest.param(name, spec.search_config, {"simulations": 30, "max_rollout_depth": 25}, 3, id=name)
    for name, spec in ENV_SPECS.items()
] + [
    # the greedy rollouts and prior read the determinized state: they must see only the sampler's worlds
    pytest.param(
        name, spec.search_config, {"simulations": 30, "rollout": "greedy", "prior": "greedy", "bias": 1.0, "widen": 1.0},
        3, id=f"{name}-greedy",
    )
    for name, spec in ENV_SPECS.items()
    if spec.rollout
] + [
    # a policy network's prior and value read the acting seat's observation of each determinization
    pytest.param(name, ENV_SPECS[name].search_config, {"simulations": 30, "prior": "NETWORK"}, 3, id=f"{name}-network")
    for name in latest_envs()
]


def context_of(env, name, config=None):
    return AgentContext.from_env(env, name, config or {})


def play(env, agents: dict, seed: int, max_decisions: int | None = None):
    """Play through the AEC loop; every chosen action must be legal. Returns the action list."""
    env.reset(seed=seed)
    for agent in agents.values():
        agent.reset()
    actions = []
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if max_decisions is not None and len(actions) >= max_decisions:
            break
        action = choose_action(agents[name], env, name, observation)
        assert observation["action_mask"][action], f"{name} chose illegal action {action}"
        actions.append(action)
        env.step(action)
    return actions


def play_games(env, agents: dict, seed: int, decisions: int) -> list:
    """``play`` of the games dealt from ``seed`` on until ``decisions`` actions (a short game takes several)."""
    actions = []
    while len(actions) < decisions:
        actions += play(env, agents, seed=seed, max_decisions=decisions - len(actions))
        seed += 1
    return actions


# --------------------------------------------------------- tiny known positions
class TrustGame(Game):
    """Three seats, perfect information but for a useless secret; tests max^n and chance.

    Seat 0 chooses: 0 "safe" (ends, returns 0.5/0/0); 1 "trust" (seat 1 then
    chooses 0 "share": 1/-1/0, or 1 "betray": -1/1/0); 2 "gamble on a six"
    (a die in apply_action, 1 on a six, else 0: worth 1/6); 3 "gamble on 3+"
    (1 on 3..6, else 0: worth 2/3). Max^n play: seat 1 betrays, so seat 0's
    best is "gamble on 3+" and, without that option, "safe".
    """

    name = "trust"
    num_players = 3
    num_actions = 4

    def __init__(self, choices=(0, 1, 2, 3)):
        self.choices = list(choices)
        self.options = {"choices": choices}

    def initial_state(self, rng):
        return {"history": [], "payoff": None, "secret": int(rng.integers(10))}

    def current_player(self, state):
        if state["payoff"] is not None:
            return TERMINAL
        return len(state["history"])

    def legal_actions(self, state):
        if state["payoff"] is not None:
            return []
        return self.choices if not state["history"] else [0, 1]

    def apply_action(self, state, action, rng):
        state["history"].append(action)
        if len(state["history"]) == 2:
            state["payoff"] = [1.0, -1.0, 0.0] if action == 0 else [-1.0, 1.0, 0.0]
        elif action == 0:
            state["payoff"] = [0.5, 0.0, 0.0]
        elif action >= 2:
            roll = int(rng.integers(1, 7))
            state["payoff"] = [float(roll >= (6 if action == 2 else 3)), 0.0, 0.0]

    def is_terminal(self, state):
        return state["payoff"] is not None

    def returns(self, state):
        return np.array(state["payoff"] or [0.0, 0.0, 0.0])

    def action_to_string(self, state, action):
        return str(action)

    def resample_hidden(self, state, player, rng):
        clone = self.clone(state)
        clone["secret"] = int(rng.integers(10))
        return clone


def decide(game, state, simulations=300, seed=0, c=0.7):
    context = AgentContext(env_name="test", num_actions=game.num_actions, num_players=game.num_players, rules=game.rules_config())
    seat = game.current_player(state)
    agent = ISMCTSAgent(context, seed, simulations=simulations, c=c, encode=lambda s, p: np.zeros(1))
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    sampler = lambda rng: game.resample_hidden(state, seat, rng)  # noqa: E731
    return agent.act({"observation": np.zeros(1), "action_mask": mask}, sampler)


@pytest.mark.parametrize(
    "options,expected,why",
    [
        ((0, 1), 0, "seat 1 maximises its own return and betrays, so trusting is worth -1 < 0.5"),
        ((0, 1, 2), 0, "a six pays 1/6 < 0.5: chance is sampled inside the simulations"),
        ((0, 1, 2, 3), 3, "3+ pays 2/3 > 0.5"),
        ((1, 2), 2, "1/6 beats a betrayal"),
    ],
)
def test_max_n_and_chance_decisions(options, expected, why):
    game = TrustGame(options)
    state = game.initial_state(np.random.default_rng(0))
    assert decide(game, state) == expected, why


@pytest.mark.parametrize(
    "total,turn,good",
    [
        (8, 0, {0}),  # add 1 -> 9: the next player must bust; add 2 or 3 busts now
        (8, 1, {0}),
        (6, 2, {1, 2}),  # add 3 -> 9 forces the next bust; add 2 -> 8 lets the next player force it on the one after
    ],
)
def test_toy_positions(total, turn, good):
    game = toy_game.ToyGame()
    state = toy_game.ToyState([1, 2, 3])
    state.total, state.turn = total, turn
    assert decide(game, state, simulations=400) in good


def test_heuristic_gets_the_acting_seats_view_and_leads_expansion():
    """With bias the heuristic's move is expanded first; rollouts ask the heuristic of the seat to move."""
    seen = []

    class LastLegal(Agent):
        def act(self, observation, sampler=None):
            seen.append(int(observation["observation"][0]))
            return int(np.flatnonzero(observation["action_mask"])[-1])

    game = TrustGame((0, 1))
    state = game.initial_state(np.random.default_rng(0))
    context = AgentContext(env_name="test", num_actions=4, num_players=3, rules=game.rules_config())
    agent = ISMCTSAgent(
        context, 0, simulations=1, rollout="heuristic", bias=1.0,
        encode=lambda s, seat: np.array([seat], dtype=np.float32), heuristic_factory=LastLegal,
    )
    mask = np.array([1, 1, 0, 0], np.int8)
    sampler = lambda rng: game.resample_hidden(state, 0, rng)  # noqa: E731
    action = agent.act({"observation": np.zeros(1), "action_mask": mask}, sampler)
    assert action == 1, "one simulation: only the heuristic's move (trust) was expanded"
    assert seen == [0, 1, 0], (
        "seat 0's heuristic hinted at the root, seat 1's played the rollout, "
        "seat 0's was asked again on the agent's own observation to break ties between root moves"
    )


def test_single_legal_action_needs_no_search():
    game = TrustGame((2,))
    context = AgentContext(env_name="test", num_actions=4, num_players=3, rules=game.rules_config())
    agent = ISMCTSAgent(context, 0, simulations=50, encode=lambda s, p: np.zeros(1))

    def sampler(rng):
        raise AssertionError("searched although only one action was legal")

    assert agent.act({"observation": np.zeros(1), "action_mask": np.array([0, 0, 1, 0], np.int8)}, sampler) == 2


def test_sampler_for_another_turn_is_refused():
    game = TrustGame()
    state = game.initial_state(np.random.default_rng(0))
    context = AgentContext(env_name="test", num_actions=4, num_players=3, rules=game.rules_config())
    agent = ISMCTSAgent(context, 0, simulations=5, encode=lambda s, p: np.zeros(1))
    with pytest.raises(ValueError, match="sampler"):
        agent.act({"observation": np.zeros(1), "action_mask": np.array([1, 1, 0, 0], np.int8)})
    with pytest.raises(RuntimeError, match="not for this agent's current turn"):
        agent.act(
            {"observation": np.zeros(1), "action_mask": np.array([1, 1, 0, 0], np.int8)},
            lambda rng: game.resample_hidden(state, 0, rng),
        )


# ------------------------------------------------------------ every env
@pytest.mark.parametrize("name,config", CASES)
def test_plays_full_legal_games(name, config):
    """Search agents (random rollouts) at every seat of one full game."""
    env = make(name, **config)
    context = context_of(env, name, config)
    agents = {agent: ISMCTSAgent(context, seat, simulations=8) for seat, agent in enumerate(env.possible_agents)}
    actions = play(env, agents, seed=1)
    assert actions and not env.agents, "the game did not finish"


@pytest.mark.parametrize("name,config", DEFAULT_CASES)
def test_heuristic_rollouts_in_solo_or_first_seat(name, config):
    env = make(name, **config)
    context = context_of(env, name, config)
    agents = {agent: RandomAgent(context, seat) for seat, agent in enumerate(env.possible_agents)}
    agents["player_0"] = ISMCTSAgent(context, 0, simulations=4, rollout="heuristic", max_rollout_depth=20)
    assert play(env, agents, seed=2, max_decisions=12)


@pytest.mark.parametrize("name,config", DEFAULT_CASES)
def test_deterministic_under_a_fixed_seed(name, config):
    def run(agent_seed):
        env = make(name, **config)
        context = context_of(env, name, config)
        agents = {
            agent: ISMCTSAgent(context, agent_seed + seat, simulations=12)
            for seat, agent in enumerate(env.possible_agents)
        }
        return play_games(env, agents, seed=4, decisions=25)

    assert run(3) == run(3)


@pytest.mark.parametrize("name,config,options,stride", LEAK_CASES)
def test_choices_ignore_the_hidden_part_of_the_true_state(name, config, options, stride, tmp_path):
    """Re-dealing what the acting player cannot see changes nothing it does.

    At several points of a random game the acting seat's true state is replaced
    by ``resample_hidden`` (its observation stays the same); a fresh agent with
    the same seed must choose the same action. As a control, a search handed
    the true state (perfect information) does change its choice somewhere, so
    the test could catch an agent that reads hidden information.
    """
    if options.get("prior") == "NETWORK":
        from test_search_prior import network_file

        options = dict(options, prior=f"policy:{network_file(tmp_path / 'net.safetensors', name, config)}")
    env = make(name, **config)
    raw = env.unwrapped
    game = raw.game
    context = context_of(env, name, config)
    rng = np.random.default_rng(5)
    checked = redealt = control_changed = 0
    games = 0
    # a short game has few decisions with a choice: deal more games until three are checked and the control has
    # changed its choice (at most the eight checks of one long game)
    while (checked < 3 or not control_changed) and checked < 8 and games < 20:
        env.reset(seed=5 + games)
        games += 1
        for step, agent_name in enumerate(env.agent_iter()):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            if step % stride == 1 and len(legal) > 1 and checked < 8:
                seat = raw.possible_agents.index(agent_name)
                true_state = raw.game_state
                before = game.fingerprint(true_state)
                sampler = raw.determinization_sampler(agent_name)
                probe = game.fingerprint(sampler(np.random.default_rng(0)))
                choice = ISMCTSAgent(context, 17, **options).act(observation, sampler)
                control = ISMCTSAgent(context, 17, **options).act(observation, lambda r, state=true_state: game.clone(state))
                assert game.fingerprint(raw.game_state) == before, "the search changed the env's state"
                assert game.fingerprint(sampler(np.random.default_rng(0))) == probe, "the search changed the sampler"
                for k in range(3):
                    raw.game_state = game.resample_hidden(true_state, seat, np.random.default_rng(100 * step + k))
                    redealt += game.fingerprint(raw.game_state) != before
                    seen = {"observation": raw.encode(raw.game_state, seat), "action_mask": observation["action_mask"]}
                    assert np.array_equal(seen["observation"], observation["observation"])
                    assert choose_action(ISMCTSAgent(context, 17, **options), env, agent_name, seen) == choice
                    redealt_state = raw.game_state
                    control_changed += (
                        ISMCTSAgent(context, 17, **options).act(seen, lambda r, state=redealt_state: game.clone(state)) != control
                    )
                raw.game_state = true_state
                checked += 1
            env.step(int(rng.choice(legal)))
    assert checked >= 3, f"only {checked} decisions with a choice were checked in {games} games"
    assert redealt > 0, "resample_hidden never changed the state: the test would be vacuous"
    assert control_changed > 0, "a search reading the true state never changed its choice: the test has no power"


# ------------------------------------------------------------ spec and tournament
def search_page_options(text: str) -> dict[str, str]:
    """``{option: default as written}`` of docs/search.md's table of the spec's options."""
    section = text.split("## Options (spec `ismcts:key=value,...`)", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.M))


def option_table_errors(rows: dict[str, str]) -> list[str]:
    """Where the page's table and the spec kind disagree: an option one of them lacks (``max_rollout_depth`` is
    ``depth``'s other spelling), or a default other than the agent's (``leaf`` and ``seed`` depend on the run)."""
    import inspect

    from kakurega.agents.ismcts import _OPTIONS

    defaults = {name: parameter.default for name, parameter in inspect.signature(ISMCTSAgent).parameters.items()}
    options = set(_OPTIONS) - {"max_rollout_depth"}
    errors = [f"the page lacks {name}" for name in sorted(options - set(rows))]
    errors += [f"the spec has no option {name}" for name in sorted(set(rows) - options)]
    for name in sorted(set(rows) & options):
        default, written = defaults.get(_OPTIONS[name][0]), rows[name].strip().strip("`")
        if default is not None and (written != default if isinstance(default, str) else float(written) != default):
            errors.append(f"{name}: the page says {written}, the agent {default!r}")
    return errors


def test_the_search_page_s_option_table_is_the_spec_kind_s():
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "search.md").read_text(encoding="utf-8")
    rows = search_page_options(page)
    assert len(rows) >= 9, rows
    assert option_table_errors(rows) == []
    wrong = {**rows, "c": "1.4", "budget": "3"}
    del wrong["widen"]
    assert option_table_errors(wrong) == [  # the control
        "the page lacks widen", "the spec has no option budget", "c: the page says 1.4, the agent 0.7"]


def test_spec_kind():
    env = make("animal_chain_v0")
    context = context_of(env, "animal_chain_v0")
    agent = make_agent("ismcts:simulations=7,c=1.4,rollout=heuristic,depth=10,seed=3", context, seed=99)
    assert isinstance(agent, ISMCTSAgent)
    assert (agent.simulations, agent.c, agent.rollout, agent.max_rollout_depth) == (7, 1.4, "heuristic", 10)
    same = ISMCTSAgent(context, 3, simulations=7)
    assert agent.rng.integers(1 << 30) == same.rng.integers(1 << 30), "seed=3 in the spec must override the runner's"
    greedy = make_agent("ismcts:rollout=greedy,prior=greedy,bias=0.5,widen=1.5", context, seed=1)
    assert (greedy.rollout, greedy.prior, greedy.bias, greedy.widen) == ("greedy", "greedy", 0.5, 1.5)
    assert greedy._heuristics is None, "the greedy prior needs no heuristic player"
    for bad, message in [
        ("ismcts:rollout=greedy,widen=wide", "widen"),
        ("ismcts:prior=smart,bias=1", "prior must be"),
        ("ismcts:simulations=0", "simulations"),
        ("ismcts:simulations=many", "simulations"),
        ("ismcts:rollout=smart", "rollout"),
        ("ismcts:c=-1", "c must"),
        ("ismcts:budget=3", "unknown option"),
        ("ismcts:some/path", "argument"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, context)


def test_smoke_tournament_against_random():
    """Seat-rotated games of the toy game: search loses less often than random players do."""
    env = wrap(TurnBasedAECEnv(toy_game.ToyGame(), toy_game.LAYOUT, toy_game.encode, toy_game.render_text))
    context = context_of(env, "toy")  # an env of no name, outside the registry
    losses = games = 0
    for deal in range(20):
        for seat in range(3):
            agents = {agent: RandomAgent(context, 100 * deal + i) for i, agent in enumerate(env.possible_agents)}
            agents[env.possible_agents[seat]] = ISMCTSAgent(context, deal, simulations=60)
            play(env, agents, seed=deal)
            losses += env.unwrapped._returns[seat] < 0
            games += 1
    # a random seat loses 1/3 of these games; search should lose clearly fewer
    assert losses / games < 0.2, f"search lost {losses}/{games} games"


def test_bad_arguments():
    context = AgentContext(env_name="test", num_actions=4, num_players=3, rules=TrustGame().rules_config())
    for kwargs, message in [
        ({"simulations": 0}, "simulations"),
        ({"simulations": 2.5}, "simulations"),
        ({"c": -0.1}, "c must"),
        ({"rollout": "smart"}, "rollout must be one of random, greedy, heuristic"),
        # greedy rollouts come from the registry entry of the env: a game outside it has none
        ({"rollout": "greedy"}, "unknown env 'test'"),
        ({"bias": 1.0, "prior": "greedy"}, "unknown env 'test'"),
        ({"prior": "oracle"}, "prior must be one of heuristic, greedy"),
        ({"widen": -1}, "widen must"),
        ({"max_rollout_depth": -1}, "max_rollout_depth"),
    ]:
        with pytest.raises(ValueError, match=message):
            ISMCTSAgent(context, 0, encode=lambda s, p: None, **kwargs)


# ------------------------------------------------------------ greedy rollouts
@pytest.mark.parametrize("name,config", ROLLOUT_CASES)
def test_greedy_policy_returns_legal_actions(name, config):
    """Over random-play and greedy-play states of every configuration, every choice is legal."""
    checked = seed = 0
    while checked <= 50 and seed < 10:  # a short game gives few states a game: more games until 50 are checked
        for greedy_play in (False, True):
            for _game, _state, _seat, legal, action in rollout_cases(name, config, greedy_play, seed=seed):
                assert action in legal, f"{name} {config}: greedy chose {action}, legal {legal}"
                assert isinstance(action, int)
                checked += 1
        seed += 1
    assert checked > 50


def test_greedy_policy_of_an_env_without_one_names_the_envs_that_have_one(monkeypatch):
    import dataclasses

    from kakurega.envs import registry

    name = next(iter(ENV_SPECS))
    having = ", ".join(other for other, spec in ENV_SPECS.items() if spec.rollout and other != name)
    monkeypatch.setitem(registry.ENV_SPECS, name, dataclasses.replace(ENV_SPECS[name], rollout=""))
    with pytest.raises(ValueError, match=f"no greedy rollout policy for {name} .*; envs with one: {having} "):
        load_rollout_policy(name)


def test_every_registered_rollout_policy_loads():
    for name, spec in ENV_SPECS.items():
        if spec.rollout:
            assert callable(load_rollout_policy(name)), name


@pytest.mark.parametrize("name,config", SHORT_CASES)
def test_greedy_search_plays_legal_deterministic_games(name, config):
    """Greedy rollouts, greedy prior and widening: legal moves, and the same moves under the same seed."""
    if not ENV_SPECS[name].rollout:
        pytest.skip(f"{name}'s registry entry names no greedy rollout policy (it is optional)")
    options = {"simulations": 10, "rollout": "greedy", "prior": "greedy", "bias": 1.0, "widen": 1.0}

    def run():
        env = make(name, **config)
        context = context_of(env, name, config)
        agents = {agent: ISMCTSAgent(context, 7 + seat, **options) for seat, agent in enumerate(env.possible_agents)}
        return play_games(env, agents, seed=6, decisions=30)

    first = run()
    assert first and first == run()


def _summer_at_a_placement(after_announcement: bool = False):
    """A seeded Summer game played on at random to a seekers' turn (56 squares to place a piece on).

    Returns ``(env, context, agent_name, observation)``; with ``after_announcement``
    the child has announced at least once (so the public belief is narrowed).
    """
    env = make("summer_hide_and_seek_v0")
    context = context_of(env, "summer_hide_and_seek_v0")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while True:
        name = env.agent_selection
        observation = env.observe(name)
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) > 50 and (env.unwrapped.game_state.announcements or not after_announcement):
            return env, context, name, observation
        env.step(int(rng.choice(legal)))


def test_progressive_widening_bounds_the_root_children():
    """With widen=w the root holds at most about w * sqrt(visits) children; without it, every legal move."""
    env, context, name, observation = _summer_at_a_placement()
    for widen, most in [(0.0, 56), (1.0, 11), (2.0, 21)]:
        agent = ISMCTSAgent(context, 0, simulations=100, rollout="greedy", widen=widen)
        choose_action(agent, env, name, observation)
        children = len(agent.last_search["visits"])
        if widen:
            assert children <= most, f"widen={widen}: {children} root children after 100 simulations"
        else:
            assert children == most, "without widening every legal move is expanded first"


def test_greedy_prior_leads_the_expansion():
    """With the greedy prior (bias > 0), a seeker's few simulations go to squares of the public belief."""
    env, context, name, observation = _summer_at_a_placement(after_announcement=True)
    raw = env.unwrapped
    belief = raw.game_state.belief
    # 37 of 56 squares here: 8 uniform expansions would leave the belief with chance 1 - (37/56)^8 > 0.96
    assert bin(belief).count("1") <= raw.game.num_squares - 15, "the test wants squares outside the belief"
    agent = ISMCTSAgent(context, 0, simulations=8, rollout="greedy", prior="greedy", bias=1.0)
    choose_action(agent, env, name, observation)
    placed = [a - raw.game.place_base for a in agent.last_search["visits"]]
    assert placed and all(belief >> s & 1 for s in placed), "expanded outside the belief while belief squares were untried"


def test_strength_report_smoke(tmp_path):
    """The strength script runs end to end and rewrites only its own block of the doc."""
    from kakurega.scripts.strength_ismcts import main

    doc = tmp_path / "search.md"
    doc.write_text("# hand-written\n\nkept\n")
    args = ["--no-speed", "--config", "animal_chain_v0", "--deals", "1", "--budgets", "2",
            "--json", str(tmp_path / "report.json"), "--doc", str(doc)]
    assert main(args) == 0
    assert main(args) == 0
    text = doc.read_text()
    assert text.startswith("# hand-written\n\nkept\n")
    assert text.count("<!-- strength-animal_chain_v0:begin -->") == 1
    # no --options: the env's preset (greedy settings for Animal Chain) is used
    assert "| ismcts:simulations=2,rollout=greedy,prior=greedy,bias=1,widen=1 |" in text
    assert "**vs heuristic**" in text


def _search_with_tree(game, state, simulations, seed, c=0.7):
    """``decide``'s search, also returning the root of the search tree (read through a spy on each simulation)."""
    context = AgentContext(env_name="test", num_actions=game.num_actions, num_players=game.num_players, rules=game.rules_config())
    agent = ISMCTSAgent(context, seed, simulations=simulations, c=c, encode=lambda s, p: np.zeros(1))
    roots = []
    simulate = agent._simulate

    def spy(root, *args):
        roots.append(root)
        return simulate(root, *args)

    agent._simulate = spy
    seat = game.current_player(state)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    action = agent.act({"observation": np.zeros(1), "action_mask": mask}, lambda rng: game.resample_hidden(state, seat, rng))
    assert roots and all(root is roots[0] for root in roots)
    return agent, action, roots[0].children[seat]


def test_the_move_played_is_the_most_visited_root_child():
    """The move played has the most root visits (``last_search``), whatever the means of rarely visited moves;
    among equally visited moves it has the highest mean (the documented tie rule)."""
    game = TrustGame()
    state = game.initial_state(np.random.default_rng(0))
    for seed in range(20):  # few simulations: a lucky gamble tried once can have the highest mean
        agent, action, children = _search_with_tree(game, state, simulations=12, seed=seed, c=2.0)
        visits = agent.last_search["visits"]
        assert visits == {a: child.visits for a, child in children.items()}
        assert visits[action] == max(visits.values()), (seed, visits, action)
        tied = [a for a in visits if visits[a] == visits[action]]
        assert max(children[a].total / children[a].visits for a in tied) == children[action].total / visits[action]


def test_availability_counts_every_visit_where_the_move_was_legal():
    """SO-ISMCTS availability: a child counts each visit of its parent where its move was legal, chosen or not.
    At the root every determinization offers the same moves, so the first child expanded has been available in
    every simulation, every child at least as often as it was visited, and moves not chosen more often."""
    game = TrustGame()
    state = game.initial_state(np.random.default_rng(0))
    agent, _, children = _search_with_tree(game, state, simulations=60, seed=1)
    assert len(children) == 4
    assert max(child.availability for child in children.values()) == agent.last_search["simulations"] == 60
    assert all(child.availability >= child.visits for child in children.values())
    assert any(child.availability > child.visits for child in children.values())
    assert sum(child.visits for child in children.values()) == 60
