"""Hidden Rooms' outcomes follow the rules (the match won by two escapes, the round escaped), not the sign of the
return: with ``reward=per_round`` a match won 2 escapes to 2 fails returns 0 (``agents/outcome.py``)."""

from __future__ import annotations

import pytest

from kakurega.agents.outcome import rules_winners
from kakurega.agents.tournament import run_tournament
from kakurega.envs.registry import make


def _matches(options, games=40, seed=0, specs=("heuristic",)):
    seen = []

    def on_game(record):
        state = record.final_state
        seen.append((state.escapes >= 2, record.returns[0], record.winners))

    result = run_tournament("hidden_rooms_v0", list(specs), options, games, seed, on_game=on_game)
    return result.per_agent[0], seen


def test_hidden_rooms_per_round_counts_won_matches_not_the_sign_of_the_return():
    row, seen = _matches({"reward": "per_round"})
    won = sum(escaped for escaped, _, _ in seen)
    assert any(escaped and ret == 0.0 for escaped, ret, _ in seen)  # 2 escapes, 2 fails: won with a return of 0
    assert (row["wins"], row["draws"], row["losses"]) == (won, 0, len(seen) - won)
    assert row["score"] == pytest.approx(won / len(seen))
    assert all(winners == ((0,) if escaped else ()) for escaped, _, winners in seen)
    # control: the default reward (+1 / -1 per match) plays the same deals to the same figures
    default, same = _matches({})
    assert [escaped for escaped, _, _ in same] == [escaped for escaped, _, _ in seen]
    assert {k: default[k] for k in ("wins", "draws", "losses", "score")} == {
        k: row[k] for k in ("wins", "draws", "losses", "score")}


def test_hidden_rooms_round_and_shaping_follow_the_escape():
    game = make("hidden_rooms_v0", wrapped=False, episode="round", shaping=1.0).game
    row = run_tournament("hidden_rooms_v0", ["heuristic"], {"episode": "round", "shaping": 1.0}, 30, 0).per_agent[0]
    plain = run_tournament("hidden_rooms_v0", ["heuristic"], {"episode": "round"}, 30, 0).per_agent[0]
    assert (row["wins"], row["draws"], row["losses"]) == (plain["wins"], 0, plain["losses"])
    assert rules_winners(game, None) is None


def test_balance_success_rate_is_the_won_match_share():
    from kakurega.scripts.balance import play

    _, seen = _matches({"reward": "per_round"}, games=20)
    table = play("hidden_rooms_v0", {"reward": "per_round"}, ["heuristic"], 20, 0)
    assert table.summary()["seat_win"][0].value == pytest.approx(sum(e for e, _, _ in seen) / len(seen))


def test_per_round_mean_reward_interval_stays_within_minus_three_to_two():
    for row in run_tournament("hidden_rooms_v0", ["heuristic", "random"], {"reward": "per_round"}, 24, 0).per_agent:
        low, high = row["mean_reward_ci95"]
        assert -3.0 <= low < high <= 2.0


def test_every_caller_holding_the_state_says_a_match_won_two_to_two_is_won():
    """The training view's outcome and the web app's result follow the rules too: a match won 2 escapes to 2 fails
    (return 0 with ``reward=per_round``) is a win there, not a draw."""
    import numpy as np

    from kakurega.agents.heuristics.hidden_rooms import HiddenRoomsHeuristic
    from kakurega.agents.policy import context_for
    from kakurega.agents.training.view import SingleAgentView
    from kakurega.scripts.web.session import result_of

    options = {"reward": "per_round"}
    view = SingleAgentView("hidden_rooms_v0", options, opponents=["random"])  # solitaire: no seat draws from it
    child = HiddenRoomsHeuristic(context_for("hidden_rooms_v0", options), seed=0)
    seen = set()
    for seed in range(60):
        obs, info = view.reset(seed=seed)
        moves, done = [], False
        while not done:
            action = child.act({"observation": obs, "action_mask": np.asarray(info["action_mask"], bool)})
            moves.append(("player_0", int(action)))
            obs, reward, terminated, truncated, info = view.step(action)
            done = terminated or truncated
        state = view.raw.game_state
        if (state.escapes, state.fails) != (2, 2):
            seen.add((state.escapes, state.fails))
            continue
        assert info["final_return"] == 0.0 and info["outcome"] == "win" and info["score"] == 1.0
        game = view.raw.game
        message = result_of(["player_0"], [0.0], "terminated", [], rules_winners(game, state))
        assert message["outcomes"] == {"player_0": "win"}
        # the control: by returns alone the same match is a draw
        assert result_of(["player_0"], [0.0], "terminated", [])["outcomes"] == {"player_0": "draw"}
        return
    pytest.fail(f"no match won 2-2 in 60 seeds: {sorted(seen)}")


def test_strength_report_counts_the_games_the_rules_say_were_won():
    """Hidden Rooms with reward=per_round: a match won by 2 escapes and 2 fails returns 0; the strength script once
    counted its win rate as the share of positive returns and missed those wins."""
    from kakurega.agents.base import AgentContext
    from kakurega.agents.outcome import WIN, classify_outcome, rules_winners
    from kakurega.agents.specs import make_agent
    from kakurega.agents.tournament import play_game
    from kakurega.envs.registry import make
    from kakurega.scripts.strength_ismcts import hero_per_deal

    config = {"reward": "per_round"}
    env = make("hidden_rooms_v0", wrapped=False, **config)
    context = AgentContext.from_env(env, "hidden_rooms_v0", config)
    deals = list(range(1, 31))
    wins, returns = hero_per_deal(env, context, "heuristic", None, deals)
    won, zero_return_wins = [], 0
    for deal in deals:
        result, _ = play_game(env, [make_agent("heuristic", context, seed=10_000 * deal)], seed=deal)
        won.append(float(classify_outcome(result, 0, rules_winners(env.game, env.game_state)) == WIN))
        zero_return_wins += won[-1] == 1.0 and result[0] == 0
    assert zero_return_wins > 0  # the case holds a match won 2-2
    assert list(wins) == won
