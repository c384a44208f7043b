"""The clairvoyant bound (scripts/clairvoyant.py): its sampler hands out the true state, only inside its context."""

from __future__ import annotations

import numpy as np
import pytest

from kakurega.envs import make
from kakurega.scripts import clairvoyant


def kakurenbo_mid_game(steps: int = 6):
    env = make("kakurenbo_v0", num_players=4, variant="kakurenbo")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.observe(env.agent_selection)["action_mask"]))))
    return env


def test_the_sampler_hands_out_the_true_state_inside_the_context_only():
    env = kakurenbo_mid_game()
    raw, agent = env.unwrapped, env.agent_selection
    truth = raw.game_state
    # control: the honest sampler re-deals what the agent may not know, so some draw differs from the truth
    honest = raw.determinization_sampler(agent)
    assert any(honest(np.random.default_rng(k)) != truth for k in range(20))
    with clairvoyant.clairvoyant_sampling():
        seeing = raw.determinization_sampler(agent)
        draws = [seeing(np.random.default_rng(k)) for k in range(5)]
        with pytest.raises(KeyError):
            raw.determinization_sampler("nobody")
    assert all(draw == truth and draw is not truth for draw in draws)
    assert draws[0] is not draws[1]  # copies: a search that plays one out leaves the others alone
    # the honest sampler is back after the context, also when it ends by an error
    assert any(raw.determinization_sampler(agent)(np.random.default_rng(k)) != truth for k in range(20))
    with pytest.raises(RuntimeError), clairvoyant.clairvoyant_sampling():
        raise RuntimeError("a failing tournament")
    assert any(raw.determinization_sampler(agent)(np.random.default_rng(k)) != truth for k in range(20))


def test_a_clairvoyant_tournament_reports_the_searching_seat(capsys):
    assert clairvoyant.main(["kakurenbo_v0", "--option", "num_players=3", "--option", "variant=kurayami",
                             "--search", "ismcts:simulations=4,rollout=random", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "seeing everything, at heuristic tables" in out and "over 3 games" in out


def test_only_a_search_can_be_clairvoyant(capsys):
    for spec in ("heuristic", "ismctsx:simulations=4"):
        assert clairvoyant.main(["kakurenbo_v0", "--search", spec, "--games", "3"]) == 2
        assert "must be an ismcts spec" in capsys.readouterr().err


def test_a_one_seat_game_is_played_alone(capsys):
    assert clairvoyant.main(["hidden_rooms_v0", "--option", "episode=round",
                             "--search", "ismcts:simulations=4,rollout=random", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "seeing everything, alone (solitaire)" in out and '"opponent": null' in out
