"""Agent specs, the extension point, and the terminal human player."""

import numpy as np
import pytest

from kakurega.agents import RandomAgent, make_agent, parse_spec, register_agent_kind
from kakurega.agents.base import Agent
from kakurega.agents.human import HumanAgent
from kakurega.agents.policy import context_for
from kakurega.agents.specs import agent_kinds


def test_parse_spec_forms():
    assert parse_spec("random").kind == "random"
    spec = parse_spec("policy:runs/a b/p.safetensors,sample=true")
    assert (spec.kind, spec.argument, spec.options) == ("policy", "runs/a b/p.safetensors", {"sample": "true"})
    spec = parse_spec("ismcts:simulations=400,c=0.7")
    assert (spec.argument, spec.options) == (None, {"simulations": "400", "c": "0.7"})
    with pytest.raises(ValueError, match="non-empty string"):
        parse_spec("")
    with pytest.raises(ValueError, match="not a key=value option"):
        parse_spec("policy:a.safetensors,oops")


@pytest.mark.parametrize("path", ["runs/lr=1e-3,bs=64/policy.safetensors", "a,b/p.safetensors", "-x/p q.safetensors",
                                  'my "best" run/p.safetensors',
                                  "plain/p.safetensors", " lead/p.safetensors", "c:d/p=1"])
def test_a_path_with_commas_or_equals_is_quoted_and_read_back(path):
    from kakurega.agents.specs import with_path

    spec = with_path("policy", path)
    assert parse_spec(spec).argument == path and parse_spec(spec).options == {}
    assert parse_spec(spec + ",sample=true").options == {"sample": "true"}
    assert parse_spec(spec + ",sample=true").argument == path
    # unquoted, such a path is read as options or refused: the control
    if "," in path or "=" in path.split("/")[0]:
        try:
            assert parse_spec(f"policy:{path}").argument != path
        except ValueError as error:
            assert "not a key=value option" in str(error)


def test_quoted_arguments_are_refused_in_words_when_malformed():
    from kakurega.agents.specs import with_path

    with pytest.raises(ValueError, match="has no closing"):
        parse_spec('policy:"a,b/p.safetensors')
    with pytest.raises(ValueError, match="expected ',key=value' or nothing after the quoted argument"):
        parse_spec('policy:"a,b"x')
    with pytest.raises(ValueError, match="not a key=value option.*goes in double quotes"):
        parse_spec("policy:a.safetensors,b/p.safetensors")
    with pytest.raises(ValueError, match="cannot name"):
        with_path("policy", 'a"b,c/p.safetensors')
    # a quote that needs no quoting is named as it is (a run folder 'my "best" run' finishes its evaluation)
    assert parse_spec(with_path("policy", 'runs/my "best" run/p.safetensors')).argument == 'runs/my "best" run/p.safetensors'


def test_a_run_in_a_folder_named_with_commas_and_equals_finishes_and_loads(nim, tmp_path):
    """A sweep's run folder (``lr=1e-3,bs=64``): the final evaluation names its policy file through a spec."""
    import json

    from training_helpers import tiny_config

    from kakurega.agents.specs import with_path
    from kakurega.agents.training.trainer import train

    out = tmp_path / "sweep" / "lr=1e-3,bs=64"
    result = train(tiny_config(nim.NAME, "ppo", out, total_timesteps=64,
                               evaluation={"final_games": 4, "final_opponents": ["random"]}), quiet=True)
    assert json.loads((out / "summary.json").read_text())["timesteps"] == result.timesteps
    assert (out / "evaluation" / "evaluation.json").is_file()
    agent = make_agent(with_path("policy", result.policy_path), context_for(nim.NAME, {}), 0)
    assert agent is not None


