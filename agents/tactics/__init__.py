"""Tactics suites: positions with a provably right or provably losing move, and the share an agent solves.

A suite (:mod:`.suite`, one file per table: a game and its options) stores
each position as the seed and the moves that reach it through the rules
engine, with its claim: the right moves (``good``)
or the blunders (``bad``) and the reason. The patterns (:mod:`.patterns`)
find and re-verify the claims from the rules; :mod:`.generate` searches seeded
games for them; :mod:`.score` asks agents at every position, as in play.
``kakurega tactics ENV [--option KEY=VALUE...] --agents SPEC...``
(:mod:`kakurega.scripts.tactics`) reports the shares; docs/strength.md has the figures of the shipped players.
"""

from kakurega.agents.tactics.patterns import PATTERNS, Claim, Pattern, patterns_of, verify
from kakurega.agents.tactics.score import TacticsResult, score_agents
from kakurega.agents.tactics.suite import (
    Position,
    Suite,
    SuiteError,
    find_suite,
    load_suite,
    replay,
    suite_path,
)

__all__ = ["PATTERNS", "Claim", "Pattern", "Position", "Suite", "SuiteError", "TacticsResult", "find_suite",
           "load_suite", "patterns_of", "replay", "score_agents", "suite_path", "verify"]
