"""Hardening a bot against its exploiters: a league that grows by best responses.

``kakurega harden CONFIG`` runs the exploiter loop of league training (the
"main exploiters" of AlphaStar's league; the best-response oracle of PSRO)
on a bot recipe:

- **Round 0** trains the bot from its recipe (``CONFIG``, e.g. a file of
  ``configs/bots/``) and learns an approximate best response to it with
  :func:`kakurega.agents.exploit.exploit` (the bot frozen in every other seat;
  the responder's budget the bot's own learner steps unless
  ``exploit_budget`` says otherwise; its warm start imitates the moves the
  recipe's own warm start imitated, so it starts where the bot started).
- **Round r** adds every exploiter learned so far, frozen, to the recipe's
  opponent pool (together ``exploiter_weight`` of the draws, equal shares;
  the recipe's own entries keep their proportions in the rest), retrains
  the bot from its recipe with that pool, and learns a best response to the
  new bot.

Each round reports the bot's score against the heuristic (paired,
seat-rotated deals, 95% interval) and the exploiter's score against the bot
(in a two-player game a lower bound of the best-response score, which is
(1 + exploitability)/2 where results are +1/-1): the exploitability curve.
The exploiter is the exploit run's **last stage** (its full budget), the
policy that joins the next rounds' pool, and its figure is that stage's
measurement, not the highest of the run's stages
(:func:`kakurega.agents.exploit.worst_case`, which leans upward: it is picked
for its own luck too); every stage's score is kept in the round's
``exploiter_curve``, and the printed line names the highest stage too where
it is another one. The loop stops after ``rounds`` rounds or once an
exploiter scores at most ``stop_at`` (the upper end of its interval). The
bot of every round stays in its run directory; ``kakurega train-bots`` style
installation is left to the user (``report["best"]`` names the round whose
exploiter scored lowest among the rounds that kept the recipe's margin over
the heuristic).

The run directory holds ``round_<r>/bot`` and ``round_<r>/exploit`` (each a
training run: manifest, checkpoints, resume) and ``harden.json`` (written
atomically after each step). ``resume`` keeps every finished step and
continues the others (an interrupted bot or exploiter from its newest
checkpoint); ``overwrite`` replaces an earlier harden run (only the files
runs wrote). Without either, a directory that holds a harden run
(``harden.json``, or a round's run, e.g. one interrupted in round 0) is
refused before any work. The run holds the lock of its directory for the whole
loop, and each round's bot and exploit runs from their start to the end of the
loop, so a second harden there (or a training into one of its rounds) is
refused while it runs.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from kakurega.agents.specs import with_path
from kakurega.agents.training.config import ConfigError

REPORT = "harden.json"
#: the target for a hardened two-player bot: its best responder's score at most this
DEFAULT_STOP_AT = 0.60
#: the most retraining rounds: each trains a bot and its exploiter (hours at the recipes' budgets), and every
#: exploiter stays in the opponent pool of every later round (a network in each env copy)
MAX_ROUNDS = 100


def pool_with_exploiters(opponents: list, exploiters: list[str], weight: float) -> list[dict]:
    """The recipe's ``opponents`` scaled to ``1 - weight`` of the draws plus ``exploiters`` sharing ``weight``.

    >>> pool_with_exploiters([{"agent": "heuristic", "weight": 0.8}, {"agent": "self", "weight": 0.2}],
    ...                      ["policy:a.safetensors", "policy:b.safetensors"], 0.4)  # doctest: +NORMALIZE_WHITESPACE
    [{'agent': 'heuristic', 'weight': 0.48}, {'agent': 'self', 'weight': 0.12},
     {'agent': 'policy:a.safetensors', 'weight': 0.2}, {'agent': 'policy:b.safetensors', 'weight': 0.2}]
    """
    check_exploiter_weight(weight)
    entries = [{"agent": e["agent"], "weight": float(e.get("weight", 1.0))} if isinstance(e, dict)
               else {"agent": e, "weight": 1.0} for e in opponents]
    if not exploiters:
        return entries
    total = sum(e["weight"] for e in entries)
    return ([{"agent": e["agent"], "weight": round(e["weight"] * (1 - weight) / total, 12)} for e in entries]
            + [{"agent": spec, "weight": round(weight / len(exploiters), 12)} for spec in exploiters])


def check_exploiter_weight(weight: float) -> None:
    """A ``ValueError`` in words unless the exploiters' share of the draws lies strictly between 0 and 1."""
    if not 0 < weight < 1:
        raise ValueError(f"exploiter_weight must be between 0 and 1 (exclusive), got {weight}")


