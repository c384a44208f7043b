"""Config validation: every error names the key and what was expected; shipped configs are valid."""

from pathlib import Path

import pytest

from kakurega.agents.training.config import ConfigError, all_keys, load_config, schema_markdown, validate_config

ROOT = Path(__file__).resolve().parents[2]
BASE = {"env": "kakurenbo_v0", "algorithm": "ppo", "total_timesteps": 1000}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"lerning_rate": 0.1}, r"config key 'lerning_rate': unknown key; expected one of: name, env"),
        ({"ppo": {"n_step": 5}}, r"config key 'ppo.n_step': unknown key; expected one of: learning_rate, n_steps"),
        ({"ppo": {"n_steps": "many"}}, r"config key 'ppo.n_steps': expected an integer in \[1, 1000000\], got 'many' \(str\)"),
        ({"ppo": {"n_steps": 2.5}}, r"'ppo.n_steps': expected an integer in \[1, 1000000\], got 2.5 \(float\)"),
        ({"ppo": {"n_steps": 0}}, r"'ppo.n_steps': expected an integer in \[1, 1000000\], got 0"),
        ({"n_envs": True}, r"'n_envs': expected an integer in \[1, 256\], got True \(bool\)"),
        ({"ppo": {"gamma": 1.5}}, r"'ppo.gamma': expected a finite number in \[0, 1\], got 1.5"),
        ({"algorithm": "a2c"}, r"'algorithm': expected a string among 'ppo', 'dqn', got 'a2c'"),
        ({"vec_env": "threads"}, r"'vec_env': expected a string among 'dummy', 'subproc'"),
        ({"learner_seat": "left"}, r"'learner_seat': expected 'random' or a seat number"),
        ({"network": {"hidden": [64, -1]}}, r"'network.hidden': expected a list of 1 to 16 integers from 1 to 4096"),
        ({"network": 5}, r"config section 'network': expected a mapping of keys, got 5"),
        ({"env_kwargs": [1]}, r"'env_kwargs': expected a mapping of option names to values"),
        ({"opponents": "random"}, r"'opponents': expected a list of \{agent: SPEC, weight: NUMBER\}"),
        ({"opponents": [{"agent": "random", "wieght": 1}]}, r"'opponents\[0\].wieght': unknown key; expected agent and weight"),
        ({"opponents": [{"agent": "random", "weight": -1}]}, r"'opponents\[0\].weight': expected a number from 0 to 1000000, got -1"),
        ({"opponents": [{"agent": "random", "weight": 0}]}, r"'opponents': the weights sum to 0"),
        ({"opponents": [{"weight": 1}]}, r"'opponents\[0\].agent': expected an agent spec string, got None"),
        ({"env": "chess_v9"}, r"config key 'env': unknown env 'chess_v9'; registered envs: kakurenbo_v1"),
        ({"evaluation": {"final_opponents": []}}, r"'evaluation.final_opponents': expected a list of agent spec strings"),
        ({"logging": {"tensorboard": "yes"}}, r"'logging.tensorboard': expected true or false, got 'yes'"),
    ],
)
def test_bad_values_are_named(change, message):
    with pytest.raises(ConfigError, match=message):
        validate_config({**BASE, **change})


def test_missing_required_key():
    with pytest.raises(ConfigError, match=r"config key 'total_timesteps' is required: learner steps"):
        validate_config({"env": "kakurenbo_v0", "algorithm": "ppo"})


def test_defaults_are_filled_and_yaml_float_quirk_is_accepted():
    config = validate_config({**BASE, "ppo": {"learning_rate": "3e-4"}})
    assert config["ppo"]["learning_rate"] == pytest.approx(3e-4)
    assert config["dqn"]["buffer_size"] == 100_000 and config["name"] == "kakurenbo_ppo"
    assert config["output_dir"] == "runs/kakurenbo_ppo"
    assert config["opponents"] == [{"agent": "random", "weight": 1.0}]


def test_overrides_are_validated_like_the_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("env: kakurenbo_v0\nalgorithm: ppo\ntotal_timesteps: 10\n")
    assert load_config(path, ["ppo.n_steps=64", "opponents=[random, self]"])["ppo"]["n_steps"] == 64
    with pytest.raises(ConfigError, match=r"c.yaml: config key 'ppo.nsteps': unknown key"):
        load_config(path, ["ppo.nsteps=64"])
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        load_config(path, ["ppo.n_steps"])


def test_bad_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("env: [unclosed\n")
    with pytest.raises(ConfigError, match="broken.yaml: not valid YAML"):
        load_config(broken)


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = load_config(path)
    assert config["algorithm"] in path.name


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "bots").glob("*.yaml")), ids=lambda p: p.name)
def test_bot_configs_are_valid_and_train_in_their_own_run_directory(path):
    config = load_config(path)
    assert config["name"] == f"bot_{path.stem}" and isinstance(config["seed"], int)
    # the shipped files were trained with sb3-contrib's numbers: a retrain reproduces them only with exact
    assert config["network"]["masked_distribution"] == "exact"


