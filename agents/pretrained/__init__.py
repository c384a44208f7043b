"""Shipped bots: a trained policy file per game configuration, the agent spec ``pretrained``.

``pretrained`` (or ``pretrained:sample=true``, ``pretrained:temperature=0.5``) loads the file in this folder
that was trained for the env and options being played, e.g.::

    kakurega play kakurenbo_v0 --opponents pretrained
    kakurega evaluate hidden_rooms_v0 --option episode=round --agents pretrained heuristic

It is an ordinary policy file (:mod:`kakurega.agents.policy`): greedy unless
``sample=true``, a numpy forward pass, no search and no torch at play time;
moves its game proves dominated are never played (``prune=false``: the
network alone; see :mod:`kakurega.agents.move_features`).
A file also plays the configurations its metadata declares it ``serves``
(spaces checked equal to the trained ones when it loads): the Hidden Rooms
bot, trained on single rounds, plays whole matches too. A configuration
without a shipped bot fails with the list of those that have one.
``docs/strength.md`` has a card per file (config, budget, strength), and
says why a configuration has none; ``kakurega train-bots`` retrains them all
from ``configs/bots/`` (in name order: a recipe that fine-tunes a shipped
bot, ``init_policy``, comes after the one that makes it).
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
    """The shipped file for ``env_name`` with exactly these options (defaults filled in).

    A file trained with them comes first, else one that declares it ``serves``
    them. None shipped: ValueError in words, naming the options that have one
    ("no shipped bot for kakurenbo_v0 with 3 players; 4 players has one").
    """
    from kakurega.agents.policy import resolved_env_options, served_options

    wanted = resolved_env_options(env_name, env_kwargs)
    available = shipped()
    for trained_only in (True, False):
        for path, meta in available:
            plays = [meta["env_options"]] if trained_only else served_options(meta)
            if meta["env"] == env_name and wanted in plays:
                return path
    raise ValueError(_no_bot(env_name, wanted, [meta for _, meta in available]))


def has_bot(env_name: str, env_kwargs: dict | None = None) -> bool:
    """True when a bot is shipped for ``env_name`` with these options (``pretrained`` then plays it)."""
    from kakurega.agents.policy import resolved_env_options, served_options

    wanted = resolved_env_options(env_name, env_kwargs)
    return any(meta["env"] == env_name and wanted in served_options(meta) for _, meta in shipped())


def default_opponent(env_name: str, env_kwargs: dict | None = None) -> str:
    """The agent spec a person plays against by default: ``"pretrained"`` where a bot is shipped, else ``"heuristic"``."""
    return "pretrained" if has_bot(env_name, env_kwargs) else "heuristic"


def _option_words(options: dict) -> str:
    """``{"num_players": 3, "variant": "kurayami"}`` -> ``"3 players, variant kurayami"``; a data file option left
    at its default (None) -> ``"the default deck"``."""
    words = [f"{value} players" if key == "num_players" else f"the default {key}" if value is None
             else f"{key} {value}" for key, value in options.items()]
    return ", ".join(words) or "the default options"


def _no_bot(env_name: str, wanted: dict, available: list[dict]) -> str:
    """Why no shipped bot plays ``env_name`` with ``wanted``, and the options of the closest bots (fewest changes)."""
    from kakurega.agents.policy import served_options

    bots = [options for meta in available if meta["env"] == env_name for options in served_options(meta)]
    if not bots:
        envs = sorted({meta["env"] for meta in available})
        return (f"no shipped bot for {env_name}; shipped bots play {', '.join(envs) or 'no env'} "
                "(choose heuristic, or one of those envs)")
    differences = [{key for key in bot.keys() | wanted.keys() if bot.get(key) != wanted.get(key)} for bot in bots]
    fewest = min(len(keys) for keys in differences)  # the bots closest to what was asked
    closest = [(bot, keys) for bot, keys in zip(bots, differences) if len(keys) == fewest]
    keys = sorted(set().union(*(keys for _, keys in closest)))
    offers = [_option_words({key: bot.get(key) for key in keys}) for bot, _ in closest]
    return (f"no shipped bot for {env_name} with {_option_words({key: wanted.get(key) for key in keys})}; "
            f"{' or '.join(offers)} {'has' if len(offers) == 1 else 'have'} one (or choose heuristic)")


def make_pretrained_agent(context: AgentContext, seed, options: dict, argument):
    """Factory of the spec kind ``pretrained[:sample=true][,temperature=T][,prune=false][,mix=true|false]``."""
    from kakurega.agents.policy import load, sampling_options

    if argument is not None:
        raise ValueError(f"agent spec 'pretrained' takes no path (it picks the shipped file), got {argument!r}")
    sample, temperature, prune, mix = sampling_options(options, "pretrained")
    path = find(context.env_name, context.env_kwargs)
    agent = load(path, context=context, seed=seed, sample=sample, temperature=temperature, prune=prune, mix=mix)
    agent.name = "pretrained"
    return agent


def register() -> None:
    """Make ``pretrained`` work wherever agent specs are accepted."""
    from kakurega.agents.specs import register_agent_kind

    register_agent_kind("pretrained", make_pretrained_agent, "the shipped bot of this env: pretrained[:sample=true]")


register()
