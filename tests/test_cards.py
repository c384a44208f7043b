"""Every env module is one declaration: its name, options, generated card tables and option checks."""

import inspect

import pytest

from kakurega.envs.core.definition import EnvDefinition
from kakurega.envs.core.options import Option, check
from kakurega.envs.registry import ENV_SPECS, make
from kakurega.scripts import cards

NAMES = list(ENV_SPECS)


@pytest.mark.parametrize("name", NAMES)
def test_every_env_module_is_one_declaration_named_after_its_module(name):
    module = ENV_SPECS[name].load()
    definition = module.DEFINITION
    assert isinstance(definition, EnvDefinition) and definition.name == name
    assert module.raw_env.__module__ == module.__name__ and module.env.__module__ == module.__name__
    raw, wrapped = make(name, wrapped=False), make(name)
    assert raw.metadata["name"] == name and str(raw) == name
    assert str(wrapped) == f"StandardWrapper<{name}>" and wrapped.unwrapped.metadata["name"] == name
    assert type(raw).metadata.get("name") is None, "the name is the instance's, never shared by the class"


@pytest.mark.parametrize("name", NAMES)
def test_the_signature_the_options_and_the_policy_defaults_agree(name):
    from kakurega.agents.policy import resolved_env_options

    definition = ENV_SPECS[name].definition()
    parameters = inspect.signature(ENV_SPECS[name].load().raw_env).parameters
    assert list(parameters) == [o.name for o in definition.all_options]
    assert {k: p.default for k, p in parameters.items()} == {o.name: o.default for o in definition.all_options}
    raw = make(name, wrapped=False)
    assert raw.options == definition.defaults() == ENV_SPECS[name].option_defaults()
    assert set(resolved_env_options(name)) == set(definition.defaults())
    for option in definition.options:  # every default is a value the option itself accepts
        assert option.check(option.default) == option.default


@pytest.mark.parametrize("name", NAMES)
def test_unknown_options_are_refused_naming_them_and_the_options_there_are(name):
    with pytest.raises(TypeError, match=rf"{name} has no option 'colour'; its options are: .*render_view"):
        make(name, colour="red")


def test_the_generated_card_tables_are_up_to_date():
    assert cards.stale_cards() == [], f"run `{cards.COMMAND}`"


def test_a_stale_or_missing_table_is_caught():
    definition = ENV_SPECS["kakurenbo_v0"].definition()
    path, tables = cards.card_files()["kakurenbo_v0"]
    text = path.read_text(encoding="utf-8")
    assert cards.with_tables(text, tables, "card") == text
    old_row = "| ``num_players`` | an integer from 3 to 5 | ``4`` |"
    assert old_row in text
    stale = text.replace(old_row, "| ``num_players`` | an integer from 3 to 6 | ``4`` |")
    assert cards.with_tables(stale, tables, "card") == text  # rewriting restores it
    assert cards.with_tables(stale, tables, "card") != stale  # so the check sees the difference
    layout_row = "| `scores` | (4,) | 53..56 | 0..16 |"
    assert layout_row in text and layout_row in cards.generated_tables(definition)["observation"]
    with pytest.raises(ValueError, match="no generated observation table"):
        cards.with_tables(text.replace(cards.end_marker("observation"), ""), tables, "card")


CHECKS = [
    # option, value, error, message
    (Option("n", int, 2, "", low=1, high=3), 4, ValueError, "n must be an integer from 1 to 3, got 4"),
    (Option("n", int, 2, "", low=1, high=3), 2.0, TypeError, "n must be an integer from 1 to 3, got 2.0 of type float"),
    (Option("n", int, 2, "", low=1, high=3), True, TypeError, "got True of type bool"),
    (Option("x", float, 0.0, "", low=0, high=1), float("nan"), ValueError, "x must be a number in [0, 1], got nan"),
    (Option("x", float, 0.0, "", low=0, high=1), "0.5", TypeError, "got '0.5' of type str"),
    (Option("r", str, "a", "", choices=("a", "b")), "c", ValueError, "r must be 'a' or 'b', got 'c'"),
    (Option("r", str, "a", "", choices=("a", "b", "c")), 1, TypeError, "r must be one of 'a', 'b', 'c', got 1 of type int"),
    (Option("s", bool, False, ""), 1, TypeError, "s must be True or False, got 1 of type int"),
]


@pytest.mark.parametrize("option,value,error,message", CHECKS, ids=[repr(c[1]) for c in CHECKS])
def test_one_check_names_the_option_the_value_and_what_was_expected(option, value, error, message):
    with pytest.raises(error) as raised:
        option.check(value)
    assert message in str(raised.value)


def test_check_converts_numbers_and_fills_defaults():
    import numpy as np

    spec = (Option("n", int, 2, "", low=1, high=3), Option("x", float, 0.5, "", low=0, high=1))
    checked = check(spec, {"n": np.int64(3), "x": 1}, "demo")
    assert checked == {"n": 3, "x": 1.0} and type(checked["n"]) is int and type(checked["x"]) is float
    assert check(spec, {}, "demo") == {"n": 2, "x": 0.5}


def test_a_game_built_directly_refuses_what_its_env_refuses_in_the_same_words():
    from kakurega.envs.kakurenbo.rules import KakurenboGame
    from kakurega.envs.summer_hide_and_seek.rules import SummerHideAndSeekGame

    for build in (lambda: KakurenboGame(num_players=6), lambda: make("kakurenbo_v0", num_players=6)):
        with pytest.raises(ValueError, match="num_players must be an integer from 3 to 5, got 6"):
            build()
    for build in (lambda: SummerHideAndSeekGame(num_players=5), lambda: make("summer_hide_and_seek_v1", num_players=5)):
        with pytest.raises(ValueError, match="num_players must be an integer from 2 to 4, got 5"):
            build()


@pytest.mark.parametrize("mode", ["rgb", 3])
def test_the_base_alone_judges_render_modes_whatever_their_type(mode):
    from kakurega.envs.core.aec import RenderModeError

    with pytest.raises(RenderModeError, match=r"is not supported; expected one of \["):
        make("kakurenbo_v0", render_mode=mode)
