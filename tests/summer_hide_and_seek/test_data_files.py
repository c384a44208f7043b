"""Summer Hide and Seek's data file (the map option): every bad path refused in words, at once;
no error ever quotes a file's content back."""

from __future__ import annotations

import pytest
from data_file_checks import (
    check_a_path_that_is_no_regular_file_is_refused_at_once,
    check_an_error_never_quotes_a_files_content,
)

pytestmark = pytest.mark.faults

#: env, option, and the error class of that option's loader
FILE_OPTIONS = [
    ("summer_hide_and_seek_v1", "map", "kakurega.envs.summer_hide_and_seek.map_data:MapError"),
]


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path):
    check_a_path_that_is_no_regular_file_is_refused_at_once(env, option, error, tmp_path)


@pytest.mark.parametrize("env, option, error", FILE_OPTIONS, ids=[o[1] for o in FILE_OPTIONS])
def test_an_error_never_quotes_a_files_content(env, option, error, tmp_path):
    check_an_error_never_quotes_a_files_content(env, option, tmp_path)
