"""``kakurega harden``: the exploiter loop on the Secret Nim toy game (tiny budgets)."""

from __future__ import annotations

import json

import pytest
import yaml

from kakurega.agents.harden import harden, pool_with_exploiters, report_table
from kakurega.agents.training.config import ConfigError

TINY = {
    "algorithm": "ppo", "env": "secret_nim_v0", "total_timesteps": 64, "n_envs": 2, "network": {"hidden": [32]},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 2, "learning_rate": 3e-3, "ent_coef": 0.0},
    "opponents": [{"agent": "heuristic", "weight": 3.0}, {"agent": "random", "weight": 1.0}],
    "logging": {"tensorboard": False, "progress_bar": False},
    "evaluation": {"every": 0, "final_games": 0},
}


@pytest.fixture
def recipe(tmp_path):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(TINY))
    return path


def test_the_pool_keeps_the_recipes_proportions_and_gives_the_exploiters_their_share():
    pool = pool_with_exploiters(TINY["opponents"], ["policy:a", "policy:b"], 0.3)
    assert [e["agent"] for e in pool] == ["heuristic", "random", "policy:a", "policy:b"]
    assert [e["weight"] for e in pool] == pytest.approx([0.525, 0.175, 0.15, 0.15])
    assert pool_with_exploiters(TINY["opponents"], [], 0.3) == TINY["opponents"]
    for bad in (0, 1, -0.5, 2):
        with pytest.raises(ValueError, match="exploiter_weight"):
            pool_with_exploiters(TINY["opponents"], ["policy:a"], bad)


def test_each_round_retrains_against_every_earlier_exploiter_and_measures_both_figures(nim, recipe, tmp_path):
    out = tmp_path / "h"
    report = harden(recipe, rounds=1, exploit_budget=64, games=20, warm_start=0, stop_at=0.0, output_dir=out,
                    quiet=True)
    rounds = report["rounds"]
    assert [r["round"] for r in rounds] == [0, 1]
    first_exploiter = rounds[0]["exploiter"]
    assert first_exploiter.startswith("policy:") and (out / "round_0" / "exploit").is_dir()
    # round 0 trains on the recipe's own pool; round 1 adds round 0's exploiter, frozen, at its share
    config0 = yaml.safe_load((out / "round_0" / "bot" / "config.yaml").read_text())
    config1 = yaml.safe_load((out / "round_1" / "bot" / "config.yaml").read_text())
    assert [e["agent"] for e in config0["opponents"]] == ["heuristic", "random"]
    assert config1["opponents"][-1] == {"agent": first_exploiter, "weight": pytest.approx(0.3)}
    assert sum(e["weight"] for e in config1["opponents"]) == pytest.approx(1.0)
    for row in rounds:
        for key in ("bot_vs_heuristic", "exploiter_vs_bot"):
            figure = row[key]
            assert figure["games"] == 20 and 0 <= figure["score"] <= 1
            low, high = figure["score_ci95"]
            assert low <= figure["score"] <= high
            # the score is what the games say: a win 1, a loss 0 (Secret Nim has neither ties nor draws)
            assert figure["score"] == pytest.approx(figure["wins"] / figure["games"])
        assert row["exploiter_vs_bot"]["agent"] == row["exploiter"]
    # the exploiter of round 1 was trained against round 1's bot (the exploit run's frozen target)
    exploit1 = json.loads((out / "round_1" / "exploit" / "exploit.json").read_text())
    assert exploit1["target"] == rounds[1]["bot"]
    on_disk = json.loads((out / "harden.json").read_text())
    assert on_disk["rounds"] == json.loads(json.dumps(rounds)) and on_disk["best"] in (0, 1)
    assert "| 1 | 1 |" in report_table(report)


def test_resume_keeps_finished_rounds_and_a_rerun_without_it_is_refused(nim, recipe, tmp_path):
    out = tmp_path / "h"
    harden(recipe, rounds=0, exploit_budget=32, games=10, warm_start=0, output_dir=out, quiet=True)
    policy = out / "round_0" / "bot" / "policy.safetensors"
    stamp = policy.stat().st_mtime_ns
    with pytest.raises(ConfigError, match="--resume"):
        harden(recipe, rounds=1, exploit_budget=32, games=10, warm_start=0, output_dir=out, quiet=True)
    report = harden(recipe, rounds=1, exploit_budget=32, games=10, warm_start=0, stop_at=0.0, output_dir=out,
                    resume=True, quiet=True)
    assert len(report["rounds"]) == 2 and policy.stat().st_mtime_ns == stamp  # round 0 was not retrained
    with pytest.raises(ConfigError, match="another recipe"):
        harden(recipe, rounds=1, exploit_budget=64, games=10, warm_start=0, output_dir=out, resume=True, quiet=True)


