"""Hidden information: what each observation reveals, how knowledge moves, and determinization."""

import copy

import numpy as np
import pytest
from conformance import check_leaks, random_states
from leak_checks import information, words_of

from kakurega.agents.base import AgentContext
from kakurega.agents.move_features import MoveFeatures
from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.observation import KakurenboObserver
from kakurega.envs.kakurenbo.rules import DRAW, GIVE_CARD, TAKE, KakurenboGame
from kakurega.envs.kakurenbo_v0 import raw_env
from kakurenbo.helpers import SHORT_PARTS, ScriptedRng, build, card, known_by

K4 = KakurenboGame("kakurenbo", 4)
Y4 = KakurenboGame("kurayami", 4)
OBS_K4 = KakurenboObserver(K4)
OBS_Y4 = KakurenboObserver(Y4)


def seen_in_observation(observer_fn, state, seat):
    """``{relative row: card ids}`` of the observation's ``cards`` piece for ``seat``."""
    cards = observer_fn.layout.view(observer_fn(state, seat), "cards")
    out = {}
    for c, row in zip(*np.nonzero(cards)):
        out.setdefault(int(row), []).append(int(c))
    return out


# ------------------------------------------------ revealed cards show up
def test_a_given_card_shows_in_the_giver_and_the_receiver_observations_only():
    state = build(K4, {0: "Hr Cr", 1: "Wr", 2: "Wb", 3: "RAr"}, pile="Hb Cb RAb LAr LAb RLr RLb LLr LLb", stage=GIVE_CARD)
    K4.apply_action(state, K4.give_card_action(card("Cr"), 2), ScriptedRng())
    cr = card("Cr")
    assert cr in seen_in_observation(OBS_K4, state, 0).get(2, [])  # giver: row 2 = seat 2
    assert cr in seen_in_observation(OBS_K4, state, 2).get(0, [])  # receiver: its own hand
    for seat in (1, 3):
        assert all(cr not in cs for cs in seen_in_observation(OBS_K4, state, seat).values())


def test_a_taken_card_shows_in_the_taker_and_the_victim_observations():
    state = build(K4, {0: "Hr", 1: "RAr", 2: "Cr Wr Wb"}, pile="Hb Cb RAb LAr LAb RLr RLb LLr LLb", stage=TAKE)
    K4.apply_action(state, K4.take_action(0, 2), ScriptedRng([1]))  # the second red: Wr
    wr = card("Wr")
    assert wr in seen_in_observation(OBS_K4, state, 0)[0]
    assert wr in seen_in_observation(OBS_K4, state, 2)[2]  # seat 0 is 2 seats to seat 2's left
    assert all(wr not in cs for cs in seen_in_observation(OBS_K4, state, 1).values())


def arm_or_head_state(part):
    """Seat 0 gives the Curse and the red ``part`` to seat 1, which holds the blue one and Wr."""
    gone = {q: 3 for q in SHORT_PARTS if q not in (part, "W", "LL", "RL")}
    return build(K4, {0: f"K {part}r LLr", 1: f"{part}b Wr", 2: "RLr LLb", 3: "Wb RLb"}, discarded=gone)


SHOW_CASES = [
    # part, seats whose observation then shows Wr in seat 1's hand
    ("H",   [0, 1, 2, 3]),  # open hand: everyone
    ("RA",  [0, 1]),  # shown to the right neighbour (seat 0)
    ("LA",  [1, 2]),  # shown to the left neighbour (seat 2)
]


@pytest.mark.parametrize("part,viewers", SHOW_CASES)
def test_shown_and_open_hands_show_in_observations(part, viewers):
    state = arm_or_head_state(part)
    K4.apply_action(state, K4.curse_give_action(card(part + "r"), 1), ScriptedRng())
    wr = card("Wr")
    got = [s for s in range(4) if wr in seen_in_observation(OBS_K4, state, s).get((1 - s) % 4, [])]
    assert got == viewers
    open_piece = [OBS_K4.layout.view(OBS_K4(state, s), "open_hand")[(1 - s) % 4] for s in range(4)]
    assert open_piece == ([1.0] * 4 if part == "H" else [0.0] * 4)


