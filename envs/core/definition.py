"""The one way an env module is written: an :class:`EnvDefinition`, and the factory that builds from it.

Every env module (``envs/<game>_v<N>.py``) is its card (the module
docstring) plus one declaration::

    DEFINITION = EnvDefinition(
        game_name="kakurenbo",
        version=0,
        options=(VARIANT_OPTION, NUM_PLAYERS_OPTION, MAX_STEPS_OPTION, REWARD_OPTION),  # envs/core/options.py
        game=KakurenboGame,            # rules: called with the checked options (and ``rules``)
        observer=KakurenboObserver,    # observer(game): .layout and .encode(state, seat)
        renderer=KakurenboRenderer,    # renderer(game): .render_text(state, viewer)
        state_vector=KakurenboStateVector,  # state_vector(game, observer): env.state() (centralised training)
    )
    raw_env, env = DEFINITION.factories(__name__)

``raw_env(**options)`` checks the options (:func:`~kakurega.envs.core.options.check`),
builds the game, its observer and renderer, and returns the shared
:class:`~kakurega.envs.core.aec.TurnBasedAECEnv` named ``<game>_v<N>``
(``metadata["name"]``, ``str(env)``); ``env(**options)`` wraps it in the
standard PettingZoo wrappers. ``rules`` holds the version's fixed rule
settings (keyword arguments of ``game`` the user does not choose), and
``picture``, when a game declares one, its picture class (``picture(game)``).
A later version states what it changes:
``replace(animal_chain_v0.DEFINITION, version=1, options=..., rules=...)``.
The render options (``render_mode``, ``render_view``) are every env's; their
values are checked by the base, which knows the agents and render modes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kakurega.envs.core.aec import TurnBasedAECEnv, wrap
from kakurega.envs.core.game import Game
from kakurega.envs.core.options import FileFit, Option, check, signature

#: the options every env has; the AEC base checks their values (it knows the render modes and the agents)
RENDER_OPTIONS = (
    Option("render_mode", object, None, "what ``render()`` produces, one of the env's "
           "``metadata[\"render_modes\"]``: ``\"ansi\"`` returns the table as text, ``\"human\"`` shows "
           "the picture in a window at every move, ``\"rgb_array\"`` returns the picture (an RGB array); None: "
           "no rendering",
           expected="None or one of the env's render modes"),
    Option("render_view", object, None, "whose view ``render()`` draws: None (a spectator, public "
           "information only) or an agent name", expected="None or an agent name"),
)


@dataclass(frozen=True)
class EnvDefinition:
    """What an env module declares: name, version, options, and the classes that make up the env."""

    game_name: str  #: e.g. "animal_chain"
    version: int
    #: the game's options, in the order of the card's table (the render options are added by :attr:`all_options`)
    options: tuple[Option, ...]
    #: ``game(**checked_options, **rules)`` -> the rules object (a :class:`Game`)
    game: Callable[..., Game]
    #: ``observer(game)``: an object with ``layout`` and ``encode(state, seat)``
    observer: Callable[[Game], Any]
    #: ``renderer(game)``: an object with ``render_text(state, viewer)`` (viewer: a seat or None)
    renderer: Callable[[Game], Any]
    #: fixed rule settings of this version: keyword arguments of ``game`` that are not options
    rules: dict = field(default_factory=dict)
    #: ``picture(game)``: the game's picture object, or None when the game has none (the env then renders text only)
    picture: Callable[[Game], Any] | None = None
    #: ``state_vector(game, observer)``: the game's :class:`~kakurega.envs.core.state_vector.StateVector`
    #: (``env.state()``, for centralised training only), or None when the game has none
    state_vector: Callable[[Game, Any], Any] | None = None
    #: pairs of file options whose files must suit each other (a deck and the board it must fill): the web app's
    #: setup marks the files of one that do not fit the file chosen for the other (:class:`FileFit`)
    file_fits: tuple[FileFit, ...] = ()

    def __post_init__(self):
        with_loaders = [option.name for option in self.options if option.names_a_file and option.loader is not None]
        for fit in self.file_fits:
            for name in (fit.option, fit.other):
                if name not in with_loaders:
                    raise ValueError(f"{self.name}: file_fits names the option {name!r}: expected a file option with "
                                     f"a loader of this env ({', '.join(with_loaders) or 'it has none'})")
            if fit.option == fit.other:
                raise ValueError(f"{self.name}: file_fits pairs the option {fit.option!r} with itself: expected two "
                                 "options")

    @property
    def name(self) -> str:
        """The registry name, e.g. ``"animal_chain_v1"``."""
        return f"{self.game_name}_v{self.version}"

    @property
    def all_options(self) -> tuple[Option, ...]:
        """The game's options followed by the render options: every keyword ``raw_env`` takes."""
        return self.options + RENDER_OPTIONS

    def defaults(self) -> dict:
        """Every game option at its default (the render options left out), in declaration order."""
        return {option.name: option.default for option in self.options}

    def check(self, values: dict) -> dict:
        """``values`` checked and completed with the defaults (render options included)."""
        return check(self.all_options, values, self.name)

    def build(self, **options) -> TurnBasedAECEnv:
        """The raw env for ``options``: checked, then game, observer, renderer and picture assembled."""
        options = self.check(options)
        render_mode, render_view = options.pop("render_mode"), options.pop("render_view")
        game = self.game(**options, **self.rules)
        observer = self.observer(game)
        raw = TurnBasedAECEnv(
            game,
            observer.layout,
            observer.encode,
            self.renderer(game).render_text,
            render_mode=render_mode,
            render_view=render_view,
            name=self.name,
            picture=None if self.picture is None else self.picture(game),
            state_vector=None if self.state_vector is None else self.state_vector(game, observer),
        )
        #: the game options the env was built with (checked, defaults filled in)
        raw.options = options
        return raw

    def factories(self, module: str) -> tuple[Callable[..., TurnBasedAECEnv], Callable]:
        """``(raw_env, env)`` for the env module ``module``, with the options as their signature."""

        def raw_env(**options) -> TurnBasedAECEnv:
            return self.build(**options)

        def env(**options):
            return wrap(self.build(**options))

        raw_env.__doc__ = (
            f"The unwrapped {self.name} env: bad options raise TypeError/ValueError naming them; an illegal "
            "action raises ValueError saying why (options: see the env card)."
        )
        env.__doc__ = f"``raw_env(**options)`` of {self.name} in the standard PettingZoo wrappers."
        for function in (raw_env, env):
            function.__module__ = module
            function.__qualname__ = function.__name__
            function.__signature__ = signature(self.all_options)
        return raw_env, env
