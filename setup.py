"""Optional compilation of the hot game modules with Cython.

The rules engines and observation encoders are plain Python, and they stay
the only source: Cython compiles these files unchanged into extension modules
that Python imports in their place (10-30 % less time per env step;
docs/performance.md). Nothing here is required: without a C compiler, or with
``KAKUREGA_PURE_PYTHON=1`` set at install time, the package installs as pure
Python and behaves the same. At run time the same variable makes every
kakurega module load from its ``.py`` source, and a compiled module older
than its source is never used (see ``envs/compiled.py``).

A module may have a ``.pxd`` file next to it (Animal Chain's rules and
observation, KAKURENBO's knowledge and observation do): it only gives C types to some of the module's names for the
compiled build (Cython's "augmenting .pxd"); the ``.py`` file still says what
the code does. Renaming a local in the ``.py`` without its ``.pxd`` drops that
type silently (slower, not wrong); Cython rebuilds a module whose ``.pxd``
changed.

The package list is computed here too (:func:`packages`): every folder with
an ``__init__.py`` under the folders of :data:`PACKAGE_DIRS`, so a new game's
folder ships without a hand-kept list. Everything else about the package is in
pyproject.toml.
"""

import os

from setuptools import Extension, find_packages, setup

#: the modules compiled when possible (source path -> module name follows the package-dir map)
ACCELERATED = [
    "envs/animal_chain/rules.py",
    "envs/animal_chain/observation.py",
    "envs/hidden_rooms/rules.py",
    "envs/hidden_rooms/observation.py",
    "envs/kakurenbo/rules.py",
    "envs/kakurenbo/knowledge.py",
    "envs/kakurenbo/observation.py",
    "envs/summer_hide_and_seek/rules.py",
    "envs/summer_hide_and_seek/belief.py",
    "envs/summer_hide_and_seek/geometry.py",
    "envs/summer_hide_and_seek/observation.py",
]


def pxd_include_path() -> list:
    """Where Cython finds the ``.pxd`` files that give C types to some modules (e.g. ``envs/animal_chain/rules.pxd``).

    Cython looks a module's ``.pxd`` up by its full name (``kakurega.envs.animal_chain.rules``),
    but the sources lie under ``envs/``, not ``kakurega/envs/``: a link ``build/pxd/kakurega/envs``
    -> ``envs`` lets it find them next to their ``.py`` files. Without the link (no symlinks on
    this system) the modules still compile, with Python semantics only.
    """
    root = os.path.join("build", "pxd")
    link = os.path.join(root, "kakurega", "envs")
    try:
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.islink(link):
            os.symlink(os.path.abspath("envs"), link)
    except OSError as error:
        print(f"setup.py: the .pxd files are not used ({error})")
        return []
    return [root]


def extensions() -> list:
    """The compiled modules to build: none without Cython or under KAKUREGA_PURE_PYTHON."""
    if os.environ.get("KAKUREGA_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # no Cython in the build environment: pure Python
        return []
    # Python semantics: annotations are documentation (not C types) and no C type is inferred
    # for untyped variables. One difference remains: ``len()`` returns a C integer, so write
    # ``1 << int(len(x))`` in these modules (a C shift by 32 or more overflows silently).
    directives = {"language_level": 3, "binding": True, "annotation_typing": False, "infer_types": False}
    built = []
    include = pxd_include_path()
    for path in ACCELERATED:
        module = Extension("kakurega." + path[: -len(".py")].replace("/", "."), [path])
        try:
            built += cythonize([module], compiler_directives=directives, quiet=True, include_path=include)
        except Exception as error:  # Cython could not translate it: that module stays Python
            print(f"setup.py: {path} stays pure Python ({error})")
    for module in built:
        # a failed C compilation (no compiler) leaves the pure-Python module; set after
        # cythonize, which does not carry the flag over to the extensions it returns
        module.optional = True
    return built


#: the top-level packages and their folders (the checkout has no ``kakurega/`` folder)
PACKAGE_DIRS = {
    "kakurega.envs": "envs",
    "kakurega.agents": "agents",
    "kakurega.scripts": "scripts",
    "kakurega.integrations": "integrations",
}


def packages() -> list:
    """Each package of :data:`PACKAGE_DIRS` with every package found under its folder
    (``kakurega.envs``, ``kakurega.envs.core``, ``kakurega.envs.kakurenbo``, ...)."""
    found = []
    for package, folder in PACKAGE_DIRS.items():
        found += [package] + [f"{package}.{sub}" for sub in find_packages(folder)]
    return found


setup(
    packages=packages(),
    package_dir=PACKAGE_DIRS,
    ext_modules=extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