def test_builtin_kinds_and_errors(nim):
    context = context_for(nim.NAME, {})
    assert isinstance(make_agent("random", context, 0), RandomAgent)
    assert type(make_agent("heuristic", context, 0)).__name__ == "SecretNimHeuristic"
    assert isinstance(make_agent("human", context, 0), HumanAgent)
    with pytest.raises(ValueError, match=r"unknown agent kind .wizard.*expected one of: ") as error:
        make_agent("wizard", context)
    # every built-in kind is listed (tests in the same process may have registered more)
    listed = str(error.value).rpartition("expected one of: ")[2].split(", ")
    assert {"heuristic", "human", "ismcts", "policy", "random"} <= set(listed)
    assert listed == sorted(listed)
    with pytest.raises(ValueError, match="unknown option"):
        make_agent("random:speed=3", context)
    with pytest.raises(ValueError, match="needs a path"):
        make_agent("policy", context)
    with pytest.raises(ValueError, match="expected true or false"):
        make_agent("policy:x.safetensors,sample=maybe", context)


def test_every_registered_heuristic_loads_through_the_spec():
    from kakurega.envs.registry import ENV_SPECS

    for name in ENV_SPECS:
        agent = make_agent("heuristic", context_for(name, {}), 0)
        assert isinstance(agent, Agent)


def test_register_agent_kind_extension_point(nim):
    class Lowest(Agent):
        def __init__(self, context, seed, depth):
            super().__init__(context, seed)
            self.depth = depth

        def act(self, observation, sampler=None):
            return int(np.flatnonzero(observation["action_mask"])[0])

    def factory(context, seed, options, argument):
        unknown = set(options) - {"depth"}
        if unknown:
            raise ValueError(f"lowest: unknown option(s) {unknown}")
        return Lowest(context, seed, int(options.get("depth", 1)))

    register_agent_kind("lowest", factory, "always the lowest legal action")
    try:
        agent = make_agent("lowest:depth=3", context_for(nim.NAME, {}), 0)
        assert agent.depth == 3 and "lowest" in agent_kinds()
        from kakurega.agents.tournament import run_tournament

        result = run_tournament(nim.NAME, ["lowest:depth=2", "random"], games=4, seed=0)
        assert result.per_agent[0]["games"] == 4
    finally:
        from kakurega.agents import specs

        specs._KINDS.pop("lowest", None)
        specs._KIND_HELP.pop("lowest", None)


def test_a_built_in_kind_is_replaced_only_when_asked(nim):
    """``register_agent_kind("random", ...)`` once replaced every later random baseline of the process in silence;
    now it says so unless ``replace=True``. A kind of one's own may be registered again (a notebook cell run
    twice): the control."""
    from kakurega.agents import specs

    def factory(context, seed, options, argument):
        return RandomAgent(context, seed)

    original = specs._KINDS["random"]
    with pytest.raises(ValueError, match=r"agent kind 'random' is one of kakurega's own kinds; .*replace=True"):
        register_agent_kind("random", factory)
    assert specs._KINDS["random"] is original
    import kakurega.agents.pretrained as pretrained

    shipped, shipped_help = specs._KINDS["pretrained"], specs._KIND_HELP["pretrained"]
    try:
        register_agent_kind("random", factory, replace=True)
        assert specs._KINDS["random"] is factory
        register_agent_kind("mine", factory)
        register_agent_kind("mine", lambda context, seed, options, argument: RandomAgent(context, seed))
        # a built-in module imported after the user replaced its kind (as kakurega.agents.pretrained registers
        # itself on its first import) keeps the user's, without an error
        register_agent_kind("pretrained", factory, replace=True)
        pretrained.register()
        assert specs._KINDS["pretrained"] is factory
    finally:
        specs._KINDS["random"] = original
        specs._KINDS["pretrained"], specs._KIND_HELP["pretrained"] = shipped, shipped_help
        specs._KINDS.pop("mine", None)
        specs._KIND_HELP.pop("mine", None)


