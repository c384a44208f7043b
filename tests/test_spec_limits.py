"""Agent specs of any length: refused or quoted in short messages."""

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
