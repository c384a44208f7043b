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
from kakurega.envs.registry import get_spec, latest_envs

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
    env = make("kakurenbo_v0", num_players=3, variant="kurayami", max_steps=17)
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
    # a data file option left at its default is named as the default, not as None
    with pytest.raises(ValueError) as error:
        find("animal_chain_v1", {"deck": "small/animal_chain_deck_12_1.yaml"})
    assert str(error.value) == ("no shipped bot for animal_chain_v1 with deck small/animal_chain_deck_12_1.yaml; the "
                                "default deck has one (or choose heuristic)")


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


#: every registered configuration of the newest version of each game: a person may pick any of them
PLAYED = [(name, options) for name in latest_envs() for options in get_spec(name).configurations]


@pytest.mark.parametrize("env_name,options", PLAYED, ids=[file_name(*case)[:-12] for case in PLAYED])
def test_pretrained_plays_every_registered_configuration_of_the_newest_versions(env_name, options):
    env = make(env_name, **options)
    context = AgentContext.from_env(env, env_name, options)
    bot = make_agent("pretrained", context, seed=0)  # a bot trained for it, or one whose file serves it
    env.reset(seed=0)
    for name in env.agent_iter(50):  # it plays this configuration's legal moves
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else choose_action(bot, env, name, observation)
        assert action is None or observation["action_mask"][action]
        env.step(action)


def test_where_no_bot_plays_the_words_say_which_options_have_one():
    with pytest.raises(ValueError, match=r"^no shipped bot for animal_chain_v0; shipped bots play animal_chain_v1, "):
        find("animal_chain_v0", {"attack_rule": "reach"})
