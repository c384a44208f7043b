"""The one turn-based PettingZoo AEC base every kakurega game runs on.

A game supplies a :class:`~kakurega.envs.core.game.Game` (rules), an
observation layout with an ``encode(state, seat)`` function, and a text
renderer. This base does all PettingZoo bookkeeping: agents and seats,
rewards derived from the rules' cumulative returns, ``_cumulative_rewards``,
terminations and truncations, infos with the action mask, dead steps, spaces,
seeding and rendering.

Observations are cached for the current step and handed out as read-only
arrays: an agent cannot corrupt the environment by writing into them, and two
calls to ``observe`` in one step cost one encoding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from kakurega.envs.core.cache import remember
from kakurega.envs.core.game import TERMINAL, DeterminizationSampler, Game, flags_of
from kakurega.envs.core.layout import ObservationLayout
from kakurega.envs.core.safe_load import short_repr
from kakurega.envs.core.text_layout import check_width, takes_width

#: reward given by ``env()`` to an agent that plays an illegal action
ILLEGAL_ACTION_PENALTY = -1.0
# A dtype object passed positionally: np.frombuffer(data, dtype=np.int8) spends
# most of its time resolving the keyword and the type.
_INT8 = np.dtype(np.int8)


class EnvUsageError(RuntimeError, ValueError):
    """A raw env used out of order: before ``reset``, after the game ended, or a move for a done agent.

    A ``RuntimeError`` by nature; also a ``ValueError``, as PettingZoo's own check of a done agent's action is.
    """



class RenderModeError(TypeError, ValueError):
    """An unsupported ``render_mode``.

    A ``TypeError`` so that callers which try a render mode and fall back
    without it (stable-baselines3's ``make_vec_env`` asks for ``"rgb_array"``)
    keep working; a ``ValueError`` because the value is what is wrong.
    """


def mask_cache_size(num_actions: int) -> int:
    """Legal sets whose masks one env instance keeps: about 512 KiB of them (256 at least).

    An entry costs about 300 bytes besides its ``num_actions`` flag bytes (the
    key tuple, the bytes, the array header, the dict slot): 1,653 legal sets
    for 17 actions, 1,401 for 74, 1,115 for 170. A game that builds its flags
    itself (``Game.legal_flags``) keeps none.
    """
    return max(256, (1 << 19) // (num_actions + 300))


def check_render_mode(render_mode, supported) -> None:
    """Raise :class:`RenderModeError` unless ``render_mode`` is None or in ``supported``."""
    if render_mode is not None and render_mode not in supported:
        raise RenderModeError(f"render_mode={render_mode!r} is not supported; expected one of {list(supported)} or None")

class TurnBasedAECEnv(AECEnv):
    """PettingZoo AEC env over a turn-based :class:`Game`.

    Env modules build it through their declaration (:mod:`kakurega.envs.core.definition`),
    which passes the env's ``name``. Agents are ``player_0 .. player_{n-1}``; ``player_i`` sits on seat ``i``.
    ``render_view`` chooses whose view ``render()`` draws: ``None`` for a
    spectator (public information only) or an agent name.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False, "render_fps": 1}
    #: the game's picture maker, ``picture.scene(state, seat_or_None, last_move) -> Scene`` (``last_move``: the
    #: ``(seat, action)`` just played, or None; set by each env module)
    picture = None

    def __init__(
        self,
        game: Game,
        layout: ObservationLayout,
        encode: Callable[[object, int], np.ndarray],
        render_text: Callable[[object, int | None], str],
        render_mode: str | None = None,
        render_view: str | None = None,
        *,
        name: str | None = None,
        picture=None,
        state_vector=None,
    ):
        super().__init__()
        # PettingZoo's aec_to_parallel (which this flag gates) needs the agents to act in a fixed
        # cycle, which the game declares (Game.turns_cycle). turn_based_aec_to_parallel works on
        # every env, flag or not. Without a picture only the text renders.
        self.metadata = {
            **self.metadata,
            "is_parallelizable": game.turns_cycle(),
            "render_modes": self.metadata["render_modes"] if picture is not None else ["ansi"],
        }
        if name is not None:  # the env's registry name: metadata["name"], str(env)
            self.metadata = {**self.metadata, "name": name}
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.game = game
        #: the game's picture object (None when the game declares none)
        self.picture = picture
        self.layout = layout
        #: ``encode(state, seat)``: the observation vector of ``seat`` in ``state``
        self.encode = encode
        #: ``render_state(state, seat)``: the text of ``state`` as ``seat`` sees it (None: a spectator)
        self.render_state = render_text
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        if render_view is not None and render_view not in self.possible_agents:
            raise ValueError(
                f"render_view={render_view!r} is not an agent; expected None (spectator) "
                f"or one of {self.possible_agents}"
            )
        self.render_view = render_view
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        # one space object per agent, as the action spaces: each has its own sampler, which seeding another
        # agent's (PettingZoo's seed_test seeds each agent's) leaves alone
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, layout.high, shape=(layout.size,), dtype=layout.dtype),
                    "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        #: the game's :class:`~kakurega.envs.core.state_vector.StateVector` (``state()``), or None
        self.state_vector = state_vector
        if state_vector is not None:
            state_layout = state_vector.layout
            #: the ``Box`` of :meth:`state` (PettingZoo's ``state_space``)
            self.state_space = spaces.Box(0.0, state_layout.high, shape=(state_layout.size,), dtype=state_layout.dtype)
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self._num_actions = game.num_actions
        self._no_flags = bytes(game.num_actions)
        self._no_actions = np.frombuffer(self._no_flags, _INT8)  # read-only: bytes are immutable
        self._mask_cache: dict[tuple, tuple[bytes, np.ndarray]] = {}
        self._mask_cache_size = mask_cache_size(game.num_actions)
        #: the game builds its legality flags itself (``Game.legal_flags`` overridden): no list, no cache
        self._flags_from_game = type(game).legal_flags is not Game.legal_flags
        self.rng = np.random.default_rng()
        self.game_state = None
        self.last_move = None
        self.num_steps = 0
        #: per seat, the rules object its determinization samplers use (built on first use)
        self._seat_rules: dict[int, Game] = {}

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` seeds the one generator all chance draws use.

        ``options`` is accepted and not read (PettingZoo's ``api_test`` passes some): a kakurega env takes its
        options when it is made (``make(name, num_players=3)``)."""
        if seed is not None or self.game_state is None:
            if isinstance(seed, (str, bytes, float, bool, np.bool_, np.floating)):  # numpy's words name "entropy"
                raise TypeError(f"reset(seed={short_repr(seed)}): expected None or a non-negative integer, got "
                                f"{type(seed).__name__}")
            if isinstance(seed, np.ndarray) and seed.ndim == 0:  # a numpy scalar held as an array (np.array(3))
                if seed.dtype.kind not in "iu":  # numpy's words: "len() of unsized object"
                    raise TypeError(f"reset(seed={short_repr(seed)}): expected None or a non-negative integer, got "
                                    f"a one-value array of {seed.dtype.name}")
                seed = int(seed)  # the integer it holds
            self.rng = np.random.default_rng(seed)
        self.game_state = self.game.initial_state(self.rng)
        #: ``(seat, action)`` of the last move (None before the first): the pictures outline what it touched
        self.last_move = None
        self.num_steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"action_mask": self._no_actions} for a in self.agents}
        self._returns = self.game.returns(self.game_state).tolist()
        self._returned = None  # the returns array of the last step when it is read-only
        self._rewards_zero = True
        self._skip_agent_selection = None  # (PettingZoo's dead steps of a game left unfinished: not this game's)
        self.agent_selection = self.agents[0]
        self._after_transition()
        if self.render_mode == "human":  # Gymnasium's and PettingZoo's convention: "human" draws by itself
            self.render()

    # ------------------------------------------------------------------- step
    def step(self, action) -> None:
        """Apply ``action`` for ``agent_selection``; raises ``ValueError`` if it is illegal."""
        try:
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise self._usage_error("step") from None
        if done:
            if action is not None:
                raise EnvUsageError(
                    f"step({short_repr(action)}) for {agent}, whose game is over: a done agent may only step "
                    "None (which removes it); call reset() to start a new game"
                )
            self._was_dead_step(action)
            return
        action = self.validate_action(action)
        if not self._legal_flags[action]:
            raise ValueError(
                f"illegal action {action} ({self.game.action_to_string(self.game_state, action)}) "
                f"for {agent}: {self.game.illegal_reason(self.game_state, action)}"
            )
        self._apply_legal(agent, action)

    def _apply_legal(self, agent: str, action: int) -> None:
        """Apply ``action`` (a plain int already checked against the mask) for live ``agent``."""
        game = self.game
        state = self.game_state
        game.apply_action(state, action, self.rng)
        self.last_move = (self._seat[agent], action)
        self.num_steps += 1
        # Rewards are the change of the rules' cumulative returns (plain floats:
        # numpy arithmetic on 3-5 numbers costs more than the loop). Most steps
        # change no return: then the rewards are zeroed once and not re-added.
        returned = game.returns(state)
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if returned is self._returned:
            # the very read-only array of the last step: returns unchanged (win/loss games
            # hand out one shared array until the end)
            new_returns = old_returns = self._returns
        else:
            self._returned = None if returned.flags.writeable else returned
            new_returns = returned.tolist()
            old_returns = self._returns
        if new_returns != old_returns:
            self._returns = new_returns
            for a, new, old in zip(self.possible_agents, new_returns, old_returns):
                if a in rewards:
                    rewards[a] = new - old
            self._rewards_zero = False
        elif not self._rewards_zero:
            for a in rewards:
                rewards[a] = 0.0
            self._rewards_zero = True
        self._after_transition()
        if not self._rewards_zero:
            self._accumulate_rewards()
        if self.render_mode == "human":  # every move, whichever path applied it (env() calls this directly)
            self.render()

    def _clear_rewards(self) -> None:
        """PettingZoo's, paying float zeros (its own are int 0: a dead step's rewards were ints, every other a float)."""
        for agent in self.rewards:
            self.rewards[agent] = 0.0

    def validate_action(self, action) -> int:
        """``action`` as an int in range, or a ``TypeError``/``ValueError`` that says what was expected."""
        if type(action) is int and 0 <= action < self.game.num_actions:
            return action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
                action = int(action)
            else:
                raise TypeError(
                    f"action must be an integer in [0, {self.game.num_actions}), got "
                    f"{action!r} of type {type(action).__name__}"
                )
        action = int(action)
        if not 0 <= action < self.game.num_actions:
            raise ValueError(
                f"action {action} is out of range: expected an integer in [0, {self.game.num_actions})"
            )
        return action

    def _after_transition(self) -> None:
        """Refresh selection, masks, end flags and caches after reset or a step."""
        game = self.game
        state = self.game_state
        self._obs_cache: dict[str, dict] = {}
        # current_player is TERMINAL exactly when the game ended or was cut off
        # (Game's contract, checked by the conformance tests): one call a live step
        seat = game.current_player(state)
        if seat == TERMINAL:
            over = game.is_terminal(state)
            truncated = not over and game.is_truncated(state)
            if not (over or truncated):
                raise RuntimeError(f"{game.name}: current_player is TERMINAL but the game is not over")
            for a in self.agents:
                self.terminations[a] = over
                self.truncations[a] = truncated
                self.infos[a] = {"action_mask": self._no_actions}
            self._legal = []
            self._mask = self._no_actions
            self._legal_flags = self._no_flags
            # Dead agents are removed one by one through step(None). As in
            # PettingZoo's classic envs, the seat after the last actor is selected
            # first: a vectorizer that resets a finished game at its next step
            # (SuperSuit's) moves on to that seat, which then reads its ending.
            last = getattr(self, "agent_selection", None)
            if last in self._seat:
                seat = self._seat[last]
                following = self.possible_agents[seat + 1:] + self.possible_agents[:seat + 1]
                self.agent_selection = next(a for a in following if a in self.agents)
            else:
                self.agent_selection = self.agents[0]
            return
        if self._flags_from_game:
            self._legal = None  # listed on demand by legal_actions()
            self._legal_flags = flags = game.legal_flags(state)
            if 1 not in flags:
                raise RuntimeError(f"{game.name}: seat {seat} must act but has no legal action")
            mask = np.frombuffer(flags, _INT8)
        else:
            self._legal = legal = game.legal_actions(state)
            if not legal:
                raise RuntimeError(f"{game.name}: seat {seat} must act but has no legal action")
            self._legal_flags, mask = self._flags_and_mask(legal)
        self._mask = mask
        # Only the previous and the new actor's infos change (all others
        # already hold the shared all-zero mask).
        infos = self.infos
        infos[self.agent_selection] = {"action_mask": self._no_actions}
        self.agent_selection = agent = self.possible_agents[seat]
        infos[agent] = {"action_mask": mask}

    def _flags_and_mask(self, legal: list[int]) -> tuple[bytes, np.ndarray]:
        """The legality flags and the read-only action mask of the legal set ``legal``.

        Most turns of a game repeat a legal set met before, so masks are kept
        per legal set: a dictionary lookup costs a fraction of building one.
        Masks are views of immutable bytes (read-only), so sharing them between
        steps is safe. The cache is per instance and bounded (:func:`mask_cache_size`).
        """
        key = tuple(legal)
        entry = self._mask_cache.get(key)
        if entry is None:
            flags = flags_of(legal, self._num_actions)
            entry = (flags, np.frombuffer(flags, _INT8))
            remember(self._mask_cache, key, entry, self._mask_cache_size)
        return entry

    def __getstate__(self) -> dict:
        # Copies (deepcopy, pickle) start with empty caches: numpy arrays come
        # back from a copy writable, and masks and cached observations handed
        # to agents must never be (observations are re-encoded on demand).
        state = self.__dict__.copy()
        state["_mask_cache"] = {}
        state["_obs_cache"] = {}
        state["_seat_rules"] = {}
        state.pop("_window", None)  # a human-mode window belongs to this process
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # Re-view the (immutable) flags so the copy's masks are read-only again.
        old_none, old_mask = self._no_actions, getattr(self, "_mask", None)
        self._no_actions = np.frombuffer(self._no_flags, _INT8)
        if old_mask is not None:
            self._mask = self._no_actions if old_mask is old_none else np.frombuffer(self._legal_flags, _INT8)
        for info in getattr(self, "infos", {}).values():
            mask = info.get("action_mask")
            if mask is old_none:
                info["action_mask"] = self._no_actions
            elif mask is not None and mask is old_mask:
                info["action_mask"] = self._mask

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict:
        """``{"observation", "action_mask"}`` for ``agent``: only what that player may know."""
        try:
            cached = self._obs_cache.get(agent)
        except AttributeError:
            raise self._usage_error("observe") from None
        if cached is None:
            seat = self._seat.get(agent)
            if seat is None:
                raise EnvUsageError(f"observe({short_repr(agent)}): not an agent of this env; expected one of {self.possible_agents}")
            obs = self.encode(self.game_state, seat)
            # the legal actions go to the player to act alone, and only while it plays: after an illegal move
            # (PettingZoo's verdict ends the game, the selection moves to the other seats) the mask still holds
            # the offender's private legal set
            if agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent)):
                mask = self._mask
            else:
                mask = self._no_actions
            if obs.flags.writeable:  # (reading the flag costs a seventh of setting it)
                obs.flags.writeable = False
            cached = {"observation": obs, "action_mask": mask}
            self._obs_cache[agent] = cached
        # a fresh dict each call (its arrays are the cached read-only ones): a caller that edits its dict (pops
        # a key, swaps in its own mask) must not change what observe() and last() hand the next caller this step
        return dict(cached)

    def state(self) -> np.ndarray:
        """The whole true state as a fresh float32 vector (``state_vector.layout`` names its pieces).

        For centralised training only (a critic's input): it holds every
        seat's private facts and what nobody knows, so it is never an agent's input.
        """
        if self.game_state is None:
            raise self._usage_error("state")
        if self.state_vector is None:
            raise NotImplementedError(f"{self.metadata.get('name', self.game.name)} declares no state vector")
        return self.state_vector.encode(self.game_state)

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``, refused in words before ``reset`` and once every agent has stepped out."""
        if self.game_state is None or not self.agents:
            raise self._usage_error("last")
        return super().last(observe)

    def _usage_error(self, call: str) -> EnvUsageError:
        """The error for ``call`` made when no game is under way, in words."""
        if self.game_state is None:
            return EnvUsageError(f"{call}() before reset(): call reset(seed=...) first to deal a game")
        return EnvUsageError(
            f"{call}() after the game ended (every agent has stepped out): call reset() to start a new game"
        )

    # ------------------------------------------------------------- utilities
    def legal_actions(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (empty when the game is over)."""
        if self._legal is None:
            self._legal = np.flatnonzero(self._mask).tolist()
        return list(self._legal)

    def action_to_string(self, action: int) -> str:
        """``action`` in words, in the current state."""
        return self.game.action_to_string(self.game_state, int(action))

    def resample_hidden(self, agent: str, rng: np.random.Generator):
        """A full state consistent with all ``agent`` knows, hidden parts re-dealt from ``rng``."""
        return self.game.resample_hidden(self.game_state, self._seat[agent], rng)

    def determinization_sampler(self, agent: str) -> DeterminizationSampler:
        """A :class:`DeterminizationSampler` (``rng -> state``) for ``agent`` at the current state.

        Built from ``agent``'s information state alone (see the class), with a
        rules object that this env keeps for that seat: never the live state,
        never the env's own rules object. It stays valid (and never sees later
        moves) after the env moves on.
        """
        seat = self._seat[agent]
        rules = self._seat_rules.get(seat)
        if rules is None:
            rules = self._seat_rules[seat] = self.game.new_rules()
        # The env's own rules canonicalise the true state: the seat's rules object
        # only ever sees information states and their samples, so its caches hold
        # nothing that seat may not know.
        information_state = self.game.resample_hidden(self.game_state, seat, np.random.default_rng(0))
        return DeterminizationSampler(rules, information_state, seat)

    def render_text(self, viewer: str | None = None, width: int | None = None) -> str:
        """The table as ``viewer`` (an agent name) sees it, or as a spectator when None.

        ``width``: the columns to fit (:mod:`~kakurega.envs.core.text_layout`: blocks stacked, prose
        wrapped, the same words); None (default): the render at its full width.
        """
        if self.game_state is None:
            raise self._usage_error("render_text")
        if viewer is not None and viewer not in self._seat:
            raise ValueError(f"viewer={short_repr(viewer)} is not an agent; expected None or one of {self.possible_agents}")
        seat = None if viewer is None else self._seat[viewer]
        if check_width(width) is None or not takes_width(self.render_state):
            return self.render_state(self.game_state, seat)
        return self.render_state(self.game_state, seat, width=width)

    def scene(self, view: str | None = None):
        """The :class:`~kakurega.envs.core.picture.Scene` of the table as ``view`` (an agent name) sees it, or a spectator (None)."""
        if self.game_state is None:
            raise self._usage_error("scene")
        if view is not None and view not in self._seat:
            raise ValueError(f"view={short_repr(view)} is not an agent; expected None or one of {self.possible_agents}")
        if self.picture is None:
            raise NotImplementedError(f"{self.metadata.get('name', self.game.name)} has no picture maker")
        return self.picture.scene(self.game_state, None if view is None else self._seat[view], self.last_move)

    def render(self):
        """``ansi``: the text picture; ``rgb_array``: an H x W x 3 uint8 image; ``human``: the image in a window.

        All draw the table as ``render_view`` sees it.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
            )
            return None
        if self.render_mode == "ansi":
            return self.render_text(self.render_view)
        from kakurega.envs.core.picture import Window, to_rgb

        frame = to_rgb(self.scene(self.render_view))
        if self.render_mode == "rgb_array":
            return frame
        if getattr(self, "_window", None) is None:
            self._window = Window(f"kakurega: {self.metadata.get('name', self.game.name)}")
        self._window.show(frame, self.metadata.get("render_fps", 1))
        return None

    def close(self) -> None:
        """Close the ``human`` window if one is open (the env holds no other window, file or process)."""
        window = getattr(self, "_window", None)
        if window is not None:
            window.close()
            self._window = None


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's three standard wrappers fused into one layer.

    Behaves exactly like ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_ACTION_PENALTY)))``:

    - calls out of order (``step``/``observe``/``render``/``agent_iter`` before
      ``reset``, reading ``agents``, ``rewards``... before ``reset``) raise
      PettingZoo's errors; stepping with no agents left warns;
    - an action outside the action space raises PettingZoo's
      ``AssertionError("action is not in action space")``, followed by what
      was given and what was expected (``None`` only for dead agents; a
      boolean is refused too, as the raw env refuses it); raised, not
      asserted, so it holds under ``python -O`` too;
    - an illegal action (mask 0) ends the game for everyone, the offender
      getting ``ILLEGAL_ACTION_PENALTY`` and the others 0.

    Three stacked wrappers route every attribute read through three
    ``__getattr__`` hops, which cost more than a whole game step; one layer
    with direct properties keeps the checks and drops the hops
    (docs/performance.md). ``tests/test_wrappers.py`` checks the equivalence.
    """

    def __init__(self, env: TurnBasedAECEnv):
        super().__init__(env)
        self._num_actions = env.game.num_actions

    def _require_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    # Direct forwarding of the attributes every loop reads (no __getattr__ hop).
    @property
    def agents(self):
        self._require_reset("agents")
        return self.env.agents

    @property
    def agent_selection(self):
        self._require_reset("agent_selection")
        return self.env.agent_selection

    @property
    def rewards(self):
        self._require_reset("rewards")
        return self.env.rewards

    @property
    def terminations(self):
        self._require_reset("terminations")
        return self.env.terminations

    @property
    def truncations(self):
        self._require_reset("truncations")
        return self.env.truncations

    @property
    def infos(self):
        self._require_reset("infos")
        return self.env.infos

    @property
    def _cumulative_rewards(self):
        return self.env._cumulative_rewards

    @property
    def possible_agents(self):
        return self.env.possible_agents

    def observe(self, agent):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        env = self.env
        if not env.agents:  # every agent has stepped out: the raw env's words, not a KeyError
            raise env._usage_error("last")
        agent = env.agent_selection
        observation = env.observe(agent) if observe else None
        return (
            observation,
            env._cumulative_rewards[agent],
            env.terminations[agent],
            env.truncations[agent],
            env.infos[agent],
        )

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = env.agent_selection
        dead = env.terminations[agent] or env.truncations[agent]
        if type(action) is int and not dead and 0 <= action < self._num_actions:
            # The common case, checked exactly as below without the general
            # action-space test: a plain int in range for a live agent.
            if env._legal_flags[action]:
                env._apply_legal(agent, action)  # nothing left for env.step to check
            else:
                self._illegal(env, agent)
            return
        if action is None and dead:
            env.step(action)
            return
        if not self._in_action_space(action):
            # raised, not asserted: under ``python -O`` an assert is gone, and int() below made 1.5, "1" or True an id
            raise AssertionError(self._not_an_action(action, agent, dead))
        if dead:
            env.step(action)
        elif not env._legal_flags[int(action)]:
            self._illegal(env, agent)
        else:
            env.step(action)

    @staticmethod
    def _illegal(env: TurnBasedAECEnv, agent: str) -> None:
        """TerminateIllegalWrapper's verdict: the game ends, ``agent`` gets the penalty."""
        EnvLogger.warn_on_illegal_move()
        env._cumulative_rewards[agent] = 0.0
        env.terminations = dict.fromkeys(env.agents, True)
        env.truncations = dict.fromkeys(env.agents, True)
        env.rewards = dict.fromkeys(env.agents, 0.0)
        env.rewards[agent] = float(ILLEGAL_ACTION_PENALTY)
        env._accumulate_rewards()
        # the game is over: no seat has a legal action, the offender included (PettingZoo's own stack of wrappers
        # leaves its mask in its info, and in its observation if it was read before the move; here every mask,
        # info and legal_actions() is empty, as at any game's end)
        env._obs_cache = {}
        env._legal, env._mask, env._legal_flags = [], env._no_actions, env._no_flags
        for other in env.agents:
            env.infos[other] = {"action_mask": env._no_actions}
        env._deads_step_first()

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def _not_an_action(self, action, agent: str, dead: bool) -> str:
        """PettingZoo's words for an action outside the action space, with what was given and what was expected."""
        expected = "None (its game is over)" if dead else f"an integer in [0, {self._num_actions})"
        given = (f"None for {agent}, whose game goes on (None steps out an agent whose game is over)" if action is None
                 else f"{short_repr(action)} of type {type(action).__name__} for {agent}")
        return f"action is not in action space: got {given}; expected {expected}"

    def _in_action_space(self, action) -> bool:
        """``Discrete(n).contains(action)`` without its numpy overhead for plain ints.

        Booleans are refused (``Discrete.contains(True)`` is true, but ``True`` is no
        action id: the raw env refuses it too).
        """
        if type(action) is int:
            return 0 <= action < self._num_actions
        if isinstance(action, (bool, np.bool_)):
            return False
        return self.env.action_space(self.env.agent_selection).contains(action)


class _AgentIterable(AECOrderEnforcingIterable):
    """What ``StandardWrapper.agent_iter`` returns: iterates with :class:`_AgentIterator`."""

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator reading the raw env directly (same checks)."""

    def __init__(self, env: StandardWrapper, max_iter: int):
        super().__init__(env, max_iter)
        self._raw = env.env

    def __next__(self) -> str:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        wrapper = self.env
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return raw.agent_selection


def wrap(raw: TurnBasedAECEnv) -> StandardWrapper:
    """The standard PettingZoo checks around a raw kakurega env (see :class:`StandardWrapper`)."""
    return StandardWrapper(raw)
