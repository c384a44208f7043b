"""Regenerate the README's screenshots: one picture per game (newest version), as a player sees it.

    python -m kakurega.scripts.screenshots            # writes docs/screenshots/<env>.png
    python -m kakurega.scripts.screenshots --out DIR

Each game is played by random legal moves from a fixed seed to a moment
about two thirds of the way through, and drawn (``render_mode="rgb_array"``)
in the view of the player to act then, so the same code gives the same
files. PNGs are stored with a 256-colour palette to stay small.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from kakurega.envs.registry import latest_envs, make
from kakurega.scripts.destination import checkout_path

#: where the README's screenshots live, in the source checkout
CHECKOUT_OUT = "docs/screenshots"
#: how far into the game each screenshot is taken
FRACTION = 2 / 3


def play_to(env, seed: int, steps: int | None) -> int:
    """Reset ``env`` with ``seed`` and play random legal moves (seeded too): ``steps`` of them, or to the end.

    Returns the number of moves played.
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = 0
    while env.legal_actions() and (steps is None or played < steps):
        env.step(int(rng.choice(env.legal_actions())))
        played += 1
    return played


def screenshot(name: str, seed: int = 7):
    """The Pillow image of ``name`` two thirds of the way through a seeded random game, in the actor's view."""
    from kakurega.envs.core.picture import to_image

    env = make(name, wrapped=False)
    total = play_to(env, seed, None)
    play_to(env, seed, max(1, int(total * FRACTION)))
    view = env.agent_selection if env.legal_actions() else None
    return to_image(env.scene(view))


def main(argv: list[str] | None = None) -> int:
    """Write one PNG per game; print each path and size."""
    from kakurega.scripts.evaluate import seed_number

    parser = argparse.ArgumentParser(prog="python -m kakurega.scripts.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="folder for the PNGs (default: docs/screenshots)")
    parser.add_argument("--seed", type=seed_number, default=7, help="seed of the games played (default: 7)")
    args = parser.parse_args(argv)
    args.out = args.out or checkout_path(CHECKOUT_OUT, "--out")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in latest_envs():
        path = args.out / f"{name}.png"
        screenshot(name, args.seed).quantize(colors=256).save(path, optimize=True)
        print(f"{path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
