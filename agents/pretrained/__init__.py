"""Shipped bots: a trained policy file per game configuration, the agent spec ``pretrained``.

``pretrained`` (or ``pretrained:sample=true``, ``pretrained:temperature=0.5``) loads the file in this folder
that was trained for the env and options being played, e.g.::

    kakurega play kakurenbo_v0 --opponents pretrained
    kakurega evaluate hidden_rooms_v0 --option episode=round --agents pretrained heuristic

It is an ordinary policy file (:mod:`kakurega.agents.policy`): greedy unless
``sample=true``, a numpy forward pass, no search and no torch at play time.
A configuration without a shipped bot fails with the list of those that have
one. ``docs/strength.md`` has a card per file (config, budget, strength);
``kakurega train-bots`` retrains them all from ``configs/bots/``.
"""

from __future__ import annotations

from pathlib import Path

from kakurega.agents.base import AgentContext

DIRECTORY = Path(__file__).resolve().parent


def shipped() -> list[tuple[Path, dict]]:
    """``(file, metadata)`` of every shipped policy file."""
    from kakurega.agents.policy import read_policy

    return [(path, read_policy(path)[0]) for path in sorted(DIRECTORY.glob("*.safetensors"))]


def file_name(env_name: str, env_kwargs: dict | None = None) -> str:
    """The shipped file name of a configuration: ``hidden_rooms_v0-episode=round.safetensors``."""
    parts = [env_name] + [f"{key}={value}" for key, value in sorted((env_kwargs or {}).items())]
    return "-".join(parts) + ".safetensors"


def find(env_name: str, env_kwargs: dict | None = None) -> Path:
    """The shipped file trained for ``env_name`` with exactly these options (defaults filled in)."""
    from kakurega.agents.policy import resolved_env_options

    wanted = resolved_env_options(env_name, env_kwargs)
    available = shipped()
    for path, meta in available:
        if meta["env"] == env_name and meta["env_options"] == wanted:
            return path
    listing = "; ".join(f"{meta['env']} {_non_default(meta)}" for _, meta in available) or "none"
    raise ValueError(
        f"no pretrained bot for {env_name} with options {env_kwargs or {}}; shipped bots: {listing}"
    )


def _non_default(meta: dict) -> dict:
    from kakurega.agents.policy import resolved_env_options

    defaults = resolved_env_options(meta["env"], {})
    return {k: v for k, v in meta["env_options"].items() if defaults.get(k) != v}


def make_pretrained_agent(context: AgentContext, seed, options: dict, argument):
    """Factory of the spec kind ``pretrained[:sample=true][,temperature=T]``."""
    from kakurega.agents.policy import load, sampling_options

    if argument is not None:
        raise ValueError(f"agent spec 'pretrained' takes no path (it picks the shipped file), got {argument!r}")
    sample, temperature = sampling_options(options, "pretrained")
    path = find(context.env_name, context.env_kwargs)
    agent = load(path, context=context, seed=seed, sample=sample, temperature=temperature)
    agent.name = "pretrained"
    return agent


def register() -> None:
    """Make ``pretrained`` work wherever agent specs are accepted."""
    from kakurega.agents.specs import register_agent_kind

    register_agent_kind("pretrained", make_pretrained_agent, "the shipped bot of this env: pretrained[:sample=true]")


register()