def test_kurayami_phase_1_observation_has_no_own_faces_and_the_flip_adds_them():
    state = build(Y4, {0: "Hr Cr", 1: "Wr", 2: "Wb", 3: "RAr"}, pile="Hb Cb RAb LAr LAb RLr RLb LLr LLb")
    assert seen_in_observation(OBS_Y4, state, 0) == {}
    counts = OBS_Y4.layout.view(OBS_Y4(state, 0), "colour_counts")
    assert counts[0].tolist() == [2.0, 0.0]  # the backs are public
    flip = build(Y4, {0: "Hr Cr Wb Cb", 1: "Wr LAr LAb RAb", 2: "Hb RLr RLb", 3: "RAr LLr"}, pile="LLb")
    Y4.apply_action(flip, 0, ScriptedRng())
    assert seen_in_observation(OBS_Y4, flip, 0) == {0: [card("Hr"), card("Wb"), card("LLb")]}


# ------------------------------------------------ conservative forgetting
FORGET_CASES = [
    # giver's hand,  card given,  seat 0 knew it at seat 1 -> afterwards seat 0 places it at
    ("Cr Hb",        "Cr",        2),  # the only red of seat 1 moved: certain
    ("Cr Wr",        "Wr",        -1),  # two reds: the known Cr may have moved, forget it
    ("Cr Wr",        "Cr",        -1),  # ... also when it did move
    ("Cr Wb",        "Wb",        1),  # a blue moved: the red Cr surely stayed
]


@pytest.mark.parametrize("giver,given,after", FORGET_CASES)
def test_a_known_card_is_forgotten_when_it_may_have_moved_unseen(giver, given, after):
    rest = [x for x in "Hr Hb Cr Cb Wr Wb RAr RAb LAr LAb RLr RLb LLr LLb".split() if x not in giver.split()]
    state = build(K4, {0: rest[0], 1: giver, 2: rest[1], 3: rest[2]}, pile=" ".join(rest[3:]), stage=GIVE_CARD, actor=1)
    state.knowledge[0][card("Cr")] = 1  # seat 0 knows Cr is in seat 1's hand (say, it gave it)
    K4.apply_action(state, K4.give_card_action(card(given), 1), ScriptedRng())  # to seat 2
    assert state.knowledge[0][card("Cr")] == after


def test_counting_locates_cards_when_only_one_hand_has_room():
    # phase 2: the pile is empty; seat 0 knows its own cards, so the blue cards
    # it cannot place must be in seat 2's (the only other hand with blue cards)
    # and the reds in seat 1's
    state = build(K4, {0: "K Hr Cb", 1: "Cr Wr", 2: "Hb Wb", 3: ""}, discarded={q: 1 for q in SHORT_PARTS[3:]})
    assert known_by(state, 0) == {0: "Hr Cb", 1: "Cr Wr", 2: "Hb Wb"}
    # seat 3 places nothing: reds may be in seats 0 or 1, blues in seats 0 or 2
    assert known_by(state, 3) == {}


def test_counting_names_no_unseen_own_card_in_kurayami_phase_1():
    # every red is in a hand and only seat 0 holds red: counting would name seat 0's
    # own faces, which nobody may know before the flip
    state = build(Y4, {0: "Hr Cr Wr RAr LAr RLr LLr", 1: "Hb", 2: "Cb", 3: "Wb"}, pile="RAb LAb RLb LLb")
    assert all(Y4.known_row(state, s) == [-1] * 14 for s in range(4))
    assert seen_in_observation(OBS_Y4, state, 0) == {}
    kakurenbo_twin = build(K4, {0: "Hr Cr Wr RAr LAr RLr LLr", 1: "Hb", 2: "Cb", 3: "Wb"}, pile="RAb LAb RLb LLb")
    assert known_by(kakurenbo_twin, 1) == {0: "Hr Cr Wr RAr LAr RLr LLr", 1: "Hb"}  # faces seen: counting works


# ----------------------------------------------------- determinization
CONFIGS = [(v, n) for v in ("kakurenbo", "kurayami") for n in (3, 4, 5)]


@pytest.mark.parametrize("variant,n", CONFIGS)
def test_resample_hidden_leaks_nothing_on_many_states(variant, n):
    raw = raw_env(variant=variant, num_players=n)
    states = random_states(raw.game, seed=99 + n, num_games=12, every=2)
    assert any(s.phase == 2 for s in states) and any(s.phase == 1 for s in states)
    check_leaks(raw, states, min_changed_fraction=0.3, samples=2)


