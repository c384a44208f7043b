"""Rules for players: one page per game, written for a person at the table.

The pages are Markdown files shipped with the package
(``kakurega/envs/data/rules/<game>.md``): the rules as the newest version of
the env plays them, the env card's decisions where the binding rules page
is silent included, and what each older version does differently. Shown by
``kakurega rules GAME`` and the web app's Rules button; each page's first
line, ``# <title>``, is the game's name as players know it.

>>> title("kakurenbo_v0")
'KAKURENBO'
>>> rules_page("hidden_rooms").splitlines()[0]
'# Hidden Rooms'
"""

from __future__ import annotations

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent / "data" / "rules"


def game_of(name: str) -> str:
    """The game of an env name, PettingZoo id or game name: ``"kakurenbo_v1"`` -> ``"kakurenbo"``."""
    from kakurega.envs.registry import ENV_SPECS, get_spec, latest_version

    if name not in ENV_SPECS and latest_version(name) is not None:
        return name
    try:
        return get_spec(name).name.rpartition("_v")[0]
    except ValueError:
        games = sorted({spec.rpartition("_v")[0] for spec in ENV_SPECS})
        from kakurega.envs.core.safe_load import short_repr

        raise ValueError(f"unknown game {short_repr(name)}; expected a game ({', '.join(games)}) or an env name "
                         f"({', '.join(ENV_SPECS)})") from None


def page_path(name: str) -> Path:
    """Where the page of ``name``'s game lies (``name``: as :func:`game_of` takes)."""
    return DIRECTORY / f"{game_of(name)}.md"


def rules_page(name: str) -> str:
    """The players' page of ``name``'s game, as Markdown; a missing or malformed page raises ValueError."""
    path = page_path(name)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"the rules page of {game_of(name)} cannot be read from {path} "
                         f"({error.strerror or error}); the package is incomplete") from None
    if not text.startswith("# ") or not text.partition("\n")[0][2:].strip():
        raise ValueError(f"{path}: a rules page must start with its title line, '# <game name>'")
    return text


def title(name: str) -> str:
    """The game's name for players, the page's title: ``"Summer Hide-and-Seek"``."""
    return rules_page(name).partition("\n")[0][2:].strip()