def test_a_ppo_and_a_dqn_config_per_game():
    names = {p.name for p in (ROOT / "configs").glob("*.yaml")}
    for game in ("kakurenbo", "hidden_rooms", "animal_chain", "summer_hide_and_seek"):
        assert {f"{game}_ppo.yaml", f"{game}_dqn.yaml"} <= names


def test_training_guide_documents_every_key():
    guide = (ROOT / "docs" / "training.md").read_text()
    missing = [key for key in all_keys() if f"`{key}`" not in guide]
    assert not missing, f"docs/training.md does not document: {missing}"


def test_the_guide_s_config_reference_is_the_schema_table():
    """The "Config reference" table is ``schema_markdown()`` row for row: every type, default and meaning as the
    validator has it (run ``python -m kakurega.agents.training.config`` for the table)."""
    guide = (ROOT / "docs" / "training.md").read_text()
    table = schema_markdown()
    stale = [row for row in table.splitlines() if row not in guide.splitlines()]
    assert not stale, "docs/training.md's config reference differs from the schema in these rows:\n" + "\n".join(stale)
    assert table in guide, "docs/training.md's config reference has rows the schema does not (or in another order)"
    changed = table.replace("| `n_envs` | an integer in [1, 256] | `8` |", "| `n_envs` | an integer in [1, 256] | `4` |")
    assert changed != table and changed not in guide, "control: a changed default is not in the guide"


def test_strength_report_finds_the_config_of_every_newest_env():
    # the newest version of every game names its default training config (EnvSpec.train_config)
    from kakurega.envs.registry import ENV_SPECS, latest_envs
    from kakurega.scripts.strength_report import config_for

    for name in latest_envs():
        assert config_for(name).is_file(), name
    for name, spec in ENV_SPECS.items():
        if not spec.train_config:
            with pytest.raises(ValueError, match="has no default training config"):
                config_for(name)


def test_serves_lists_other_options_with_the_same_spaces():
    base = {"env": "hidden_rooms_v0", "env_kwargs": {"episode": "round"}, "algorithm": "ppo", "total_timesteps": 10}
    assert validate_config({**base, "serves": [{"episode": "match"}]})["serves"] == [{"episode": "match"}]
    for serves, message in [
        ("match", r"'serves': expected a list of at most 64 mappings of option names to values, got 'match'"),
        ([{"episode": "matches"}], r"'serves\[0\]': hidden_rooms_v0 refuses these options: episode must be"),
        ([{"episode": "match"}, {}], r"'serves\[1\]': \{\} is env_kwargs or an earlier entry again"),
        ([{"episode": "round", "max_turns": 60}], r"'serves\[0\]': .* is env_kwargs or an earlier entry again"),
    ]:
        with pytest.raises(ConfigError, match=message):
            validate_config({**base, "serves": serves})
    small = {"shape": "envs/data/small/animal_chain_shape_1_2_1.yaml"}
    with pytest.raises(ConfigError, match=r"'serves\[0\]': the policy cannot serve .*: observation pieces hole, "
                                          r"face_down, .* differ \(size 674 -> 110\); actions/players: 1269/2 -> 156/2"):
        validate_config({"env": "animal_chain_v1", "algorithm": "ppo", "total_timesteps": 10, "serves": [small]})


def test_a_trained_policy_file_records_what_it_serves(tmp_path):
    from kakurega.agents.policy import read_policy, resolved_env_options
    from kakurega.agents.training.trainer import train

    result = train({"env": "hidden_rooms_v0", "env_kwargs": {"episode": "round"}, "algorithm": "ppo",
                    "total_timesteps": 64, "n_envs": 1, "ppo": {"n_steps": 64, "batch_size": 64},
                    "serves": [{"episode": "match"}], "output_dir": str(tmp_path / "run"),
                    "evaluation": {"every": 0, "final_games": 0}, "checkpoint": {"every": 0},
                    "logging": {"tensorboard": False, "progress_bar": False}}, quiet=True)
    assert read_policy(result.policy_path)[0]["serves"] == [resolved_env_options("hidden_rooms_v0", {})]


def test_strength_report_says_how_its_intervals_and_winners_are_counted(tmp_path):
    """The report's header once said "normal intervals for mean rewards" and "a win is the highest final return";
    its rows are the tournament's: the Wilson interval of a score-paying reward, the rules' winners."""
    import json

    import yaml

    from kakurega.agents.tournament import run_tournament
    from kakurega.scripts.strength_report import write_report

    run = tmp_path / "runs" / "animal_chain_ppo"
    run.mkdir(parents=True)
    row = dict(run_tournament("animal_chain_v1", ["heuristic", "random"], {}, 20, 0, focal="heuristic").per_agent[0])
    row.update(opponent="random", agent="policy")
    (run / "summary.json").write_text(json.dumps({"timesteps": 1, "wall_seconds_training": 60, "evaluation": [row]}))
    (run / "config.yaml").write_text(yaml.safe_dump({"env_kwargs": {}, "network": {"hidden": [8], "activation": "tanh"},
                                                     "opponents": [{"agent": "heuristic", "weight": 1.0}]}))
    text = write_report(tmp_path / "runs", tmp_path / "strength.md", ["animal_chain_v1"])
    assert "normal intervals for mean rewards" not in text and "a win is the highest final return" not in text
    assert "mean_interval" in text and "who won is the rules' call" in text
