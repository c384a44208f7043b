"""Animal Chain (どうぶつれんさ) v1 — two players race to chain animal cards from their own base onto the other's.

Rules: ``shared/rules/animal_chain.md`` (the project's binding rules page,
from the publisher's text), with its version-1 decisions: **the chain rule**
and **one base-building decision per base position**. Rules engine:
:mod:`kakurega.envs.animal_chain.rules` (options ``connection_rule="chain"``,
``building="per_position"``); observation:
:mod:`~kakurega.envs.animal_chain.observation`; text rendering:
:mod:`~kakurega.envs.animal_chain.render`; deck and board data:
:mod:`~kakurega.envs.animal_chain.data`. Version 0
(:mod:`kakurega.envs.animal_chain_v0`) stays available unchanged.

| | |
|---|---|
| Import | ``from kakurega.envs import animal_chain_v1`` |
| Registry | ``animal_chain_v1``, PettingZoo id ``kakurega/animal_chain-v1`` |
| Agents | ``player_0``, ``player_1`` |
| Actions | ``Discrete(1269)`` with the default deck and board |
| Observation | ``Dict(observation=Box(0, high, (674,), float32), action_mask=Box(0, 1, (1269,), int8))`` |
| Rewards | +1 win, -1 loss, 0 draw (only at the end) |
| Heuristic | ``kakurega.agents.heuristics.animal_chain:AnimalChainHeuristic`` |

## Creation

    env = animal_chain_v1.env(deck=None, shape=None, max_turns=200, attack_rule="rules_page",
                              connection_rule="chain", render_mode=None, render_view=None)
    raw = animal_chain_v1.raw_env(...)   # same options, without the standard wrappers

| option | default | meaning |
|---|---|---|
| ``deck`` | packaged 60-card deck | path to a YAML/JSON deck file, or a mapping with the same content (format: see v0's card) |
| ``shape`` | packaged 37-card board | path to a YAML/JSON board-shape file, or a mapping |
| ``max_turns`` | 200 | play-phase turns (plays and passes; base building does not count) before the game is truncated as a draw |
| ``connection_rule`` | ``"chain"`` | which face-up neighbours a played card may connect to: ``"chain"`` = one *linked to the mover's own base* (the rules page's chain rule); ``"any"`` = any face-up neighbour (version 0's reading, kept for comparison). See "Balance" |
| ``attack_rule`` | ``"rules_page"`` | when a play onto the opponent's base row is legal: ``"rules_page"`` = like any play; ``"reach"`` = it must connect to a counted neighbour *outside* the opponent's base row |
| ``render_mode`` | None | ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it) |
| ``render_view`` | None | whose view ``render()`` draws: None (spectator, public information) or an agent name |

Bad options raise ``TypeError``/``ValueError`` naming the option and the
allowed values (``connection_rule must be 'any' or 'chain', got 'chains'``);
a deck or shape the rules cannot play with raises ``AnimalChainDataError``
naming the file, the field and the value (as in v0).

## Agents

``player_0`` and ``player_1``; ``player_i`` sits on seat ``i``. Row 0 of
the board is player 0's base row, the last row player 1's. Base building:
``player_0`` makes exactly 4 decisions (one per base position), then
``player_1`` makes 4; after the last one the bases turn face up and a
chance draw (inside that step) picks the first player; the other one draws
one extra card. ``agent_selection`` is always the player who must act, and
its sequence depends on public facts only (below).

## Frames

As in v0: actions and observations use the acting player's own *frame*
(player 1's is the board turned half round: its position ``p`` is absolute
``36 - p`` and every card shows its animals swapped). In every frame row 0
is the player's own base row and row 6 the opponent's. Positions are
numbered row by row from the own base row (``r0c0..r0c3`` = 0..3, ...,
``r6c0..r6c3`` = 33..36); card types ``t`` are the 30 ordered pairs sorted
by animal (``0 Dg|Ct, 1 Dg|Rb, ..., 29 Fx|Pg``; v0's card lists them).

## Action space

``T`` = 30 card types, ``P`` = 37 positions, ``B`` = 4 base cards. The ids
are v0's; only base building changed meaning.

| ids | meaning | legal when |
|---|---|---|
| ``t * 4 + j`` (0..119) | base building: swap a hand card of type ``t`` with own base card ``j`` (``r0c<j>``); the decision on position ``j`` is made | own building turn, deciding position ``j`` (see ``base_position``), the card is in hand and differs from the base card |
| 120 | base building: keep the base card being decided | own building turn |
| ``121 + t * 37 + p`` (121..1230) | play a hand card of type ``t`` onto position ``p`` | playing; the card is in hand; ``p`` holds a card (face down or up, not a hole) that is not the opponent's double; the card connects to a face-up neighbour **linked to the player's own base** (``connection_rule="any"``: any face-up neighbour; ``attack_rule="reach"`` and ``p`` in the opponent's base row: a counted one outside that row) |
| 1231 | pass: draw from the deck; when neither the deck nor a face-down card is left, pass without drawing | playing, and the deck is not empty or no face-down card is left |
| ``1232 + p`` (1232..1268) | pass with an empty deck, taking the face-down card at ``p`` (it becomes a hole) | playing, deck empty, ``p`` face down |

Base building, precisely: the builder decides its base positions in order,
``j`` = 0, 1, 2, 3 (from its own left). At decision ``j`` it either keeps
base card ``j`` (id 120) or swaps it with one card of its hand (id
``t * 4 + j``): any type in hand other than the base card's own type
(swapping for an identical card would be a keep), including a card it
swapped out of an earlier position. Exactly 4 decisions per player in every
deal, whatever is chosen. Worked examples: player 0, deciding ``r0c2``,
swaps in its hand card ``Ct|Dg`` (t = 5): ``5 * 4 + 2 = 22``; it keeps
``r0c2``: 120. A swap naming another position is refused (``"base building
decides own base card r0c2 now: swap a hand card with it, or keep it"``).

``env.unwrapped.action_to_string(a)`` says an action in words, in the
acting player's frame (``"keep own base card r0c2"``, ``"play Dg|Rb onto r3c3"``).

## Observation space

A flat float32 vector of named pieces (decode with
``env.unwrapped.layout.view(obs, name)``), all in the observer's frame.
It is v0's layout with ``swaps_left`` replaced by ``base_position``.

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
| `base_position` | (4,) | 668..671 | 0..1 | one-hot own base position (from the observer's left) the observer decides on now: keep that base card or swap it (base building, the observer's turn; else 0) |
| `passes_without_draw` | (1,) | 672..672 | 0..2 | passes without a draw in a row: after 1 another one ends the game, 2 = drawn game |
| `turn` | (1,) | 673..673 | 0..200 | play-phase turns taken; the game is truncated at the turn limit |

Not in it, because the player may not know it: the deck order, the faces of
face-down cards (the opponent's base while it is being built included), the
opponent's hand and the opponent's swaps. Which cards are linked to either
base is not a piece of its own: it follows from the face-up cards
(``env.unwrapped.game.linked_mask`` computes it from a board).

**Action mask.** ``observation["action_mask"]`` (int8, one entry per action)
is 1 exactly for the legal actions of the agent to act and all 0 for the
other agent and after the end.

## Rewards

+1 to the player who first plays onto a card of the opponent's base row, -1
to the other; 0 each when the game is drawn (two passes without a draw in a
row) or truncated at ``max_turns`` play-phase turns (``truncations`` set, a
draw). No intermediate rewards. The wrapped ``env()`` ends the game with -1
for a player who attempts an illegal action; ``raw_env()`` raises
``ValueError`` saying why the action is illegal.

## The chain rule, precisely

* A card is *linked* to a player's base when it is a face-up top card
  reachable from a card of that player's base row through face-up top cards
  that connect pairwise (the play rule's connection test: facing animals
  equal). The player's own base cards are always linked (they are where the
  chain starts); face-down cards, holes and covered cards never carry a chain.
* A play must connect to at least one face-up neighbour linked to the
  mover's base. Linked is judged on the board as it lies before the play:
  the card being covered still counts.
* Cards are linked whoever played them: a chain may run through the
  opponent's cards. The opponent's base cards count only once a chain from
  the mover's base reaches them. When the two chains meet, both players are
  linked to both bases, so joining the chains hands the opponent a way in.
* Covering a card of a chain with a card that does not connect cuts the
  chain there; the cards beyond it are no longer linked (unless another path
  links them).
* A play onto the opponent's base row wins when it satisfies this rule
  (and, under ``attack_rule="reach"``, connects to a linked card outside that row).
* Consequence: on the first turn only the bases are face up, so every play
  lies in the mover's rows 0-1; a win needs a face-up card in each of rows
  1-5 first (five earlier turns), so the first player cannot win before its
  fourth own turn, nor the second player before its third.

The refusal of an unlinked play says why: ``"Fx|Br connects at r3c4 only to
cards that are not linked to your base: under the chain rule a played card
must connect to a face-up card linked to your own base row through face-up
connected cards"``.

Everything else (doubles, covering, drawing, holes, the draw rule, the
turn limit) is v0's; see v0's card for those decisions.

## Hidden information

Public: the board (holes, face-down positions, face-up top cards, stack
heights, doubles and their owners), both bases once revealed, hand and deck
sizes, whose turn it is and which base position a builder decides. Private:
a player's hand (including the cards it took from the board) and, while
building, its own base row. Hidden from both: the deck order and the faces
of face-down cards. Every channel, and how it is closed:

* **Observation**: the encoder draws only the observer's hand, its own base
  while building, and public facts; the opponent's swaps change nothing in
  it (tests: ``tests/animal_chain/test_leaks.py``, the conformance leak test).
* **Action mask and infos**: the mask is the acting player's own legal
  actions (from its hand and public facts), all 0 for the other player; the
  infos hold nothing else.
* **Render**: a player's view shows its own hand and, while building, its
  own base; the opponent's base is drawn face down and its swaps change
  nothing; the spectator sees public facts only (hand sizes, not hands).
  Tested on pairs of states in one information set.
* **Turn order**: base building has exactly 4 decisions per player in every
  deal, so ``agent_selection`` and the step at which play starts do not
  depend on the swaps (v0's variable number of swaps showed in it). During
  play one turn is one step.
* **Sampler** (``resample_hidden`` and the env's determinization sampler):
  re-deals the deck order, the face-down cards and the opponent's hand (and
  its base while hidden) from the sorted pool of unseen cards; every other
  field is public or known to the player, the derived caches (``tops``,
  ``links``, ``blocked``, ``hand_sizes``, ``linked``) derive from public
  facts, and the state holds no observation cache (each seat's picture,
  which shows its hand, belongs to the env's observer, which no agent is
  handed). Two true states in one information set give identical samples in
  every field.
* **Agent objects**: the rules object holds no cache filled by queries
  (``accepted_types`` reads complete tables built with the game), so a rules
  object shared or handed to an agent carries nothing about any state.

## Decisions where the rules page is silent

v0's decisions hold (cards keep the table's orientation, own base and own
doubles may be covered, a pass with an empty deck takes a face-down card of
the player's choice, doubles, the turn limit). New in v1: the base building
order above, and linked judged before the play.

## Balance

**Default: the chain rule** (``connection_rule="chain"``,
``attack_rule="rules_page"``). Measured before choosing, on v1's base
building, for the four readings of the rules: "v0 rules page" (any face-up
neighbour counts), "reach" (``attack_rule="reach"``), "chain" and "chain +
reach".

| reading | match | games | first player wins (95 % CI) | draws | median / p90 plies | won on own turn 1 / 2 | first-named agent wins (95 % CI) |
|---|---|---:|---|---:|---|---|---|
| v0 rules page | heuristic vs heuristic | 400 | 96.5 % (94.2 % .. 97.9 %) | 0 | 1 / 1 | 100.0 % / 0.0 % | 50.0 % (45.1 % .. 54.9 %) |
| v0 rules page | random vs random | 400 | 52.5 % (47.6 % .. 57.3 %) | 0 | 4 / 14 | 39.2 % / 20.2 % | 52.5 % (47.6 % .. 57.3 %) |
| v0 rules page | heuristic vs random | 400 | 59.5 % (54.6 % .. 64.2 %) | 0 | 1 / 2 | 99.0 % / 1.0 % | 90.0 % (86.7 % .. 92.6 %) |
| v0 rules page | IS-MCTS vs heuristic | 400 | 95.8 % (93.3 % .. 97.3 %) | 0 | 1 / 1 | 99.8 % / 0.2 % | 47.8 % (42.9 % .. 52.6 %) |
| reach | heuristic vs heuristic | 400 | 88.0 % (84.4 % .. 90.8 %) | 0 | 3 / 4 | 0.0 % / 99.5 % | 50.0 % (45.1 % .. 54.9 %) |
| reach | random vs random | 400 | 48.0 % (43.1 % .. 52.9 %) | 15 | 15 / 49.1 | 1.2 % / 7.0 % | 49.8 % (44.9 % .. 54.6 %) |
| reach | heuristic vs random | 400 | 51.0 % (46.1 % .. 55.9 %) | 0 | 3 / 4 | 13.2 % / 80.0 % | 98.5 % (96.8 % .. 99.3 %) |
| reach | IS-MCTS vs heuristic | 400 | 85.8 % (82.0 % .. 88.8 %) | 0 | 3 / 4 | 0.8 % / 98.0 % | 44.8 % (40.0 % .. 49.6 %) |
| chain | heuristic vs heuristic | 400 | 40.0 % (35.3 % .. 44.9 %) | 14 | 30 / 53.4 | 0.0 % / 0.0 % | 48.2 % (43.4 % .. 53.1 %) |
| chain | random vs random | 400 | 8.8 % (6.4 % .. 11.9 %) | 338 | 81 / 86 | 0.0 % / 0.0 % | 9.0 % (6.6 % .. 12.2 %) |
| chain | heuristic vs random | 400 | 48.2 % (43.4 % .. 53.1 %) | 13 | 18 / 47.1 | 0.0 % / 0.0 % | 96.5 % (94.2 % .. 97.9 %) |
| chain | IS-MCTS vs heuristic | 400 | 43.5 % (38.7 % .. 48.4 %) | 18 | 29 / 56 | 0.0 % / 0.0 % | 24.8 % (20.8 % .. 29.2 %) |
| chain + reach | heuristic vs heuristic | 400 | 43.0 % (38.2 % .. 47.9 %) | 10 | 28 / 50.2 | 0.0 % / 0.0 % | 48.8 % (43.9 % .. 53.6 %) |
| chain + reach | random vs random | 400 | 8.0 % (5.7 % .. 11.1 %) | 353 | 81 / 86 | 0.0 % / 0.0 % | 5.5 % (3.7 % .. 8.2 %) |
| chain + reach | heuristic vs random | 400 | 47.8 % (42.9 % .. 52.6 %) | 15 | 19 / 49 | 0.0 % / 0.0 % | 95.8 % (93.3 % .. 97.3 %) |
| chain + reach | IS-MCTS vs heuristic | 400 | 43.2 % (38.5 % .. 48.1 %) | 21 | 28 / 63 | 0.0 % / 0.0 % | 24.2 % (20.3 % .. 28.7 %) |

Reproduce with ``python -m kakurega.scripts.balance_animal_chain --deals 200``
(default deck and board, env seeds 0..199, each deal played twice with the
seats swapped; IS-MCTS ``simulations=16,rollout=greedy,prior=greedy,bias=1,widen=1``;
about 3 CPU minutes per reading; ``--json`` keeps the figures). Plies are
play-phase turns; "first player wins" counts every game (draws included) and
"first-named agent wins" is the first-named agent's score, i.e. the skill gap
for heuristic vs random and IS-MCTS's result against the heuristic.

Why the chain rule:

* The first player's edge is gone: heuristic against heuristic it wins
  40.0 % (41.5 % of the decided games), against 96.5 % and 88.0 % under
  the two v0 readings, and no game is won on the first or second own turn
  (the rules make it impossible: see "The chain rule, precisely"). Under
  both v0 readings almost every game is decided on the first or second turn.
* Skill decides: the heuristic beats random play 96.5 % of games (v0 rules
  page: 90.0 %), and games last 30 plies (median) instead of 1-3.
* "chain + reach" is as fair (43.0 %) with a slightly smaller skill gap
  (95.8 %); the rule is to switch only for a reading both fairer *and*
  more skill-rewarding, so the chain rule stays (``attack_rule="reach"``
  remains an option). "reach" alone rewards skill (98.5 %) but leaves the
  first player 88 %.
* The first player's 40-43 % (target 40-60 %) leans slightly towards the
  second player, who draws one extra card after the bases are revealed.
* Random play rarely builds a chain: most random games end drawn (two passes
  without a draw in a row once the deck and the face-down cards run out).
* IS-MCTS with 16 simulations a move is well below the heuristic here (24.8 %):
  its greedy rollouts race, but 16 samples do not see the opponent's chain coming.

## Heuristic

``AnimalChainHeuristic`` reads the rules options from ``context.new_rules()``
(or builds the env's rules from the registry). Under the chain rule it
builds its base one position at a time, keeping or taking the base card
that lets the most hand cards start a chain (ties: the most varied hand).
In play it wins at once when it can; otherwise it scores every play and the
pass by the chance that the opponent could then win at once (only through
cards linked to the opponent's base), whether it could win next turn itself
(through cards linked to its own base), the race (the furthest row its
linked chain reaches minus the furthest row the opponent's reaches towards
it: advancing, cutting the opponent's chain by covering it, not joining the
chains), taking face-down cards and making doubles. It passes (and draws)
when no play scores better.

## Version history

* v1: the chain rule (``connection_rule="chain"``, default) and one
  keep-or-swap decision per base position (the number of building decisions
  no longer depends on the deal, closing v0's turn-order leak).
* v0: first version, with the ``attack_rule`` option; any face-up neighbour
  counts for a play.
"""

