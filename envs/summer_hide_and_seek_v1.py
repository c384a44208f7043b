"""Summer Diary Day 3: Hide-and-Seek (常夏日記 3日目「かくれんぼ」) — ``summer_hide_and_seek_v1``.

One hider (the **child**) draws a secret stroke of straight lines across a
map; everyone else (the **seekers**) guesses where it is from what it must
announce. Every player is the child in one round; the most victory points (VP)
wins. Rules: ``shared/rules/summer_hide_and_seek.md`` (binding), with its
version-1 decisions: the child must draw at least one line each turn, a game
cut off by the step limit is scored from the standings, and the turn order
reveals no more than the announcements (one child decision per unit of cost).

Creation
--------
>>> from kakurega.envs import summer_hide_and_seek_v1
>>> env = summer_hide_and_seek_v1.env(num_players=3)             # standard wrappers
>>> raw = summer_hide_and_seek_v1.raw_env(num_players=2, reward="vp")

| option | default | meaning |
|---|---|---|
| ``num_players`` | 2 | 2, 3 or 4 players (int) |
| ``map`` | None | None (the shipped ``envs/data/summer_map.yaml``), a YAML file path, or a ``SummerMap`` |
| ``strict_moves`` | False | also apply the white-end rule to moves (the seed's most literal reading) |
| ``reward`` | "win" | "win": +1 each winner, -1 each other player at the end; "vp": VP as they are scored |
| ``max_steps`` | 1000 | actions after which the game is truncated (int >= 1) |
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
``Discrete(3S + 2)`` (170 on the default map):

| ids | action | legal when |
|---|---|---|
| ``s`` (0..S-1) | start at square s | the child's first action of the round; s a path square |
| ``S + s`` | draw a line to square s | the child's turn (rules below) |
| ``2S`` | stop: end the child's turn | the child's turn, after at least one line this turn (or when no line fits the budget left) |
| ``2S + 1 + s`` | place my piece on square s | my turn as a seeker; any square |
| ``3S + 1`` | continue: the second decision of a shortcut | the child's turn, right after a shortcut (then the only legal action) |

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
river), followed by ``169`` = continue; ``112`` = stop; ``128`` = 113 + 15 =
place my piece on r2c2. ``env.unwrapped.action_to_string(a)`` names any action
in the current state.

Turn structure
--------------
Round: child chooses a start -> child's turn (lines, then stop) -> scoring and
announcement -> seekers' turn (each places a piece) -> found: round over;
not found: child's turn again, the pieces stay on the board and block
the child's lines until the next seekers' turn.

**The child must move** [decision, v1]. The first decision of every child
turn is a line: stop is refused while any line is legal (it always is at the
start of a turn unless the child is stuck, below). After the first line the
child may stop at any time.

**One decision per unit of cost** [decision: the turn order must not reveal
the number of lines]. A move (cost 1) is one decision; a shortcut (cost 2) is
two: the line, then a forced ``continue``. The turn ends with ``stop``, or by
itself once all 5 are spent, or when the child is stuck. So a turn announced
with cost c took exactly c + 1 child decisions (c when c = 5, or when the
child got stuck, which ends the round in public), whatever lines were drawn:
what the seekers see of ``agent_selection`` depends only on the announcements,
and so does the step counter (``steps``), hence the step at which the game is
truncated.

**Stuck rule.** Whenever the child is at a decision point (after the start,
after each line, or after its ``continue`` for a shortcut, and at the start of
each child turn once the new pieces stand) and no line would be legal *even
with a full budget*, the turn ends at once, it is scored and announced, and
the child counts as found (the round ends without a seekers' turn). Having
spent the whole budget is not being stuck unless no line is open at all.

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
the most VP (ties share the win) and -1 to every other player. **Truncation
scores the standings** [decision, v1]: if the step limit cuts the game off,
it is scored from the VP totals at that moment exactly as if it had ended
(``truncations`` is True, the rewards are those of the standings), so
stalling never pays. ``reward="vp"``: the child receives the VP of a turn when
the turn is scored (seekers get 0); the episode return is the player's VP at
the end or at the cut-off.

Hidden information
------------------
Private to the child: its stroke, current square, the lines and icons of the
turn in progress, the budget left and whether a ``continue`` is due. Public:
the map, the child, the phase, who acts, every announcement of the round,
every piece and past guess, all VP, revealed strokes of finished rounds, the
belief, and the step counter. Every channel a seeker could learn from, and how
it is closed:

| channel | how it is closed |
|---|---|
| observation vector | the child-only pieces (``stroke``, ``position``, ``budget_left``, ``turn_icons``) are all zero for seekers; the rest is public (tested: resampled states encode identically) |
| action mask and ``infos`` | all zero for every agent but the one to act; a seeker's mask is every placement |
| turn order (``agent_selection``) | one child decision per unit of cost (above): the number of decisions is a function of the announced cost and of being stuck, both public (tested over random games) |
| step limit and truncation | ``steps`` counts decisions, a function of the announcements: the cut-off step is public |
| rewards | VP are scored when a turn ends, with the announcement; nothing mid-turn |
| render | a seeker's and a spectator's text shows the public facts only (pieces by seat, past guesses, announcements, VP, whose turn, the belief), never the step counter during play; only the child's text shows its stroke |
| determinization sampler | ``resample_hidden`` redraws the stroke from public facts and ``rng`` only; every other field of the sample is public or reset (``turn_cost``, ``turn_icons``, ``continue_due``), ``steps`` is public (tested: two true states of one information set give identical samples, field by field) |
| the rules object | its caches (``_actions_of_open``, filled from the child's legal lines; the belief model's results, filled by a heuristic child's hypothetical announcements; ``_analysis_cache``) live per rules object and are never pickled; every agent gets its own rules object (``Game.new_rules``), never the env's |
| the observer | its caches (the child's stroke plane, the public pieces of the child's turn) belong to the env's observer, which no agent is handed; the state holds no observation cache |

``resample_hidden(agent, rng)`` gives a seeker a state whose child stroke is
re-drawn at random among strokes consistent with all public facts (a
randomized backtracking search over starts and lines, pruned by the belief
model run backwards; sub-millisecond on typical states); the child has nothing
hidden. In the middle of a child turn (never a seeker's decision point) the
sample's child stands at the start of the turn.

Decisions where the rules page was silent
-----------------------------------------
- The first child is drawn at random; the role then passes clockwise.
- Scoring: a line reaches the icon of the square it ends on; VP are added
  when the turn ends (stop or stuck), so seekers never learn them mid-turn.
- The announcement lists icon types sorted by VP-table order (unordered
  multiset); the cost is the exact total spent this turn (0 only when the
  child was stuck at the start of its turn).
- Seekers may put pieces on any square, several on one square, including
  squares outside the belief; pieces are lifted when the next seekers' turn
  begins and all are cleared when a round ends.
- The stuck rule is judged ignoring the budget (see above).
- Stop is legal with budget left whenever at least one line was drawn this
  turn; it is also the only decision when no line fits the budget left (e.g.
  1 left and only shortcuts open).
- The ``continue`` after a shortcut comes before the stuck rule is judged, so
  a stuck turn still took as many decisions as its cost.

Heuristic agent
---------------
``kakurega.agents.heuristics.summer_hide_and_seek:SummerHideAndSeekHeuristic``
plays both roles from its own observation (see its docstring): both roles
track the public belief weighted by walk counts; the child must move and
weighs where the seekers will look; seekers pick plausible squares. Measured
on v1 with ``tests/summer_hide_and_seek/heuristic_figures.py 50`` (50 games
per row, 95% intervals: Wilson for rates, normal for means, rounds treated as
independent):

| players | child | seekers | find rate per seekers' turn [95% CI] (turns) | child VP per round ± 95% CI (rounds) | rounds ended by a guess (rest: stuck) |
|---|---|---|---|---|---|
| 2 | random | random | 0.020 [0.010, 0.037] (459) | 12.17 ± 1.41 (100) | 0.08 |
| 2 | random | heuristic | 0.124 [0.094, 0.162] (355) | 9.06 ± 1.17 (100) | 0.44 |
| 2 | heuristic | random | 0.030 [0.019, 0.048] (592) | 38.25 ± 1.26 (100) | 0.13 |
| 2 | heuristic | heuristic | 0.091 [0.068, 0.120] (485) | 33.05 ± 2.15 (100) | 0.44 |
| 3 | random | random | 0.043 [0.030, 0.061] (672) | 11.73 ± 1.13 (150) | 0.15 |
| 3 | random | heuristic | 0.241 [0.202, 0.285] (407) | 7.67 ± 0.80 (150) | 0.63 |
| 3 | heuristic | random | 0.043 [0.031, 0.059] (815) | 35.17 ± 1.29 (150) | 0.21 |
| 3 | heuristic | heuristic | 0.294 [0.252, 0.340] (408) | 21.61 ± 1.72 (150) | 0.80 |
| 4 | random | random | 0.078 [0.061, 0.099] (779) | 10.38 ± 1.04 (200) | 0.26 |
| 4 | random | heuristic | 0.302 [0.262, 0.345] (477) | 6.88 ± 0.72 (200) | 0.68 |
| 4 | heuristic | random | 0.064 [0.051, 0.080] (1127) | 31.62 ± 1.37 (200) | 0.33 |
| 4 | heuristic | heuristic | 0.216 [0.188, 0.246] (770) | 24.72 ± 1.45 (200) | 0.81 |

Reading: heuristic seekers find a random child 4-6x as often per seekers'
turn as random seekers do (2p 0.124 vs 0.020; 3p 0.241 vs 0.043; 4p 0.302
vs 0.078), and the heuristic child scores about 3x the VP of a random child
against random seekers (2p 38.3 vs 12.2 VP per round; 3p 35.2 vs 11.7; 4p
31.6 vs 10.4), mostly because it avoids getting stuck and ends its turns on
squares few walks lead to. IS-MCTS on v1: ``docs/search.md``.

Speed: ``docs/performance.md`` has the measured figures (``kakurega bench``,
random play through ``env()`` against PettingZoo's ``tictactoe_v3``).
Observations are read-only arrays.

Version history
---------------
- v1: the child must move; truncation scores the standings; one child
  decision per unit of cost (the new ``continue`` action, id ``3S + 1``);
  the heuristic tracks walk-count weights of the public belief.
- v0: first release (``summer_hide_and_seek_v0``, superseded: a child could
  stand still for ever, and the turn order showed seekers how many lines it
  drew).
"""

from __future__ import annotations

from kakurega.envs.core.aec import wrap
from kakurega.envs.summer_hide_and_seek.env import SummerHideAndSeekEnv

__all__ = ["env", "raw_env", "SummerHideAndSeekV1"]


class SummerHideAndSeekV1(SummerHideAndSeekEnv):
    """Version 1: the child must move, truncation scores the standings, the turn order hides the lines."""

    metadata = {**SummerHideAndSeekEnv.metadata, "name": "summer_hide_and_seek_v1"}
    RULES: dict = {"must_move": True, "score_truncation": True, "paced_turns": True}


def raw_env(*args, **kwargs) -> SummerHideAndSeekV1:
    """The unwrapped AEC env; every option is validated (see the module docstring)."""
    return SummerHideAndSeekV1(*args, **kwargs)


def env(**kwargs):
    """``raw_env(**kwargs)`` inside the standard PettingZoo wrappers."""
    return wrap(raw_env(**kwargs))
