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

The page offers each file option only the files it can load
(:meth:`DataFiles.choices`): a file is tried with the option's own
validating loader (``Option.loader``: ``load_deck``, ``load_shape``,
``load_map``, ``load_playable_booklet``), so a map is never offered as a
deck. A file the loader refuses, or that cannot be read, is left out of that
option's list, never an error of the listing. Each answer is kept by the
file's path, inode, size and change times (at most :data:`MAX_CHECKS` of
them), so a page load tries only the files that changed since the last one;
and one listing tries files for :data:`CHECK_SECONDS` at most (a file near
the 1 MB limit takes seconds to parse): files left untried are listed apart,
as not checked yet (:meth:`DataFiles.listing`; the page offers them in a
group of their own), and tried by the next listing. The check only narrows
what the page offers: :meth:`DataFiles.resolve` accepts any offered name
(the env then loads the file and says what is wrong with it, e.g. a deck too
small for the board chosen).

Where an env declares two file options whose files must suit each other
(``EnvDefinition.file_fits``, a :class:`~kakurega.envs.core.options.FileFit`:
a deck must hold the cards a board needs), the same try measures each file
the option loads (the numbers kept with the answer) and the option's default
(``""``: no file chosen); the listing gives the numbers
(:meth:`DataFiles.listing`, ``file_fits`` of ``/api/envs``) and the page marks
the files that do not fit the file chosen for the other option.

>>> DataFiles().resolve("summer_hide_and_seek_v1", {"map": "summer_map.yaml"})["map"].endswith("summer_map.yaml")
True
>>> DataFiles().choices(["summer_hide_and_seek_v1"])
{'summer_hide_and_seek_v1': {'map': ['summer_map.yaml']}}
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

from kakurega.envs.core.safe_load import short_repr

#: file names a data directory may offer
SUFFIXES = (".yaml", ".yml", ".json")
#: files of a data directory listed at most (the first ones by name)
MAX_FILES = 1000
#: answers "does this loader load this file" kept (the oldest go first): room for every file offered
#: (a data directory's and the shipped ones) tried by a few loaders
MAX_CHECKS = 8 * MAX_FILES
#: seconds one listing spends trying files it has no answer for (a large file takes seconds to parse): the files left
#: are listed as not checked yet, and the next listing goes on
CHECK_SECONDS = 2.0

log = logging.getLogger("kakurega.scripts.web")


class DataFileError(ValueError):
    """A request option that names a file the app does not offer."""


def file_options(env_name: str) -> set[str]:
    """The options of ``env_name`` that accept a file path."""
    return set(file_loaders(env_name))


def file_loaders(env_name: str) -> dict[str, Callable | None]:
    """Each option of ``env_name`` that accepts a file path, with its loader (``Option.loader``; None: none)."""
    from kakurega.envs.registry import get_spec

    return get_spec(env_name).file_options()


def file_fits(env_name: str) -> tuple:
    """The pairs of file options of ``env_name`` whose files must suit each other (``EnvSpec.file_fits``; an env the
    registry does not know declares none)."""
    from kakurega.envs.registry import ENV_SPECS

    spec = ENV_SPECS.get(env_name)
    return () if spec is None else spec.file_fits()


def by_name(words: str, named: dict, resolved: dict) -> str:
    """``words`` (an error about the options ``resolved`` by :meth:`DataFiles.resolve` from ``named``) with the path
    of every file the request named given back as that name: the page knows a file by its name only."""
    paths = {resolved[option]: name for option, name in named.items()
             if isinstance(name, str) and isinstance(resolved.get(option), str) and resolved[option] != name}
    for path in sorted(paths, key=len, reverse=True):  # a longer path first: one may begin with another
        words = words.replace(path, paths[path])
    return words


