"""Shipped bots: every file in agents/pretrained loads through the spec ``pretrained`` in the
configuration it was trained for, is small, plays legal moves without torch, and a configuration
without a bot gets a message in words naming the options that have one."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.pretrained import file_name, find, shipped
from kakurega.agents.specs import make_agent
from kakurega.envs import make
from kakurega.envs.registry import get_spec

SHIPPED = [pytest.param(path, meta, id=path.name) for path, meta in shipped()]


def _non_default_options(meta):
    from kakurega.agents.policy import resolved_env_options

    defaults = resolved_env_options(meta["env"], {})
    return {k: v for k, v in meta["env_options"].items() if defaults.get(k) != v}


@pytest.mark.parametrize("path,meta", SHIPPED)
def test_a_shipped_bot_loads_as_pretrained_and_plays_legal_games(path, meta):
    options = _non_default_options(meta)
    # "a few hundred KiB" each: the shipped files store int8 weights (train_bots.install_bot)
    assert path.stat().st_size < 500 * 1024, f"{path.name} is {path.stat().st_size // 1024} KiB"
    assert find(meta["env"], options) == path
    assert path.name.startswith(meta["env"] + "-") or path.name == file_name(meta["env"])
    env = make(meta["env"], **options)
    context = AgentContext.from_env(env, meta["env"], options)
    agents = {name: make_agent("pretrained", context, seat) for seat, name in enumerate(env.possible_agents)}
    env.reset(seed=0)
    moves = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose_action(agents[name], env, name, observation)
        assert observation["action_mask"][action]
        env.step(action)
        moves += 1
    assert moves > 0


def test_a_configuration_without_a_bot_says_in_words_which_options_have_one():
    env = make("kakurenbo_v0", num_players=3, variant="kurayami")
    context = AgentContext.from_env(env, "kakurenbo_v0", {"num_players": 3, "variant": "kurayami", "max_steps": 17})
    with pytest.raises(ValueError) as error:
        make_agent("pretrained", context)
    assert str(error.value) == ("no shipped bot for kakurenbo_v0 with max_steps 17, 3 players; max_steps 200, "
                                "4 players has one (or choose heuristic)")
    with pytest.raises(ValueError) as error:
        find("kakurenbo_v0", {"num_players": 3})
    assert str(error.value) == "no shipped bot for kakurenbo_v0 with 3 players; 4 players has one (or choose heuristic)"
    with pytest.raises(ValueError, match=r"^no shipped bot for animal_chain_v0; shipped bots play animal_chain_v1, "):
        find("animal_chain_v0")


def test_the_default_opponent_is_the_shipped_bot_exactly_where_one_is_shipped():
    from kakurega.agents.policy import resolved_env_options, served_options
    from kakurega.agents.pretrained import default_opponent, shipped
    from kakurega.envs.registry import ENV_SPECS

    with_bot = {(meta["env"], json.dumps(options, sort_keys=True)) for _, meta in shipped() for options in served_options(meta)}
    seen = 0
    for name, spec in ENV_SPECS.items():
        for config in spec.configurations:
            key = (name, json.dumps(resolved_env_options(name, config), sort_keys=True))
            expected = "pretrained" if key in with_bot else "heuristic"
            assert default_opponent(name, config) == expected, (name, config)
            seen += expected == "pretrained"
    assert seen == len(with_bot)  # every configuration a shipped bot plays or serves is a tested one


def test_bad_pretrained_specs_are_refused():
    context = AgentContext.from_env(make("animal_chain_v0"), "animal_chain_v0", {})
    with pytest.raises(ValueError, match="takes no path"):
        make_agent("pretrained:some/file.safetensors", context)
    with pytest.raises(ValueError, match="unknown option"):
        make_agent("pretrained:greedy=1", context)


def test_playing_a_shipped_bot_needs_no_torch():
    if not shipped():
        pytest.skip("no bot shipped")
    for path, meta in shipped():  # every file, the ones that read move features too
        code = (
            "import sys; sys.modules['torch'] = None\n"
            "from kakurega.agents.policy import load\n"
            "from kakurega.envs import make\n"
            f"bot = load({str(path)!r})\n"
            f"env = make({meta['env']!r}, **{meta['env_options']!r})\n"
            "env.reset(seed=0)\n"
            "print(bot.act(env.observe(env.agent_selection)))\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert 0 <= int(out.stdout.strip()) < meta["num_actions"], path.name


#: registered configurations of Animal Chain v1 and Hidden Rooms that ship no bot, and why `pretrained` says so
WITHOUT_BOT = {
    ("animal_chain_v1", "connection_rule=any"): "no shipped bot for animal_chain_v1 with connection_rule any; "
    "connection_rule chain has one (or choose heuristic)",
}
PLAYED = [(name, options) for name in ("animal_chain_v1", "hidden_rooms_v0")
          for options in get_spec(name).configurations]


@pytest.mark.parametrize("env_name,options", PLAYED, ids=[file_name(*case)[:-12] for case in PLAYED])
def test_pretrained_plays_every_registered_configuration_of_animal_chain_and_hidden_rooms(env_name, options):
    env = make(env_name, **options)
    context = AgentContext.from_env(env, env_name, options)
    words = WITHOUT_BOT.get((env_name, ",".join(f"{k}={v}" for k, v in options.items())))
    if words is not None:
        with pytest.raises(ValueError) as error:
            make_agent("pretrained", context, seed=0)
        assert str(error.value) == words
        return
    bot = make_agent("pretrained", context, seed=0)
    env.reset(seed=0)
    for name in env.agent_iter(50):  # it plays this configuration's legal moves
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else choose_action(bot, env, name, observation)
        assert action is None or observation["action_mask"][action]
        env.step(action)


def test_where_no_bot_plays_the_words_say_which_options_have_one():
    with pytest.raises(ValueError) as error:
        find("hidden_rooms_v0", {"reward": "per_round"})  # the match file serves reward match only
    assert str(error.value) == ("no shipped bot for hidden_rooms_v0 with reward per_round; reward match has one "
                                "(or choose heuristic)")
    with pytest.raises(ValueError, match=r"^no shipped bot for animal_chain_v0; shipped bots play animal_chain_v1, "):
        find("animal_chain_v0", {"attack_rule": "reach"})


def test_the_hidden_rooms_round_bot_serves_matches_with_the_same_weights():
    from kakurega.agents.policy import read_policy, resolved_env_options

    round_file = find("hidden_rooms_v0", {"episode": "round"})
    assert find("hidden_rooms_v0") == round_file  # no match file: the round file serves matches
    meta = read_policy(round_file)[0]
    assert meta["env_options"]["episode"] == "round"
    assert meta["serves"] == [resolved_env_options("hidden_rooms_v0", {"episode": "match"})]


def _with_serves(tmp_path, serves):
    from kakurega.agents.policy import read_policy, save_policy

    meta, layers, value_layers = read_policy(find("hidden_rooms_v0", {"episode": "round"}), with_value=True)
    return save_policy(tmp_path / "bot.safetensors", layers, {**meta, "serves": serves}, value_layers=value_layers)


def test_a_served_configuration_loads_only_with_the_trained_spaces(tmp_path):
    from kakurega.agents.policy import PolicyFileError, context_for, load, resolved_env_options
    from kakurega.envs.core.layout import ObservationLayout

    match = resolved_env_options("hidden_rooms_v0", {})
    path = _with_serves(tmp_path, [match])
    context = context_for("hidden_rooms_v0", {})
    assert load(path, context=context).metadata["serves"] == [match]  # control: the same spaces load
    pieces = [(p.name, p.shape) for p in context.layout.pieces.values()]
    pieces[-2:] = [("fails", (1,)), ("escapes", (1,))]  # the same size, two pieces swapped
    swapped = AgentContext("hidden_rooms_v0", {}, ObservationLayout(pieces), context.num_actions, context.num_players)
    with pytest.raises(PolicyFileError) as error:
        load(path, context=swapped)
    assert str(error.value).endswith("but that configuration's spaces differ from the trained one's: observation "
                                     "pieces escapes, fails differ (size 560 -> 560)")
    with pytest.raises(PolicyFileError, match=r"option episode: policy 'round', env 'match'"):
        load(_with_serves(tmp_path, []), context=context)  # control: without serves a match is refused


@pytest.mark.parametrize("serves", ["match", [["episode", "match"]], [{"episode": "round", "booklet": None,
                                                                       "max_turns": 60, "reward": "match",
                                                                       "shaping": 0.0}]])
def test_a_bad_serves_field_is_refused_naming_it(tmp_path, serves):
    from kakurega.agents.policy import PolicyFileError, read_policy

    with pytest.raises(PolicyFileError, match=r"metadata field serves = .*; expected a list of at most 64 mappings "
                                              r"of env options, each other than env_options"):
        read_policy(_with_serves(tmp_path, serves))
