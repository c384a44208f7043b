"""Animal Chain's tactics suite: moves the engine refuses are reported; claims leave out moves after which
only the hidden hand can win; version 0's other rules keep no claim (through the CLI too)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tactics_checks import shipped

from kakurega.agents.tactics import patterns as tactics_patterns
from kakurega.agents.tactics import replay, verify
from kakurega.agents.tactics.patterns import reverified_in
from kakurega.agents.tactics.suite import SuiteError
from kakurega.envs.registry import make
from kakurega.scripts.cli import main


def test_a_position_whose_moves_the_engine_refuses_is_reported_not_replayed():
    position = shipped("animal_chain").positions[0]
    moves = list(position.moves)
    moves[-1] = 10**6
    with pytest.raises(SuiteError, match=f"move {len(moves) - 1}"):
        replay("animal_chain_v1", replace(position, moves=moves))
    assert "not legal" in verify("animal_chain_v1", replace(position, moves=moves))[0]


def test_animal_chain_claims_leave_out_moves_after_which_only_the_hidden_hand_can_win():
    """Control: the opponent's true hand often wins after a move that no claim calls a blunder (the hand is hidden)."""
    env = make("animal_chain_v1", wrapped=False)
    rng = np.random.default_rng(0)
    hidden_wins = claimed = 0
    for seed in range(6):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            game, state = env.game, env.game_state
            seat = game.current_player(state)
            if state.phase == 1 and not tactics_patterns._ac_wins(game, state, seat, game.legal_actions(state)):
                claim = tactics_patterns._ac_stop_win(game, state)
                bad = set(claim.moves) if claim else set()
                claimed += len(bad)
                for action in game.legal_actions(state):
                    if tactics_patterns._ac_confirm_stop(game, state, seat, action, rng) is None and action not in bad:
                        hidden_wins += 1
            env.step(int(rng.choice(env.legal_actions())))
    assert hidden_wins > claimed >= 0 and hidden_wins > 0


def test_the_cli_says_no_position_holds_under_the_other_rules_of_version_0(capsys):
    assert main(["tactics", "animal_chain_v0", "--agents", "random"]) == 2  # other rules: no claim holds
    assert "no position of" in capsys.readouterr().err


def test_the_suite_does_not_replay_under_the_other_rules_of_version_0():
    with pytest.raises(ValueError, match="re-verifies"):
        reverified_in(shipped("animal_chain"), "animal_chain_v0")  # v0: other base building, other turns
