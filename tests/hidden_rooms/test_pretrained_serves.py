"""Hidden Rooms: the bot trained on single rounds serves whole matches (a policy file's ``serves``): the same
spaces piece by piece, and why (each round of a match is a new deal; docs/strength.md)."""

from __future__ import annotations

import pytest

from kakurega.agents.base import AgentContext
from kakurega.agents.pretrained import find


def test_where_no_bot_plays_the_words_say_which_options_have_one():
    with pytest.raises(ValueError) as error:
        find("hidden_rooms_v0", {"reward": "per_round"})  # the match file serves reward match only
    assert str(error.value) == ("no shipped bot for hidden_rooms_v0 with reward per_round; reward match has one "
                                "(or choose heuristic)")


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
