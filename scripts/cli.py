"""The ``kakurega`` command line: one entry point for training, evaluation, play and inspection.

    kakurega envs [NAME]                 list envs and options, or print one env card
    kakurega rules GAME                  the rules of a game, written for players
    kakurega demo                        one seeded random game of every game (newest version), rendered
    kakurega train CONFIG                train a bot (configs/<game>_ppo.yaml, ..._dqn.yaml)
    kakurega evaluate ENV --agents ...   tournament between agent specs
    kakurega exploit ENV --target SPEC   approximate best responses: how much an adapted opponent wins
    kakurega harden CONFIG               retrain a bot recipe with its exploiters in the league, round by round
    kakurega tactics ENV --agents ...    share of a game's tactics positions each agent solves
    kakurega play GAME --opponents ...   play in the terminal against any agents
    kakurega replay FILE [--gif OUT]     replay a game record in the terminal, or export a GIF
    kakurega serve [--port N]            the local web app: play by clicking, watch bots, open records
    kakurega plot RUN_DIR                learning-curve PNGs of a training run
    kakurega quickstart                  train a PPO bot (Summer Hide-and-Seek v2), evaluate, plot
    kakurega train-bots [--only WORD]    retrain the shipped bots (configs/bots/) and install them
    kakurega balance ENV                 balance report: seat scores, lengths, truncation, skill gaps
    kakurega playthroughs [--regenerate] check (or rewrite) the golden playthroughs of every configuration
    kakurega bench ...                   speed benchmark (kakurega.scripts.bench)

Torch and stable-baselines3 are imported only by the commands that train.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

from kakurega.scripts.serve import add_move_seconds_argument, move_seconds_error  # a bot's time per move

AGENT_SPEC_HELP = (
    "agent specs: random, heuristic (the game's rule-based player), pretrained (the shipped bot), "
    "policy:PATH[,sample=true] (a trained policy file), ismcts:... (search), human, or any kind added with "
    "register_agent_kind"
)


def _repo_configs_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "configs"


# ----------------------------------------------------------------------- envs
def cmd_envs(args) -> int:
    from kakurega.envs.registry import ENV_SPECS
    from kakurega.scripts.evaluate import import_agent_modules, resolve_env_name

    import_agent_modules(args.imports)
    if args.name:
        from kakurega.envs.rules_pages import game_of

        spec = ENV_SPECS[resolve_env_name(args.name)]
        print((spec.load().__doc__ or "(this env has no card)").strip())
        print(f"\nThe rules for players: `kakurega rules {game_of(spec.name)}`.")
        return 0
    for spec in ENV_SPECS.values():
        print(f"{spec.name}  ({spec.pettingzoo_id})")
        print(f"    {spec.summary}")
        try:
            definition = spec.definition()
            options = definition.options if definition is not None else ()
            defaults = spec.option_defaults()
        except Exception as error:  # an env still being written must not hide the others
            options, defaults = (), {}
            print(f"    options: (cannot inspect: {error})")
        if options:  # declared: every option with its default and what it accepts
            print("    options:")
            for option in options:
                print(f"      {option.name}={option.default!r}  ({option.describe()})")
        elif defaults:
            print("    options (defaults): " + ", ".join(f"{k}={v!r}" for k, v in defaults.items()))
        swept = "; ".join(", ".join(f"{k}={v}" for k, v in c.items()) or "defaults" for c in spec.configurations)
        print(f"    tested configurations: {swept}")
        print(f"    heuristic: {spec.heuristic}")
        if spec.move_features:
            print(f"    move features (network.move_features): {spec.move_features}")
    print("\n`kakurega envs NAME` prints an env's full card (actions, observation, rewards, options).")
    return 0


# ---------------------------------------------------------------------- rules
def cmd_rules(args) -> int:
    from kakurega.envs.rules_pages import rules_page

    print(rules_page(args.game).rstrip())
    return 0


# ----------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    from kakurega.agents.base import AgentContext, RandomAgent
    from kakurega.agents.outcome import classify_outcome, rules_winners
    from kakurega.agents.tournament import play_game
    from kakurega.envs.registry import latest_envs, make
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(args.imports)
    names = [args.env] if args.env else latest_envs()  # the newest version of every game
    for name in names:
        from kakurega.scripts.evaluate import resolve_env_name

        name = resolve_env_name(name)
        env = make(name, wrapped=False)
        context = AgentContext.from_env(env, name, {})
        agents = [RandomAgent(context, seed=args.seed + seat) for seat in range(context.num_players)]
        print("=" * 72)
        print(f"{name}: one game, seed {args.seed}, {context.num_players} random player(s)")
        print("=" * 72)
        returns, steps = play_game(env, agents, seed=args.seed)
        print(env.render_text(None))
        winners = rules_winners(env.game, env.game_state)
        outcome = ", ".join(
            f"{agent}: {ret:+g} ({classify_outcome(returns, seat, winners)})"
            for seat, (agent, ret) in enumerate(zip(env.possible_agents, returns))
        )
        print(f"-> {steps} moves; final returns: {outcome}\n")
    return 0


# ---------------------------------------------------------------------- train
def _run_training(config, overrides, trainer=None, **options):
    """``(result, 0)`` of a training run (``trainer``: the SB3 backend's by default), or ``(None, exit status)``
    once the reason it stopped is printed."""
    from kakurega.agents.training.config import ConfigError
    from kakurega.agents.training.run_dir import RunWriteError
    from kakurega.agents.training.trainer import TrainingInterrupted
    from kakurega.agents.training.trainer import train as sb3_train

    train = trainer or sb3_train
    try:
        return train(config, overrides, **options), 0
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return None, 2
    except RunWriteError as error:  # a full disk, a read-only place: what stopped and what is intact
        print(f"error: {error}", file=sys.stderr)
        return None, 1
    except TrainingInterrupted as stop:  # Ctrl-C: a checkpoint was saved; one line says where
        print(f"\n{stop}", file=sys.stderr)
        return None, 130
    except KeyboardInterrupt:  # Ctrl-C before training started (e.g. while the config loads)
        print("\ninterrupted before training started; nothing to save", file=sys.stderr)
        return None, 130


def cmd_train(args) -> int:
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(args.imports)  # before the config is read: it may name the module's env and agent kinds
    overrides = list(args.set or [])
    if args.output:
        overrides.append(f"output_dir={args.output}")
    if args.total_timesteps is not None:
        overrides.append(f"total_timesteps={args.total_timesteps}")
    if args.backend == "rllib":
        return _train_rllib(args, overrides)
    _, status = _run_training(args.config, overrides, resume=args.resume, overwrite=args.overwrite, quiet=args.quiet)
    return status


def _train_rllib(args, overrides) -> int:
    try:
        import ray.rllib  # noqa: F401  (the bridge imports Ray only when it trains: ask here, where it can be said)

        from kakurega.integrations.rllib_train import train as train_rllib
    except ImportError as error:
        print(f"error: --backend rllib needs Ray RLlib ({error}); install it with: pip install 'kakurega[rllib]'",
              file=sys.stderr)
        return 2
    _, status = _run_training(args.config, overrides, trainer=train_rllib, address=args.address,
                              num_env_runners=args.env_runners, mapping=args.policy_mapping, resume=args.resume,
                              overwrite=args.overwrite, quiet=args.quiet)
    return status


# -------------------------------------------------------------------- evaluate
def cmd_evaluate(args) -> int:
    from kakurega.scripts.evaluate import run

    return run(args)


def cmd_exploit(args) -> int:
    from kakurega.scripts.exploit import run

    return run(args)


def cmd_harden(args) -> int:
    from kakurega.scripts.harden import run

    return run(args)


def cmd_tactics(args) -> int:
    from kakurega.scripts.tactics import run

    return run(args)


# --------------------------------------------------------------------- balance
def cmd_balance(args) -> int:
    from kakurega.scripts.balance import run

    return run(args)


# ------------------------------------------------------------------------ plot
def cmd_plot(args) -> int:
    from kakurega.agents.training.plots import plot_learning_curves

    status = 0
    for run_dir in args.run_dirs:
        path = plot_learning_curves(run_dir)
        if path is None:
            print(f"{run_dir}: no training logs found", file=sys.stderr)
            status = 1
        else:
            print(f"wrote {path}")
    return status


# ------------------------------------------------------------------------ play
def _seat_index(text: str, agents: list, rng) -> int | None:
    """The seat ``--seat`` names: a number (0 = first), a seat name (``player_1``) or ``random``; None if none."""
    text = str(text).strip()
    if text.lower() == "random":
        return int(rng.integers(len(agents)))
    if text in agents:
        return list(agents).index(text)
    if text.isascii() and text.isdigit() and len(text) <= 6 and int(text) < len(agents):
        return int(text)
    return None


def cmd_play(args) -> int:
    import numpy as np

    from kakurega.agents.base import AgentContext, StopSignal, choose_action, seat_seed
    from kakurega.agents.human import HumanAgent, show_view
    from kakurega.agents.record import describe_move, describe_opening
    from kakurega.agents.specs import make_agent, parse_spec, require_unattended, seat_lineup
    from kakurega.envs.core.text_layout import terminal_width, wrap
    from kakurega.envs.registry import make
    from kakurega.scripts.evaluate import import_agent_modules, parse_options, resolve_env_name

    if problem := move_seconds_error(args.move_seconds):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    import_agent_modules(args.imports)
    name = resolve_env_name(args.game)
    options = parse_options(args.option)
    if args.record:  # checked before the first move: a finished game is never lost to an unwritable place
        from kakurega.scripts.destination import writable_file

        writable_file(args.record, "--record")
    env = make(name, wrapped=False, **options)
    context = AgentContext.from_env(env, name, options)
    n = context.num_players
    rng = np.random.default_rng(args.seed)
    seat = _seat_index(args.seat, env.possible_agents, rng)
    if seat is None:
        print(f"error: --seat expects a seat number from 0 to {n - 1}, a seat name ({', '.join(env.possible_agents)}) "
              f"or random; got {args.seat!r}", file=sys.stderr)
        return 2
    opponents = list(args.opponents or [])
    if n > 1 and not opponents:
        opponents = ["heuristic"]
    try:
        lineup_specs = seat_lineup(name, n, seat, opponents)
        for spec in opponents:  # one terminal shows one seat's view: a second person would see the first's hand
            require_unattended(parse_spec(spec), "an opponent in kakurega play",
                               "one terminal shows one seat's view; several people play at one table in kakurega serve",
                               clock=True)  # --move-seconds stops a search
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    human = HumanAgent(context, seed=args.seed)
    seats = []
    for s, spec in enumerate(lineup_specs):
        agent_seed = None if args.seed is None else seat_seed(args.seed, s)  # a bot's seed does not show the deal's
        seats.append(human if spec is None else make_agent(spec, context, seed=agent_seed))
    me = env.possible_agents[seat]
    width = terminal_width()  # None unless a terminal shows it: then lines are wrapped to its columns

    def say(text: str) -> None:
        print("\n".join(line for part in text.split("\n") for line in wrap(part, width)))

    lineup = ", ".join(f"{agent}: {spec or 'you'}" for agent, spec in zip(env.possible_agents, lineup_specs))
    say(f"{name} {options or ''} - you are {me}. Seats: {lineup}")
    say(f"The rules: type rules at the prompt, or run kakurega rules {name}")
    if legend := env.game.code_legend():
        say(legend)
    rule = min(60, width or 60)  # the separators fit a narrow terminal too
    record = None
    if args.record:
        from kakurega.agents.record import Record, new_seed

        deal_seed = args.seed if args.seed is not None else new_seed()  # a record replays only a seeded deal
        specs = [spec or "human" for spec in lineup_specs]
        record = Record.start(name, options, deal_seed, dict(zip(env.possible_agents, specs)))
    env.reset(seed=record.seed if record else args.seed)
    for agent in seats:
        agent.reset()
    for line in describe_opening(env, me):
        say(f"- {line}")
    try:
        while True:
            current = env.agent_selection
            if env.terminations[current] or env.truncations[current]:
                break
            agent = seats[env.possible_agents.index(current)]
            if agent is human:
                print("\n" + "-" * rule)
            show_view(agent, env, current, width=width)
            if agent is not human:  # a search plays its best move so far once its time is up
                agent.should_stop = StopSignal(deadline=time.monotonic() + args.move_seconds)
            try:
                action = choose_action(agent, env, current)
            finally:
                agent.should_stop = None
            if agent is not human and action not in env.legal_actions():
                # a bot's bug, said without the env's words for it: they speak of the bot's own hand
                print(f"error: {lineup_specs[env.possible_agents.index(current)]} on {current} chose the illegal "
                      f"action {action}; the game stops", file=sys.stderr)
                return 1
            before = env.game.clone(env.game_state)
            env.step(action)
            if record:
                record.add(current, action)
            say(f"- {describe_move(env, current, action, me, before)}")
    except KeyboardInterrupt as stop:
        reason = str(stop) or "Ctrl-C"  # the human's quit and a closed input say why; Ctrl-C itself says nothing
        print(f"\ngame abandoned ({reason}){'; no record written (only finished games are recorded)' if record else ''}.")
        return 130
    print("\n" + "=" * rule + "\nGame over. The table as you see it now:")
    print(env.render_text(me, width=width))
    print()
    for line in env.game.result_words(env.game_state, seat):
        say(line)
    if record:
        record.finish(env)
        print(f"game record written to {record.save(args.record)}; watch it with: kakurega replay {shlex.quote(str(args.record))}")
    return 0


# ---------------------------------------------------------------- replay, serve
def cmd_replay(args) -> int:
    from kakurega.scripts.replay import run

    return run(args)


def cmd_serve(args) -> int:
    from kakurega.scripts.serve import run

    return run(args)


# ------------------------------------------------------------------ quickstart
def cmd_quickstart(args) -> int:
    from kakurega.agents.training.config import ConfigError, find_config
    from kakurega.agents.training.run_dir import held
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(args.imports)
    try:
        config = find_config(args.config) if args.config else find_config(_repo_configs_dir() / "quickstart_ppo.yaml")
    except ConfigError as error:  # the default config is not beside this install: name one
        print(f"error: {error}{'' if args.config else '; pass --config'}", file=sys.stderr)
        return 2
    overrides = [f"output_dir={args.output}"] + list(args.set or [])
    if args.total_timesteps is not None:
        overrides.append(f"total_timesteps={args.total_timesteps}")
    output = args.output
    for override in args.set or []:  # a --set output_dir wins over --output, as the config reads them
        key, eq, text = override.partition("=")
        if eq and key.strip() == "output_dir":
            output = text
    try:  # one lock from the training to the tournament's files: no other run writes here meanwhile
        with held(Path(output).resolve()) as lock:
            return _quickstart(args, config, overrides, lock, output)
    except ConfigError as error:  # the directory is in use by another run
        print(f"error: {error}", file=sys.stderr)
        return 2


def _quickstart(args, config: Path, overrides: list, lock, output: str) -> int:
    """Train, play the tournament and say where everything is, in the run directory ``output`` (``lock`` holds it)."""
    from kakurega.agents.specs import with_path
    from kakurega.agents.tournament import run_tournament

    print(f"[1/3] training with {config} -> {output}")
    result, status = _run_training(config, overrides, overwrite=args.overwrite, quiet=False, lock=lock,
                                   kind="quickstart")
    if result is None:
        return status
    cfg, out = result.config, result.output_dir
    verdict = beats_heuristic(result.evaluation)
    if verdict:
        print(verdict)
    specs = [with_path("policy", result.policy_path), "heuristic", "random"]
    try:
        from kakurega.agents.pretrained import find

        find(cfg["env"], cfg["env_kwargs"])
        specs.append("pretrained")
    except ValueError:
        pass  # no shipped bot for this configuration
    print(f"\n[2/3] tournament: the trained policy vs {', '.join(specs[1:])} ({args.games} games per pairing)")
    try:
        tournament = run_tournament(cfg["env"], specs, cfg["env_kwargs"], args.games, seed=cfg["evaluation"]["seed"])
        print(tournament.table())
        paths = tournament.save(out / "tournament")
    except KeyboardInterrupt:  # training is over and saved: say so, not a traceback
        print(f"\ninterrupted during the tournament; the trained policy is saved: {result.policy_path}\n"
              f"play against it:  kakurega play {cfg['env']} --opponents {shlex.quote(with_path('policy', result.policy_path))}", file=sys.stderr)
        return 130
    print(f"\n[3/3] outputs under {out}:")
    for path in [result.policy_path, out / "plots" / "learning_curve.png", paths["heatmap"], paths["json"], paths["csv"],
                 out / "evaluation" / "evaluation.txt"]:
        print(f"  {path}")
    print(f"\nplay against it:  kakurega play {cfg['env']} --opponents {shlex.quote(with_path('policy', result.policy_path))}")
    return 0


# ------------------------------------------------------------------ train-bots
def cmd_train_bots(args) -> int:
    from kakurega.scripts.train_bots import main as train_bots

    return train_bots(args.train_bots_args)


def beats_heuristic(rows: list) -> str:
    """A line saying whether the final evaluation's policy beat the heuristic in its seat ("" without one)."""
    policy = next((r for r in rows if r["opponent"] == "heuristic" and r["agent"] == "policy"), None)
    itself = next((r for r in rows if r["opponent"] == "heuristic" and r["agent"] == "heuristic (itself)"), None)
    if policy is None or itself is None:
        return ""
    low, high = policy["score_ci95"]
    verdict = "beats" if low > itself["score"] else "does not beat"
    return (f"the bot {verdict} the heuristic: score {policy['score']:.3f} [{low:.3f}, {high:.3f}] against "
            f"{itself['score']:.3f} for the heuristic in the same seats on the same deals ({policy['games']} games; "
            "a win 1, a shared win 1/k, a draw 1/n)")


# ----------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    import importlib

    bench = importlib.import_module("kakurega.scripts.bench")
    return bench.main(args.bench_args) or 0


# ---------------------------------------------------------------- playthroughs
def cmd_playthroughs(args) -> int:
    from kakurega.scripts.playthroughs import run

    return run(args)


# ---------------------------------------------------------------------- parser
def env_runners_count(text: str) -> int:
    """The argparse type of ``--env-runners``: a whole number from 0 to 1,000 (a negative count was taken as 0)."""
    from kakurega.scripts.evaluate import _whole_number

    return _whole_number(text, 0, 1000, "a whole number of env-runner processes from 0 to 1,000")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kakurega",
        description="kakurega: RL environments for four Japanese hidden-information tabletop games, and the tools "
        "to train, evaluate and play against bots.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `kakurega COMMAND --help` for each command's options.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    from kakurega.scripts.evaluate import add_import_argument, seed_number

    p = sub.add_parser("envs", help="list registered envs and their options, or print one env card",
                       description="List every registered env with its summary, options and defaults, tested "
                       "configurations and heuristic; with NAME, print that env's card.")
    p.add_argument("name", nargs="?", help="an env name (e.g. kakurenbo_v1 or kakurenbo) to print its card")
    add_import_argument(p, "the list and NAME")
    p.set_defaults(func=cmd_envs)

    p = sub.add_parser("rules", help="the rules of a game, written for players",
                       description="Print the rules of GAME as a page for the people at the table (Markdown): "
                       "how to play the newest version, what each older version does differently.")
    p.add_argument("game", help="a game or env name, e.g. kakurenbo or kakurenbo_v0")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("demo", help="play and render one seeded random game of every game (its newest version)",
                       description="Play one seeded game of the newest version of each game with uniformly random agents, "
                       "print the final table (spectator view) and the result.")
    p.add_argument("--seed", type=seed_number, default=0, help="seed of the deal and the agents (default 0)")
    p.add_argument("--env", default=None, help="only this env")
    add_import_argument(p, "--env")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("train", help="train a bot from a YAML config",
                       description="Train MaskablePPO or MaskedDQN as the config says (see docs/training.md for "
                       "every key). Writes config.yaml, policy.safetensors, checkpoints, TensorBoard logs, "
                       "eval.csv, the final evaluation and learning-curve plots into the run directory.")
    p.add_argument("config", help="YAML config, e.g. configs/kakurenbo_ppo.yaml")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a config key (repeatable), e.g. --set ppo.n_steps=128 --set n_envs=4")
    p.add_argument("--total-timesteps", type=int, default=None, help="override total_timesteps")
    p.add_argument("--output", default=None, help="override output_dir")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in the run directory")
    group.add_argument("--overwrite", action="store_true",
                       help="delete an earlier run in the output directory first (only the files a kakurega run wrote; "
                       "never the current directory, a parent of it, home or /)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or tables")
    p.add_argument("--backend", choices=["sb3", "rllib"], default="sb3",
                   help="sb3 (default: stable-baselines3 on this machine) or rllib (Ray RLlib PPO; "
                        "pip install 'kakurega[rllib]'; see docs/integrations.md)")
    p.add_argument("--address", default=None,
                   help="rllib: join this Ray cluster (HOST:PORT, ray://HOST:PORT or auto) instead of starting a local Ray")
    p.add_argument("--env-runners", type=env_runners_count, default=2,
                   help="rllib: env-runner processes, 0 (the envs run in the driver) to 1,000 (default 2)")
    p.add_argument("--policy-mapping", choices=["auto", "shared", "per_seat", "learner"], default="auto",
                   help="rllib: learner (one learning seat against the config's opponents, as the SB3 backend "
                        "trains; auto means learner) or shared (one module for every seat; refused with opponents "
                        "other than self); per_seat is refused (a run keeps one policy). See docs/integrations.md")
    add_import_argument(p, "the config (its env, opponents and pretrain agent)")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("evaluate", help="tournament between agent specs on one env",
                       description="Tournament between agent specs (see kakurega.scripts.evaluate).")
    from kakurega.scripts.evaluate import build_parser as evaluate_parser

    evaluate_parser(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("exploit", help="approximate best responses to an agent spec (its exploitability)")
    from kakurega.scripts.exploit import build_parser as exploit_parser

    exploit_parser(p)
    p.set_defaults(func=cmd_exploit)

    p = sub.add_parser("harden", help="retrain a bot recipe with its exploiters in the league, round by round")
    from kakurega.scripts.harden import build_parser as harden_parser

    harden_parser(p)
    p.set_defaults(func=cmd_harden)

    p = sub.add_parser("tactics", help="share of a game's tactics positions (provably right or losing moves) "
                       "each agent solves")
    from kakurega.scripts.tactics import build_parser as tactics_parser

    tactics_parser(p)
    p.set_defaults(func=cmd_tactics)

    p = sub.add_parser("balance", help="balance report of one env (seat scores, lengths, truncation, skill gaps)")
    from kakurega.scripts.balance import build_parser as balance_parser

    balance_parser(p)
    p.set_defaults(func=cmd_balance)

    p = sub.add_parser("play", help="play a game in the terminal against any agents",
                       description="Play GAME in the terminal. You see only your own view of the table, and your "
                       "legal moves listed by name with keys; type a key or a move's words to play (rules at "
                       "the prompt prints the rules; q twice quits). "
                       + AGENT_SPEC_HELP + ".")
    p.add_argument("game", help="env name, e.g. kakurenbo_v1 or kakurenbo")
    p.add_argument("--opponents", nargs="*", metavar="SPEC",
                   help="one spec per other seat, or one spec for all of them (default: heuristic)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="env option (repeatable), e.g. num_players=3")
    p.add_argument("--seat", default="random",
                   help="your seat: its number (0 = first), its name (e.g. player_1) or random (default)")
    p.add_argument("--seed", type=seed_number, default=None, help="seed of the deal; the bots' seeds are a hash of it (default: a new deal each time)")
    p.add_argument("--record", default=None, metavar="FILE",
                   help="write the game's record (JSON, docs/web.md) to FILE when it ends; see `kakurega replay`")
    add_move_seconds_argument(p)
    add_import_argument(p, "GAME and --opponents")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="replay a game record in the terminal, or export it as a GIF")
    from kakurega.scripts.replay import build_parser as replay_parser

    replay_parser(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("serve", help="the local web app: play by clicking the table, watch bots, open records")
    from kakurega.scripts.serve import build_parser as serve_parser

    serve_parser(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("plot", help="learning-curve PNGs of training runs",
                       description="Draw <run>/plots/learning_curve.png from a run's SB3 logs and eval.csv.")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="training run directories (e.g. runs/kakurenbo_ppo)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("quickstart", help="train a PPO bot (Summer Hide-and-Seek v2), evaluate it, plot",
                       description="The main job in one command: train a PPO bot with configs/quickstart_ppo.yaml "
                       "(Summer Hide-and-Seek v2, 2 players: imitate the heuristic, then PPO mostly against it; "
                       "a few minutes on 2 cores), evaluate it against random and heuristic players (and the "
                       "shipped bot), say whether it beat the heuristic, print the tables and save plots under "
                       "--output.")
    p.add_argument("--config", default=None, help="config to train (default configs/quickstart_ppo.yaml)")
    p.add_argument("--output", default="runs/quickstart", help="run directory (default runs/quickstart)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier quickstart run in --output (only the files a run wrote are deleted)")
    p.add_argument("--total-timesteps", type=int, default=None, help="override the training budget")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key (repeatable)")
    from kakurega.scripts.evaluate import games_count

    p.add_argument("--games", type=games_count, default=100,
                   help="games per pairing in the closing tournament, 1 to 1,000,000 (default 100)")
    add_import_argument(p, "--config (its env, opponents and pretrain agent)")
    p.set_defaults(func=cmd_quickstart)

    p = sub.add_parser("train-bots", help="retrain the shipped bots from configs/bots/ and install them",
                       description="Retrain every shipped bot from scratch (kakurega.scripts.train_bots; "
                       "try `kakurega train-bots --help`).", add_help=False)
    p.add_argument("train_bots_args", nargs=argparse.REMAINDER, help="arguments of kakurega.scripts.train_bots")
    p.set_defaults(func=cmd_train_bots)

    p = sub.add_parser("playthroughs", help="check (or --regenerate) the golden playthroughs of every configuration",
                       description="Replay one seeded game of every registered configuration and compare it with "
                       "tests/playthroughs/ (a unified diff for each that differs); --regenerate rewrites the files.")
    from kakurega.scripts.playthroughs import build_parser as playthroughs_parser

    playthroughs_parser(p)
    p.set_defaults(func=cmd_playthroughs)

    p = sub.add_parser("bench", help="speed benchmark (arguments go to kakurega.scripts.bench)",
                       description="Run the speed benchmark; every argument after `bench` is passed to "
                       "kakurega.scripts.bench:main (try `kakurega bench --help`).", add_help=False)
    p.add_argument("bench_args", nargs=argparse.REMAINDER, help="arguments of the benchmark")
    p.set_defaults(func=cmd_bench)
    return parser


def run_standalone(build_parser, run, argv=None) -> int:
    """``python -m kakurega.scripts.NAME``: parse with the script's parser and run it, with :func:`guarded`."""
    args = build_parser().parse_args(argv)
    return guarded(lambda: run(args))


def run_module(entry, argv=None) -> int:
    """What a script runs as ``python -m kakurega.scripts.NAME``: ``entry(argv)`` with :func:`guarded`, so a
    bad value is one line there too, as it is through ``kakurega``."""
    return guarded(lambda: entry(argv))


def os_error_words(error: OSError) -> str:
    """``error`` in one line: the path(s) it concerns and the system's reason (``out/x.png: Is a directory``)."""
    reason = error.strerror or str(error) or type(error).__name__
    paths = [os.fsdecode(name) if isinstance(name, (str, bytes, os.PathLike)) else str(name)
             for name in (error.filename, error.filename2) if name is not None]
    where = " -> ".join(paths)
    return f"{where}: {reason}" if where else reason


def main(argv=None) -> int:
    """Entry point of the ``kakurega`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv and argv[0] == "bench":  # everything after `bench`, --help included, belongs to the benchmark
        args = argparse.Namespace(func=cmd_bench, bench_args=argv[1:])
    elif argv and argv[0] == "train-bots":
        args = argparse.Namespace(func=cmd_train_bots, train_bots_args=argv[1:])
    else:
        args = parser.parse_args(argv)
    return guarded(lambda: args.func(args))


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, ``docker stop``, a batch scheduler): stops a command as Ctrl-C does (a run saves a
    checkpoint, a partial file is removed), and the exit status says which (143)."""


#: whether SIGTERM stopped the command :func:`guarded` runs
_TERMINATED = {"fired": False}


def _terminate(signum, frame):
    _TERMINATED["fired"] = True
    raise Terminated()


def guarded(call) -> int:
    """``call()``'s exit status, with what stopped it said in one line instead of a traceback: bad input (a config,
    a spec, an option of the wrong type, a policy file) exit 2, a file in the way exit 1, Ctrl-C exit 130, SIGTERM
    (handled as Ctrl-C) exit 143 (``KAKUREGA_DEBUG=1`` shows the traceback). Text the output's encoding cannot
    hold (a Japanese title in an ASCII terminal) is written escaped, not refused."""
    import signal
    import threading

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a text stream of its own (a test's capture): as it is
            pass
    previous = None
    _TERMINATED["fired"] = False
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        status = _guarded(call)
    except Exception:
        if not _TERMINATED["fired"] or os.environ.get("KAKUREGA_DEBUG"):
            raise
        # SIGTERM raised inside code that turned it into another exception (Python wraps an exception raised in a
        # class's __set_name__ as a RuntimeError: a SIGTERM while torch was being imported): still a SIGTERM
        print("\ninterrupted (SIGTERM)", file=sys.stderr)
        status = 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 143 if status != 0 and _TERMINATED["fired"] else status


#: the extra (pyproject.toml) that installs each optional library a command may import
EXTRA_OF_MODULE = {
    **dict.fromkeys(("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "rich", "tqdm", "tensorboard"),
                    "train"),
    **dict.fromkeys(("starlette", "uvicorn", "websockets"), "web"),
    **dict.fromkeys(("pygame", "rlcard"), "bench"),
    **dict.fromkeys(("open_spiel", "pyspiel"), "openspiel"),
    "supersuit": "supersuit", "tianshou": "tianshou", "ray": "rllib", "agilerl": "agilerl",
}


def _guarded(call) -> int:
    try:
        return int(call() or 0)
    except ModuleNotFoundError as error:  # an optional library of an extra the install lacks: which extra, in words
        extra = EXTRA_OF_MODULE.get((error.name or "").partition(".")[0])
        if extra is None or os.environ.get("KAKUREGA_DEBUG"):
            raise
        print(f"error: this command needs {error.name}, which the {extra} extra installs: "
              f"pip install 'kakurega[{extra}]'", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as error:  # bad input (config, spec, option of the wrong type, policy file): a message
        if os.environ.get("KAKUREGA_DEBUG"):
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (kakurega rules kakurenbo | head): stop without a traceback
        try:  # what is left in the buffer goes nowhere, so the exit does not fail on it either
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except OSError as error:  # a file in the way, a full disk, no permission: the path and the reason in one line
        if os.environ.get("KAKUREGA_DEBUG"):
            raise
        print(f"error: {os_error_words(error)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:  # Ctrl-C where a command does not say more itself (starting up, between steps)
        if os.environ.get("KAKUREGA_DEBUG"):
            raise
        print(f"\ninterrupted ({'SIGTERM' if isinstance(stop, Terminated) else 'Ctrl-C'})", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
