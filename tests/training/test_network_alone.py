"""The final evaluation of a game that prunes dominated moves also scores the network alone (``prune=false``): a
policy file prunes by default, and pruning lifts an untrained network too, so the policy's row alone credited the
game's pruning to the training (an untrained Animal Chain network scored 0.647 against random's 0.495, the network
alone 0.516)."""

import numpy as np

from kakurega.agents.move_features import proves_dominance
from kakurega.agents.policy import resolved_env_options, save_policy
from kakurega.agents.tournament import run_tournament
from kakurega.agents.training.config import validate_config
from kakurega.agents.training.trainer import final_evaluation
from kakurega.envs.registry import ENV_SPECS, make

NAME, OPTIONS = "summer_hide_and_seek_v2", {"num_players": 2}


def untrained_file(path):
    raw = make(NAME, wrapped=False, **OPTIONS)
    size, actions = raw.layout.size, raw.game.num_actions
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.3, (16, size)).astype(np.float32), np.zeros(16, np.float32)),
              (rng.normal(0, 0.3, (actions, 16)).astype(np.float32), np.zeros(actions, np.float32))]
    meta = {"env": NAME, "env_options": resolved_env_options(NAME, OPTIONS), "observation_size": size,
            "num_actions": actions, "num_players": 2, "algorithm": "ppo", "network": {"activation": "tanh"}}
    return save_policy(path, layers, meta)


def test_an_untrained_networks_rows_show_what_pruning_gives_and_what_the_network_does(tmp_path):
    path = untrained_file(tmp_path / "untrained.safetensors")
    config = validate_config({"env": NAME, "env_kwargs": OPTIONS, "algorithm": "ppo", "total_timesteps": 64,
                              "evaluation": {"final_games": 40, "final_opponents": ["random"]}})
    rows, table = final_evaluation(config, path, tmp_path / "run")
    by_agent = {row["agent"]: row for row in rows}
    assert list(by_agent) == ["policy", "network alone", "random (baseline)"]
    alone = run_tournament(NAME, [f"policy:{path},prune=false", "random"], OPTIONS, 40, config["evaluation"]["seed"],
                           focal=f"policy:{path},prune=false").per_agent[0]
    assert by_agent["network alone"]["score"] == alone["score"] and by_agent["network alone"]["games"] == 40
    # pruning alone lifts the untrained network above random's result: the row the user needs to see through it
    assert by_agent["network alone"]["score"] < by_agent["random (baseline)"]["score"] < by_agent["policy"]["score"]
    assert "network alone" in table


def test_games_whose_features_prove_no_dominance_get_no_such_row():
    proving = {name for name in ENV_SPECS if proves_dominance(name)}
    assert NAME in proving and proving != set(ENV_SPECS)  # the control: some envs have no pruning to report
