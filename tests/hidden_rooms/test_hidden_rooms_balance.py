"""The default booklet stays inside the balance band (fixed seeds: deterministic, not a timing test).

The full figures (2,000 rounds each) come from ``scripts/balance_hidden_rooms.py``
and are quoted in the env card; this test replays 300 seeded rounds per player.
"""

from kakurega.agents.base import RandomAgent
from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsHeuristic
from kakurega.scripts.balance_hidden_rooms import HEURISTIC_BAND, RANDOM_CEILING, play_rounds, wilson_interval

ROUNDS = 300


def test_heuristic_escape_rate_is_in_the_band():
    result = play_rounds(HiddenRoomsHeuristic, ROUNDS, seed=0)
    assert HEURISTIC_BAND[0] <= result["rate"] <= HEURISTIC_BAND[1], result
    assert result["outcomes"]["escaped"] == result["escapes"]
    # every monster of the booklet can be beaten and can win
    for name, row in result["per_monster"].items():
        assert 0 < row["escapes"] < row["rounds"], (name, row)


def test_random_play_rarely_escapes():
    result = play_rounds(RandomAgent, ROUNDS, seed=0)
    assert result["rate"] < RANDOM_CEILING, result


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(0, 0) == (0.0, 1.0)


def test_a_shorter_turn_limit_plays_and_cuts_rounds_off():
    """``play_rounds(max_turns=...)``: the agents' context is the env's own (it refused any limit but 60)."""
    short = play_rounds(RandomAgent, 40, seed=0, max_turns=3)
    assert short["outcomes"]["turn limit"] > 0 and sum(short["outcomes"].values()) == 40
