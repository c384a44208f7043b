"""Hidden Rooms (かくされた部屋): a child escapes a dark room, tile by tile, from a roaming monster.

| | |
|---|---|
| Import | `from kakurega.envs import hidden_rooms_v0` |
| Create | `hidden_rooms_v0.env(booklet=None, episode="match", reward="match", max_turns=60, shaping=0.0, render_mode=None, render_view=None)` |
| Gymnasium | `gymnasium.make("kakurega.envs:kakurega/HiddenRooms-v0", **same options)` (the id is registered by `import kakurega.envs`; the `kakurega.envs:` prefix imports it first) |
| Agents | `["player_0"]` (the child; solitaire) |
| Action space | `Discrete(17)` |
| Observation | `Dict(observation=Box(0, 1, (560,), float32), action_mask=Box(0, 1, (17,), int8))` with the default booklet (7 monsters) |
| Rules | `kakurega rules hidden_rooms` (the players' page, shipped in `kakurega/envs/data/rules/`); engine in `kakurega.envs.hidden_rooms.rules` |

The room is a 5x5 grid, row 0 at the top. The child starts on the start tile
at (4, 4) and escapes by stepping onto (0, 0). The 24 room tiles (red, blue,
green, yellow x 1..6) lie shuffled face down in the pile; a tile may be placed
next to the child when it *connects* to the tile the child stands on (same
colour, or a greater number; anything connects to the start tile, number 0).
Each round a monster is drawn from the booklet (data file
`kakurega/envs/data/hidden_rooms_monsters.yaml`); it walks its path, chases the
child when it sees it, and ends the round in failure if it catches the child
or has walked its whole path: it stands on the path's last cell at the end of
its phase having taken every step of the path (a looping path may pass that
square earlier without ending the round; `path_progress` counts the steps).

## Agents

One agent, `player_0`, the child. The monster is not an agent: its phase is
automatic and happens inside `step()` (after the child's last decision of a
turn, and before its first decision of a round), so every `step()` returns at
the child's next decision point.

## Action space

`Discrete(17)`. A turn is three phases; each decision point offers only the
ids of its phase (see the mask):

| id | phase | action | legal when |
|---|---|---|---|
| 0 | move | step north (row - 1) | the cell is on the grid, explored, and not the monster's |
| 1 | move | step east (column + 1) | same |
| 2 | move | step south (row + 1) | same |
| 3 | move | step west (column - 1) | same |
| 4 | move | stop moving | always in the move phase |
| 5 | search | search the pile (draw its top tile) | the pile is not empty |
| 6..10 | search | search memory slot 0..4 | the slot holds a tile (memory is kept sorted by tile id: colour red < blue < green < yellow, then number) |
| 11 | search | don't search (ends the turn) | always in the search phase |
| 12 | place | place the tile in hand north of the child | that cell is on the grid and unexplored |
| 13 | place | place it east | same |
| 14 | place | place it south | same |
| 15 | place | place it west | same |
| 16 | place | decline (a pile tile goes to memory, a memory tile back to memory) | always in the place phase |

The move phase ends after 2 steps or with "stop moving"; the search phase
ends the turn unless the tile found can be placed, in which case the place
phase follows. The env asks only where there is a real choice: a move phase
with no possible step is skipped, a search phase with an empty pile and empty
memory is skipped, and a tile that cannot be placed anywhere (it does not
connect, or no adjacent cell is unexplored) is resolved at once (a pile tile
goes to memory, a memory tile stays) without a place phase.

Worked example (`env.reset(seed=0)`, default booklet; the test suite replays it):

1. Round 1, turn 1: the monster (Nurikabe) has made its first phase. The child
   stands on (4, 4) with no explored neighbour, so the move phase is skipped:
   legal `[5, 11]`.
2. `step(5)`: the top pile tile is green 4; it connects to the start tile, so the
   place phase follows: legal `[12, 15, 16]` (north to (3, 4), west to (4, 3), decline).
3. `step(12)`: green 4 lies on (3, 4); the turn ends, the monster moves (turn 2),
   and the move phase offers `[0, 4]` (step north onto (3, 4), or stop).
4. `step(0)`: the child stands on (3, 4): legal `[2, 4]` (back south, or stop).
5. `step(4)`, then `step(5)`: the pile gives red 2, which does not connect to
   green 4 (other colour, smaller number), so it goes to memory at once; turn 3
   starts. Later, `6` ("search memory slot 0", red 2) is legal in search phases.

## Action mask

`observation["action_mask"]` (and `info["action_mask"]`; `action_masks()` in the
Gymnasium form) is 1 exactly for the legal ids above; it is all zeros once the
episode is over. Playing an illegal id through `raw_env` raises `ValueError`
saying why in the rules' words; `env()` ends the episode with reward -1.

## Observation space

A flat float32 vector of named pieces (decode with `env.unwrapped.layout.view(obs, name)`),
all in [0, 1]. Cells are in row-major order. `monster_id` has one entry per
booklet monster, so the vector's size depends on the booklet (560 for the
default booklet of 7 monsters).

<!-- observation table: generated by `python -m kakurega.scripts.cards --write` -->
| piece | shape | offsets | range | meaning |
|---|---|---|---|---|
| `explored` | (5, 5) | 0..24 | 0..1 | 1 where a tile lies (the start tile included) |
| `tile_colour` | (5, 5, 4) | 25..124 | 0..1 | colour one-hot of the tile on each cell (red, blue, green, yellow); start tile: none |
| `tile_number` | (5, 5, 6) | 125..274 | 0..1 | number one-hot (1..6) of the tile on each cell; start tile (number 0): none |
| `child` | (5, 5) | 275..299 | 0..1 | one-hot: the child's cell |
| `monster` | (5, 5) | 300..324 | 0..1 | one-hot: the monster's cell |
| `monster_sight` | (5, 5) | 325..349 | 0..1 | 1 on the cells the monster sees from where it stands |
| `path_ahead` | (5, 5) | 350..374 | 0..1 | 1 on cells the monster's path still visits after its progress |
| `path_eta` | (5, 5) | 375..399 | 0..1 | path steps until the path first reaches the cell (after its progress) / 200; 0 if never |
| `path_next` | (5, 5) | 400..424 | 0..1 | one-hot: the path cell the monster walks toward when not chasing (the last path cell once it is walked) |
| `path_end` | (5, 5) | 425..449 | 0..1 | one-hot: the last cell of the path (reaching it at the end of a monster phase = fail) |
| `monster_id` | (7,) | 450..456 | 0..1 | one-hot: which booklet monster this round's monster is |
| `monster_steps` | (1,) | 457..457 | 0..1 | steps per monster phase / 4 |
| `sight_shape` | (2,) | 458..459 | 0..1 | one-hot sight shape: radius, line |
| `sight_range` | (1,) | 460..460 | 0..1 | sight range / 8 |
| `path_progress` | (1,) | 461..461 | 0..1 | progress along the path: index of the last path cell reached / (path length - 1) |
| `path_remaining` | (1,) | 462..462 | 0..1 | path cells still to walk / 200 |
| `chasing` | (1,) | 463..463 | 0..1 | 1 when the monster's latest step was a chase |
| `in_sight` | (1,) | 464..464 | 0..1 | 1 when the monster sees the child now |
| `memory` | (5, 10) | 465..514 | 0..1 | memory slots in action order (sorted by tile id): colour one-hot, number one-hot; empty slot all 0 |
| `memory_count` | (1,) | 515..515 | 0..1 | tiles in memory / 5 |
| `pile_tiles` | (4, 6) | 516..539 | 0..1 | 1 for each tile in the pile (composition only; the order is hidden) |
| `pile_size` | (1,) | 540..540 | 0..1 | tiles in the pile / 24 |
| `drawn` | (10,) | 541..550 | 0..1 | the tile in hand while placing: colour one-hot, number one-hot |
| `drawn_from` | (2,) | 551..552 | 0..1 | one-hot source of the tile in hand: pile, memory |
| `phase` | (3,) | 553..555 | 0..1 | one-hot decision phase: move, search, place (all 0 when the episode is over) |
| `steps_taken` | (1,) | 556..556 | 0..1 | child steps taken this turn / 2 |
| `turn` | (1,) | 557..557 | 0..1 | turn number in this round / max_turns |
| `escapes` | (1,) | 558..558 | 0..1 | escapes in this match / 2 |
| `fails` | (1,) | 559..559 | 0..1 | fails in this match / 3 |
<!-- end of observation table -->

The child knows everything on the table: the placed tiles, memory, the
monster, its traits and its whole path (the booklet is open; `monster_id` and
`path_progress` pin down the exact path, `path_ahead`/`path_eta`/`path_next`/
`path_end` show it spatially), whether it chased, the match score, the tile in
hand and the phase. The pile's composition is included (it is public: every
tile neither placed nor in memory nor in hand); its order appears nowhere.

## State (centralised training only)

``env.state()`` is the whole true state as one float32 vector (``env.state_space``;
``env.unwrapped.state_vector.layout`` names its pieces): for a centralised critic
(MAPPO, QMIX), never an agent's input. No runner of the project hands it to an agent.

<!-- state table: generated by `python -m kakurega.scripts.cards --write` -->
`state()`: 1136 float32 entries with the default options. Entries 0..559: the observation of each seat in seat order (560 each; pieces `player_<i>/<piece>`); then the facts no seat observes:

| piece | shape | offsets | range | meaning |
|---|---|---|---|---|
| `unseen/pile_order` | (24, 24) | 560..1135 | 0..1 | row k: one-hot tile id k-th from the pile's top (row 0 is drawn next; tile t: colour t // 6, number t % 6 + 1) |
<!-- end of state table -->

## Rewards

`reward="match"` (default): +1 when the match is won (2 escapes), -1 when it is
lost (3 fails), 0 on every other step. `reward="per_round"`: +1 at each escape
and -1 at each fail. With `episode="round"` the episode is one round and both
options give +1 for an escape and -1 for a fail.

**Shaping (off by default).** `shaping=k` with 0 < k <= 1 adds the change of a
progress potential to every step (potential-based shaping, Ng, Harada &
Russell 1999, with gamma = 1): `r' = r + k * (phi(s') - phi(s))`, where
`phi` in [0, 1] reads only the table the child sees:

    phi = ((8 - d(child)) + (8 - min d(c) over explored cells c connected to the child's cell)) / 16

with `d` the Manhattan distance to the exit (0, 0). Placing a tile that brings
the child's explored area nearer the exit, or walking toward the exit, raises
it. A round starts at `phi = 0` and an escape ends on `phi = 1`. The finished
episode's table keeps its potential, so an episode's shaped rewards sum to the
rules' return plus `k * phi(final table)`: with `episode="round"` an escape
returns `1 + k` and a fail `-1 + k * phi` (at most `-1 + 15k/16`, still
negative). In match episodes each new round starts again at `phi = 0`, so an
earlier round's progress is handed back on the step that starts the next
round. Because the final potential varies, this is not policy-invariant in the
strict sense (it also pays for failing nearer the exit). The sign of an
episode's return, and so escape/win counting, is unchanged, except that a
`reward="per_round"` match won 2-2 (return 0 by the rules) scores `+k`. The
variant with `phi = 0` at the end of every round (invariant) taught PPO
nothing from scratch; see `kakurega.envs.hidden_rooms.shaping` and
docs/strength.md. `configs/hidden_rooms_ppo.yaml` trains with `shaping=1.0`
and an imitation warm start (44.5% escapes, docs/strength.md). With
`shaping=0` the rewards are exactly the rules' (the plain rules engine runs).

## Options

The table is generated from the module's ``DEFINITION`` (see
:mod:`kakurega.envs.core.definition`), which checks every option.

<!-- options table: generated by `python -m kakurega.scripts.cards --write` -->
| option | values | default | meaning |
|---|---|---|---|
| ``booklet`` | a file path (str or PathLike) to a YAML or JSON booklet, or None | ``None`` | None loads the default booklet (7 monsters); format in ``kakurega.envs.hidden_rooms.booklet``; a bad file (or a path that is no regular file) raises ``BookletError`` naming monster and field |
| ``episode`` | ``'match'``, ``'round'`` | ``'match'`` | an episode is one match (rounds until 2 escapes or 3 fails) or one round |
| ``reward`` | ``'match'``, ``'per_round'`` | ``'match'`` | +1 / −1 when the match is won / lost, or at each escape / fail (see Rewards) |
| ``max_turns`` | an integer from 1 to 10000 | ``60`` | turns per round; when turn ``max_turns`` ends without an escape the round is a fail |
| ``shaping`` | a number in [0, 1] | ``0.0`` | weight ``k`` of the progress shaping (see Rewards); 0 = off; for training, not for scoring |
| ``render_mode`` | None or one of the env's render modes | ``None`` | what ``render()`` produces, one of the env's ``metadata["render_modes"]``: ``"ansi"`` returns the table as text, ``"human"`` shows the picture in a window at every move, ``"rgb_array"`` returns the picture (an RGB array); None: no rendering |
| ``render_view`` | None or an agent name | ``None`` | whose view ``render()`` draws: None (a spectator, public information only) or an agent name |
<!-- end of options table -->

## Gymnasium form

`HiddenRoomsGymEnv(**options)` (or `gymnasium.make("kakurega/HiddenRooms-v0",
**options)` after `import kakurega.envs`; the options may also come as
`env_kwargs={...}`, as for every kakurega id; from a fresh process, e.g. a
vectorized worker, `gymnasium.make("kakurega.envs:kakurega/HiddenRooms-v0")`)
is the same game as a single-agent `gymnasium.Env`: the same observation dict
(fresh writable copies each step), the child's rewards, `info["action_mask"]`
(`int8`, also at reset) and `action_masks()` for sb3-contrib's `MaskablePPO`
(`MultiInputPolicy`; `export_policy` exports it). Like `env()`, an illegal
action ends the episode with reward -1 and `info["illegal_action"] = True`.
`render_mode="rgb_array"` returns the picture of the room (an H x W x 3
uint8 image), so stable-baselines3's `make_vec_env("kakurega/HiddenRooms-v0")`
renders it (`get_images()`); an unsupported mode raises a `TypeError`. Gymnasium's
`check_env` passes. For a flat `Box` observation use
`gymnasium.make("kakurega.envs:kakurega/hidden_rooms-v0")` (the single-seat view
every registered env has, see docs/integrations.md).

## Heuristic

`kakurega.agents.heuristics.hidden_rooms.HiddenRoomsHeuristic` plays from the
observation alone: it moves toward the exit over explored cells, foresees the
(deterministic, public) monster two phases ahead to stay out of reach, takes
connecting memory tiles first, places tiles on the shortest way out and keeps
numbers low (see its module docstring).

## Hidden information

Only the order of the face-down pile is hidden. `resample_hidden` reshuffles
the pile uniformly (from its sorted composition, so the result does not depend
on the old order). The monster of each later round is drawn when that round
starts, so no monster order is stored ahead of time. Every channel, and how it
is kept to what the child may know (checks in `tests/test_hidden_information.py`
and `tests/conformance.py`, each with a leaky control that fails them):

| channel | how it is closed |
|---|---|
| observation | the encoder reads the placed tiles, memory, monster, path progress, score and the drawn tile while it is being placed; the pile enters only as its composition (tiles not placed and not in memory); reshuffled piles give byte-identical observations |
| action mask, `infos` | legal moves depend on the room, memory and the drawn tile only; `infos` hold the mask |
| render (`render_text`, pictures) | draws the same public facts as the observation; identical across reshuffled piles; the cell of the last step or placed tile is outlined |
| move words (`game.public_action_string`) | the child's action (the tile drawn and where it went), then the monster's steps, the round's end and the score | identical across reshuffled piles (`tests/test_move_words.py`) |
| turn order and end | one agent; the round ends on public events (escape, caught, path walked, turn limit) |
| determinization sampler | built from the information state (`resample_hidden` with a fixed generator), with a rules object kept for the child's seat alone; pickles of samplers from two piles the child cannot tell apart are identical |
| objects handed to agents | each agent builds its own rules object from the context (`context.new_rules()`), never the env's |

## Decisions where the rules page was silent

- The monster of a round is drawn uniformly from the booklet, independently
  each round (the same monster may come again), from the env's seeded RNG.
- Each turn starts with the monster's phase, so the monster moves before the
  child's first decision of a round.
- Monster steps (chasing, or walking toward its next path cell) follow a
  shortest orthogonal route with a fixed tie-break: move along the axis with
  the larger distance; when both distances are equal, move vertically (change
  row) first. The monster crosses dark cells, placed tiles and the exit freely.
- Sight ignores darkness and tiles: `radius r` sees cells at Manhattan distance
  <= r, `line r` sees cells in its row or column within r. Sight is checked
  before every single step, with the child where it stands.
- Progress along the path advances whenever the monster steps onto the next
  path cell (also in a chase). When it does not see the child it walks toward
  the next path cell not yet reached: after a chase it thereby walks back and
  resumes the path where it left it.
- The round fails by the path's end when the monster, having reached the last
  path cell along its path, stands on it at the end of its phase.
- "chasing" in the observation means the monster's latest step was a chase.
- A catch is checked after every monster step. The child may not step onto
  the monster; it may place a tile on the dark cell where the monster stands.
- The escape happens the moment the child steps onto (0, 0); the rest of that
  turn is skipped.
- Searching a memory tile that cannot be placed is allowed and changes
  nothing (it ends the turn). A pile tile that cannot be placed goes straight
  to memory.
- The spill: when a sixth tile would enter memory, that tile and the five
  memory tiles all go back into the pile and the whole pile is reshuffled.
- The turn limit is a fail by the rules (a termination, not a truncation).
- Memory is kept sorted by tile id, so "memory slot k" has a canonical meaning.
- A booklet path must not start on the child's start cell (4, 4). The env
  also refuses (`BookletError`, naming the booklet and the monster) a
  monster that ends a round in its first monster phase, before the child's
  first move (it catches the child on (4, 4), or walks its whole path): a
  first round so decided is over at `reset()`, where no reward can be paid
  (Gymnasium's `reset` carries none), so the episode's return would be
  lost. The option's loader refuses it too, so the web app never offers
  such a booklet. The rules engine itself (`HiddenRoomsGame`) plays such
  rounds as the rules say (the round is a fail), for scenario tests.
- The earliest a round can be escaped is turn 9 (one tile a turn on the 8
  cells to (0, 0), the step onto it in turn 9, after that turn's monster
  phase). The env warns (`UnwinnableWarning`, a `UserWarning`, naming the
  monster) when a monster walks its whole path by turn 9 if it never chases
  (a path of fewer than `9 * steps + 2` cells): its rounds are fails unless a
  chase holds it back. It warns likewise of a `max_turns` under 9, which no
  round can beat. The default booklet's paths take 24 to 43 turns.
- The rules page's "at least 6 monsters" that "must differ in how they move
  and see" is a rule of the booklet's design: the default booklet meets it (7
  monsters, no two with the same steps, sight shape and sight range; a test
  checks it), while a booklet of the user's may hold 1 to 1,000 monsters and
  monsters may share traits (a one-monster booklet makes a curriculum or a
  scenario test). What a booklet file must get right (the format, paths on
  the grid and consecutive) is refused with an error naming the monster and
  the path's cell (`path[k]`; of a file, its value's type only: a file's
  content is never quoted back).

## Balance (default booklet)

`python -m kakurega.scripts.balance_hidden_rooms --rounds 2000` (seeds 0..1999,
one round each, 95% Wilson intervals):

| player | escapes | rate | 95% CI | caught | monster walked its path | turn limit |
|---|---|---|---|---|---|---|
| heuristic child | 1094/2000 | 54.7% | 52.5%..56.9% | 34 | 770 | 102 |
| uniform random legal play | 0/2000 | 0.0% | 0.0%..0.2% | 1302 | 698 | 0 |

Heuristic escape rate per monster: Hitotsume-kozo 58%, Rokurokubi 59%, Oni 50%, Tengu 54%, Kasa-obake 62%, Nurikabe 60%, Yuki-onna 41%.

The band (heuristic 35-75%, random < 15%) is checked by
`tests/hidden_rooms/test_hidden_rooms_balance.py` on 300 fixed-seed rounds each.

## Version history

- v0: first version (rules page of the project, default booklet of 7 monsters).
- v0 (same rules and observations): option `shaping` added (default 0.0 = off,
  so default rewards are unchanged).
"""