class DataFiles:
    """The offered data files: the shipped ones, and those directly inside ``data_dir`` (None: none)."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.shipped = Path(str(resources.files("kakurega.envs").joinpath("data"))).resolve()
        self.data_dir = None if data_dir is None else Path(data_dir).resolve()
        #: (loader, path, inode, size, mtime_ns, ctime_ns, measures) -> (whether the loader loads the file, the
        #: measures' numbers of what it loaded), least recently used first
        self._checked: dict[tuple, tuple[bool, tuple]] = {}
        #: (loader, default, measures) -> (whether the loader loads the option's default, the numbers): shipped data
        self._defaults: dict[tuple, tuple[bool, tuple]] = {}
        self._lock = threading.Lock()  # guards _checked
        self._trying = threading.Lock()  # held by the listing that tries files

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

    def choices(self, env_names: Iterable[str], offered: dict[str, Path] | None = None) -> dict[str, dict]:
        """Env name -> file option -> the names of the ``offered`` files (default: :meth:`offered`) that option's
        loader loads, for each of ``env_names`` with file options (:meth:`listing`, without the files not tried)."""
        return self.listing(env_names, offered)[0]

    def listing(self, env_names: Iterable[str], offered: dict[str, Path] | None = None) -> tuple[dict, dict]:
        """:meth:`choices`; env name -> file option -> the names of the ``offered`` files that option's loader
        has not tried yet (only the options with some); and env name -> the env's pairs of file options that must
        suit each other (:func:`file_fits`, only the envs with some), each ``{"option", "other", "words", "size",
        "needs"}``: ``size`` the number of each file ``option`` loads (``""``: its default), ``needs`` the number of
        each file ``other`` loads; a file of ``option`` fits a file of ``other`` when its size is at least the
        other's needs (a file not tried yet has no number). Reads and parses files: not on the event loop.

        Files not yet tried are tried for :data:`CHECK_SECONDS` at most (plus the file being tried then); those left
        are in the second list, not the first, and tried by the next listing.
        """
        offered = self.offered() if offered is None else offered
        deadline = time.monotonic() + CHECK_SECONDS
        # one listing tries files at a time: one at the same time waits for its answers, within its own time
        trying = self._trying.acquire(timeout=CHECK_SECONDS)
        until = deadline if trying else False
        try:
            choices: dict[str, dict[str, list[str]]] = {}
            unchecked: dict[str, dict[str, list[str]]] = {}
            fitting: dict[str, list[dict]] = {}
            for env_name in env_names:
                loaders = file_loaders(env_name)
                if not loaders:
                    continue
                fits = [fit for fit in file_fits(env_name) if loaders.get(fit.option) and loaders.get(fit.other)]
                choices[env_name] = {}
                numbers: dict[str, dict[str, dict]] = {}  # option -> file name ("": the default) -> measure -> number
                for option, loader in sorted(loaders.items()):
                    measures = _measures(fits, option)
                    # an option without a loader is offered every file
                    answers = {name: (True, ()) if loader is None else self.answer(loader, path, until, measures)
                               for name, path in sorted(offered.items())}
                    choices[env_name][option] = [name for name, known in answers.items() if known and known[0]]
                    if None in answers.values():
                        unchecked.setdefault(env_name, {})[option] = [name for name, known in answers.items()
                                                                      if known is None]
                    if measures:
                        default = self._default(env_name, option, loader, measures)
                        numbers[option] = {name: dict(zip(measures, known[1])) for name, known in answers.items()
                                           if known and known[0]}
                        if default[0]:
                            numbers[option][""] = dict(zip(measures, default[1]))
                if fits:
                    fitting[env_name] = [_fit_listing(fit, numbers) for fit in fits]
            return choices, unchecked, fitting
        finally:
            if trying:
                self._trying.release()

    def loads(self, loader: Callable, path: Path, until: float | bool = True) -> bool | None:
        """Whether ``loader`` loads the file at ``path`` (a file that cannot be read, or that it refuses: False),
        the answer kept while the file stays the same; a file not tried yet is tried only while ``until`` (a
        :func:`time.monotonic` deadline, or a bool) allows, else None (not known)."""
        known = self.answer(loader, path, until)
        return None if known is None else known[0]

    def answer(self, loader: Callable, path: Path, until: float | bool = True,
               measures: tuple[Callable, ...] = ()) -> tuple[bool, tuple] | None:
        """:meth:`loads`, with the numbers each of ``measures`` gives for what the loader loaded (none for a file it
        does not load): ``(loads, numbers)``, or None (not tried yet)."""
        try:
            info = os.stat(path)
        except OSError:
            return False, ()
        key = (loader, str(path), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, measures)
        with self._lock:
            known = self._checked.pop(key, None)
            if known is not None:
                self._checked[key] = known  # again the newest
                return known
        if until is False or (until is not True and time.monotonic() >= until):
            return None
        known = self._try(loader, str(path), measures)
        with self._lock:
            while len(self._checked) >= MAX_CHECKS:
                del self._checked[next(iter(self._checked))]  # the answer used least recently
            self._checked[key] = known
        return known

    def _default(self, env_name: str, option: str, loader: Callable, measures: tuple) -> tuple[bool, tuple]:
        """:meth:`answer` for ``option``'s default (None: the game's packaged data), kept: it is shipped data."""
        from kakurega.envs.registry import get_spec

        default = get_spec(env_name).option_defaults()[option]
        key = (loader, default, measures)
        with self._lock:
            known = self._defaults.get(key)
        if known is None:
            known = self._try(loader, default, measures)
            with self._lock:
                self._defaults[key] = known
        return known

    @staticmethod
    def _try(loader: Callable, source, measures: tuple = ()) -> tuple[bool, tuple]:
        try:
            loaded = loader(source)
            numbers = tuple(int(measure(loaded)) for measure in measures)
        except (ValueError, TypeError, OSError):  # the loaders' own errors (ValueErrors) say the file is not for it
            return False, ()
        except Exception as error:  # a loader's bug: the file is left out, the page still loads
            log.warning("data file %s left out: %s raised %s", os.path.basename(str(source)),
                        getattr(loader, "__name__", loader), type(error).__name__)
            return False, ()
        return True, numbers

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


def _measures(fits: list, option: str) -> tuple[Callable, ...]:
    """The numbers ``fits`` compare about a file of ``option``: its size for the pairs it must fit in, its needs for
    the pairs that must fit it."""
    found = [fit.size for fit in fits if fit.option == option] + [fit.needs for fit in fits if fit.other == option]
    return tuple(dict.fromkeys(found))


def _fit_listing(fit, numbers: dict[str, dict[str, dict]]) -> dict:
    """One pair of ``file_fits`` for the page: the size of each file of its option, the needs of each of the other's
    (``numbers``: option -> file name -> measure -> its number)."""
    return {"option": fit.option, "other": fit.other, "words": fit.words,
            "size": {name: values[fit.size] for name, values in numbers[fit.option].items()},
            "needs": {name: values[fit.needs] for name, values in numbers[fit.other].items()}}
