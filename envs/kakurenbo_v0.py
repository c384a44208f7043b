"""KAKURENBO 掴恋慕 — Old Maid with body-part pairs (PettingZoo AEC env).

Rules: ``../shared/rules/kakurenbo.md`` (binding). Rules engine:
:mod:`kakurega.envs.kakurenbo.rules`; observation encoder:
:mod:`kakurega.envs.kakurenbo.observation`; card knowledge and inference:
:mod:`kakurega.envs.kakurenbo.knowledge`; text renderer:
:mod:`kakurega.envs.kakurenbo.render`.

| | |
|---|---|
| Import | ``from kakurega.envs import kakurenbo_v0`` |
| Actions | Discrete(8 + 33·(n−1)): 74 (3 players), 107 (4), 140 (5) |
| Observations | Box(0, high, (size,), float32) + action mask; size 134 / 165 / 196 |
| Agents | ``player_0`` … ``player_{n-1}``, n = 3..5 |
| Parallel API | no (turn-based AEC) |
| PettingZoo id | ``kakurega/kakurenbo-v0`` |

Creation
--------
::

    from kakurega.envs import kakurenbo_v0
    env = kakurenbo_v0.env(variant="kakurenbo", num_players=4, max_steps=200, reward="win")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else my_policy(obs["observation"], obs["action_mask"])
        env.step(action)

``env(**options)`` wraps ``raw_env(**options)`` in PettingZoo's standard
wrappers (an illegal action ends the game with reward −1 for the offender; an
out-of-range action fails an assertion; calls out of order raise).
``raw_env`` raises ``ValueError`` on an illegal action, naming the action in
words and the rule it breaks.

Options
~~~~~~~
| option | values | default | meaning |
|---|---|---|---|
| ``variant`` | ``"kakurenbo"``, ``"kurayami"`` | ``"kakurenbo"`` | hide-and-seek (faces seen, card functions) or gloom (blind phase 1, dice phase 2) |
| ``num_players`` | int 3..5 | 4 | players at the table |
| ``max_steps`` | int 1..1,000,000 | 200 | agent actions after which the game is truncated and scored as ended |
| ``reward`` | ``"win"``, ``"points"`` | ``"win"`` | +1 each winner / −1 everyone else at the end, or points |
| ``render_mode`` | ``None``, ``"ansi"``, ``"rgb_array"``, ``"human"`` | ``None`` | text picture returned, H x W x 3 uint8 image returned, or the image shown in a window (pygame) |
| ``render_view`` | ``None`` or an agent name | ``None`` | whose view ``render()`` draws (``None``: spectator, public only) |

A wrong type (``num_players=4.0``, ``max_steps="200"``) raises ``TypeError``, a
wrong value (``variant="gloom"``, ``num_players=6``, ``max_steps=0``,
``reward="score"``) raises ``ValueError``; both name the option and what is
expected.

Agents
------
``player_i`` sits on seat ``i``; seats are clockwise. The *left* of seat ``i``
is seat ``i+1`` and its *right* is seat ``i−1`` (mod n). Seat 0 (``player_0``)
takes the first turn. An agent acts when ``agent_selection`` names it: on its
own turn, and in Kurayami also off-turn, when the dice let it take a card from
the active player.

Action space
------------
One ``Discrete`` space for both variants (a given variant never makes the
other variant's blocks legal). Other players are named by their clockwise
**offset** ``k`` from the acting seat, ``k = 1..n−1``: ``k = 1`` is the left
neighbour, ``k = n−1`` the right neighbour; the player on seat
``(actor + k) % n``. Cards are ids ``c = 2·part + colour`` with parts in table
order ``0 head, 1 chest, 2 waist, 3 right arm, 4 left arm, 5 right leg,
6 left leg`` and colour ``0 red, 1 blue``; with ``m = n − 1``:

| ids | action | when legal |
|---|---|---|
| ``0`` | draw the top card of the pile | Kakurenbo phase 1 turn; Kurayami phase 1 turn (the only option) |
| ``1 + p`` (1..7) | discard the pair of part ``p`` | Kakurenbo phase 1 turn, holding both cards of ``p`` |
| ``8 + c·m + (k−1)`` | give card ``c`` to offset ``k`` | Kakurenbo phase 1, after a draw with a red card on top |
| ``8 + 14m + col·m + (k−1)`` | give a card of colour ``col`` (random among yours of that colour) to offset ``k`` | Kurayami phase 1, after a draw with a red card on top |
| ``8 + 16m + col·m + (k−1)`` | take a card of colour ``col`` (random among theirs) from offset ``k`` | phase 1 after a draw with a blue card on top (both variants); Kurayami phase 2 by the dice winner, from the dice opponent only |
| ``8 + 18m + c·m + (k−1)`` | give Kaku's Curse together with card ``c`` to offset ``k`` | Kakurenbo phase 2, by the Curse holder |
| ``8 + 32m + (k−1)`` | roll the dice against offset ``k`` (who must hold a card) | Kurayami phase 2, by the active player |

Worked examples with 4 players (m = 3; blocks start at 0, 1, 8, 50, 56, 62, 104):

- ``0``: "draw the top card of the pile".
- ``1``: "discard the head pair"; ``4``: "discard the right arm pair" (part 3).
- ``28``: give card 6 = right arm (red) to offset 3: ``8 + 6·3 + 2``. Played by
  ``player_0`` it reads "give right arm (red) to player_3" (its right
  neighbour); by ``player_2``, "give right arm (red) to player_1".
- ``11``: give card 1 = head (blue) to offset 1: ``8 + 1·3 + 0`` — the left neighbour.
- ``51``: Kurayami, give a red card to offset 2: ``50 + 0·3 + 1``.
- ``59``: take a blue card from the left neighbour: ``56 + 1·3 + 0``.
- ``80``: give Kaku's Curse with card 6 = right arm (red) to offset 1: ``62 + 6·3 + 0``.
- ``106``: Kurayami, roll the dice against the right neighbour: ``104 + 2``.

With 3 players the blocks start at 0, 1, 8, 36, 40, 44, 72 (e.g. ``42`` = take
a blue card from the left neighbour); with 5 at 0, 1, 8, 64, 72, 80, 136.
``env.unwrapped.action_to_string(a)`` gives any id in words for the current
actor, e.g. "give Kaku's Curse with waist (blue) to player_1"; the rules
object has ``draw_action()``, ``discard_action(p)``, ``give_card_action(c, k)``,
``give_colour_action(col, k)``, ``take_action(col, k)``,
``curse_give_action(c, k)``, ``target_action(k)``.

Action mask
-----------
``obs["action_mask"]`` (int8, one entry per id) is 1 exactly for the rules'
legal actions of the agent to act and all zeros for every other agent (also in
``infos[agent]["action_mask"]``). A decision with a single legal option (a
Kurayami draw, a dice take from a one-colour hand) is still the agent's step.

Observation space
-----------------
A flat float32 vector of named pieces (``env.unwrapped.layout``;
``layout.view(obs, name)`` returns a piece in its shape). Per-player pieces
are **egocentric**: row ``r`` is the player ``r`` seats to the observer's
left, so row 0 is the observer and row ``k`` is the player that action offset
``k`` names. The layout for 4 players (shapes with ``4`` scale with n):

| piece | shape | offsets | range | meaning |
|---|---|---|---|---|
| `variant` | (2,) | 0..1 | 0..1 | one-hot: kakurenbo, kurayami |
| `phase` | (2,) | 2..3 | 0..1 | one-hot: phase 1, phase 2 (both 0 once the game is over) |
| `stage` | (8,) | 4..11 | 0..1 | one-hot pending decision: draw-or-discard, give card, take, give Curse, draw (Kurayami), give colour, choose dice opponent, take after dice (all 0 when over) |
| `actor` | (4,) | 12..15 | 0..1 | one-hot row of the player deciding now (all 0 when over) |
| `turn` | (4,) | 16..19 | 0..1 | one-hot row whose turn it is (differs from actor on Kurayami's off-turn take) |
| `dice_target` | (4,) | 20..23 | 0..1 | Kurayami: one-hot row the dice were rolled against, while its take is pending |
| `dice` | (2, 6) | 24..35 | 0..1 | last roll of the red die (row 0) and the blue die (row 1), one-hot of 1..6 |
| `colour_counts` | (4, 2) | 36..43 | 0..7 | red and blue body-part cards held by each row |
| `curse` | (5,) | 44..48 | 0..1 | one-hot: the row holding Kaku's Curse, or the last entry while it is in the pile |
| `open_hand` | (4,) | 49..52 | 0..1 | 1 where that row's hand is open to all (head pair) |
| `scores` | (4,) | 53..56 | 0..16 | points scored so far by each row |
| `discarded` | (7, 4) | 57..84 | 0..1 | pair p (head..left leg) was discarded by that row |
| `pile_size` | (1,) | 85..85 | 0..15 | cards in the pile, the Curse included |
| `pile_top` | (3,) | 86..88 | 0..1 | colour of the pile's top card: red, blue, the Curse (all 0 when empty) |
| `pile_colours` | (2,) | 89..90 | 0..7 | red and blue body-part cards in the pile (public by counting) |
| `cards` | (14, 4) | 91..146 | 0..1 | card c (part c//2, colour c%2) is known to the observer to be in that row's hand; column 0 is the observer's own hand (empty in Kurayami phase 1) |
| `last_kind` | (7,) | 147..153 | 0..1 | public part of the last action: draw, discard, give card, give colour, take, give Curse, dice opponent |
| `last_actor` | (4,) | 154..157 | 0..1 | row that took the last action |
| `last_other` | (4,) | 158..161 | 0..1 | row the last action gave to, took from or chose |
| `last_colour` | (2,) | 162..163 | 0..1 | colour of the card drawn, given or taken by the last action |
| `steps_used` | (1,) | 164..164 | 0..1 | fraction of the step limit already used |

Rewards
-------
Rewards come at the end of the game (terminated or truncated):

- ``reward="win"`` (default): +1 to every winner and −1 to every other player.
  *Kakurenbo*: winners are the players with the highest final score among the
  players not holding the Curse. *Kurayami*: among the players with **no cards
  left**; if none has an empty hand, nobody wins and everyone gets −1.
- ``reward="points"``: points as they are scored (chest and waist points go to
  the neighbour who receives them), and at the end the final Curse holder loses
  all its points, so each player's return is its final score.

Truncation (step limit): after ``max_steps`` agent actions the game is
truncated (``truncations`` true, not ``terminations``) and scored exactly as if
it had ended then: the current Curse holder scores 0, so stalling never pays.
Truncated in phase 1 (only with tiny limits), no one holds the Curse and no
one's points are void. With the default limit the rules end the game first:
no game was truncated in any variant and player count, among 400 games of
heuristic tables, 400 of random tables and 200 of IS-MCTS (25 simulations)
tables per configuration (median 23-36 plies),
measured with ``kakurega balance kakurenbo_v0 --config variant=V --config
num_players=N --games 400 --ismcts-games 200 --ismcts-table`` (docs/balance.md).

Hidden information
------------------
Every channel through which an agent or a person learns about a game, and
how each is kept to what that player may know (tests in
``tests/kakurenbo/test_leaks.py`` and the shared conformance checks):

| channel | what it carries | how it is closed |
|---|---|---|
| observation | the public pieces below and ``cards``, the observer's own card knowledge | the encoder reads only public fields and ``game.known_row(state, seat)``; states re-dealt by ``resample_hidden`` give byte-identical observations |
| action mask, ``infos`` | the legal actions of the agent to act (all zeros for the others); ``infos`` hold that mask and nothing else | legal actions depend on the actor's own hand (faces it sees, or in Kurayami only colours) and public colour counts; identical over re-dealt states |
| render (``render_text``, pictures) | the table as one seat or a spectator sees it | each hand is drawn known faces first (by card id), then the backs grouped by colour, then the Curse, never in the hand's card-id order; the spectator sees backs and open hands only; identical for every pair of states a viewer cannot tell apart (a control renderer drawing in card-id order fails the test) |
| turn order and end | ``agent_selection`` and when the game ends or is cut off | who acts follows public facts only (clockwise turns, the Curse's receiver, the dice, which hands are empty); every decision is an agent step even with one legal option (a Kurayami draw, a take from a one-colour hand), so the number of steps never depends on a face; the end (a hand of the Curse alone) and the step limit are public |
| determinization sampler | full states for search agents | ``resample_hidden`` reads only the player's knowledge row, the awareness bits it can tell and public facts; re-dealing first does not change its output |
| objects handed to agents | ``AgentContext`` (its ``rules`` recipe), the sampler | each agent builds its own rules object (``context.new_rules()``), never the env's; the sampler holds the player's information state and a rules object kept for that seat alone (``tests/test_hidden_information.py`` walks every reference); the state has no scratch field (the fingerprint covers every field, the derived ``colour_counts`` included) |
| events, last action | what the render lists and the ``last_*`` pieces | only their public part: who drew, gave or took a card of which colour to or from whom |

Public (in everyone's observation): variant, phase, pending decision, whose
turn and who decides, the pile size and its top card's colour (card backs
show colour; the pile's colour counts follow by counting), every player's red
and blue counts, the Curse holder, open-hand flags, every discarded pair and
score, the dice and the dice opponent, the public part of the last action
(who drew, gave or took a card of which colour to or from whom), and the
fraction of the step limit used.

Private: the ``cards`` piece, one row per body-part card, marks the hand the
observer **knows** holds it; everything else shows only as colour counts. A
player knows a card's place when:

- it is in its own hand (Kakurenbo always; Kurayami from the flip on);
- it drew it, gave it, received it, took it or had it taken (giver and
  receiver, taker and victim see the face; others only the colour);
- the hand is open (head pair: everyone sees its cards, also every card it
  receives later, and where the cards it gives go), or it was shown the hand
  by an arm pair (a one-time look, valid until the cards move);
- a leg exchange moved a hand it knew (whole hands are swapped in public);
- counting proves it: a colour is gone from the pile and, after the cards the
  player already places, only one hand has room for that colour.

Knowledge is updated conservatively. When a card of a colour leaves a hand
and the observer did not see its face, the observer keeps track of the card
only if it was that hand's only card of that colour; otherwise it forgets
every card of that colour it knew in that hand (any of them may have been the
one that moved). Kurayami phase 1 shows no face to anyone, own cards
included, so ``cards`` is all zero until the flip (counting is not applied
then either: it could name one's own unseen cards). The state keeps this
explicitly: ``state.knowledge[observer][card]`` is the seat the observer saw
the card go to, or −1; counting is applied on top whenever a row is read
(``game.known_row(state, seat)``, used by the encoder and the renderer).

Determinization: ``env.unwrapped.resample_hidden(agent, rng)`` (and
``determinization_sampler(agent)``) return a full state identical in all the
agent knows: every card it cannot place is dealt uniformly among the free
slots of its colour (hands by their colour counts, the pile by its colour
counts, the pile's top card of the visible colour, the rest of the pile in
uniform order). Random takes make some deals a little likelier than others
in truth; the sampler ignores that (a documented approximation). In the
sample the other players know their own faces (when faces are visible), the
open hands, the cards of the agent's hand that the agent knows they know
(they gave them, took them, were shown them or swapped hands with it), and
what counting proves; the rest of their knowledge is forgotten, since the
agent cannot know it.

Decisions where the rules page is silent
----------------------------------------
- Agents keep their seats; ``player_0`` starts every game.
- Kurayami phase 1: the draw is an explicit agent action (its only option),
  and the player then chooses a colour; the card moved is random within it.
  Nobody, taker included, sees any face before the flip.
- Automatic discards (Kakurenbo phase 2, and the flip and dice takes of
  Kurayami): the first player holding a pair, looking from the active player
  clockwise, discards its highest pair (ties in table order; card functions
  apply in Kakurenbo); then the search starts again from the active player,
  because a leg exchange can create new pairs. The active player is the one
  who drew the Curse at the start of phase 2, then the receiver of the Curse.
- A card arriving in or leaving an open hand is seen by everyone.
- The final Curse holder never wins, even when every score is 0.
- Kurayami phase 2: after each exchange the turn passes to the next player
  clockwise from the active player (not from the dice opponent) who still
  holds cards; the dice and every re-roll are chance inside the "roll the
  dice" action, and ``dice`` shows the last roll (the render lists them all).
- ``reward="points"`` pays points as scored (a dense signal) and takes the
  Curse holder's back at the end.

Render
------
``render_mode="ansi"`` returns (``"human"`` prints) a text picture of the
table as ``render_view`` sees it: known faces as ``[right arm (red)]`` first
(by card id), then unknown cards as ``[red ?]``/``[blue ?]`` grouped by colour,
then ``[Kaku's Curse]``; scores, discards, the pile and the events of the last
action. A spectator sees the faces of open hands and backs elsewhere. ``env.unwrapped.render_text(agent_or_None)`` draws
any view.

``render_mode="rgb_array"`` returns (``"human"`` shows in a window) a
picture of the same view (:mod:`kakurega.envs.kakurenbo.picture`): the viewer
at the bottom and the others clockwise, faces with their colour and body part
on a little figure, backs in their colour, Kaku's Curse, scores, discarded
pairs, the pile with its top colour, the dice and the last events.
``env.unwrapped.scene(agent_or_None)`` gives the picture as shapes (SVG:
``kakurega.envs.core.picture.to_svg``); in the view of the player to act its
cards, the other players and the pile carry the actions they stand for.

Version history
---------------
- v0: first release (both variants, 3-5 players, step-limit truncation,
  win/points rewards, knowledge tracking with counting deductions).
- v0 (same rules, actions and observations): the render draws every hand
  known faces first, then the backs grouped by colour, then the Curse; it
  drew hands in card-id order, so the order of the backs told faces to
  players, spectators and to a Kurayami player about its own unseen hand. A
  spectator now sees the faces of open hands (public). The heuristic plays
  phase 2 to an end (it used to pass the Curse round until the step limit in
  about half of its games).
"""

