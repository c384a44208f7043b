"""The step limit refuses further actions (../shared/rules/kakurenbo.md, "End and scoring" > "Step limit").

"the environment has a configurable limit on agent actions (default 200). When it is reached the episode is
*truncated* and scored exactly as if the game had ended at that moment": once the limit is reached no further
action may be applied, by the rules engine as well as the env.
"""

import numpy as np
import pytest

from kakurega.envs import kakurenbo_v1
from kakurega.envs.kakurenbo.rules import KakurenboGame


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_rules_refuse_an_action_once_the_step_limit_is_reached(variant, n):
    limited = KakurenboGame(variant=variant, num_players=n, max_steps=1)
    unlimited = KakurenboGame(variant=variant, num_players=n)  # the default limit: 200 actions
    rng = np.random.default_rng(n)
    state = limited.initial_state(rng)
    assert not limited.is_truncated(state)
    limited.apply_action(state, limited.legal_actions(state)[0], rng)  # the one action the limit allows
    assert state.steps == 1 and not state.over
    assert limited.is_truncated(state) and limited.legal_actions(state) == []
    # an action the game would allow without the limit: refused, and the state is left as it was
    action = unlimited.legal_actions(state)[0]
    saved = limited.clone(state)
    with pytest.raises(ValueError, match=r"step limit of 1 actions was reached"):
        limited.apply_action(state, action, rng)
    assert state.steps == 1 and state.hands == saved.hands and state.scores == saved.scores
    assert "step limit of 1 actions was reached" in limited.illegal_reason(state, action)


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_the_env_truncates_every_seat_at_the_step_limit(variant):
    env = kakurenbo_v1.raw_env(variant=variant, num_players=3, max_steps=1)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.game.is_truncated(env.game_state)
    action = KakurenboGame(variant=variant, num_players=3).legal_actions(env.game_state)[0]  # legal without the limit
    with pytest.raises(ValueError, match=r"step limit of 1 actions was reached"):
        env.game.apply_action(env.game_state, action, np.random.default_rng(0))
