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
