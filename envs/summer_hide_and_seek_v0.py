"""Summer Diary Day 3: Hide-and-Seek (常夏日記 3日目「かくれんぼ」) — ``summer_hide_and_seek_v0``.

One hider (the **child**) draws a secret stroke of straight lines across a
map; everyone else (the **seekers**) guesses where it is from what it must
announce. Every player is the child in one round; the most victory points (VP)
wins. Rules: ``shared/rules/summer_hide_and_seek.md`` (binding), as first
released.

**Superseded by** ``summer_hide_and_seek_v1``, which closes two flaws this
version keeps unchanged (it stays importable and registered for
reproducibility):

- **stalling exploit**: the child may end a turn without drawing any line, so
  a child can stand still for ever; the round then runs into the step limit,
  which pays nothing in "win" mode: a way out for a trailing player;
- **turn-order leak**: the child is selected (``agent_selection``) once per
  line plus once for stop, so the seekers learn how many lines it drew (for an
  announced cost 2: one shortcut or two moves), which the rules keep private;
  the step counter, hence the step at which the game is truncated, counts the
  lines too.

Creation
--------
>>> from kakurega.envs import summer_hide_and_seek_v0
>>> env = summer_hide_and_seek_v0.env(num_players=3)             # standard wrappers
>>> raw = summer_hide_and_seek_v0.raw_env(num_players=2, reward="vp")

| option | default | meaning |
|---|---|---|
| ``num_players`` | 2 | 2, 3 or 4 players (int) |
| ``map`` | None | None (the shipped ``envs/data/summer_map.yaml``), a YAML file path, or a ``SummerMap`` |
| ``strict_moves`` | False | also apply the white-end rule to moves (the seed's most literal reading) |
| ``reward`` | "win" | "win": +1 each winner, -1 each other player at the end; "vp": VP as they are scored |
| ``max_steps`` | 1000 | actions after which the game is truncated (int 1..1,000,000) |
| ``render_mode`` | None | None, "ansi" (``render()`` returns text) or "human" (prints it) |
| ``render_view`` | None | whose view ``render()`` draws: None (spectator) or an agent name |

Bad values raise ``ValueError``/``TypeError`` naming the option; a malformed
map raises ``MapError`` naming the row, column or field.

Agents
------
``player_0 .. player_{n-1}`` (seat i). The first round's child is drawn at
random (the only chance event); the child role then passes clockwise (seat + 1)
so that everyone is the child once. In a seekers' turn the seekers place their
pieces one after another, clockwise from the child.

The map
-------
The default map (9 x 9 cells, 56 squares: 34 path, 14 black-framed, 8
white-framed; houses ``#``, forest ``^`` and a river ``~`` as terrain) and its
VP table: sunflower 1 (7 squares), cicada 2 (5), watermelon 3 (4), goldfish 4
(3), beetle 5 (2), fireworks 7 (1). In the file ``.`` is a path square, an
UPPERCASE letter a black-framed square, a lowercase letter a white-framed one.
Squares are numbered 0..S-1 row by row (S = 56 on the default map); square
``r2c5`` is row 2, column 5 (0-based).

Action
------
``Discrete(3S + 1)`` (169 on the default map):

| ids | action | legal when |
|---|---|---|
| ``s`` (0..S-1) | start at square s | the child's first action of the round; s a path square |
| ``S + s`` | draw a line to square s | the child's turn (rules below) |
| ``2S`` | stop: end the child's turn | the child's turn, after the start (always legal then) |
| ``2S + 1 + s`` | place my piece on square s | my turn as a seeker; any square |

A line from the current square p to s is a **move** (cost 1) when s is one of
p's 8 neighbours and a **shortcut** (cost 2) otherwise; the geometry decides.
It is legal when: p-s is horizontal, vertical or 45-degree; it passes over no
other square (terrain may be jumped), so from each square at most 8 lines
exist (the first square in each direction); a move targets a path or
black-framed square; a shortcut has a white-framed square at one end (with
``strict_moves`` moves too); it neither overlaps nor crosses a line drawn this
round (exact integer geometry, see ``geometry.py``: two diagonals crossing
inside a 2x2 block do cross, lines touching only at their shared end do not);
s was not visited this round; no seeker piece stands on s; its cost fits in
what is left of the turn's budget of 5.

Worked examples on the default map (S = 56): ``13`` = start at r2c0 (path);
then ``64`` = 56 + 8 = move r2c0 -> r1c1 (path, cost 1); from r2c5 (18),
``58`` = 56 + 2 = shortcut r2c5 -> r0c3 (white-framed cicada, cost 2, over the
river); ``112`` = stop; ``128`` = 113 + 15 = place my piece on r2c2.
``env.unwrapped.action_to_string(a)`` names any action in the current state.

Turn structure
--------------
Round: child chooses a start -> child's turn (lines, then stop) -> scoring and
announcement -> seekers' turn (each places a piece) -> found: round over;
not found: child's turn again, the pieces stay on the board and block
the child's lines until the next seekers' turn.

**Stuck rule.** Whenever the child is at a decision point (after the start,
after each line, at the start of each child turn once the new pieces stand)
and no line would be legal *even with a full budget*, the turn ends at once,
it is scored and announced, and the child counts as found (the round ends
without a seekers' turn). Having spent the whole budget is not being stuck
unless no line is open at all.

Observation
-----------
A dict ``{"observation": float32 vector, "action_mask": int8 vector}``. The
vector is declared as named pieces (``env.unwrapped.layout``); map-shaped
pieces are (rows, columns) planes, per-player pieces are in relative seat
order (0 = me). Shapes for the default map with n players:

| piece | shape | range | meaning |
|---|---|---|---|
| `square_kind` | (3, 9, 9) | 0..1 | static map: one-hot path / black-framed / white-framed square (terrain: all 0) |
| `icon` | (6, 9, 9) | 0..1 | static map: one-hot icon type of each icon square (VP-table order) |
| `icon_vp` | (9, 9) | 0..7 | static map: VP of the icon on each square |
| `seat` | (n,) | 0..1 | one-hot absolute seat of the observer |
| `child` | (n,) | 0..1 | one-hot relative seat of this round's child (index 0: I am the child); 0 when over |
| `round` | (n,) | 0..1 | one-hot number of rounds finished (0 .. n-1); all 0 when the game is over |
| `phase` | (3,) | 0..1 | one-hot: child chooses a start / child's turn / seekers' turn |
| `vp` | (n,) | 0..58 | victory points per relative seat (at most the map's total icon VP) |
| `pieces` | (n, 9, 9) | 0..1 | seeker pieces on the board per relative seat (this seekers' turn, or the last one while the child moves) |
| `past_guesses` | (9, 9) | 0..1 | squares guessed wrongly in an earlier seekers' turn of this round |
| `belief` | (9, 9) | 0..1 | public belief: squares where the child can be (sound over-approximation) |
| `last_cost` | (6,) | 0..1 | one-hot total cost of the round's last announcement (all 0: none yet) |
| `last_icons` | (6,) | 0..5 | icon-type counts of the round's last announcement |
| `child_turns` | (1,) | 0..20 | child turns announced this round (saturates at 20) |
| `stroke` | (9, 9) | 0..56 | child only: order of each stroke square this round (1 = start), else 0 |
| `position` | (9, 9) | 0..1 | child only: 1 on the child's current square |
| `budget_left` | (1,) | 0..5 | child only: cost left in this turn |
| `turn_icons` | (6,) | 0..5 | child only: icon-type counts reached so far this turn |

Vector size: 1327 (2 players), 1412 (3), 1497 (4) on the default map.
A seeker's ``stroke``, ``position``, ``budget_left`` and ``turn_icons`` are
all zero: it never sees the child's square or stroke. Everyone sees the
public belief.

Public belief
-------------
``belief`` marks every square where the child can be given only public facts:
the start rule, each announcement (cost, icon multiset), the pieces that
blocked each child turn and every wrong guess. It is updated once per
announcement by a set-valued dynamic programme over (cost spent, icons still
to reach) with bitmask transitions through 8-bit lookup tables (see
``belief.py``; a few microseconds per announcement on the default map). It
is a *sound over-approximation*: it ignores the stroke's history (crossings
and revisits with earlier lines), so the true square is always inside (tested
over thousands of random and heuristic games) but a few impossible squares may
be too.

Mask
----
``action_mask`` has 1 exactly on ``game.legal_actions(state)`` for the agent
to act and is all zero for the others.

Rewards
-------
``reward="win"`` (default): 0 during play; at the end +1 to each player with
the most VP (ties share the win) and -1 to every other player. If the step
limit truncates the game first, nobody gets a reward (the game is undecided).
``reward="vp"``: the child receives the VP of a turn when the turn is scored
(seekers get 0); the episode return is the player's final VP.

Hidden information
------------------
Private to the child: its stroke, current square, lines and icons of the turn
in progress, budget left. Public: the map, the child, the phase, every
announcement of the round, every piece and past guess, all VP, revealed strokes
of finished rounds, and the belief. Every channel a seeker could learn from:

| channel | in this version |
|---|---|
| observation vector | closed: the child-only pieces (``stroke``, ``position``, ``budget_left``, ``turn_icons``) are all zero for seekers |
| action mask and ``infos`` | closed: all zero for every agent but the one to act |
| turn order (``agent_selection``) | **open** (fixed in v1): one child decision per line, plus stop, so the number of lines is visible |
| step limit and truncation | **open** (fixed in v1): ``steps`` counts the hidden lines, so the cut-off step depends on them |
| render | closed: a seeker's or spectator's text shows public facts only (and every one of them), never the step counter during play |
| determinization sampler | closed: ``resample_hidden`` redraws the stroke from public facts and ``rng`` only, resets the turn in progress, and recounts ``steps`` from public counts and the sampled stroke (``count_steps``), so two true states of one information set give identical samples |
| the rules object | closed: its caches (``_actions_of_open`` holds the child's legal lines) live per rules object, every agent gets its own (``Game.new_rules``) |

``resample_hidden(agent, rng)`` gives a seeker a state whose child stroke is
re-drawn at random among strokes consistent with all public facts (a
randomized backtracking search over starts and lines, pruned by the belief
model run backwards; sub-millisecond on typical states); the child has nothing
hidden.

Decisions where the rules page was silent
-----------------------------------------
- The first child is drawn at random; the role then passes clockwise.
- Scoring: a line reaches the icon of the square it ends on; VP are added
  when the turn ends (stop or stuck), so seekers never learn them mid-turn.
- The announcement lists icon types sorted by VP-table order (unordered
  multiset); the cost is the exact total spent this turn (0 if the child
  stopped at once).
- Seekers may put pieces on any square, several on one square, including
  squares outside the belief; pieces are lifted when the next seekers' turn
  begins and all are cleared when a round ends.
- The stuck rule is judged ignoring the budget (see above).
- Truncation in "win" mode pays nothing.

Heuristic agent
---------------
``kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic``
plays both roles from its own observation (see its docstring); it is tuned for
v1, whose card has its measured figures. Measure it on this version with
``.venv/bin/python tests/summer_hide_and_seek/heuristic_figures.py 200 summer_hide_and_seek_v0``.
(A heuristic child on v0 may stop at once turn after turn when that scores
best: the stalling v1 forbids.)

Speed: ``docs/performance.md`` has the measured figures (``kakurega bench``,
random play through ``env()`` against PettingZoo's ``tictactoe_v3``).
Observations are read-only arrays.

Version history
---------------
- v0: first release; superseded by v1 (above).
"""

from __future__ import annotations

from kakurega.envs.core.aec import wrap
from kakurega.envs.summer_hide_and_seek.env import SummerHideAndSeekEnv

__all__ = ["env", "raw_env", "SummerHideAndSeekV0"]


class SummerHideAndSeekV0(SummerHideAndSeekEnv):
    """Version 0: the rules as first released (no rule option on)."""

    metadata = {**SummerHideAndSeekEnv.metadata, "name": "summer_hide_and_seek_v0"}
    RULES: dict = {}


def raw_env(*args, **kwargs) -> SummerHideAndSeekV0:
    """The unwrapped AEC env; every option is validated (see the module docstring)."""
    return SummerHideAndSeekV0(*args, **kwargs)


def env(**kwargs):
    """``raw_env(**kwargs)`` inside the standard PettingZoo wrappers."""
    return wrap(raw_env(**kwargs))
