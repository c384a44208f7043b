"""The data files a web request may name: the shipped ones, and those in the server's ``--data-dir``.

Env options that name a file (``deck``, ``shape``, ``map``, ``booklet``:
every option that accepts a path) never take a path from a request, which
could name any file the server can read. A request names a file by its
name in the list :meth:`DataFiles.names` offers (also in ``/api/envs``):
the shipped data (``animal_chain_deck.yaml``, ``summer_map.yaml``, ...) and
the regular ``.yaml``, ``.yml`` and ``.json`` files directly inside the
directory the server was started with (``kakurega serve --data-dir DIR``;
a file there may not be a link that leads out of it). The server turns the
name into the file's path before it builds the env, so a game's record holds
that path and replays anywhere the file is; a record opened in the app may
name a file by that path only if it is one the app offers.

>>> DataFiles().resolve("summer_hide_and_seek_v1", {"map": "summer_map.yaml"})["map"].endswith("summer_map.yaml")
True
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from kakurega.envs.core.safe_load import short_repr

#: file names a data directory may offer
SUFFIXES = (".yaml", ".yml", ".json")
#: files of a data directory listed at most (the first ones by name)
MAX_FILES = 1000


class DataFileError(ValueError):
    """A request option that names a file the app does not offer."""


def file_options(env_name: str) -> set[str]:
    """The options of ``env_name`` that accept a file path."""
    from kakurega.envs.registry import get_spec

    definition = get_spec(env_name).definition()
    if definition is None:
        return set()
    return {option.name for option in definition.all_options
            if isinstance(option.kind, tuple) and os.PathLike in option.kind}


class DataFiles:
    """The offered data files: the shipped ones, and those directly inside ``data_dir`` (None: none)."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.shipped = Path(str(resources.files("kakurega.envs").joinpath("data"))).resolve()
        self.data_dir = None if data_dir is None else Path(data_dir).resolve()

    def _files(self, directory: Path) -> dict[str, Path]:
        files: dict[str, Path] = {}
        try:  # only the names a data file may have are sorted and resolved (a directory may hold many other files)
            with os.scandir(directory) as scan:
                entries = sorted((entry for entry in scan if entry.name.endswith(SUFFIXES)),
                                 key=lambda entry: entry.name)
        except OSError:
            return files
        for entry in entries:
            if len(files) >= MAX_FILES:
                break
            path = Path(entry.path).resolve()
            if path.parent == directory and path.is_file():
                files[entry.name] = path  # a link to a file of the same directory is fine; one leading out is not
        return files

    def offered(self) -> dict[str, Path]:
        """Name -> path of every offered file (a data directory's file hides a shipped one of the same name)."""
        files = self._files(self.shipped)
        if self.data_dir is not None:
            files.update(self._files(self.data_dir))
        return files

    def names(self) -> list[str]:
        """The names a request may give a file option."""
        return sorted(self.offered())

    def resolve(self, env_name: str, options: dict, where: str = "options") -> dict:
        """``options`` with every file option's name replaced by the offered file's path; refused otherwise."""
        names = file_options(env_name) & set(options)
        if not names:
            return dict(options)
        offered = self.offered()
        paths = {str(path) for path in offered.values()}
        resolved = dict(options)
        for name in sorted(names):
            value = options[name]
            if not isinstance(value, (str, os.PathLike)):
                continue  # None, a mapping of data, or a wrong type: the env checks it, no file is opened
            text = os.fspath(value)
            if text in offered:
                resolved[name] = str(offered[text])
            elif text not in paths:
                hint = "" if self.data_dir is not None else " (start the server with --data-dir DIR to offer your own)"
                raise DataFileError(
                    f"{where}: {name} = {short_repr(text)}: the web app opens only the data files it offers, by "
                    f"name: {', '.join(sorted(offered))}{hint}"
                )
        return resolved