from __future__ import annotations

import functools

from kakurega.envs.core.aec import TurnBasedAECEnv, wrap
from kakurega.envs.kakurenbo.observation import KakurenboObserver
from kakurega.envs.kakurenbo.picture import KakurenboPicture
from kakurega.envs.kakurenbo.render import render_text
from kakurega.envs.kakurenbo.rules import DEFAULT_MAX_STEPS, KakurenboGame

__all__ = ["env", "raw_env", "KakurenboEnv"]


class KakurenboEnv(TurnBasedAECEnv):
    """The KAKURENBO AEC env: the shared turn-based base over :class:`KakurenboGame`."""

    metadata = {**TurnBasedAECEnv.metadata, "name": "kakurenbo_v0"}

    def __init__(
        self,
        variant: str = "kakurenbo",
        num_players: int = 4,
        max_steps: int = DEFAULT_MAX_STEPS,
        reward: str = "win",
        render_mode: str | None = None,
        render_view: str | None = None,
    ):
        game = KakurenboGame(variant=variant, num_players=num_players, max_steps=max_steps, reward=reward)
        observer = KakurenboObserver(game)
        super().__init__(
            game,
            observer.layout,
            observer.encode,
            functools.partial(render_text, game),
            render_mode=render_mode,
            render_view=render_view,
        )
        self.picture = KakurenboPicture(game)


def raw_env(**kwargs) -> KakurenboEnv:
    """The unwrapped env: an illegal action raises ``ValueError`` naming it and why."""
    return KakurenboEnv(**kwargs)


def env(**kwargs):
    """``raw_env(**kwargs)`` inside PettingZoo's standard wrappers."""
    return wrap(raw_env(**kwargs))
