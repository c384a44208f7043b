"""Animal Chain (どうぶつれんさ) v0 — two players race to chain animal cards onto the other's base.

**Superseded by** :mod:`kakurega.envs.animal_chain_v1` (the chain rule, one
base-building decision per base position). v0 stays importable and behaves
as it always did, including its known defects: the first player wins on its
first turn in about 99 % of deals (see "Balance"), and the **base-building
turn order leaks the number of swaps**: a player acts once per swap plus
once for "done", so the opponent, watching ``agent_selection``, learns how
many swaps were made (v1 gives every player exactly one decision per base
position). Use v1 for new work.

Rules: ``shared/rules/animal_chain.md`` (the project's binding rules page,
from the publisher's text). Rules engine: :mod:`kakurega.envs.animal_chain.rules`;
observation: :mod:`~kakurega.envs.animal_chain.observation`; text rendering:
:mod:`~kakurega.envs.animal_chain.render`; deck and board data:
:mod:`~kakurega.envs.animal_chain.data` (``envs/data/animal_chain_deck.yaml``,
``envs/data/animal_chain_shape.yaml``).

| | |
|---|---|
| Import | ``from kakurega.envs import animal_chain_v0`` |
| Agents | ``player_0``, ``player_1`` |
| Actions | ``Discrete(1269)`` with the default deck and board |
| Observation | ``Dict(observation=Box(0, high, (671,), float32), action_mask=Box(0, 1, (1269,), int8))`` |
| Rewards | +1 win, -1 loss, 0 draw (only at the end) |
| Heuristic | ``kakurega.agents.heuristics.animal_chain:AnimalChainHeuristic`` |

## Creation

    env = animal_chain_v0.env(deck=None, shape=None, max_turns=200, attack_rule="rules_page",
                              render_mode=None, render_view=None)
    raw = animal_chain_v0.raw_env(...)   # same options, without the standard wrappers

| option | default | meaning |
|---|---|---|
| ``deck`` | packaged 60-card deck | path to a YAML/JSON deck file, or a mapping with the same content |
| ``shape`` | packaged 37-card board | path to a YAML/JSON board-shape file, or a mapping |
| ``max_turns`` | 200 | play-phase turns (plays and passes; base building does not count) before the game is truncated as a draw (1..100,000) |
| ``attack_rule`` | ``"rules_page"`` | when a play onto the opponent's base row is legal: ``"rules_page"`` = like any play (it connects to some face-up neighbour, the opponent's other base cards included; the binding rules page); ``"reach"`` = it must connect to at least one face-up neighbour *outside* the opponent's base row (the chain has to reach the base). All other plays are the same. See "Balance" |
| ``render_mode`` | None | ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it) |
| ``render_view`` | None | whose view ``render()`` draws: None (spectator, public information) or an agent name |

Bad options raise ``TypeError``/``ValueError`` naming the option (e.g.
``attack_rule must be 'rules_page' or 'reach', got 'x'``); a deck or
shape the rules cannot play with raises ``AnimalChainDataError`` (a
``ValueError``) naming the file, the field and the value. A shape must look
the same from both sides (symmetric under a half turn), be one connected
brick pattern (neighbouring rows half a card apart) and have at most 45
cards; a deck must hold at least board + 2 x 4 + 1 cards.

Data formats::

    # deck                                      # shape (one of)
    animals: [{name: dog, label: Dg}, ...]      rows: [4, 5, 6, 7, 6, 5, 4]    # centred rows
    cards: [{left: dog, right: cat, copies: 2}, ...]
                                                columns: [[3, 5, 7, 9], [2, 4, 6, 8, 10], ...]
                                                # half-card column of every card, row 0 first

## Agents

``player_0`` and ``player_1``; ``player_i`` sits on seat ``i``. Row 0 of
the board is player 0's base row, the last row player 1's. Player 0 builds
its base first, then player 1; after both bases are revealed a chance draw
(inside the last "done building" step) picks the first player, and the
other one draws one extra card. ``agent_selection`` is always the player
who must act.

## Frames: everything is seen from the acting player's side

Actions and observations use the player's own *frame*: the board as seen
from its side of the table. Player 0's frame is the absolute board; player
1's is the board turned half round: its position ``p`` is absolute position
``36 - p`` and every card shows its animals swapped (a card ``Dg|Ct`` lying
on the table reads ``Ct|Dg`` from the other side). In every frame row 0 is
the player's own base row and row 6 the opponent's, so one policy can play
both seats. The type space contains every card's reversal, so each player
sees a card type the deck defines.

**Positions** are numbered row by row from the player's own base row, left to
right as the player sees them; names ``r<row>c<card>``: ``r0c0..r0c3`` = 0..3,
``r1c0..r1c4`` = 4..8, ``r2c0..r2c5`` = 9..14, ``r3c0..r3c6`` = 15..21,
``r4c0..r4c5`` = 22..27, ``r5c0..r5c4`` = 28..32, ``r6c0..r6c3`` = 33..36.

**Card types** (``T`` = 30) are indexed by type, not by hand slot: the ordered
pairs ``(left, right)`` sorted by animal (dog 0, cat 1, rabbit 2, bear 3,
pig 4, fox 5), so ``t = 5 * left + (right if right < left else right - 1)``:
``0 Dg|Ct, 1 Dg|Rb, 2 Dg|Br, 3 Dg|Pg, 4 Dg|Fx, 5 Ct|Dg, 6 Ct|Rb, ... 10 Rb|Dg, ...
15 Br|Dg, ... 20 Pg|Dg, ... 25 Fx|Dg, 26 Fx|Ct, 27 Fx|Rb, 28 Fx|Br, 29 Fx|Pg``.
Two copies of a type in hand are interchangeable, so one action stands for
either.

## Action space

``T`` = 30 card types, ``P`` = 37 positions, ``B`` = 4 base cards (other
data files change these numbers; the game object exposes ``num_actions``,
``swap_action``, ``play_action``, ``take_action`` and ``decode``).

| ids | meaning | legal when |
|---|---|---|
| ``t * 4 + j`` (0..119) | base building: swap a hand card of type ``t`` with own base card ``j`` (``r0c<j>``) | own building turn, the card is in hand, the base card differs, fewer than 8 swaps made |
| 120 | done building the base | own building turn |
| ``121 + t * 37 + p`` (121..1230) | play a hand card of type ``t`` onto position ``p`` | playing; the card is in hand; ``p`` holds a card (face down or up, not a hole) that is not the opponent's double; the card connects to a face-up neighbour (with ``attack_rule="reach"`` and ``p`` in the opponent's base row: to one outside that row) |
| 1231 | pass: draw from the deck; when neither the deck nor a face-down card is left, pass without drawing | playing, and the deck is not empty or no face-down card is left |
| ``1232 + p`` (1232..1268) | pass with an empty deck, taking the face-down card at ``p`` (it becomes a hole) | playing, deck empty, ``p`` face down |

Worked examples:

* player 0 swaps its hand card ``Ct|Dg`` (t = 5) with base card ``r0c2``: ``5 * 4 + 2 = 22``;
* player 0 plays ``Dg|Rb`` (t = 1) onto ``r3c3`` (p = 18): ``121 + 1 * 37 + 18 = 176``;
* player 1 holds the card lying as ``Dg|Ct`` on the table, which it sees as
  ``Ct|Dg`` (t = 5), and plays it onto absolute ``r3c2`` (p = 17), its own
  ``r3c4`` (p = 36 - 17 = 19): ``121 + 5 * 37 + 19 = 325``;
* player 1 swaps a hand card it sees as ``Fx|Pg`` (t = 29) with its own
  leftmost base card (absolute ``r6c3``): ``29 * 4 + 0 = 116``;
* a player passes with an empty deck and takes the face-down card at its ``r2c4`` (p = 13): ``1232 + 13 = 1245``.

``env.unwrapped.action_to_string(a)`` says an action in words
(``"play Dg|Rb onto r3c3"``), in the acting player's frame.

## Observation space

A flat float32 vector of named pieces (decode with
``env.unwrapped.layout.view(obs, name)``), all in the observer's frame.
Entries lie in ``[0, range]``; counts are raw, not normalised.

| piece | shape | offsets | range | meaning |
|---|---|---|---|---|
| `hole` | (37,) | 0..36 | 0..1 | 1 where the position is a hole (its face-down card was taken by a pass) |
| `face_down` | (37,) | 37..73 | 0..1 | 1 where the position still holds its original card face down |
| `left_animal` | (37, 6) | 74..295 | 0..1 | one-hot animal on the observer's left half of the top card (face-up cards; during base building also the observer's own face-down base cards) |
| `right_animal` | (37, 6) | 296..517 | 0..1 | one-hot animal on the observer's right half of the top card (as left_animal) |
| `my_double` | (37,) | 518..554 | 0..1 | 1 where the top card is a double owned by the observer |
| `opponent_double` | (37,) | 555..591 | 0..1 | 1 where the top card is a double owned by the opponent (the observer may not play there) |
| `stack_height` | (37,) | 592..628 | 0..60 | number of cards at the position (face-down card included) |
| `hand` | (30,) | 629..658 | 0..2 | cards of each type in the observer's hand (types of the observer's frame) |
| `hand_sizes` | (2,) | 659..660 | 0..60 | cards in hand: [observer, opponent] |
| `deck_size` | (1,) | 661..661 | 0..60 | cards left in the deck |
| `phase` | (3,) | 662..664 | 0..1 | one-hot phase: [base building, playing, over] |
| `my_turn` | (1,) | 665..665 | 0..1 | 1 when the observer is to act |
| `seat` | (2,) | 666..667 | 0..1 | one-hot seat of the observer: [player_0, player_1] (player 0 builds first) |
| `swaps_left` | (1,) | 668..668 | 0..8 | base swaps the observer may still make while building (0 otherwise) |
| `passes_without_draw` | (1,) | 669..669 | 0..2 | passes without a draw in a row: after 1 another one ends the game, 2 = drawn game |
| `turn` | (1,) | 670..670 | 0..200 | play-phase turns taken; the game is truncated at the turn limit |

What is *not* in it, because the player may not know it: the deck order, the
faces of face-down cards (including the opponent's base while it is being
built), the opponent's hand and the opponent's swaps. The cards beneath the
top of a stack were seen by both players but are not encoded (only the top
card counts for the rules; the heights are).

**Action mask.** ``observation["action_mask"]`` (int8, one entry per action)
is 1 exactly for the legal actions of the agent to act (the rules'
``legal_actions``) and all 0 for the other agent and after the end.

## Rewards

+1 to the player who first plays onto a card of the opponent's base row, -1
to the other; 0 each when the game is drawn (two passes without a draw in a
row) or truncated at ``max_turns`` play-phase turns (``truncations`` set, a
draw). No intermediate rewards. The wrapped ``env()`` ends the game with -1
for a player who attempts an illegal action; ``raw_env()`` raises
``ValueError`` saying why the action is illegal.

## Hidden information

Public: the board (holes, face-down positions, face-up top cards, stack
heights, doubles and their owners), both bases once revealed, hand and deck
sizes, whose turn it is. Private: a player's hand (including the cards it
took from the board) and, while building, its own base row. Hidden from
both: the deck order and the faces of face-down cards. During base building
a player sees neither the opponent's base nor its swaps (the opponent's
swaps change nothing in its observation). ``env.unwrapped.resample_hidden(agent, rng)``
re-deals the deck order, the face-down board cards and the opponent's hand
(and, during building, the opponent's base) uniformly from the cards the
player has not seen; the result depends only on what the player knows, in
every field (the state holds no observation cache: each seat's picture,
which shows its hand, stays in the env's observer; v1's card lists every channel). **Known leak (kept in
v0):** the turn order during base building shows how many swaps the builder
made (one step per swap, plus "done"); v1 closes it.

## Decisions where the rules page is silent

* Cards are always placed in the table's fixed orientation (they are never
  turned): a card's left animal is on player 0's left. Both orientations of
  every pair exist in the default deck, so nothing is lost.
* Base building allows at most 8 swaps (2 per base card) per player: any
  arrangement of the 8 cards of hand and base is reachable with at most two
  swaps per base position, so the cap removes nothing but endless games.
  Swapping a card for an identical one is not offered (it changes nothing).
  Each player sees its own base row from the start.
* A player may play onto its own base (a stack like any other) and onto its
  own double; a base card is never a double (it was not played).
* A pass with an empty deck takes the face-down card of the player's choice
  (one action per position); a plain pass is then not offered.
* A double is a played card linked by one animal to two or more face-up
  neighbours; its foundations are all the neighbours linked by such an
  animal, and covering any one of them cancels the double for good. Covering
  the double itself replaces it by the new card (a double again only if the
  new card makes one).
* The turn limit counts play-phase turns (plays and passes) only.
* ``attack_rule`` (default ``"rules_page"``): the rules page lets a play
  onto the opponent's base connect to any face-up neighbour, including the
  opponent's other base cards. The seed's aim, "reach the opponent's
  position", suggests that the chain must come from the board; option
  ``"reach"`` implements that reading: such a play must connect to at least
  one face-up neighbour outside the opponent's base row. The refusal says so
  (``"Dg|Rb connects at r6c1 only to cards of your opponent's base row: ..."``).
  Plays onto any other position, the own base included, are the same under
  both. See "Balance" for why the default stays the rules page.

## Balance

**Default: ``attack_rule="rules_page"``**, because the rules page is the
project's binding text. ``"reach"`` is the reading a table would expect; it
is offered as an option, but the figures below show that it does not
balance the game either. The first-mover advantage is large under both
rules.

*Why ``"rules_page"`` ends on turn 1.* Base cards in the same row are
neighbours and lie face up, so a card whose left (right) animal equals the
right (left) animal of a base card can be played onto the base card to its
right (left) and wins. With the bases as dealt the first player holds such a
card on its first turn in 991 of 1000 deals. Careful base building (the
heuristic's) only brings this down to 91.0 %.

*Why ``"reach"`` ends on turn 3.* On turn 1 only the bases are face up, so
no play onto a base is legal (0 of 1000 deals). But the first player can
play a card next to the opponent's base (it connects to an opponent base
card), keeping a card that connects to it. Next turn it can play that card
onto either base card below and win. In 855 of 1000 heuristic games the first
player threatened such a win after its first play. For 653 of those 855,
*no* reply of the second player (one ply, every legal action, knowing the
attacker's hand) takes the threat away; the heuristic, which does not know
the hand, parried none of the other 202. So the first player still wins
86.2 %, almost always on its second turn.

Measured on the default deck and board, env seeds 50000..50999 (heuristic
vs random: 50000..51999). Seats are rotated: the first-named agent plays
``player_0`` in even games and ``player_1`` in odd ones. The first player is
drawn by chance in every game. "Won on the first play turn" means the game
ended after the first player's first move.

| ``attack_rule`` | match | games | first player wins (95 % CI, Wilson) | won on the first play turn | mean play turns | draws |
|---|---|---|---|---|---|---|
| ``rules_page`` | heuristic vs heuristic | 1000 | 915 = 91.5 % (89.6 .. 93.1) | 91.0 % | 1.10 | 0 |
| ``reach`` | heuristic vs heuristic | 1000 | 862 = 86.2 % (83.9 .. 88.2) | 0.0 % (85.5 % end on play turn 3) | 3.17 | 0 |
| ``rules_page`` | heuristic vs random | 2000 | 1217 = 60.9 % (58.7 .. 63.0) | 60.7 % | 1.40 | 0 |
| ``reach`` | heuristic vs random | 2000 | 1043 = 52.1 % (50.0 .. 54.3) | 0.0 % | 3.41 | 0 |
| ``rules_page`` | random vs random | 1000 | 564 = 56.4 % (53.3 .. 59.4) | 21.4 % | 5.77 | 0 |
| ``reach`` | random vs random | 1000 | 455 = 45.5 % (42.4 .. 48.6) | 0.0 % | 19.5 | 21 |

Heuristic vs random, as the heuristic's score:

| ``attack_rule`` | games | heuristic wins | 95 % CI (Wilson) | draws |
|---|---|---|---|---|
| ``rules_page`` | 2000 | 1808 (90.4 %) | 89.0 % .. 91.6 % | 0 |
| ``reach`` | 2000 | 1976 (98.8 %) | 98.2 % .. 99.2 % | 0 |

Heuristic vs heuristic, ``player_0`` wins 51.2 % (``rules_page``) and
49.1 % (``reach``): the first player decides, not the seat. Under
``"reach"`` skill counts for more (98.8 % against random instead of
90.4 %), and random games last longer (19.5 play turns instead of 5.8).

## Heuristic

``AnimalChainHeuristic`` reads the rules, ``attack_rule`` included, from
``context.new_rules()`` (or builds them from ``context.env_kwargs``). It builds
the least exposed base. Under ``"rules_page"`` that is the base the fewest
unseen cards can attack at once. Under ``"reach"`` it is the base the fewest
unseen cards can approach (be played next to it by connecting to a base
card). It wins at once when it can. Otherwise it scores plays by:

* the chance that the opponent could then win at once (counting only the
  connections the attack rule allows);
* its own chance to win next turn;
* progress towards the opponent's base;
* taking face-down cards;
* making doubles.

It passes (and draws) when no play scores better. It has no memory, so it
does not infer that a card just played next to its base comes with a
follow-up card in the opponent's hand.

## Version history

* v0: first version, with the ``attack_rule`` option (default ``"rules_page"``, the rules page).
  Superseded by v1 (the chain rule; a fixed number of base-building decisions).
"""

from __future__ import annotations

from kakurega.envs.animal_chain.env import assemble, check_options
from kakurega.envs.animal_chain.rules import DEFAULT_ATTACK_RULE, DEFAULT_MAX_TURNS, AnimalChainGame
from kakurega.envs.core.aec import TurnBasedAECEnv, wrap

OPTIONS = ("deck", "shape", "max_turns", "attack_rule", "render_mode", "render_view")


def raw_env(
    deck=None,
    shape=None,
    max_turns: int = DEFAULT_MAX_TURNS,
    attack_rule: str = DEFAULT_ATTACK_RULE,
    render_mode: str | None = None,
    render_view: str | None = None,
) -> TurnBasedAECEnv:
    """The unwrapped Animal Chain env (options: see the env card)."""
    check_options(deck, shape, max_turns)
    # AnimalChainGame checks attack_rule (TypeError / ValueError naming it and the allowed values)
    game = AnimalChainGame(deck=deck, shape=shape, max_turns=max_turns, attack_rule=attack_rule)
    return assemble(game, "animal_chain_v0", render_mode, render_view)


def env(**kwargs):
    """Animal Chain in the standard PettingZoo wrappers (options: see the env card)."""
    return wrap(raw_env(**kwargs))
