"""Whether a Summer policy's pruning can remove anything depends on the options, not only the version: the proofs
hold only where a game cut off by the step limit is scored (v1 and v2, or any version with VP as rewards), so a
training run reports the "network alone" row only there."""

import pytest

from kakurega.agents.move_features import proves_dominance


@pytest.mark.parametrize("env_name, options, expected", [
    ("summer_hide_and_seek_v0", {}, False),  # v0 pays a cut-off game nothing: no move is beaten for sure
    ("summer_hide_and_seek_v0", {"reward": "vp"}, True),
    ("summer_hide_and_seek_v1", {}, True),
    ("summer_hide_and_seek_v2", {}, True),
    ("summer_hide_and_seek_v2", {"num_players": 3}, True),
])
def test_proves_dominance_follows_the_options(env_name, options, expected):
    assert proves_dominance(env_name, options) is expected


@pytest.mark.parametrize("env_name, options, alone", [("summer_hide_and_seek_v0", {}, False),
                                                     ("summer_hide_and_seek_v0", {"reward": "vp"}, True)])
def test_the_final_evaluation_asks_for_the_network_alone_only_where_pruning_can_remove_a_move(
        env_name, options, alone, monkeypatch, tmp_path):
    """With v0's default options pruning removes nothing, so a "network alone" row would repeat the policy's
    (it once did, with a tournament of its own); with VP as rewards it is asked for."""
    from kakurega.agents.training import trainer

    asked = []

    class Played:
        per_agent, num_players = [{}, {}], 2

        def save(self, *args, **kwargs):
            """Nothing to write: the test reads only which tournaments were asked for."""

    def tournament(env_name, specs, *args, **kwargs):
        asked.extend(specs)
        return Played()

    def stop(*args, **kwargs):
        raise RuntimeError("the tournaments asked for are all this test needs")

    monkeypatch.setattr("kakurega.agents.tournament.run_tournament", tournament)
    monkeypatch.setattr(trainer, "evaluation_table", stop)
    config = {"env": env_name, "env_kwargs": options, "name": "t",
              "evaluation": {"final_opponents": ["random"], "final_games": 2, "seed": 0}}
    with pytest.raises(RuntimeError, match="all this test needs"):
        trainer.final_evaluation(config, tmp_path / "policy.safetensors", tmp_path)
    assert any(spec.startswith("policy:") for spec in asked)
    assert any(spec.endswith(",prune=false") for spec in asked) is alone, asked