from __future__ import annotations

import gymnasium
import numpy as np

from kakurega.envs.core.aec import ILLEGAL_ACTION_PENALTY
from kakurega.envs.core.definition import EnvDefinition
from kakurega.envs.core.options import merge_env_kwargs
from kakurega.envs.hidden_rooms.booklet import BOOKLET_OPTION
from kakurega.envs.hidden_rooms.observation import HiddenRoomsObserver
from kakurega.envs.hidden_rooms.picture import HiddenRoomsPicture
from kakurega.envs.hidden_rooms.render import HiddenRoomsRenderer
from kakurega.envs.hidden_rooms.rules import EPISODE_OPTION, MAX_TURNS_OPTION, REWARD_OPTION
from kakurega.envs.hidden_rooms.shaping import SHAPING_OPTION, hidden_rooms_game
from kakurega.envs.hidden_rooms.state_vector import HiddenRoomsStateVector

__all__ = ["DEFINITION", "env", "raw_env", "HiddenRoomsGymEnv", "GYMNASIUM_ID"]

DEFINITION = EnvDefinition(
    game_name="hidden_rooms",
    version=0,
    options=(BOOKLET_OPTION, EPISODE_OPTION, REWARD_OPTION, MAX_TURNS_OPTION, SHAPING_OPTION),
    game=hidden_rooms_game,
    observer=HiddenRoomsObserver,
    renderer=HiddenRoomsRenderer,
    picture=HiddenRoomsPicture,
    state_vector=HiddenRoomsStateVector,
)
raw_env, env = DEFINITION.factories(__name__)

