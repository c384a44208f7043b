"""Golden playthroughs: one seeded game of every registered configuration, written out as text.

For each env in the registry and each of its ``configurations``, one game
with uniformly random legal moves (seeded) is played through the AEC loop
and written to ``tests/playthroughs/<env>[-<key>=<value>...].txt``. Each step
shows the agent to act, the decoded observation of every seat by piece name
(nonzero entries only), the legal actions by name, the action taken, and the
rewards and end flags that followed. ``tests/test_playthroughs.py`` replays
every configuration and compares with the committed file, so any change of
behaviour (rules, encoders, masks, action names, rewards) shows as a readable
diff. When a change is meant, regenerate the files and review the diff::

    kakurega playthroughs --regenerate      # or: python -m kakurega.scripts.playthroughs --regenerate
    git diff tests/playthroughs/

Long games are written in full for their first :data:`HEAD_STEPS` and last
:data:`TAIL_STEPS` steps; each step between is one line with the action and a
digest of what the full entry would have said, so every step is still checked.
Numbers are written with six significant digits (``1``, ``0.333333``), so the
text is the same for the compiled and the pure-Python builds.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

#: seed of the deal and of the random legal policy
SEED = 0
#: steps written in full at the start and at the end of a long game
HEAD_STEPS = 12
TAIL_STEPS = 4
#: where the files live, in the source checkout (:func:`~kakurega.scripts.destination.checkout_path`)
CHECKOUT_DIR = "tests/playthroughs"
#: the first line of every playthrough file starts so: ``--regenerate`` removes a stale ``.txt`` file only if it does
HEADER = "# kakurega playthrough: "
#: the largest playthrough file read (the longest is about 100 KiB)
MAX_FILE_BYTES = 10_000_000


def number(value) -> str:
    """A float in six significant digits: ``1.0`` -> ``"1"``, ``1/3`` -> ``"0.333333"``."""
    return format(float(value), ".6g")


def describe_observation(layout, observation: np.ndarray) -> list[str]:
    """One line per piece with a nonzero entry, e.g. ``hand: [3]=1 [7]=1``, ``board: [0,2..5]=1``, ``total=0.3``.

    Runs of neighbouring entries along the last axis with one value are
    written once (``[2..5]=1``); a one-entry piece as ``name=value``.
    """
    lines = []
    for piece in layout.pieces.values():
        values = np.asarray(observation[piece.start : piece.stop]).reshape(piece.shape)
        if piece.size == 1:
            value = values.reshape(-1)[0]
            if value != 0:
                lines.append(f"{piece.name}={number(value)}")
            continue
        runs: list[list] = []  # [leading index, first, last, value]
        for index in np.argwhere(values != 0).tolist():
            *lead, last = index
            value = values[tuple(index)]
            run = runs[-1] if runs else None
            if run is not None and run[0] == lead and run[2] == last - 1 and run[3] == value:
                run[2] = last
            else:
                runs.append([lead, last, last, value])
        if runs:
            entries = []
            for lead, first, last, value in runs:
                span = str(first) if first == last else f"{first}..{last}"
                entries.append(f"[{','.join([*map(str, lead), span])}]={number(value)}")
            lines.append(f"{piece.name}: " + " ".join(entries))
    return lines


def case_id(name: str, config: dict) -> str:
    """The file stem of a configuration: ``animal_chain_v1-attack_rule=reach`` (as the test ids)."""
    return "-".join([name] + [f"{key}={value}" for key, value in config.items()])


def configurations() -> list[tuple[str, dict]]:
    """Every registered ``(env name, configuration)``."""
    from kakurega.envs.registry import ENV_SPECS

    return [(spec.name, dict(config)) for spec in ENV_SPECS.values() for config in spec.configurations]


def _end_flags(raw) -> str:
    """``terminated: player_0 player_1`` / ``truncated: ...`` for the agents whose flag is set, or ""."""
    parts = []
    for label, flags in (("terminated", raw.terminations), ("truncated", raw.truncations)):
        done = [agent for agent, flag in flags.items() if flag]
        if done:
            parts.append(f"{label}: {' '.join(done)}")
    return "; ".join(parts)


def _rewards(raw) -> str:
    """The nonzero rewards of the last step, ``player_0=1 player_1=-1``, or ""."""
    return " ".join(f"{agent}={number(r)}" for agent, r in raw.rewards.items() if r != 0)


def play(name: str, config: dict, seed: int = SEED) -> str:
    """The playthrough text of one seeded random game of env ``name`` with options ``config``."""
    from kakurega.envs.registry import make

    env = make(name, **config)
    raw = env.unwrapped
    layout = raw.layout
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    header = [
        f"{HEADER}{name} {json.dumps(config, sort_keys=True)}",
        f"# seed {seed} for the deal and the uniformly random legal moves (numpy default_rng({seed}))",
        "# regenerate: kakurega playthroughs --regenerate (review the diff: it is a change of behaviour)",
        f"# steps after the first {HEAD_STEPS} and before the last {TAIL_STEPS}: one line each, ending in [a digest of "
        "the full entry]",
        f"agents: {' '.join(raw.possible_agents)}",
        f"actions: {raw.game.num_actions}; observation: {layout.size} entries in {len(layout.pieces)} pieces",
        "",
    ]
    steps: list[tuple[list[str], str]] = []  # (full entry, one-line summary)
    final_shown = False  # the observations at the end are written once, at the first done step
    for index, agent in enumerate(env.agent_iter()):
        observation, reward, terminated, truncated, _ = env.last()
        done = terminated or truncated
        entry = [f"step {index}: {agent}"]
        if not (done and final_shown):
            final_shown = done
            for seat_agent in raw.agents:
                lines = describe_observation(layout, env.observe(seat_agent)["observation"])
                entry.append(f"  {seat_agent} observes:")
                entry += [f"    {line}" for line in lines] or ["    (all zero)"]
        if done:
            action = None
            how = "terminated" if terminated else "truncated"
            entry.append(f"  {agent} is done ({how}), last reward {number(reward)}: steps None")
            summary = f"step {index}: {agent} done"
        else:
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            entry.append(f"  legal ({len(legal)}): " + " | ".join(f"{a} {raw.action_to_string(a)}" for a in legal))
            action = int(rng.choice(legal))
            entry.append(f"  action: {action} {raw.action_to_string(action)}")
            summary = f"step {index}: {agent} plays {action} {raw.action_to_string(action)}"
        env.step(action)
        after = [text for text in (_rewards(raw), _end_flags(raw)) if text]
        if action is not None and after:
            entry.append("  then: " + "; ".join(after))
        steps.append((entry, summary))
    env.close()
    out = header
    for index, (entry, summary) in enumerate(steps):
        if index < HEAD_STEPS or index >= len(steps) - TAIL_STEPS:
            out += entry
        else:
            digest = hashlib.sha256("\n".join(entry).encode()).hexdigest()[:12]
            out.append(f"{summary} [{digest}]")
    out.append(f"end after {len(steps)} agent steps")
    return "\n".join(out) + "\n"


def path_of(directory: Path, name: str, config: dict) -> Path:
    """The file of one configuration."""
    return Path(directory) / f"{case_id(name, config)}.txt"


def diff(expected: str, actual: str, path: Path) -> str:
    """A unified diff from the committed text to the replayed one ("" when equal)."""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"{path.name} (committed)", tofile=f"{path.name} (replayed now)",
        )
    )


def main(argv=None) -> int:
    """Check (default) or ``--regenerate`` the playthrough files; exit status 1 when a check differs."""
    parser = build_parser(argparse.ArgumentParser(prog="kakurega playthroughs", description=__doc__.split("\n\n")[0]))
    args = parser.parse_args(argv)
    return run(args)


def build_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``kakurega playthroughs``."""
    parser.add_argument("--regenerate", action="store_true", help="rewrite the files from the current code")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the files are (default: tests/playthroughs of this checkout)")
    parser.add_argument("--env", default=None, help="only this env (its registry name)")
    return parser


