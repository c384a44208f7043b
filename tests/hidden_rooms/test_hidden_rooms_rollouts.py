"""The Hidden Rooms rollout policy (``kakurega.agents.rollouts.hidden_rooms``) keeps the heuristic's main rules.

Every registered rollout policy is also checked for legal moves in every configuration
(``tests/test_ismcts.py``).
"""

from __future__ import annotations

from conformance import rollout_cases


def test_hidden_rooms_greedy_exits_and_never_walks_into_the_monster():
    from kakurega.envs.hidden_rooms import rules as hr

    def end_cell(state, a):
        return state.child if a == hr.STOP_MOVING else hr.NEIGHBOURS[state.child][a - hr.STEP]

    def caught(game, state, a):
        phase = game.monster_phase(state.monster, state.monster_cell, state.progress, end_cell(state, a), state.chasing)
        return phase[3] == hr.CAUGHT

    exits = moves = 0
    cases = rollout_cases("hidden_rooms_v0", {"episode": "round"}, greedy_play=True, games=20)
    for game, state, _seat, legal, action in cases:
        if state.phase != hr.MOVE:
            continue
        moves += 1
        if any(end_cell(state, a) == hr.EXIT_CELL for a in legal):
            assert end_cell(state, action) == hr.EXIT_CELL
            exits += 1
        elif not all(caught(game, state, a) for a in legal):
            assert not caught(game, state, action), "stepped where the monster's next phase catches the child"
    assert moves > 50 and exits >= 3, (moves, exits)
