"""Hidden Rooms' moves in public words: the leaky control that the generic completeness check catches."""

from __future__ import annotations

import pytest
from move_word_checks import check_control_words_that_say_only_who_moved_are_caught


@pytest.mark.parametrize("name,config", [("hidden_rooms_v0", {})])
def test_control_words_that_say_only_who_moved_are_caught(name, config):
    check_control_words_that_say_only_who_moved_are_caught(name, config)
