"""Agent specs of any length: refused or quoted in short messages."""

import re

import pytest

from kakurega.agents.specs import make_agent


def test_a_huge_spec_is_refused_in_a_short_message_and_a_long_path_in_words():
    # every error quotes the spec: a 100,000-character spec was echoed back whole (twice, for an unknown kind)
    from kakurega.agents.policy import PolicyFileError, context_for
    from kakurega.agents.specs import MAX_SPEC_LENGTH

    context = context_for("kakurenbo_v1", {})
    for spec in ("w" * 100_000, "random:" + "x" * 100_000):
        with pytest.raises(ValueError, match=f"agent spec of {len(spec)} characters .*the limit is {MAX_SPEC_LENGTH}") as caught:
            make_agent(spec, context)
        assert len(str(caught.value)) < 200
    # a path component longer than the file system allows is a policy file error, not an OSError
    with pytest.raises(PolicyFileError, match="File name too long") as caught:
        make_agent("policy:" + "p" * 4000, context)
    assert len(str(caught.value)) < 200
    with pytest.raises(ValueError, match="unknown agent kind 'wizard'"):  # the control: a short spec is quoted whole
        make_agent("wizard", context)


@pytest.mark.parametrize("spec, message", [
    ("ismcts:seed=1,seed=2", "option 'seed' is given twice"),
    ("ismcts:depth=5,max_rollout_depth=7", "options depth and max_rollout_depth set the same thing"),
    ("ismcts:simulations=8,prior=pretrained,bias=50", "bias and widen shape a heuristic or greedy prior"),
    ("ismcts:simulations=8,prior=pretrained,widen=1", "bias and widen shape a heuristic or greedy prior"),
    ("ismcts:simulations=8,prior=pretrained:temperature=100", "a search prior takes no options (temperature)"),
    ("ismcts:simulations=8,leaf=rollout", "leaf=rollout applies with a network prior"),
])
def test_search_options_that_would_do_nothing_are_refused(spec, message):
    # each was accepted and changed no visit count: the search reads the network's own probabilities, PUCT takes no
    # bias or widening, a leaf rule needs a network, and a repeated option silently kept its last value
    from kakurega.agents.policy import context_for

    context = context_for("kakurenbo_v1", {})
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec, context)


def test_the_search_options_that_do_apply_are_kept():  # the control
    from kakurega.agents.policy import context_for

    context = context_for("kakurenbo_v1", {})
    agent = make_agent("ismcts:simulations=8,prior=pretrained,leaf=rollout,depth=5,seed=3", context)
    assert (agent.leaf, agent.max_rollout_depth, agent.network is not None) == ("rollout", 5, True)
    assert make_agent("ismcts:simulations=8,bias=2,widen=1", context).bias == 2.0


BOUNDLESS = "ismcts:simulations=100000,depth=100000"  # within IS-MCTS's own caps: a clock stops it in play


@pytest.mark.parametrize("argv", [
    ["evaluate", "kakurenbo", "--agents", BOUNDLESS, "random", "--games", "2"],
    ["evaluate", "kakurenbo", "--agents", "ismcts:simulations=10001", "random", "--games", "2"],
    ["tactics", "kakurenbo", "--agents", BOUNDLESS],
    ["balance", "kakurenbo", "--games", "2", "--ismcts-budget", "10001"],
], ids=["evaluate", "evaluate-one-over", "tactics", "balance"])
def test_a_search_nothing_stops_is_refused_past_the_untimed_cap(argv, capsys, monkeypatch):
    # no clock stops a move in these commands: 100,000 simulations a decision took hours a game, said nowhere
    from kakurega.agents import tournament
    from kakurega.scripts.cli import main

    def never(*args, **kwargs):
        raise AssertionError("played before checking the specs")

    monkeypatch.setattr(tournament, "play_game", never)
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "10,000" in error and ("simulations=10" in error or "--ismcts-budget" in error), error
    assert "10001" in error or "100000" in error  # what was given


def test_the_untimed_cap_is_the_search_budget_a_clock_does_not_bound():
    from kakurega.agents.ismcts import MAX_SIMULATIONS
    from kakurega.agents.specs import MAX_UNTIMED_SIMULATIONS, parse_spec, require_unattended

    assert MAX_UNTIMED_SIMULATIONS < MAX_SIMULATIONS
    with pytest.raises(ValueError, match=f"simulations={MAX_UNTIMED_SIMULATIONS + 1} is too many for a bench opponent"):
        require_unattended(parse_spec(f"ismcts:simulations={MAX_UNTIMED_SIMULATIONS + 1}"), "a bench opponent")
    for spelled in ("20_000", "+20000"):  # read as the search reads its option: int() takes these too
        with pytest.raises(ValueError, match=re.escape(f"simulations={spelled} is too many")):
            require_unattended(parse_spec(f"ismcts:simulations={spelled}"), "a bench opponent")
    # the controls: at the cap, and past it where a clock stops each move (kakurega play, the web app)
    require_unattended(parse_spec(f"ismcts:simulations={MAX_UNTIMED_SIMULATIONS},depth=100000"), "a bench opponent")
    require_unattended(parse_spec(BOUNDLESS), "an opponent in kakurega play", clock=True)
    require_unattended(parse_spec("ismcts:rollout=greedy"), "a bench opponent")  # the default 400


def test_a_training_config_refuses_a_search_past_the_untimed_cap():
    from kakurega.agents.specs import MAX_UNTIMED_SIMULATIONS
    from kakurega.agents.training.config import ConfigError, validate_config

    base = {"env": "kakurenbo_v1", "algorithm": "ppo", "total_timesteps": 1000}
    for key, value in (("opponents", [BOUNDLESS]), ("pretrain", {"agent": BOUNDLESS, "steps": 100})):
        with pytest.raises(ConfigError, match=f"'{key}.*simulations=100000 is too many.*at most "
                                              f"{MAX_UNTIMED_SIMULATIONS:,}"):
            validate_config({**base, key: value})
    validate_config({**base, "opponents": [f"ismcts:simulations={MAX_UNTIMED_SIMULATIONS}"]})  # the control
