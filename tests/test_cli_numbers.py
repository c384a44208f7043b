"""Numbers on the command line are refused at parse time in words, never taken as some other number."""

import pytest

from kakurega.scripts.cli import main


@pytest.mark.parametrize("value", ["-3", "1001", "two"])
def test_env_runners_out_of_range_is_refused_before_anything_runs(value, capsys):
    # --env-runners -3 was taken as 0 (max(0, n)) and a whole RLlib run trained on the driver instead
    with pytest.raises(SystemExit) as stopped:
        main(["train", "no_such_config.yaml", "--backend", "rllib", "--env-runners", value])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert f"argument --env-runners: expected a whole number of env-runner processes from 0 to 1,000, got '{value}'" in error


def test_env_runners_within_range_reach_the_command(capsys):  # the control: parsed, then the config is missing
    assert main(["train", "no_such_config.yaml", "--env-runners", "0"]) == 2
    assert "config file no_such_config.yaml does not exist" in capsys.readouterr().err


def test_quickstart_says_pass_config_only_when_none_was_passed(capsys):
    assert main(["quickstart", "--config", "no_such_config.yaml"]) == 2
    error = capsys.readouterr().err
    assert "config file no_such_config.yaml does not exist" in error and "pass --config" not in error
