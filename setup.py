"""Optional compilation of a few hot game modules with Cython.

The modules in ``ACCELERATED`` stay plain Python and the only source: Cython
compiles these files unchanged into extension modules that Python imports in
their place. A module is listed only while compiling it makes its env at
least 15 % faster (``kakurega bench --compiled-gain``; docs/performance.md).
Nothing here is required: without a C compiler, or with
``KAKUREGA_PURE_PYTHON=1`` set at install time, the package installs as pure
Python and behaves the same. At run time the same variable makes kakurega
modules load from their ``.py`` sources, and a compiled module older than its
source is never used (see ``envs/compiled.py``).

A compiled module may have a ``.pxd`` file next to it (both do): it only
gives C types to some of the module's names (Cython's "augmenting .pxd");
the ``.py`` file still says what the code does. ``tests/test_compiled.py``
fails when the two disagree (a renamed local, an attribute missing from the
``.pxd``). Cython writes its C under ``build/cython``.

The package list is computed here too (:func:`packages`): every folder with
an ``__init__.py`` under the folders of :data:`PACKAGE_DIRS`, so a new game's
folder ships without a hand-kept list. Everything else about the package is in
pyproject.toml.
"""

import os
import shutil

from setuptools import Extension, find_packages, setup

#: the modules compiled when possible (source path -> module name follows the package-dir map)
ACCELERATED = [
    "envs/animal_chain/observation.py",
    "envs/animal_chain/rules.py",
    "envs/kakurenbo/observation.py",
    "agents/heuristics/animal_chain_plays.py",
]


#: where Cython writes its generated C (one .c file per module) and finds the ``.pxd`` files
BUILD_DIR = os.path.join("build", "cython")
PXD_DIR = os.path.join("build", "pxd")


def pxd_include_path() -> list:
    """Where Cython finds the ``.pxd`` files that give C types to some modules (e.g. ``envs/animal_chain/rules.pxd``).

    Cython looks a module's ``.pxd`` up by its full name (``kakurega.envs.animal_chain.rules``)
    in the package layout, and the sources lie under ``envs/``, not ``kakurega/envs/``: each
    ``.pxd`` is copied to ``build/pxd/kakurega/envs/...``, where Cython finds it. Cython
    still decides what to rebuild from the ``.pxd`` next to the ``.py``.
    """
    link = os.path.join(PXD_DIR, "kakurega", "envs")
    if os.path.islink(link):  # left by older versions of this file, which linked to envs/
        os.unlink(link)
    for path in ACCELERATED:
        pxd = path[: -len(".py")] + ".pxd"
        if os.path.exists(pxd):
            copy = os.path.join(PXD_DIR, "kakurega", pxd)
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            shutil.copyfile(pxd, copy)
    return [PXD_DIR]


def module_name(path: str) -> str:
    """``envs/animal_chain/rules.py`` -> ``kakurega.envs.animal_chain.rules``."""
    return "kakurega." + path[: -len(".py")].replace("/", ".")


def extensions() -> list:
    """The compiled modules to build: none without Cython or under KAKUREGA_PURE_PYTHON."""
    pure = os.environ.get("KAKUREGA_PURE_PYTHON", "")
    if pure not in ("", "0") and not pure.startswith("kakurega."):
        return []  # pure Python everywhere; a list of module names leaves those modules alone uncompiled
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
        if module_name(path) in pure.split(","):
            continue
        module = Extension(module_name(path), [path])
        try:
            built += cythonize(
                [module], compiler_directives=directives, quiet=True, include_path=include, build_dir=BUILD_DIR
            )
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


#: folders of data only, shipped as packages of their own (their files: pyproject.toml's package-data), so that an
#: installed kakurega finds its configs where a checkout has them (``Path(__file__).parents[1] / "configs"``)
DATA_DIRS = {
    "kakurega.configs": "configs",
    "kakurega.configs.bots": "configs/bots",
}


def packages() -> list:
    """Each package of :data:`PACKAGE_DIRS` with every package found under its folder
    (``kakurega.envs``, ``kakurega.envs.core``, ``kakurega.envs.kakurenbo``, ...), and :data:`DATA_DIRS`."""
    found = []
    for package, folder in PACKAGE_DIRS.items():
        found += [package] + [f"{package}.{sub}" for sub in find_packages(folder)]
    return found + list(DATA_DIRS)


setup(
    packages=packages(),
    package_dir={**PACKAGE_DIRS, **DATA_DIRS},
    ext_modules=extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