def test_resampling_changes_hidden_cards_and_keeps_known_ones():
    game = K4
    rng = np.random.default_rng(3)
    state = game.initial_state(rng)
    for _ in range(6):  # into the middle of phase 1
        game.apply_action(state, int(rng.choice(game.legal_actions(state))), rng)
    seat = 0
    known = {c: s for c, s in enumerate(state.knowledge[seat]) if s >= 0}
    other_hands, piles = set(), set()
    for k in range(60):
        sample = game.resample_hidden(state, seat, np.random.default_rng(k))
        for c, s in known.items():
            assert c in sample.hands[s]
        assert sample.hands[seat] == state.hands[seat]
        for s in range(4):
            assert [x & 1 for x in sample.hands[s] if x != CURSE] .count(0) == [x & 1 for x in state.hands[s] if x != CURSE].count(0)
        assert (sample.pile[-1] & 1) == (state.pile[-1] & 1) and sample.pile[0] == CURSE
        other_hands.add(tuple(tuple(h) for h in sample.hands[1:]))
        piles.add(tuple(sample.pile))
    assert len(other_hands) > 10 and len(piles) > 10


def test_kurayami_phase_1_resampling_redeals_the_players_own_faces():
    rng = np.random.default_rng(5)
    state = Y4.initial_state(rng)
    for _ in range(5):
        Y4.apply_action(state, int(rng.choice(Y4.legal_actions(state))), rng)
    own = {tuple(Y4.resample_hidden(state, 0, np.random.default_rng(k)).hands[0]) for k in range(40)}
    assert len(own) > 5  # the player cannot see its own faces, so they are re-dealt too
    reference = OBS_Y4(state, 0)
    for k in range(10):
        assert np.array_equal(OBS_Y4(Y4.resample_hidden(state, 0, np.random.default_rng(k)), 0), reference)


def test_in_a_determinization_others_know_what_the_player_knows_they_know():
    # seat 0 took Cb from seat 1 (so seat 1 knows Cb is with seat 0, and seat 0 knows that);
    # seat 2 gave Wr to seat 3 unseen by seat 0 (seat 0 cannot know what seat 2 knows)
    state = build(K4, {0: "Hr", 1: "Cb Wb", 2: "Hb Wr", 3: "RAr"}, pile="Cr RAb LAr LAb RLr RLb LLr LLb", stage=TAKE)
    K4.apply_action(state, K4.take_action(1, 1), ScriptedRng([0]))  # seat 0 takes Cb from seat 1
    state.actor = state.active = 2
    state.stage = GIVE_CARD
    K4.apply_action(state, K4.give_card_action(card("Wr"), 1), ScriptedRng())  # seat 2 gives Wr to seat 3
    assert state.knowledge[1][card("Cb")] == 0 and state.knowledge[2][card("Wr")] == 3
    sample = K4.resample_hidden(state, 0, np.random.default_rng(0))
    assert sample.knowledge[1][card("Cb")] == 0  # kept: seat 0 knows seat 1 knows
    assert sample.knowledge[2][card("Wr")] in (-1, 3)
    wr_holder = next((s for s in range(4) if card("Wr") in sample.hands[s]), -1)  # -1: the pile
    if wr_holder != 2:
        assert sample.knowledge[2][card("Wr")] == -1  # not seat 0's to know


def test_determinization_sampler_from_the_env():
    env = raw_env(variant="kakurenbo", num_players=3)
    env.reset(seed=4)
    sampler = env.determinization_sampler("player_0")
    sample = sampler(np.random.default_rng(0))
    assert np.array_equal(env.encode(sample, 0), env.observe("player_0")["observation"])


# ------------------------------------------------------------------ renders
def render_pairs(game, states, rng_seed=0):
    """``(state, twin, viewer)`` triples: ``twin`` looks the same as ``state`` to ``viewer``.

    For a seat, ``twin`` re-deals what the seat cannot see; for the spectator
    (``None``) it re-deals for a random seat, which keeps every public fact.
    """
    rng = np.random.default_rng(rng_seed)
    for index, state in enumerate(states):
        for viewer in [*range(game.num_players), None]:
            seat = int(rng.integers(game.num_players)) if viewer is None else viewer
            twin = game.resample_hidden(state, seat, np.random.default_rng(10_000 + index))
            yield state, twin, viewer


def render_differences(render, game, states) -> tuple[int, int]:
    """How many of the indistinguishable pairs ``render`` draws differently, out of how many."""
    differ = total = 0
    for state, twin, viewer in render_pairs(game, states):
        total += 1
        differ += render(game, state, viewer) != render(game, twin, viewer)
    return differ, total


