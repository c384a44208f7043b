"""An agent's context takes its options from the env (``AgentContext.from_env``): given none, it read ``{}``, so
``pretrained`` in a Kurayami env loaded the Kakurenbo variant's bot and played it there without a word (the two
variants' observations have the same size); a policy loaded without a context, fed another table's observations,
failed in numpy's words."""

import numpy as np
import pytest

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.policy import PolicyFileError, load
from kakurega.agents.pretrained import find
from kakurega.agents.specs import make_agent
from kakurega.envs import make


def test_a_context_without_options_takes_the_envs_and_pretrained_loads_their_bot():
    env = make("kakurenbo_v1", variant="kurayami", num_players=4)
    context = AgentContext.from_env(env, "kakurenbo_v1")
    assert context.env_kwargs == {"variant": "kurayami"}  # num_players 4 is the default
    bot = make_agent("pretrained", context, 0)
    assert bot.metadata["env_options"]["variant"] == "kurayami"
    kakurenbo = find("kakurenbo_v1", {"num_players": 4})
    assert load(kakurenbo).metadata["env_options"]["variant"] == "kakurenbo"  # the file it used to load
    env.reset(seed=1)
    observation, *_ = env.last()
    assert observation["action_mask"][choose_action(bot, env, env.agent_selection, observation)]


def test_options_other_than_the_envs_or_another_env_name_are_refused():
    env = make("kakurenbo_v1", variant="kurayami", num_players=4)
    with pytest.raises(ValueError, match=r"env_kwargs are not the options kakurenbo_v1 was made with \(variant: "
                                         r"given 'kakurenbo', env 'kurayami'\)"):
        AgentContext.from_env(env, "kakurenbo_v1", {})
    with pytest.raises(ValueError, match=r"the env is kakurenbo_v1, not 'kakurenbo_v0'"):
        AgentContext.from_env(env, "kakurenbo_v0")
    same = AgentContext.from_env(env, "kakurenbo_v1", {"variant": "kurayami", "num_players": 4})  # the control
    assert same.env_kwargs == {"variant": "kurayami", "num_players": 4}


def test_a_policy_loaded_without_a_context_says_which_table_it_was_trained_for():
    policy = load(find("kakurenbo_v1", {"num_players": 3}))  # no context: the file's own env
    env = make("kakurenbo_v1", num_players=4)
    env.reset(seed=0)
    observation, *_ = env.last()
    with pytest.raises(PolicyFileError, match=r"trained on kakurenbo_v1 .*'num_players': 3.*whose observations hold "
                                              r"134 numbers; this one holds 165\. Load it with the env's context"):
        policy.act(observation)
    three = make("kakurenbo_v1", num_players=3)
    three.reset(seed=0)
    observation, *_ = three.last()
    assert observation["action_mask"][policy.act(observation)]  # the control: its own table
    assert np.asarray(observation["observation"]).shape == (134,)
