"""``kakurega tactics``: the share of a game's tactics positions each agent solves.

Examples::

    kakurega tactics animal_chain --agents random heuristic pretrained
    kakurega tactics kakurenbo --agents heuristic ismcts:simulations=100 --json runs/tactics.json
    kakurega tactics kakurenbo --option variant=kurayami --agents heuristic pretrained    another table's suite
    kakurega tactics animal_chain --verify                  re-derive every stored claim from the rules
    kakurega tactics --generate                             rebuild every shipped suite (minutes)

A suite is data, one file per table (``envs/data/tactics/<game>.json`` for a
game's first table, ``<game>-<options>.json`` for the others): each position
is the seed and the moves that reach it through the rules engine, the seat to
act, the right moves ("good") or the blunders ("bad") and the reason. See
:mod:`kakurega.agents.tactics` and docs/strength.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    from kakurega.scripts.evaluate import add_import_argument, seed_number

    parser = parser or argparse.ArgumentParser(prog="kakurega tactics", description=__doc__.split("\n")[0])
    parser.description = (
        "Ask agents at every position of a game's tactics suite (positions with a provably right or provably "
        "losing move, derived from the rules) and report the share each solves, per category, with a 95% "
        "interval, and the ids of the positions it failed. Each agent is reset and asked cold at the position, "
        "from its own observation as in play."
    )
    parser.add_argument("env", nargs="?", help="env or game name, e.g. kakurenbo or kakurenbo_v1 (with "
                        "--generate: only that table's suite; without a name, every suite)")
    parser.add_argument("--agents", nargs="+", metavar="SPEC", help="agent specs: random, heuristic, pretrained, "
                        "policy:PATH, ismcts:..., or any registered kind")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE", help="env option (repeatable), e.g. "
                        "num_players=3: the suite of that table (default: the game's first table, "
                        "envs/data/tactics/<game>.json)")
    parser.add_argument("--suite", default=None, metavar="FILE", help="a suite file (default: the game's shipped "
                        "suite of the table asked)")
    parser.add_argument("--category", action="append", metavar="NAME", help="only positions of this category "
                        "(repeatable)")
    parser.add_argument("--seed", type=seed_number, default=0, help="seed of the agents (default 0)")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--verify", action="store_true", help="re-derive every claim of the suite from the rules "
                        "and print the problems (exit status 1 if any)")
    parser.add_argument("--generate", action="store_true", help="rebuild the suites by searching seeded games "
                        "(writes --out): every suite, or the game's table asked")
    parser.add_argument("--out", default=None, metavar="DIR", help="--generate: where to write the suites "
                        "(default: the shipped folder envs/data/tactics)")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    add_import_argument(parser, "--agents and ENV")
    return parser


def _suite_for(args):
    from kakurega.agents.tactics.suite import find_suite, load_suite
    from kakurega.scripts.evaluate import parse_options, resolve_env_name

    options = parse_options(args.option)
    if args.suite:
        if options:
            raise ValueError("--option picks a shipped suite; the positions of --suite FILE carry their own options")
        suite = load_suite(args.suite)
        return _in_env(suite, resolve_env_name(args.env)) if args.env else suite
    if not args.env:
        raise ValueError("name an env (e.g. kakurega tactics animal_chain --agents heuristic) or give --suite FILE")
    env_name = resolve_env_name(args.env)
    return _in_env(find_suite(env_name, options), env_name)


def _in_env(suite, env_name: str):
    """``suite`` itself, or its positions that re-verify in ``env_name`` (another version of the game)."""
    from kakurega.agents.tactics.patterns import reverified_in

    if suite.env == env_name:
        return suite
    suite, left_out = reverified_in(suite, env_name)
    print(f"positions of {suite.source} ({len(suite.positions) + left_out}, made in another version) replayed in "
          f"{env_name}: {len(suite.positions)} re-verify there, {left_out} left out")
    return suite


def _generate(args) -> int:
    from kakurega.agents.tactics.generate import PLANS, generate, plan_for
    from kakurega.agents.tactics.suite import DIRECTORY
    from kakurega.scripts.evaluate import parse_options, resolve_env_name

    names = list(PLANS)
    if args.env:
        names = [plan_for(resolve_env_name(args.env), parse_options(args.option))]
    elif args.option:
        raise ValueError("--option needs a game: kakurega tactics GAME --option KEY=VALUE --generate")
    out = Path(args.out) if args.out else DIRECTORY
    for name in names:
        def progress(done, counts, name=name):
            if not args.quiet and sys.stderr.isatty():
                found = ", ".join(f"{k} {v}" for k, v in counts.items())
                print(f"\r{name}: {done} games, found {found}", end="", file=sys.stderr, flush=True)

        suite = generate(PLANS[name], seed=args.seed, progress=progress, name=name)
        if not args.quiet and sys.stderr.isatty():
            print(file=sys.stderr)
        path = suite.save(out / f"{name}.json")
        counts = {c: sum(p.category == c for p in suite.positions) for c in suite.categories()}
        print(f"wrote {path}: {len(suite.positions)} positions ({', '.join(f'{k} {v}' for k, v in counts.items())})")
    return 0


def _verify(suite) -> int:
    from kakurega.agents.tactics.patterns import verify

    envs: dict = {}
    problems = [problem for position in suite.positions for problem in verify(suite.env, position, envs=envs)]
    for problem in problems:
        print(problem)
    print(f"{suite.source}: {len(suite.positions)} positions, {len(problems)} problem(s)")
    return 1 if problems else 0


def run(args) -> int:
    from kakurega.agents.tactics.score import score_agents
    from kakurega.scripts.evaluate import import_agent_modules, progress_counter

    import_agent_modules(getattr(args, "imports", None))
    if args.generate:
        return _generate(args)
    suite = _suite_for(args)
    if args.verify:
        return _verify(suite)
    if not args.agents:
        raise ValueError("give --agents SPEC... (e.g. --agents random heuristic pretrained), or --verify")
    if args.json:  # checked before the positions are played: a directory there or an unwritable place, in words
        from kakurega.scripts.destination import writable_file

        destination = writable_file(args.json, "--json")
    progress = progress_counter("positions", args.quiet)
    result = score_agents(suite, args.agents, seed=args.seed, categories=args.category, progress=progress)
    print(result.table())
    if args.json:  # a new file renamed into place: a link or a FIFO there is replaced, never followed or waited on
        from kakurega.scripts.destination import write_text_file

        text = json.dumps(result.to_dict(), indent=1) + "\n"
        print(f"wrote {write_text_file(destination, text)}")
    return 0


def main(argv=None) -> int:
    from kakurega.scripts.cli import run_standalone

    return run_standalone(build_parser, run, argv)


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