def test_bad_input_is_refused_before_any_work(nim, recipe, tmp_path):
    out = tmp_path / "never"
    for kwargs, words in (({"rounds": -1}, "rounds"), ({"rounds": 101}, "rounds must be a whole number from 0 .* to "
                                                                          "100, got 101"),
                          ({"rounds": 1.5}, "rounds"), ({"games": 0}, "games"), ({"stop_at": 1.5}, "stop_at"),
                          ({"exploiter_weight": 1.0}, "exploiter_weight")):
        with pytest.raises(ValueError, match=words):
            harden(recipe, output_dir=out, quiet=True, **kwargs)
    dqn = tmp_path / "dqn.yaml"
    dqn.write_text(yaml.safe_dump({k: v for k, v in TINY.items() if k != "ppo"} | {"algorithm": "dqn"}))
    with pytest.raises(ConfigError, match="PPO"):
        harden(dqn, output_dir=out, quiet=True)
    assert not out.exists()


def test_bad_settings_are_refused_before_round_0_is_trained(tmp_path):
    """An eval seed, a budget or a warm start each round's exploit would refuse was once refused only after
    round 0's whole bot had trained (and a budget of 0 silently became the recipe's)."""
    from kakurega.agents.harden import harden

    recipe = "configs/bots/summer_hide_and_seek_2p.yaml"
    out = tmp_path / "h"
    for settings, words in (({"eval_seed": -1}, "eval_seed"), ({"eval_seed": 2**32}, "eval_seed"),
                            ({"exploit_budget": 0}, "budget must be a whole number"),
                            ({"exploit_budget": -5}, "budget must be"), ({"warm_start": -1}, "warm start must be")):
        with pytest.raises(ValueError, match=words):
            harden(recipe, rounds=0, games=10, output_dir=out, quiet=True, **settings)
        assert not out.exists()


def test_a_budget_or_warm_start_over_the_training_bounds_is_refused_before_round_0(tmp_path, monkeypatch):
    """An exploit budget over total_timesteps' bound, or a warm start over pretrain.steps', was refused only by
    round 0's exploit, once round 0's whole bot had trained."""
    from kakurega.agents.harden import harden
    from kakurega.agents.training import trainer
    from kakurega.agents.training.config import MAX_STEPS

    def never(*args, **kwargs):
        raise AssertionError("trained before checking the settings")

    monkeypatch.setattr(trainer, "train", never)
    recipe = "configs/bots/summer_hide_and_seek_2p.yaml"
    for settings, words in (({"exploit_budget": MAX_STEPS + 1}, "budget must be a whole number"),
                            ({"warm_start": 10**7 + 1}, "warm start must be")):
        with pytest.raises(ValueError, match=words):
            harden(recipe, rounds=0, games=10, output_dir=tmp_path / "h", quiet=True, **settings)
    with pytest.raises(AssertionError, match="trained before"):  # the control: the largest settings reach training
        harden(recipe, rounds=0, games=10, output_dir=tmp_path / "h", quiet=True, exploit_budget=MAX_STEPS,
               warm_start=10**7)


def test_the_table_says_the_games_each_figure_played():
    """Three seats: --games 400 plays 402 games a figure (whole rotations); the table once said 400."""
    figure = {"score": 0.5, "score_ci95": [0.45, 0.55], "games": 402}
    report = {"config": "recipe.yaml", "env": "secret_nim_v0", "env_kwargs": {"num_players": 3},
              "exploit_budget": 64, "exploiter_weight": 0.3, "games": 400,
              "rounds": [{"round": 0, "bot": "policy:a", "bot_vs_heuristic": figure, "exploiter": "policy:b",
                          "exploiter_vs_bot": figure}]}
    assert "402 games per figure" in report_table(report).splitlines()[0]


def test_a_round_shows_its_exploit_runs_last_stage_and_says_so(nim, recipe, tmp_path, monkeypatch, capsys):
    """Each round's exploiter is the exploit run's last stage (the policy that joins the pool), not its highest
    stage (exploit.worst_case): the printed line and the table once called it the "best responder" alone, which
    in exploit's words is the highest. They say "last stage" and the line names the highest where another scored more."""
    from kakurega.agents import exploit as exploit_module

    def stage(budget, score):
        wins = round(score * 20)
        return {"agent": f"policy:stage_{budget}.safetensors", "budget": budget, "learner_steps": budget,
                "cpu_seconds_training": 0.0, "games": 20, "score": score, "score_ci95": [score - 0.1, score + 0.05],
                "wins": wins, "shared_wins": 0, "draws": 0, "losses": 20 - wins, "mean_reward": 2 * score - 1}

    stages = [stage(16, 0.9), stage(32, 0.8), stage(64, 0.7)]
    monkeypatch.setattr(exploit_module, "exploit", lambda *args, **kwargs: {"learned": stages})
    report = harden(recipe, rounds=0, exploit_budget=64, games=20, warm_start=0, output_dir=tmp_path / "h")
    row = report["rounds"][0]
    assert row["exploiter"] == "policy:stage_64.safetensors" and row["exploiter_vs_bot"]["score"] == 0.7
    assert exploit_module.worst_case({"learned": stages})["score"] == 0.9  # the control: the highest is another
    assert [s["score"] for s in row["exploiter_curve"]] == [0.9, 0.8, 0.7]
    printed = capsys.readouterr().out
    line = next(text for text in printed.splitlines() if text.strip().startswith("round 0:"))
    assert "its exploiter (the exploit run's last stage) 0.700 [0.600, 0.750]" in line
    assert "its highest stage, budget 16, scored 0.900" in line
    assert "| exploiter (last stage) vs bot |" in printed and "| 0.700 [0.600, 0.750] |" in printed
