"""Shared machinery of the tactics tests: a game's shipped suite, and the scripted players that know its
answers (a control: the blunders player must score 0, the right-moves player 1)."""

from __future__ import annotations

from kakurega.agents.base import Agent
from kakurega.agents.specs import register_agent_kind
from kakurega.agents.tactics import load_suite, replay, score_agents
from kakurega.agents.tactics.generate import PLANS
from kakurega.agents.tactics.suite import DIRECTORY


def shipped(name: str):
    """The shipped tactics suite of the plan ``name``: a game's first table (``"kakurenbo"``) or another one
    (``"kakurenbo-variant=kurayami"``)."""
    assert name in PLANS, f"no tactics plan {name!r}"
    return load_suite(DIRECTORY / f"{name}.json")


class _Scripted(Agent):
    """Plays a fixed move per observation (a control: it knows the suite's answers)."""

    table: dict = {}

    def act(self, observation, sampler=None) -> int:
        return self.table[(observation["observation"].tobytes(), observation["action_mask"].tobytes())]


def _scripted_table(suite, right: bool) -> dict:
    table, envs = {}, {}
    for position in suite.positions:
        env = replay(suite.env, position, envs)
        observation = env.observe(position.seat)
        legal = env.legal_actions()
        if (position.kind == "good") == right:
            move = position.claimed[0]
        else:
            move = next(a for a in legal if a not in position.claimed)
        key = (observation["observation"].tobytes(), observation["action_mask"].tobytes())
        assert table.setdefault(key, move) == move
    return table


def check_a_player_of_the_blunders_scores_0_and_one_of_the_right_moves_scores_1(name: str) -> None:
    suite = shipped(name)

    class Blunders(_Scripted):
        table = _scripted_table(suite, right=False)

    class Right(_Scripted):
        table = _scripted_table(suite, right=True)

    register_agent_kind("test_tactics_blunders", lambda context, seed, options, argument: Blunders(context, seed))
    register_agent_kind("test_tactics_right", lambda context, seed, options, argument: Right(context, seed))
    result = score_agents(suite, ["test_tactics_blunders", "test_tactics_right"])
    blunders, right = result.scores
    assert blunders.share()[0] == 0.0 and len(blunders.failed) == len(suite.positions)
    assert right.share()[0] == 1.0 and right.failed == []
