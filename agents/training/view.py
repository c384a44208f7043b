"""The single-agent training view: any kakurega AEC env as a ``gymnasium.Env`` for one learning seat.

Each episode the view deals a new game, picks the learner's seat (random by
default, or fixed), and draws one opponent per other seat from an
:class:`~kakurega.agents.training.league.OpponentPool`. ``step(action)``
plays the learner's action, then lets the opponents act (through
:func:`~kakurega.agents.base.choose_action`, each seeing only its own
observation) until the learner must act again or the game is over.

Rewards are **the learner's own**: the sum of every reward the learner's seat
received since its previous action, including rewards caused by opponents'
moves, and in particular its final result when an opponent's move ends the
game. Rewards the learner's seat received before its first action are paid
with its first step.

Observations are fresh float32 copies (the AEC env's cached arrays are
read-only and shared); ``action_masks()`` gives the learner's legal actions
(sb3-contrib's MaskablePPO reads it through any VecEnv, ``SubprocVecEnv``
included), and every ``info`` carries ``"action_mask"``, the mask of the
observation returned with it as an ``int8`` array of 0/1 (all zeros once the
game is over), the dtype of the AEC envs' masks, so libraries that compute
``1 - mask`` get the illegal actions. The final
step's info also has ``"outcome"`` (win/shared/draw/loss) and ``"score"``
(the learner's share of the win; see :mod:`kakurega.agents.outcome`), ``"final_return"``, ``"learner_seat"`` and
``"opponents"``.

With ``move_features=True`` each observation is followed by the game's move
features of that observation (:mod:`kakurega.agents.move_features`; the
``Box`` grows by their size, bounded by 1), the input of a network trained
with ``network.move_features``.

Env options go in ``env_kwargs`` or directly as keyword arguments
(``SingleAgentView("kakurenbo_v0", num_players=3)``, which is how
``gymnasium.make("kakurega/kakurenbo-v0", num_players=3)`` passes them, the
convention of every kakurega Gymnasium id).

Games that end before the learner ever acts are re-dealt (counted in
``info["redeals"]``): they hold nothing to learn.

An illegal learner action (only possible without masking) is handled as
``env()`` handles it by default (``illegal_action="penalize"``): the episode
ends with :data:`~kakurega.envs.core.aec.ILLEGAL_ACTION_PENALTY` and
``info["illegal_action"] = True``. ``illegal_action="raise"`` raises a
``ValueError`` naming the action and the legal ones instead, which the
training loop uses to catch masking bugs.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from kakurega.agents.base import AgentContext, choose_action
from kakurega.agents.outcome import classify_outcome, rules_winners, win_share
from kakurega.agents.training.league import OpponentPool
from kakurega.envs.core.aec import ILLEGAL_ACTION_PENALTY, RenderModeError, check_render_mode
from kakurega.envs.core.options import merge_env_kwargs

MAX_REDEALS = 1000


class SingleAgentView(gymnasium.Env):
    """One learning seat of a kakurega env; opponents act inside :meth:`step`."""

    # "render_fps": how fast Gymnasium's HumanRendering wrapper shows frames; gymnasium.make(id,
    # render_mode="human") applies it over "rgb_array" (the view opens no window itself)
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        env_name: str,
        env_kwargs: dict | None = None,
        opponents=("random",),
        learner_seat: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        move_features: bool = False,
        **env_options,
    ):
        from kakurega.envs.registry import make

        self.env_name = env_name
        self.env_kwargs = merge_env_kwargs(env_kwargs, env_options, type(self).__name__)
        if "render_view" in self.env_kwargs:
            raise TypeError(f"{type(self).__name__}: render_view is not an option of the single-seat view, which "
                            "always draws the learner's view; give render_mode only")
        self.raw = make(env_name, wrapped=False, **self.env_kwargs)
        # the view draws the env's picture: an env without one renders text only
        modes = [mode for mode in self.metadata["render_modes"] if mode in self.raw.metadata["render_modes"]]
        self.metadata = {**self.metadata, "render_modes": modes}
        self.context = AgentContext.from_env(self.raw, env_name, self.env_kwargs)
        self.num_players = self.context.num_players
        if not (isinstance(learner_seat, str) and learner_seat == "random") and not (
            isinstance(learner_seat, (int, np.integer))
            and not isinstance(learner_seat, (bool, np.bool_))  # True is no seat
            and 0 <= int(learner_seat) < self.num_players
        ):
            raise ValueError(
                f"learner_seat must be 'random' or a seat number (an int) in 0..{self.num_players - 1}, "
                f"got {learner_seat!r} of type {type(learner_seat).__name__}"
            )
        self.learner_seat = learner_seat
        if not isinstance(move_features, (bool, np.bool_)):
            raise TypeError(
                f"move_features must be True or False, got {move_features!r} of type {type(move_features).__name__}"
            )
        if render_mode == "human":
            raise RenderModeError(
                f"render_mode='human' is not supported by the view itself; expected one of "
                f"{self.metadata['render_modes']} or None (gymnasium.make(id, render_mode='human') shows "
                "the 'rgb_array' frames in a window through Gymnasium's HumanRendering)"
            )
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(f"illegal_action must be 'penalize' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents, self.context)
        layout = self.context.layout
        high = layout.high.copy()
        self.move_features = None
        if move_features:
            from kakurega.agents.move_features import MoveFeatures

            self.move_features = MoveFeatures(self.context)
            high = np.concatenate([high, np.ones(self.move_features.size, dtype=high.dtype)])
        self.observation_space = spaces.Box(0.0, high, shape=high.shape, dtype=np.float32)
        self.action_space = spaces.Discrete(self.context.num_actions)
        self._learner: str | None = None
        self._opponents: dict[str, object] = {}
        self._opponent_labels: dict[str, str] = {}
        self._pending_reward = 0.0
        self._totals: dict[str, float] = {}
        self._over = True

    # ------------------------------------------------------------- gym API
    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game (``options`` is not read: env options are given when the view is made)."""
        super().reset(seed=seed)
        for redeals in range(MAX_REDEALS):  # noqa: B007 (the count is read after the loop)
            self._deal()
            if not self._advance():
                break
        else:
            raise RuntimeError(f"{self.env_name}: {MAX_REDEALS} games in a row ended before the learner acted "
                               "(the opponents' moves ended each one, or the env's step limit cut it off first: "
                               f"its options {self.env_kwargs or 'the defaults'}; a step limit must leave the "
                               "learner's seat a move)")
        return self._observation(), self._info(redeals=redeals)

    def step(self, action):
        if self._over:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        # an integer (numpy's and 0-d integer arrays included) in range, or a TypeError/ValueError saying so:
        # int() would turn 4.9 into 4, "4" into 4 and True into 1
        action = self.raw.validate_action(action)
        if not self.raw.observe(self._learner)["action_mask"][action]:
            if self.illegal_action == "penalize":
                return self._illegal_end()
            legal = ", ".join(f"{a} ({self.raw.action_to_string(a)})" for a in self.raw.legal_actions())
            raise ValueError(
                f"the learner chose illegal action {action} ({self.raw.action_to_string(action)}); "
                f"legal: {legal}. Use a masked algorithm (MaskablePPO, MaskedDQN) or action_masks()."
            )
        self._apply(action)
        over = self._advance()
        reward, self._pending_reward = self._pending_reward, 0.0
        terminated = bool(self.raw.terminations[self._learner])
        truncated = bool(self.raw.truncations[self._learner])
        info = self._info()
        if over:
            returns = [self._totals[a] for a in self.raw.possible_agents]
            seat = self.raw.possible_agents.index(self._learner)
            winners = rules_winners(self.raw.game, self.raw.game_state)  # who won is the rules' call
            info.update(
                outcome=classify_outcome(returns, seat, winners),
                score=win_share(returns, seat, winners),
                final_return=self._totals[self._learner],
                learner_seat=seat,
                opponents=dict(self._opponent_labels),
            )
        return self._observation(), float(reward), terminated, truncated, info

    def _illegal_end(self):
        obs = self._observation()
        reward, self._pending_reward = self._pending_reward + ILLEGAL_ACTION_PENALTY, 0.0
        self._over = True
        info = {
            "action_mask": np.zeros(self.context.num_actions, dtype=np.int8),
            "illegal_action": True,
            "outcome": "loss",
            "score": 0.0,
            "final_return": self._totals[self._learner] + ILLEGAL_ACTION_PENALTY,
            "learner_seat": self.raw.possible_agents.index(self._learner),
            "opponents": dict(self._opponent_labels),
        }
        return obs, float(reward), True, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (bool array; all False once the game is over)."""
        if self._over or self._learner is None:
            return np.zeros(self.context.num_actions, dtype=bool)
        return self.raw.observe(self._learner)["action_mask"].astype(bool)

    def render(self):
        """The table as the learner sees it: text (``render_mode="ansi"``) or an H x W x 3 image (``"rgb_array"``).

        None without a ``render_mode`` (Gymnasium's convention; a warning says what to pass) and before
        the first ``reset``.
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'rgb_array' "
                "(gymnasium.make(..., render_mode='human') shows the 'rgb_array' frames in a window)"
            )
            return None
        if self._learner is None:
            return None
        if self.render_mode == "rgb_array":
            from kakurega.envs.core.picture import to_rgb

            return to_rgb(self.raw.scene(self._learner))
        return self.raw.render_text(self._learner)

    # ------------------------------------------------------ league updates
    def set_league(self, current=None, snapshots=None) -> None:
        """Push the learner's weights (``(metadata, layers)``) and/or snapshot paths into the pool."""
        if current is not None:
            self.pool.set_current(*current)
        if snapshots is not None:
            self.pool.set_snapshots(snapshots)

    def opponent_draw_counts(self) -> dict:
        """How often each pool entry has been drawn (for logs)."""
        return dict(self.pool.draw_counts)

    # ------------------------------------------------------------ internals
    def _deal(self) -> None:
        rng = self.np_random
        self.raw.reset(seed=int(rng.integers(2**31 - 1)))
        agents = self.raw.possible_agents
        seat = int(rng.integers(self.num_players)) if self.learner_seat == "random" else int(self.learner_seat)
        self._learner = agents[seat]
        others = [a for a in agents if a != self._learner]
        drawn = self.pool.draw(rng, len(others))
        self._opponents = {name: agent for name, (_, agent) in zip(others, drawn)}
        self._opponent_labels = {name: label for name, (label, _) in zip(others, drawn)}
        self._totals = {a: 0.0 for a in agents}
        self._pending_reward = 0.0
        self._over = False

    def _apply(self, action: int) -> None:
        self.raw.step(action)
        for name in self.raw.possible_agents:
            self._totals[name] += self.raw.rewards.get(name, 0.0)
        self._pending_reward += self.raw.rewards.get(self._learner, 0.0)

    def _advance(self) -> bool:
        """Let opponents act until the learner must act; True when the game is over."""
        raw = self.raw
        while True:
            if raw.terminations[self._learner] or raw.truncations[self._learner]:
                self._over = True
                return True
            current = raw.agent_selection
            if current == self._learner:
                return False
            self._apply(choose_action(self._opponents[current], raw, current))

    def _observation(self) -> np.ndarray:
        observation = self.raw.observe(self._learner)
        vector = np.array(observation["observation"], dtype=np.float32, copy=True)
        if self.move_features is None:
            return vector
        return np.concatenate([vector, self.move_features(observation)])

    def _info(self, **extra) -> dict:
        return {"action_mask": self.action_masks().view(np.int8), **extra}  # (a fresh bool array read as 0/1 bytes)