from __future__ import annotations

from kakurega.envs.animal_chain.env import assemble, check_options
from kakurega.envs.animal_chain.rules import DEFAULT_ATTACK_RULE, DEFAULT_MAX_TURNS, AnimalChainGame
from kakurega.envs.core.aec import TurnBasedAECEnv, wrap

OPTIONS = ("deck", "shape", "max_turns", "attack_rule", "connection_rule", "render_mode", "render_view")
#: the chain rule (the rules page's [decision, v1]); see "Balance"
DEFAULT_CONNECTION_RULE = "chain"


def raw_env(
    deck=None,
    shape=None,
    max_turns: int = DEFAULT_MAX_TURNS,
    attack_rule: str = DEFAULT_ATTACK_RULE,
    connection_rule: str = DEFAULT_CONNECTION_RULE,
    render_mode: str | None = None,
    render_view: str | None = None,
) -> TurnBasedAECEnv:
    """The unwrapped Animal Chain v1 env (options: see the env card)."""
    check_options(deck, shape, max_turns)
    # AnimalChainGame checks attack_rule and connection_rule (TypeError / ValueError naming them and the allowed values)
    game = AnimalChainGame(
        deck=deck, shape=shape, max_turns=max_turns, attack_rule=attack_rule,
        connection_rule=connection_rule, building="per_position",
    )
    return assemble(game, "animal_chain_v1", render_mode, render_view)


def env(**kwargs):
    """Animal Chain v1 in the standard PettingZoo wrappers (options: see the env card)."""
    return wrap(raw_env(**kwargs))
