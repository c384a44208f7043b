"""Animal Chain's data files (the deck and shape options): every bad path refused in words, at once;
no error ever quotes a file's content back."""

from __future__ import annotations

import pytest
from data_file_checks import (
    SECRET,
    check_a_path_that_is_no_regular_file_is_refused_at_once,
    check_an_error_never_quotes_a_files_content,
)

pytestmark = pytest.mark.faults

#: env, option, and the error class of that option's loader
FILE_OPTIONS = [
    ("animal_chain_v1", "deck", "kakurega.envs.animal_chain.data:AnimalChainDataError"),
    ("animal_chain_v1", "shape", "kakurega.envs.animal_chain.data:AnimalChainDataError"),
]


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path):
    check_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path)


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_an_error_never_quotes_a_files_content(env, option, error, tmp_path):
    check_an_error_never_quotes_a_files_content(env, option, tmp_path)


def test_the_same_data_given_as_a_mapping_is_quoted_control():
    """The check above can fail: data given in code (not read from a file) is quoted back."""
    from kakurega.envs.animal_chain.data import AnimalChainDataError, load_deck

    with pytest.raises(AnimalChainDataError, match=SECRET):
        load_deck({"animals": SECRET, "cards": []})


def test_an_animal_name_with_control_characters_is_refused_at_load(tmp_path, capsys):
    # animal names are printed by renders and move words, as labels are: an ESC in a deck never reaches a terminal
    from importlib import resources

    import yaml

    from kakurega.envs.animal_chain.data import DEFAULT_DECK, AnimalChainDataError, load_deck
    from kakurega.scripts.cli import main

    data = yaml.safe_load(resources.files("kakurega.envs").joinpath("data", DEFAULT_DECK).read_text(encoding="utf-8"))
    for card in data["cards"]:
        card.update({side: card[side] + "\x1b[2J" for side in ("left", "right") if card[side] == "cat"})
    data["animals"][1]["name"] = "cat\x1b[2J"
    path = tmp_path / "deck.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(AnimalChainDataError) as failure:
        load_deck(path)
    message = str(failure.value)
    assert message.startswith(f"{path}: animals[1].name = <str>: expected printable text"), message
    assert main(["play", "animal_chain", "--option", f"deck={path}", "--seed", "0"]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "printable" in captured.err, captured
    with pytest.raises(AnimalChainDataError, match=r"animals\[1\].name = 'cat\\x1b\[2J': expected printable"):
        load_deck(data)  # given as data: quoted back, escaped
    assert all(name.isprintable() for name in load_deck().animals)