#: the id of the Gymnasium form (registered by ``import kakurega.envs``, see the registry)
GYMNASIUM_ID = "kakurega/HiddenRooms-v0"
AGENT = "player_0"


class HiddenRoomsGymEnv(gymnasium.Env):
    """The same game as a single-agent Gymnasium env with ``action_masks()`` (for MaskablePPO).

    Observations are the AEC env's dicts ``{"observation", "action_mask"}``;
    every ``info`` (reset's too) also carries ``"action_mask"`` (``int8``, the
    mask of the observation returned with it); rewards are the child's. Like
    ``env()``, an illegal action ends the episode with reward -1
    (``info["illegal_action"]`` is True); mask your actions. Takes the same
    options as :func:`raw_env`, as keyword arguments or in ``env_kwargs`` (the
    convention of every kakurega Gymnasium id); an unsupported ``render_mode`` (such as
    ``"rgb"``) raises a ``TypeError`` (a ``RenderModeError``), which
    stable-baselines3's ``make_vec_env`` answers by retrying without one.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, render_mode: str | None = None, env_kwargs: dict | None = None, **options):
        self.aec = raw_env(render_mode=render_mode, **merge_env_kwargs(env_kwargs, options, type(self).__name__))
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(AGENT)
        self.action_space = self.aec.action_space(AGENT)
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new episode; ``seed`` seeds all chance draws (``options`` is not read: options are given
        when the env is made)."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self._over = False
        observation = self._observation()
        return observation, {"action_mask": observation["action_mask"].copy()}

    def step(self, action):
        """Apply the child's action: ``(observation, reward, terminated, truncated, info)``."""
        if self._over:
            raise RuntimeError("the episode is over; call reset() before step()")
        aec = self.aec
        action = aec.validate_action(action)
        if not aec.observe(AGENT)["action_mask"][action]:
            self._over = True
            observation = self._observation()
            info = {"action_mask": observation["action_mask"].copy(), "illegal_action": True}
            return observation, ILLEGAL_ACTION_PENALTY, True, False, info
        aec.step(action)
        terminated, truncated = bool(aec.terminations[AGENT]), bool(aec.truncations[AGENT])
        self._over = terminated or truncated
        observation = self._observation()
        return observation, float(aec.rewards[AGENT]), terminated, truncated, {"action_mask": observation["action_mask"].copy()}

    def _observation(self) -> dict:
        # fresh, writable arrays on every call, as Gymnasium expects (the AEC env's are cached and read-only)
        cached = self.aec.observe(AGENT)
        mask = np.zeros_like(cached["action_mask"]) if self._over else cached["action_mask"].copy()
        return {"observation": cached["observation"].copy(), "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal actions now (all False once the episode is over)."""
        if self._over:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.aec.observe(AGENT)["action_mask"].astype(bool)

    def render(self):
        """``ansi``: the text picture; ``rgb_array``: an H x W x 3 image; ``human``: the image in a window."""
        return self.aec.render()

    def close(self) -> None:
        """Close the ``human`` window if one is open (the AEC env's; the env holds nothing else to release)."""
        self.aec.close()
        super().close()