def run(args) -> int:
    """Regenerate or check the files named by ``args``; prints a diff for each file that differs.

    ``--regenerate`` replaces each file (a link at its name is replaced, never written through) and removes the
    stale playthroughs of configurations that no longer exist: only ``.txt`` files that begin as a playthrough
    does (:data:`HEADER`); any other file in ``--dir`` is left alone."""
    from kakurega.scripts.destination import checkout_path, write_text_file

    cases = [(name, config) for name, config in configurations() if args.env in (None, name)]
    if not cases:
        raise ValueError(f"--env {args.env!r} is not a registered env")
    args.dir = args.dir or checkout_path(CHECKOUT_DIR, "--dir")
    if args.regenerate:
        args.dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name, config in cases:
        path = path_of(args.dir, name, config)
        text = play(name, config)
        if args.regenerate:
            write_text_file(path, text)
            print(f"wrote {path} ({len(text.encode()) // 1024} KiB)")
            continue
        expected = _read(path)
        if text != expected:
            failed += 1
            print(diff(expected, text, path) if expected else f"{path}: missing (run with --regenerate)")
        else:
            print(f"{path.name}: same")
    if args.regenerate and args.env is None:
        known = {path_of(args.dir, name, config).name for name, config in cases}
        for stale in sorted(set(p.name for p in args.dir.glob("*.txt")) - known):
            if _is_playthrough(args.dir / stale):
                (args.dir / stale).unlink()
                print(f"removed {stale} (no such configuration)")
            else:
                print(f"left alone {stale} (not a playthrough file)")
    return 1 if failed else 0


def _read(path: Path) -> str:
    """The text of the playthrough file ``path`` ("" when there is none); a FIFO, a device or a directory at its
    name is a ``ValueError`` in words, never waited on (:func:`~kakurega.envs.core.safe_load.read_file`)."""
    from kakurega.envs.core.safe_load import read_file

    if not path.exists():
        return ""
    data = read_file(path, max_bytes=MAX_FILE_BYTES, error=ValueError, what="playthrough file", form="text")
    return data.decode("utf-8", errors="replace")


def _is_playthrough(path: Path) -> bool:
    """True for a regular file (not a link) whose text begins as a playthrough's (:data:`HEADER`)."""
    from kakurega.agents.training.run_dir import read_regular

    try:
        return read_regular(path, len(HEADER.encode())) == HEADER.encode()
    except OSError:
        return False


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
