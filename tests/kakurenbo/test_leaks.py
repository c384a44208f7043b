"""Hidden information: what each observation reveals, how knowledge moves, and determinization."""

import numpy as np
import pytest
from conformance import check_leaks, random_states

from kakurega.envs.kakurenbo.knowledge import CURSE
from kakurega.envs.kakurenbo.observation import KakurenboObserver
from kakurega.envs.kakurenbo.rules import GIVE_CARD, TAKE, KakurenboGame
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
