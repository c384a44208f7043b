"""Which kakurega modules run compiled, and the guard that keeps stale builds out.

``setup.py`` compiles a few hot modules with Cython when it can (their
``.py`` files stay the only source; docs/performance.md). Python
prefers an extension module over a ``.py`` file of the same name, so without
this guard a build left over from an older source would silently run instead
of the code you edited. The finder installed here loads a module from its
``.py`` source instead when

- the environment variable ``KAKUREGA_PURE_PYTHON`` is set (to anything but
  ``""`` or ``"0"``): pure Python everywhere, e.g. to profile or debug; set to
  a comma-separated list of module names, only those modules (e.g. to measure
  what one compiled module buys: docs/performance.md); or
- the source is newer than the compiled module: it warns once per module and
  says how to rebuild (``make compile`` or ``pip install -e .``).

>>> from kakurega.envs import compiled
>>> compiled.compiled_modules()   # e.g. ['kakurega.envs.animal_chain.rules', ...]
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings

#: a source this many seconds newer than its build counts as edited (installers
#: may write the two files of a wheel a moment apart)
STALE_AFTER_S = 2.0


def pure_python_requested(name: str | None = None) -> bool:
    """True when ``KAKUREGA_PURE_PYTHON`` asks for the ``.py`` source of module ``name`` (None: of any module).

    The variable holds ``1`` (any value but ``""`` and ``"0"``: every module) or a
    comma-separated list of module names (``kakurega.envs.animal_chain.rules,...``:
    those modules alone, e.g. to measure what compiling one module buys).
    """
    value = os.environ.get("KAKUREGA_PURE_PYTHON", "")
    if value in ("", "0"):
        return False
    if not value.startswith("kakurega."):
        return True
    return name is None or name in value.split(",")


class SourceOverStaleBuild:
    """Meta-path finder: a kakurega module's ``.py`` source wins over a stale or unwanted build."""

    def find_spec(self, name, path, target=None):
        if not name.startswith("kakurega."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        build = spec.origin
        source = os.path.join(os.path.dirname(build), name.rpartition(".")[2] + ".py")
        if not os.path.exists(source):
            return spec
        if not pure_python_requested(name):
            if os.path.getmtime(source) <= os.path.getmtime(build) + STALE_AFTER_S:
                return spec
            warnings.warn(
                f"{build} is older than {source}: running the Python source instead. "
                "Rebuild the compiled modules with `make compile` (or `pip install -e .`).",
                stacklevel=2,
            )
        return importlib.util.spec_from_file_location(name, source)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, SourceOverStaleBuild) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceOverStaleBuild())


def compiled_modules() -> list[str]:
    """Names of the kakurega modules imported so far that run compiled."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("kakurega.") and isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    )