def id_order_hand(state, seat, known):
    """The old renderer's hand: every card in card-id order (the leak this test guards against)."""
    shown = []
    for c in state.hands[seat]:
        if c == CURSE:
            shown.append("[Kaku's Curse]")
        elif known is not None and known[c] == seat:
            shown.append("[face]")
        else:
            shown.append(("[red ?]", "[blue ?]")[c & 1])
    return shown


@pytest.mark.parametrize("variant,n", CONFIGS)
def test_renders_are_identical_for_states_a_viewer_cannot_tell_apart(variant, n, monkeypatch):
    from kakurega.envs.kakurenbo import render

    game = KakurenboGame(variant, n)
    states = random_states(game, seed=7 + n, num_games=15, every=2)
    differ, total = render_differences(render.render_text, game, states)
    assert total > 300 and differ == 0, f"{differ} of {total} indistinguishable pairs rendered differently"
    # Control: drawing hands in card-id order (the old renderer) is caught.
    monkeypatch.setattr(render, "hand_pictures", id_order_hand)
    differ, total = render_differences(render.render_text, game, states)
    assert differ > total // 20, f"the control leaked in only {differ} of {total} pairs: the test would be vacuous"


def test_kurayami_own_unseen_hand_renders_as_grouped_backs():
    from kakurega.envs.kakurenbo.render import render_text

    state = build(Y4, {0: "Hb Cr Wb RAr", 1: "Hr", 2: "Cb", 3: "Wr"}, pile="RAb LAr LAb RLr RLb LLr LLb")
    line = next(x for x in render_text(Y4, state, 0).splitlines() if x.startswith("  player_0"))
    assert line.endswith("hand [red ?] [red ?] [blue ?] [blue ?]")


def test_spectator_sees_open_hands_and_viewers_see_known_faces_first():
    from kakurega.envs.kakurenbo.render import render_text

    state = build(K4, {0: "K Cr Wb", 1: "LLb RAr", 2: "Cb LLr", 3: "RAb Wr"}, discarded={"H": 1, "LA": 2, "RL": 3},
                  open_hands=(1,))
    lines = {v: render_text(K4, state, v).splitlines() for v in (None, 0)}

    def seat_line(v, s):
        return next(x for x in lines[v] if x.startswith(f"  player_{s}"))

    assert seat_line(None, 1).endswith("hand [right arm (red)] [left leg (blue)]")  # open to all
    assert seat_line(None, 0).endswith("hand [red ?] [blue ?] [Kaku's Curse]")
    assert seat_line(0, 0).endswith("hand [chest (red)] [waist (blue)] [Kaku's Curse]")


@pytest.mark.parametrize("variant", ["kakurenbo", "kurayami"])
def test_infos_hold_only_the_action_mask_of_the_agent_to_act(variant):
    env = raw_env(variant=variant, num_players=4)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        for agent, info in env.infos.items():
            assert set(info) == {"action_mask"}
            assert info["action_mask"].any() == (agent == env.agent_selection)
        env.step(int(rng.choice(env.legal_actions())))


# ------------------------------------------------ Kurayami's flip: hand-built twins
def before_the_flip(raw, seed: int) -> None:
    """Reset ``raw`` (a Kurayami env) with ``seed`` and play at random up to the draw that ends phase 1: the last
    body-part card on the pile, the Curse under it."""
    rng = np.random.default_rng(seed)
    raw.reset(seed=seed)
    while not (raw.game_state.stage == DRAW and len(raw.game_state.pile) == 2):
        raw.step(int(rng.choice(raw.legal_actions())))


