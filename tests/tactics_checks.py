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


def check_every_position_is_asked_of_a_freshly_reset_agent(name: str) -> None:
    """An agent is reset before every position: one with memory of the game, which plays the right move only when
    asked fresh (reset since its last move) and a blunder otherwise, solves every position."""
    suite = shipped(name)
    right, blunders = _scripted_table(suite, right=True), _scripted_table(suite, right=False)

    class RightOnlyWhenReset(Agent):
        fresh = True

        def reset(self) -> None:
            self.fresh = True

        def act(self, observation, sampler=None) -> int:
            key = (observation["observation"].tobytes(), observation["action_mask"].tobytes())
            move = (right if self.fresh else blunders)[key]
            self.fresh = False
            return move

    register_agent_kind("test_tactics_right_when_reset",
                        lambda context, seed, options, argument: RightOnlyWhenReset(context, seed))
    (score,) = score_agents(suite, ["test_tactics_right_when_reset"]).scores
    assert score.share()[0] == 1.0 and score.failed == []


def check_a_filtered_run_lists_only_the_categories_asked(name: str) -> None:
    """``score_agents(..., categories=[...])`` asks only those categories' positions, and its result and table list
    only those categories (in the suite's order), not every category of the suite."""
    suite = shipped(name)
    every = suite.categories()
    assert len(every) >= 2
    for asked in ([every[-1]], [every[-1], every[0]]):
        result = score_agents(suite, ["random"], categories=asked)
        expected = [c for c in every if c in asked]
        assert result.categories == expected
        (score,) = result.scores
        assert score.share()[3] == sum(p.category in asked for p in suite.positions)
        header = result.table().splitlines()[1].split()
        assert header == ["agent", *expected, "all"]