def default_output(config_path: str | Path) -> str:
    """The run directory of a recipe's harden run when ``--output`` names none."""
    return f"runs/harden_{Path(config_path).stem}"


def _check_score(value, where: str, fix: str = "") -> None:
    """A ``ConfigError`` unless ``value`` is a measured figure: a mapping with a score and its ``[low, high]``."""
    def number(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    ci = value.get("score_ci95") if isinstance(value, dict) else None
    if not (isinstance(value, dict) and number(value.get("score")) and isinstance(ci, list) and len(ci) == 2
            and all(number(x) for x in ci)):
        raise ConfigError(f"{where}: expected a measured figure (a mapping with score: a number and "
                          f"score_ci95: [low, high]), got {short(value)}{fix}")


def short(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_rounds(rounds, path: Path) -> list[dict]:
    """The ``rounds`` of a saved ``harden.json``, or a :class:`ConfigError` naming the file and the row that is
    not what the loop wrote: round ``r`` at index ``r``, each with its bot and its figure, and every round
    but the last with its exploiter and its figure too."""
    fix = "; fix or delete it, or pass --overwrite to start the run again"
    if not isinstance(rounds, list):
        raise ConfigError(f"{path}: 'rounds' must be a list of rounds, got {short(rounds)}{fix}")
    for index, row in enumerate(rounds):
        where = f"{path}: rounds[{index}]"
        if not isinstance(row, dict):
            raise ConfigError(f"{where} must be a mapping (round, bot, bot_vs_heuristic, exploiter, "
                              f"exploiter_vs_bot), got {short(row)}{fix}")
        number = row.get("round")
        if not isinstance(number, int) or isinstance(number, bool) or number != index:
            raise ConfigError(f"{where}: expected round: {index}, got {short(row.get('round'))}{fix}")
        last = index == len(rounds) - 1
        for key, figure in (("bot", "bot_vs_heuristic"), ("exploiter", "exploiter_vs_bot")):
            if key not in row:
                if not last:
                    raise ConfigError(f"{where} lacks '{key}' though a later round follows it{fix}")
                if key == "bot" and "exploiter" in row:
                    raise ConfigError(f"{where} has an exploiter but no 'bot'{fix}")
                continue
            if not (isinstance(row[key], str) and row[key]):
                raise ConfigError(f"{where}: '{key}' must be an agent spec (e.g. policy:PATH), got {short(row[key])}{fix}")
            if figure not in row:
                raise ConfigError(f"{where} lacks '{figure}' (the {key}'s measured score){fix}")
            _check_score(row[figure], f"{where}.{figure}", fix)
    return [dict(row) for row in rounds]


def _score_row(row: dict) -> dict:
    keep = ("agent", "score", "score_ci95", "games", "wins", "shared_wins", "draws", "losses", "mean_reward")
    return {k: row[k] for k in keep if k in row}


def harden(config_path: str | Path, rounds: int = 2, exploit_budget: int | None = None, exploiter_weight: float = 0.3,
           games: int = 400, eval_seed: int = 12345, warm_start: int | None = None, stop_at: float = DEFAULT_STOP_AT,
           output_dir: str | Path | None = None, resume: bool = False, overwrite: bool = False,
           quiet: bool = False) -> dict:
    """Run the loop of the module docstring; returns the report (also in ``harden.json``)."""
    from kakurega.agents.exploit import check_responder_settings, exploit, measure
    from kakurega.agents.policy import context_for
    from kakurega.agents.tournament import check_games, check_seed
    from kakurega.agents.training import run_dir
    from kakurega.agents.training.config import load_config
    from kakurega.agents.training.trainer import train
    from kakurega.envs.core.safe_load import load_file

    say = (lambda *a: None) if quiet else print
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 0 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be a whole number from 0 (train and measure the recipe's bot only) to "
                         f"{MAX_ROUNDS}, got {rounds!r}")
    check_games(games)
    if not 0 <= stop_at <= 1:
        raise ValueError(f"stop_at is a score between 0 and 1, got {stop_at}")
    check_exploiter_weight(exploiter_weight)
    recipe = load_config(config_path)
    if recipe["algorithm"] != "ppo":
        raise ConfigError(f"{config_path}: hardening retrains a PPO recipe; this one is {recipe['algorithm']}")
    env_name, env_kwargs = recipe["env"], dict(recipe["env_kwargs"])
    budget = recipe["total_timesteps"] if exploit_budget is None else exploit_budget
    pretrain = recipe.get("pretrain", {})
    imitate = pretrain.get("agent") if pretrain.get("steps", 0) > 0 else None
    if warm_start is None:
        warm_start = pretrain.get("steps", 0) if imitate else 0
    # what each round's exploit would refuse, refused before round 0's bot is trained
    check_responder_settings(context_for(env_name, env_kwargs), budget, warm_start, "harden")
    check_seed(eval_seed, "eval_seed")
    out = Path(output_dir or default_output(config_path)).resolve()
    report_path = out / REPORT
    settings = {"config": str(config_path), "env": env_name, "env_kwargs": env_kwargs, "exploit_budget": budget,
                "exploiter_weight": exploiter_weight, "games": games, "eval_seed": eval_seed,
                "warm_start": warm_start, "imitate": imitate}
    with contextlib.ExitStack() as locks:
        # one harden at a time in ``out``, and each round's runs locked from their start to the end of this one
        locks.enter_context(run_dir.held(out))
        report = {**settings, "rounds": [], "stop_at": stop_at}
        if not (resume or overwrite):
            # harden.json is written only once round 0 is measured: an interrupted round 0 is a run to keep too
            started = [p for p in sorted(out.glob("round_*/*")) if p.name in ("bot", "exploit") and run_dir.holds_files(p)]
            if report_path.exists() or started:
                held = report_path if report_path.exists() else started[0]
                raise ConfigError(f"{out} already holds a harden run ({held}); pass --resume to continue it or "
                                  "--overwrite to replace it")
        if resume and report_path.is_file():
            old = load_file(report_path, max_bytes=1_000_000, error=ConfigError)
            if not isinstance(old, dict):
                raise ConfigError(f"{report_path}: expected a mapping of the run's settings and rounds, got "
                                  f"{type(old).__name__}; pass --overwrite to start the run again")
            if {k: old.get(k) for k in settings} != settings:
                raise ConfigError(f"cannot resume {out}: it hardened another recipe or measured otherwise")
            report["rounds"] = check_rounds(old.get("rounds", []), report_path)
        elif overwrite:
            report_path.unlink(missing_ok=True)

        def save() -> None:
            out.mkdir(parents=True, exist_ok=True)
            run_dir.atomic_write_bytes(report_path, json.dumps(report, indent=2).encode())

        exploiters = [row["exploiter"] for row in report["rounds"] if row.get("exploiter")]
        for r in range(rounds + 1):
            row = report["rounds"][r] if r < len(report["rounds"]) else {"round": r}
            if r == len(report["rounds"]):
                report["rounds"].append(row)
            if "bot" not in row:
                config = json.loads(json.dumps(recipe))
                config["opponents"] = pool_with_exploiters(recipe["opponents"], exploiters[:r], exploiter_weight)
                config["output_dir"] = str(out / f"round_{r}" / "bot")
                config["name"] = f"{recipe.get('name') or env_name}_round_{r}"
                say(f"== round {r}: training the bot against {len(config['opponents'])} opponent entries "
                    f"({r} exploiter(s))")
                continuing = resume and (out / f"round_{r}" / "bot" / "checkpoints").is_dir()
                lock = locks.enter_context(run_dir.held(out / f"round_{r}" / "bot"))
                result = train(config, resume=continuing, overwrite=overwrite, quiet=quiet, lock=lock)
                bot = with_path("policy", result.policy_path)
                row["bot"] = bot
                row["opponents"] = config["opponents"]
                row["bot_vs_heuristic"] = _score_row(measure(env_name, env_kwargs, bot, "heuristic", games, eval_seed))
                save()
            if "exploiter" not in row:
                say(f"== round {r}: a best response to the round's bot ({budget} learner steps)")
                target = exploit(env_name, row["bot"], env_kwargs, budget=budget, games=games, eval_seed=eval_seed,
                                 warm_start=warm_start, config_path=config_path, imitate=imitate,
                                 output_dir=out / f"round_{r}" / "exploit", resume=resume, overwrite=overwrite,
                                 quiet=quiet, lock=locks.enter_context(run_dir.held(out / f"round_{r}" / "exploit")))
                final = target["learned"][-1]
                row["exploiter"] = final["agent"]
                row["exploiter_vs_bot"] = _score_row(final)
                row["exploiter_curve"] = [{"budget": s["budget"], "score": s["score"]} for s in target["learned"]]
                save()
                exploiters.append(row["exploiter"])
            low, high = row["exploiter_vs_bot"]["score_ci95"]
            say(f"   round {r}: bot vs heuristic {row['bot_vs_heuristic']['score']:.3f}; "
                f"its exploiter (the exploit run's last stage) {row['exploiter_vs_bot']['score']:.3f} "
                f"[{low:.3f}, {high:.3f}]{_highest_stage(row)}")
            if high <= stop_at:
                say(f"   the exploiter's score (last stage) is at most {stop_at}: stopping")
                break
        report["rounds"] = report["rounds"][: r + 1]
        report["best"] = best_round(report)
        save()
        print(report_table(report))  # the result, with --quiet too (it silences the progress only)
        return report


def _highest_stage(row: dict) -> str:
    """``; its highest stage ...`` where an earlier stage of the round's exploit run scored more than its last."""
    curve = row.get("exploiter_curve") or []
    top = max(curve, key=lambda stage: stage["score"], default=None)
    if top is None or top["score"] <= row["exploiter_vs_bot"]["score"]:
        return ""
    return f"; its highest stage, budget {top['budget']}, scored {top['score']:.3f}"


def best_round(report: dict) -> int:
    """The round whose exploiter scored lowest among rounds whose bot kept round 0's score against the heuristic
    (within round 0's interval), round 0 when none did better."""
    rows = report["rounds"]
    floor = rows[0]["bot_vs_heuristic"]["score_ci95"][0]
    kept = [row for row in rows if row["bot_vs_heuristic"]["score"] >= floor]
    return min(kept, key=lambda row: (row["exploiter_vs_bot"]["score"], row["round"]))["round"]


def report_table(report: dict) -> str:
    """The exploitability curve as a Markdown table."""
    # the games each figure played: --games rounded up to whole rotations of the seats
    played = next((row["bot_vs_heuristic"]["games"] for row in report["rounds"]
                   if "games" in row.get("bot_vs_heuristic", {})), report["games"])
    lines = [f"Hardening {report['config']} ({report['env']}, {report['env_kwargs']}): exploiters of "
             f"{report['exploit_budget']} learner steps, {report['exploiter_weight']} of the pool, "
             f"{played} games per figure (scores: a win 1, a shared win 1/k, a draw 1/n)",
             "",
             "| round | exploiters in the pool | bot vs heuristic | exploiter (last stage) vs bot |",
             "|---|---|---|---|"]
    def cell(item):
        if not item:
            return "-"
        low, high = item["score_ci95"]
        return f"{item['score']:.3f} [{low:.3f}, {high:.3f}]"

    for row in report["rounds"]:
        lines.append(f"| {row['round']} | {row['round']} | {cell(row.get('bot_vs_heuristic'))} | "
                     f"{cell(row.get('exploiter_vs_bot'))} |")
    if "best" in report:
        lines += ["", f"Best round: {report['best']} (lowest exploiter score, each the exploit run's last stage, "
                  "among rounds that kept round 0's score against the heuristic)."]
    return "\n".join(lines)
