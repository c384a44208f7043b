"""Where a command will write, checked before any work starts: a game record, a GIF, a directory of outputs.

A game played to its end and then lost to a read-only directory wastes the
game; so every writer checks its destination first, by writing and removing
a small probe file there (the only test that holds for every user, root
included, and every file system, read-only mounts included), and refuses in
words: ``--record runs/x/game.json: cannot write there (Not a directory)``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class DestinationError(ValueError):
    """A place a command cannot write to; the message names the option, the path and the reason."""


#: the folder above the package's modules: the root of a source checkout, or ``site-packages/kakurega`` installed
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def checkout_path(relative: str, option: str) -> Path:
    """``relative`` in the source checkout: the default place of a developer tool's files (the golden
    playthroughs, the screenshots, docs/strength.md). Where kakurega is installed (no ``tests`` folder beside its
    modules) that would be a place inside site-packages: refused with ``ValueError`` naming ``option``, which
    chooses another place."""
    if not (PACKAGE_ROOT / "tests").is_dir():
        raise ValueError(f"{relative} belongs to a source checkout of kakurega, and this kakurega is installed "
                         f"({PACKAGE_ROOT}): pass {option} to say where")
    return PACKAGE_ROOT / relative


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def writable_dir(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a directory that exists (created if needed) and takes a new file; ``what`` names it in errors."""
    directory = Path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DestinationError(f"{what} {directory}: exists and is not a directory; expected a directory") from None
    except OSError as error:
        raise DestinationError(f"{what} {directory}: cannot create the directory ({_reason(error)})") from None
    try:
        handle, probe = tempfile.mkstemp(dir=directory, prefix=".kakurega-probe-")
    except OSError as error:
        raise DestinationError(f"{what} {directory}: cannot write there ({_reason(error)})") from None
    os.close(handle)
    os.unlink(probe)
    return directory


def writable_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a file that can be written (its directory created if needed); nothing is written to it yet."""
    file = Path(path)
    if file.is_dir():
        raise DestinationError(f"{what} {file}: is a directory; expected a file name")
    writable_dir(file.parent, f"{what} {file}: its directory")
    return file


def write_text_file(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``, its directory made if missing: a new file renamed into place, so a link
    or a FIFO at ``path`` is replaced, never followed or waited on (the benchmarks' and reports' outputs)."""
    from kakurega.agents.training.run_dir import atomic_write_bytes

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, text.encode("utf-8"))
    return path
