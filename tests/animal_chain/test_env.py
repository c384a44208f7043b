"""The env module: options, spaces, bad arguments."""

import pytest

from kakurega.envs import make
from kakurega.envs.animal_chain.data import AnimalChainDataError
from kakurega.envs.animal_chain_v0 import env as make_env
from kakurega.envs.animal_chain_v0 import raw_env


def test_spaces_and_agents():
    env = make_env()
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.action_space("player_0").n == 30 * 4 + 1 + 30 * 37 + 1 + 37 == 1269
    assert env.observation_space("player_1")["observation"].shape == (env.unwrapped.layout.size,)
    assert env.agent_selection == "player_0"  # player 0 builds its base first


BAD_OPTIONS = [
    ({"max_turns": 0}, ValueError, "max_turns must be an integer from 1 to 100000, got 0"),
    ({"max_turns": 2.5}, TypeError, "max_turns must be an integer from 1 to 100000"),
    ({"max_turns": True}, TypeError, "max_turns must be an integer from 1 to 100000"),
    ({"deck": 42}, TypeError, "deck must be a path to a YAML/JSON file"),
    ({"shape": ["rows"]}, TypeError, "shape must be a path"),
    ({"deck": "no/such/deck.yaml"}, AnimalChainDataError, "no/such/deck.yaml: cannot read the deck file: no such file"),
    ({"shape": {"rows": [2, 3, 4]}}, AnimalChainDataError, "look the same from both sides"),
    ({"render_mode": "rgb"}, ValueError, "render_mode='rgb' is not supported"),
    ({"render_view": "player_2"}, ValueError, "render_view='player_2' is not an agent"),
    ({"variant": "x"}, TypeError, "variant"),
]


@pytest.mark.parametrize("options,error,message", BAD_OPTIONS, ids=[str(o[0]) for o in BAD_OPTIONS])
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        raw_env(**options)


def test_registry_and_options():
    env = make("animal_chain_v0", max_turns=50)
    assert env.unwrapped.game.max_turns == 50
    assert make("kakurega/animal_chain-v0", wrapped=False).game.num_positions == 37


def test_the_env_cards_worked_examples():
    from animal_chain.scenario import GAME, card, pos

    assert [GAME.deck.type_label(t) for t in (0, 1, 5, 6, 10, 15, 20, 25, 29)] == [
        "Dg|Ct", "Dg|Rb", "Ct|Dg", "Ct|Rb", "Rb|Dg", "Br|Dg", "Pg|Dg", "Fx|Dg", "Fx|Pg"]
    assert GAME.swap_action(0, card("Ct|Dg"), 2) == 22
    assert GAME.done_action == 120
    assert GAME.play_action(0, card("Dg|Rb"), pos("r3c3")) == 176
    assert GAME.play_action(1, card("Dg|Ct"), pos("r3c2")) == 325
    assert GAME.swap_action(1, card("Pg|Fx"), 0) == 116
    assert GAME.decode(1, 116) == ("swap", card("Pg|Fx"), 0) and GAME.own_base_in_frame[1][0] == pos("r6c3")
    assert GAME.pass_action == 1231
    assert GAME.take_action(0, pos("r2c4")) == 1245 and GAME.take_action(1, pos("r4c1")) == 1245
    assert [pos(f"r{r}c0") for r in range(7)] == [0, 4, 9, 15, 22, 28, 33]


def test_the_env_card_shows_the_current_observation_layout():
    import kakurega.envs.animal_chain_v0 as module

    env = raw_env()
    assert env.layout.markdown_table() in module.__doc__
    assert f"Box(0, high, ({env.layout.size},), float32)" in module.__doc__
    assert f"Discrete({env.game.num_actions})" in module.__doc__


def test_v1_is_registered_with_its_card_next_to_v0():
    import kakurega.envs.animal_chain_v1 as module

    raw = make("kakurega/animal_chain-v1", wrapped=False, attack_rule="reach")
    assert raw.metadata["name"] == "animal_chain_v1" and raw.game.attack_rule == "reach"
    assert (raw.game.connection_rule, raw.game.building) == ("chain", "per_position")
    assert make("animal_chain_v0", wrapped=False).game.options["building"] == "free"
    assert raw.layout.markdown_table() in module.__doc__
    assert f"Box(0, high, ({raw.layout.size},), float32)" in module.__doc__
    assert f"Discrete({raw.game.num_actions})" in module.__doc__
    assert module.raw_env().game.num_actions == raw_env().game.num_actions  # the same action ids


@pytest.mark.parametrize("options,error,message", BAD_OPTIONS[:5], ids=[str(o[0]) for o in BAD_OPTIONS[:5]])
def test_v1_refuses_bad_options_like_v0(options, error, message):
    with pytest.raises(error, match=message):
        make("animal_chain_v1", wrapped=False, **options)
