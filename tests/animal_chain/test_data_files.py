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