def test_human_agent_lists_actions_and_reasks(nim):
    context = context_for(nim.NAME, {})
    answers = iter(["", "x", "4", "take 2"])
    printed = []
    human = HumanAgent(context, 0, input_fn=lambda prompt: next(answers), output_fn=printed.append)
    human.see("pile: 5  your card: 1", {0: "take 1", 1: "take 2", 2: "take 3"})
    mask = np.array([1, 1, 1], dtype=np.int8)
    assert human.act({"observation": np.zeros(14, np.float32), "action_mask": mask}) == 1
    text = "\n".join(printed)
    assert "pile: 5  your card: 1" in text and "[0] take 1" in text and "[2] take 3" in text
    assert "Type a move's key" in text and "'x' is not a legal move" in text and "'4' is not the key" in text


def test_human_agent_maps_numbers_to_legal_actions_only(nim):
    context = context_for(nim.NAME, {})
    human = HumanAgent(context, 0, input_fn=lambda prompt: "2", output_fn=lambda s: None)
    mask = np.array([1, 0, 1], dtype=np.int8)
    assert human.act({"observation": np.zeros(14, np.float32), "action_mask": mask}) == 2
    quitter = HumanAgent(context, 0, input_fn=lambda prompt: "q", output_fn=lambda s: None)
    with pytest.raises(KeyboardInterrupt):
        quitter.act({"observation": np.zeros(14, np.float32), "action_mask": mask})
    # a quit word is asked again: anything else goes on (Hidden Rooms' "exit" square once ended a match at once)
    answers, prompts = iter(["exit", "no", "2"]), []
    going_on = HumanAgent(context, 0, input_fn=lambda prompt: prompts.append(prompt) or next(answers),
                          output_fn=lambda s: None)
    assert going_on.act({"observation": np.zeros(14, np.float32), "action_mask": mask}) == 2
    assert prompts[1].startswith("Quit this game? Type q again")
    typed = iter(["quit"])

    def closed_after_quit(prompt):
        for answer in typed:
            return answer
        raise EOFError

    closed = HumanAgent(context, 0, input_fn=closed_after_quit, output_fn=lambda s: None)
    with pytest.raises(KeyboardInterrupt):  # input closed at the question: the game ends, as at the prompt
        closed.act({"observation": np.zeros(14, np.float32), "action_mask": mask})


def test_temperature_samples_from_the_tempered_policy(nim, tmp_path):
    """temperature=T divides the logits: a low temperature plays (almost) greedily, a high one (almost) uniformly."""
    from collections import Counter

    from kakurega.agents.policy import PolicyAgent, sampling_options

    context = context_for(nim.NAME, {})
    layers = [(np.zeros((3, context.layout.size), dtype=np.float32), np.array([2.0, 1.0, 0.0], dtype=np.float32))]
    observation = {"observation": np.zeros(context.layout.size, dtype=np.float32),
                   "action_mask": np.array([1, 1, 1], dtype=np.int8)}

    def shares(temperature):
        agent = PolicyAgent(context, 0, layers=layers, sample=True, temperature=temperature)
        counts = Counter(agent.act(observation) for _ in range(4000))
        return [counts[a] / 4000 for a in range(3)]

    expected = np.exp(np.array([2.0, 1.0, 0.0]) / 2.0)
    np.testing.assert_allclose(shares(2.0), expected / expected.sum(), atol=0.03)
    assert shares(0.05)[0] > 0.99 and max(shares(100.0)) < 0.38
    assert sampling_options({"temperature": "0.5"}, "policy") == (True, 0.5, True, None)
    assert sampling_options({}, "policy") == (False, 1.0, True, None)
    assert sampling_options({"prune": "false"}, "policy") == (False, 1.0, False, None)
    assert sampling_options({"mix": "true"}, "policy") == (False, 1.0, True, True)
    for options, words in (({"temperature": "0"}, "from 0.01 to 100"), ({"temperature": "hot"}, "from 0.01 to 100"),
                           ({"temperature": "2", "sample": "false"}, "cannot go with sample=false"),
                           ({"temp": "2"}, "unknown option"), ({"prune": "maybe"}, "prune"),
                           ({"mix": "often"}, "mix")):
        with pytest.raises(ValueError, match=words):
            sampling_options(options, "policy")
