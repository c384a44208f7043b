"""``kakurega harden``: retrain a bot recipe with its exploiters in the league, round by round.

Examples::

    kakurega harden configs/bots/summer_hide_and_seek_2p.yaml --rounds 2
    kakurega harden configs/bots/animal_chain.yaml --rounds 3 --exploit-budget 100000 --output runs/harden_ac

See :mod:`kakurega.agents.harden` for the loop and docs/strength.md for the figures.
"""

from __future__ import annotations

import argparse
import sys

from kakurega.scripts.evaluate import add_import_argument, games_count, seed_number


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="kakurega harden", description=__doc__.split("\n")[0])
    parser.description = (
        "Train a bot from its recipe, learn a best response to it (kakurega exploit), add that exploiter frozen to "
        "the recipe's opponent pool, retrain, and repeat; report per round the bot's score against the heuristic "
        "and its exploiter's score against it (the exploit run's last stage, not its highest: the exploitability "
        "curve). See kakurega.agents.harden."
    )
    parser.add_argument("config", help="a PPO bot recipe, e.g. configs/bots/summer_hide_and_seek_2p.yaml")
    parser.add_argument("--rounds", type=int, default=2,
                        help="retraining rounds after round 0, 0 to 100 (default 2; each adds one exploiter)")
    parser.add_argument("--exploit-budget", type=int, default=None, metavar="STEPS",
                        help="learner steps of each best responder (default: the recipe's total_timesteps)")
    parser.add_argument("--exploiter-weight", type=float, default=0.3,
                        help="share of the opponent draws the exploiters take together (default 0.3)")
    parser.add_argument("--warm-start", type=int, default=None, metavar="MOVES",
                        help="moves each responder imitates first (default: the recipe's pretrain.steps)")
    parser.add_argument("--games", type=games_count, default=400, help="games per measurement, 1 to 1,000,000 (default 400)")
    parser.add_argument("--eval-seed", type=seed_number, default=12345, help="seed of the measured deals (default 12345)")
    parser.add_argument("--stop-at", type=float, default=0.60,
                        help="stop once an exploiter's score interval (its last stage's) lies at or below this "
                        "(default 0.60)")
    parser.add_argument("--output", default=None, help="run directory (default runs/harden_<config name>)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="keep the finished rounds and continue the others (an "
                       "interrupted bot or exploiter from its newest checkpoint)")
    group.add_argument("--overwrite", action="store_true", help="replace an earlier harden run in --output "
                       "(only the files kakurega runs wrote)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars or stage lines (the result table is "
                        "still printed)")
    add_import_argument(parser, "the recipe (its env, opponents and pretrain agent)")
    return parser


def run(args) -> int:
    from pathlib import Path

    from kakurega.agents.harden import default_output, harden
    from kakurega.agents.training.trainer import TrainingInterrupted
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(getattr(args, "imports", None))
    try:
        harden(args.config, rounds=args.rounds, exploit_budget=args.exploit_budget,
               exploiter_weight=args.exploiter_weight, games=args.games, eval_seed=args.eval_seed,
               warm_start=args.warm_start, stop_at=args.stop_at, output_dir=args.output, resume=args.resume,
               overwrite=args.overwrite, quiet=args.quiet)
    except (TrainingInterrupted, KeyboardInterrupt) as stop:  # Ctrl-C: one line on what was kept, how to go on
        out = Path(args.output or default_output(args.config)).resolve()
        what = str(stop).partition("; continue with --resume")[0] or "interrupted"
        print(f"\n{what}; every finished round and checkpoint in {out} is kept: continue with the same command "
              f"and --resume{' (in place of --overwrite)' if args.overwrite else ''}", file=sys.stderr)
        return 130
    return 0


def main(argv=None) -> int:
    from kakurega.scripts.cli import run_standalone

    return run_standalone(build_parser, run, argv)


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