def flip_twin(game, before, viewer, rng, attempts: int = 20):
    """A state ``viewer`` cannot tell from ``before`` (the draw before Kurayami's flip), before the flip or after it;
    None when ``attempts`` deals all left a pair in a hand.

    Nobody has seen a face in phase 1 (../shared/rules/kakurenbo.md, Kurayami); at the flip the viewer sees its own
    hand and every pair discarded. So the cards the other seats keep are dealt again among the other seats' places
    of their colour (the pile's top among them when another seat draws), the pairs stay with their discarders, and
    the drawer's cards of the drawn colour are shuffled between its hand and the top (it never saw which it drew).
    A deal that leaves a pair in a hand is dealt again: the flip would discard it for all to see.
    """
    assert before.stage == DRAW and len(before.pile) == 2 and all(c == -1 for row in before.knowledge for c in row)
    after = game.clone(before)
    game.apply_action(after, game.draw_action(), np.random.default_rng(0))
    paired = {c for c in range(14) if after.discarded_by[c >> 1] >= 0}
    drawer, drawn = before.actor, before.pile[-1]
    held = [list(hand) for hand in before.hands]  # each seat's cards at the flip, the drawn card last
    held[drawer].append(drawn)
    for _ in range(attempts):
        kept = [[c for s, cs in enumerate(held) if s != viewer for c in cs if c not in paired and c & 1 == colour]
                for colour in (0, 1)]
        dealt = [iter(rng.permutation(cards).tolist()) for cards in kept]
        new = [[c if s == viewer or c in paired else next(dealt[c & 1]) for c in cs] for s, cs in enumerate(held)]
        if any(c ^ 1 in cs for cs in new for c in cs if c not in paired):
            continue
        places = [i for i, c in enumerate(new[drawer]) if c & 1 == drawn & 1]
        for i, c in zip(places, rng.permutation([new[drawer][i] for i in places]).tolist()):
            new[drawer][i] = c
        twin = game.clone(before)
        twin.hands = [sorted(cs[:-1] if s == drawer else cs) for s, cs in enumerate(new)]
        twin.pile = [CURSE, new[drawer][-1]]
        return twin
    return None


def shown_to(raw, seat: int, pictures: bool, features=None) -> dict:
    """Everything ``raw`` hands ``seat`` now, and the spectator (who knows less than any seat), by channel.

    ``features``: the move-features object the seat's agent computes from its observation when it is to act (a
    policy reads them, and never plays the moves they prove dominated); None: not compared.
    """
    agent = raw.possible_agents[seat]
    observation = raw.observe(agent)
    shown = {
        "observation": observation["observation"].tobytes(),
        "action mask": observation["action_mask"].tobytes(),
        "infos": {key: value.tobytes() for key, value in raw.infos[agent].items()},
        "reward": (raw.rewards[agent], raw._cumulative_rewards[agent]),
        "end": (raw.terminations[agent], raw.truncations[agent]),
        "agent to act": raw.agent_selection,
        "render": raw.render_text(agent),
        "spectator render": raw.render_text(None),
        "words": words_of(raw.game, raw.game_state, seat),
    }
    if pictures:
        shown.update(picture=raw.scene(agent), spectator_picture=raw.scene(None))
    if features is not None and raw.agent_selection == agent and observation["action_mask"].any():
        proved = features.dominated(observation)
        shown.update({"move features": features(observation).tobytes(),
                      "moves proved dominated": None if proved is None else np.flatnonzero(proved).tolist()})
    return shown


