"""The Animal Chain rollout policy (``kakurega.agents.rollouts.animal_chain``) keeps the heuristic's main rules.

Every registered rollout policy is also checked for legal moves in every configuration
(``tests/test_ismcts.py``).
"""

from __future__ import annotations

import pytest
from conformance import rollout_cases

from kakurega.agents import rollouts
from kakurega.envs import make


@pytest.mark.parametrize("config", [{}, {"attack_rule": "reach"}])
def test_animal_chain_greedy_wins_when_it_can_and_builds_less_exposed_bases(config):
    game = make("animal_chain_v0", wrapped=False, **config).game
    P, B = game.num_positions, game.base_size
    wins = builds = improved = 0
    for game, state, seat, legal, action in rollout_cases("animal_chain_v0", config, greedy_play=False, games=12):
        winning = [
            a for a in legal if game.play_base <= a < game.pass_action and (a - game.play_base) % P >= P - B
        ]
        if winning:
            assert action in winning, "a play onto the opponent's base was available and not taken"
            wins += 1
        elif legal[-1] == game.done_action:  # base building: the chosen swap lowers the exposure, or done
            links = rollouts._exposure_links(game, seat)
            base = [state.stacks[p][0] for p in game.own_base_in_frame[seat]]
            before = rollouts._exposure(game, links, base)
            if action != game.done_action:
                t, j = divmod(action, B)
                base[j] = game.type_in_frame[seat][t]
                assert rollouts._exposure(game, links, base) < before
                improved += 1
            builds += 1
    assert wins >= 5 and builds >= 5 and improved >= 1, (wins, builds, improved)
