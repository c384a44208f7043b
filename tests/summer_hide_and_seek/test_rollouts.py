"""The Summer Hide-and-Seek rollout policy (``kakurega.agents.rollouts.summer_hide_and_seek``) keeps the heuristic's main rules.

Every registered rollout policy is also checked for legal moves in every configuration
(``tests/test_ismcts.py``).
"""

from __future__ import annotations

import pytest
from conformance import rollout_cases


@pytest.mark.parametrize("name", ["summer_hide_and_seek_v0", "summer_hide_and_seek_v1"])
def test_summer_greedy_seekers_search_the_belief_and_the_child_takes_icons(name):
    from kakurega.envs.summer_hide_and_seek import rules as sr

    seeks = icons = 0
    for game, state, _seat, legal, action in rollout_cases(name, {"num_players": 3}, greedy_play=True):
        if state.phase == sr.SEEK:
            square = action - game.place_base
            assert state.belief >> square & 1, "a seeker placed its piece outside the public belief"
            covered = {p for p in state.pieces if p >= 0}
            if any(state.belief >> s & 1 and s not in covered for s in range(game.num_squares)):
                assert square not in covered, "another seeker already covered that square"
            seeks += 1
        elif state.phase == sr.CHILD and not state.continue_due:
            values = [game.square_vp[a - game.line_base] for a in legal if a != game.stop_action]
            if values and max(values) > 0:
                assert action != game.stop_action and game.square_vp[action - game.line_base] == max(values)
                icons += 1
    assert seeks >= 20 and icons >= 10, (seeks, icons)