def check_flip_twins(raw, seeds, twins: int = 2, depth: int = 4, words=None, pictures: int = 3, features=None,
                     viewers=None) -> dict:
    """Every channel of every seat is the same in a game and in its hand-built twins (:func:`flip_twin`) at the flip.

    Re-deals (``resample_hidden``) before the flip almost never turn up the viewer's hand and discards: at 3 players
    8 of 1,200 re-deals of flip moments matched, so the re-deal checks say next to nothing about the flip. For each
    seed's game, each seat (of ``viewers``; default every seat) and each of ``twins`` twins, the game and the
    twin are played on alike (one env and a copy with the twin's state, equal generators): before the draw, after
    the flip, and after each of ``depth`` random moves, every seat that still knows the same in both
    (``leak_checks.information``: the twin's seat, and any other seat whose hand the twin left alone; a seat that
    once told them apart is dropped, and the replay stops when none is left) must be shown the same observation,
    action mask, infos, reward, end flags, render and result words, the agent to act, the spectator's render (and
    in the first ``pictures`` games, both pictures right after the flip), and so must those seats' and the
    spectator's words for each move (``words``, default the rules' ``public_action_string``).
    Where such a seat is to act, so must its move features and the moves they prove dominated: ``features(env)``
    gives the features object of the seat's agent beside ``env`` (default: the env's declared
    :class:`~kakurega.agents.move_features.MoveFeatures`, one object for both).
    Returns counts: ``compared`` (seat-moments), ``flips`` (twins compared across the flip), ``changed`` (twins not
    equal to the game), ``featured`` (seat-moments whose move features were compared), ``others`` (seat-moments of
    a seat other than the twin's in states that differ), ``past`` (moments compared after the twin's own seat
    told the two apart, in states that differ).
    """
    game = raw.game
    words = words or game.public_action_string
    if features is None:
        honest = MoveFeatures(AgentContext.from_env(raw, raw.metadata["name"]))
        features = lambda env: honest  # noqa: E731
    counts = {"compared": 0, "flips": 0, "changed": 0, "featured": 0, "others": 0, "past": 0}

    def same(envs, seats, where, with_pictures=False):
        for seat in seats:
            shown = [shown_to(env, seat, with_pictures, features(env)) for env in envs]
            differ = [channel for channel in shown[0] if shown[0][channel] != shown[1].get(channel)]
            assert not differ, f"{where}: seat {seat} is shown another {', '.join(differ)} in a state it cannot tell apart"
            counts["compared"] += 1
            counts["featured"] += "move features" in shown[0]

    def alike(envs, seats):
        """The seats of ``seats`` that know the same in both envs."""
        return [s for s in seats if information(game, envs[0].game_state, s) == information(game, envs[1].game_state, s)]

    for game_number, seed in enumerate(seeds):
        before_the_flip(raw, seed)
        rng = np.random.default_rng([seed, 1])
        for seat in range(game.num_players) if viewers is None else viewers:
            for k in range(twins):
                twin_state = flip_twin(game, raw.game_state, seat, rng)
                if twin_state is None:
                    continue
                counts["changed"] += game.fingerprint(twin_state) != game.fingerprint(raw.game_state)
                envs = [copy.deepcopy(raw), copy.deepcopy(raw)]
                envs[1].game_state = twin_state
                envs[1]._after_transition()
                where = f"game {seed}, twin {k} for seat {seat}"
                # the twin's seat, and every other seat that knows the same in both (before the flip: every seat)
                watched = [seat] + [s for s in alike(envs, range(game.num_players)) if s != seat]
                same(envs, watched, f"{where}, before the flip")
                for step in range(depth + 1):
                    if envs[0].terminations[envs[0].agent_selection] or envs[0].truncations[envs[0].agent_selection]:
                        break
                    action = 0 if step == 0 else int(rng.choice(envs[0].legal_actions()))
                    if action not in envs[1].legal_actions():
                        break  # the actor (a seat no longer watched) can tell the two apart
                    befores = [game.clone(env.game_state) for env in envs]
                    for env in envs:
                        env.step(action)
                    watched = alike(envs, watched)
                    if not step:
                        assert seat in watched, f"{where}: the seat knows more after the flip in one of them (a bad twin)"
                    if not watched:
                        break
                    move = "the flip" if step == 0 else f"move {step} after the flip"
                    for viewer in [*watched, None]:
                        told = [words(b, action, env.game_state, viewer) for b, env in zip(befores, envs)]
                        assert told[0] == told[1], (
                            f"{where}: the words of {move} for {'the spectator' if viewer is None else f'seat {viewer}'} "
                            f"differ between states seat {watched[0] if viewer is None else viewer} cannot tell apart:"
                            f"\n  game: {told[0]!r}\n"
                            f"  twin: {told[1]!r}")
                    same(envs, watched, f"{where}, after {move}", with_pictures=step == 0 and game_number < pictures)
                    counts["flips"] += step == 0
                    if game.fingerprint(envs[0].game_state) != game.fingerprint(envs[1].game_state):
                        counts["others"] += sum(s != seat for s in watched)
                        counts["past"] += seat not in watched
    return counts


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_kurayami_flip_shows_each_seat_only_its_own_faces(n):
    raw = raw_env(variant="kurayami", num_players=n)
    counts = check_flip_twins(raw, seeds=range(10))
    assert counts["flips"] >= 16 * n and counts["changed"] >= 10 * n and counts["featured"] >= 10 * n, counts
    # at 3 players a twin that keeps a second seat's hand keeps every hand; from 4 on, other seats are compared too
    assert n == 3 or counts["others"] >= 20 * n, counts


