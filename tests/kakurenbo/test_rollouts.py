"""The KAKURENBO rollout policy (``kakurega.agents.rollouts.kakurenbo``) keeps the heuristic's main rules.

Every registered rollout policy is also checked for legal moves in every configuration
(``tests/test_ismcts.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from conformance import rollout_cases

from kakurega.agents import rollouts
from kakurega.envs.core.game import TERMINAL


@pytest.mark.parametrize("num_players", [3, 4])
def test_kakurenbo_greedy_discards_pairs_and_takes_partners(num_players):
    from kakurega.envs.kakurenbo import rules as kr

    discards = takes = 0
    for game, state, seat, legal, action in rollout_cases(
        "kakurenbo_v0", {"num_players": num_players}, greedy_play=True, games=10
    ):
        if state.stage == kr.MAIN and len(legal) > 1:
            assert action == min(a for a in legal if a != 0), "a pair was held: discard the best one"
            discards += 1
        if state.stage == kr.TAKE:
            wanted = {c ^ 1 for c in state.hands[seat] if c != kr.CURSE}
            completing = []
            for a in legal:
                _kind, colour, offset = game.decode[a]
                victim = state.hands[(seat + offset) % num_players]
                if any(c in wanted and c & 1 == colour for c in victim):
                    completing.append(a)
            if completing:
                assert action in completing
                takes += 1
    assert discards >= 3 and takes >= 3, (discards, takes)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_kakurenbo_greedy_games_end_by_the_rules(num_players):
    # the step limit scores a cut-off game like an end; greedy rollouts should rarely need it
    # (measured: 0 of 100 games with 3, 4 and 5 players; 61-74 when the Curse was passed round)
    from kakurega.envs.kakurenbo.rules import KakurenboGame

    game = KakurenboGame("kakurenbo", num_players)
    policy = rollouts.kakurenbo
    truncated = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        while game.current_player(state) != TERMINAL:
            legal = game.legal_actions(state)
            game.apply_action(state, policy(game, state, state.actor, legal, rng.random), rng)
        truncated += game.is_truncated(state)
    assert truncated < 10