def test_the_flip_twin_check_catches_words_that_name_the_drawn_card():
    from kakurega.envs.kakurenbo.rules import card_name

    raw = raw_env(variant="kurayami", num_players=4)
    game = raw.game

    def old_words(before, action, after, viewer):  # the control: the words of old named the card that ended phase 1
        told = game.public_action_string(before, action, after, viewer)  # whenever its pair went at the flip
        card = before.pile[-1] if ("flip",) in after.events else CURSE
        if card != CURSE and after.discarded_by[card >> 1] >= 0:
            told = told.replace(" draws a red card", f" draws {card_name(card)}", 1).replace(
                " draws a blue card", f" draws {card_name(card)}", 1)
        return told

    with pytest.raises(AssertionError, match="the words of the flip for (seat .|the spectator) differ"):
        check_flip_twins(raw, seeds=range(10), words=old_words)


def test_the_flip_twin_check_catches_an_observation_of_a_neighbours_faces(monkeypatch):
    raw = raw_env(variant="kurayami", num_players=4)
    honest = raw.encode

    def neighbour_shown(state, seat):  # the control: from the flip on, the faces of the left neighbour's hand
        faces = np.zeros(15, dtype=np.float32)
        if state.phase == 2:
            faces[state.hands[(seat + 1) % 4]] = 1
        return np.append(honest(state, seat), faces)

    monkeypatch.setattr(raw, "encode", neighbour_shown)
    with pytest.raises(AssertionError, match="after the flip: seat . is shown another observation"):
        check_flip_twins(raw, seeds=range(10))


def test_the_flip_twin_check_compares_every_seat_that_cannot_tell_the_twins_apart(monkeypatch):
    """Twins built for seat 0 only: a leak to seat 1 alone (from the flip on, seat 3's faces in its observation) is
    caught in the seat-moments where seat 1 still knows the same in both, not only in twins built for seat 1."""
    raw = raw_env(variant="kurayami", num_players=4)
    check_flip_twins(raw, seeds=range(10), viewers=[0])  # the honest env passes
    honest = raw.encode

    def seat_1_shown_seat_3(state, seat):
        faces = np.zeros(15, dtype=np.float32)
        if state.phase == 2 and seat == 1:
            faces[state.hands[3]] = 1
        return np.append(honest(state, seat), faces)

    monkeypatch.setattr(raw, "encode", seat_1_shown_seat_3)
    with pytest.raises(AssertionError, match="seat 1 is shown another observation"):
        check_flip_twins(raw, seeds=range(10), viewers=[0])


class NeighbourPeekingFeatures:
    """A leaky control: honest move features, plus the acting seat's left neighbour's card ids (their sum mod 7),
    read from the env's true state (a features object that looked past the observation)."""

    def __init__(self, env, honest):
        self.env, self.honest, self.size = env, honest, honest.size

    def __call__(self, observation):
        values = self.honest(observation).copy()
        state = self.env.game_state
        values[-1] = sum(state.hands[(state.actor + 1) % len(state.hands)]) % 7 / 7
        return values

    def dominated(self, observation):
        return self.honest.dominated(observation)


class NeighbourPeekingDominance(NeighbourPeekingFeatures):
    """A leaky control: honest move features, but the legal move it proves dominated is picked by the acting seat's
    left neighbour's card ids (their sum mod 7; Kurayami's random games prove no move dominated, so only a control
    shows that this channel is compared)."""

    def __call__(self, observation):
        return self.honest(observation)

    def dominated(self, observation):
        state = self.env.game_state
        legal = np.flatnonzero(observation["action_mask"])
        proved = np.zeros(len(observation["action_mask"]), dtype=bool)
        proved[legal[sum(state.hands[(state.actor + 1) % len(state.hands)]) % 7 % len(legal)]] = True
        return proved


@pytest.mark.parametrize("leaky,channel", [(NeighbourPeekingFeatures, "move features"),
                                           (NeighbourPeekingDominance, "moves proved dominated")])
def test_the_flip_twin_check_catches_move_features_that_read_a_hidden_hand(leaky, channel):
    raw = raw_env(variant="kurayami", num_players=4)
    honest = MoveFeatures(AgentContext.from_env(raw, raw.metadata["name"]))
    with pytest.raises(AssertionError, match=f"seat . is shown another {channel}"):
        check_flip_twins(raw, seeds=range(10), features=lambda env: leaky(env, honest))


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_kurayami_flip_shows_each_seat_only_its_own_faces_long(n):
    raw = raw_env(variant="kurayami", num_players=n)
    counts = check_flip_twins(raw, seeds=range(100, 200), twins=3, depth=8, pictures=10)
    assert counts["flips"] >= 250 * n, counts
