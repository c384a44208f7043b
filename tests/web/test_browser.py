"""The web app in a real browser: Debian's chromium, headless, driven by Playwright.

The default run plays one short game by clicking and opens its record; the
``slow`` one (run by ``.ci/run``) plays a full game of every registered env
and configuration against ``random``. Each game's result on the page is
checked against the record the server wrote, and screenshots are saved
(``$KAKUREGA_ARTIFACTS/browser``, or pytest's temporary directory).
Without Chromium the tests are skipped, saying why; with
``KAKUREGA_REQUIRE_BROWSER=1`` (set by ``.ci/run``) they fail instead.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest
from conformance import registry_cases

from kakurega.agents.record import load_record, replay

from .browser import (
    Server,
    chromium_missing,
    launch,
    open_app,
    open_setup,
    page_result,
    play_by_clicking,
    screenshot_dir,
    start_game,
)

MISSING = chromium_missing()
if MISSING and os.environ.get("KAKUREGA_REQUIRE_BROWSER"):
    raise RuntimeError(f"KAKUREGA_REQUIRE_BROWSER is set but the browser tests cannot run: {MISSING}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(MISSING), reason=MISSING or "")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with Server(tmp_path_factory.mktemp("records")) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def shots(tmp_path):
    return screenshot_dir(tmp_path)


def _record_of(server, page) -> str:
    text = page.inner_text("#result")
    name = text.rsplit("Record saved: ", 1)[1].strip()
    assert os.path.dirname(name) == str(server.record_dir)
    return name


def _play_one(server, browser, shots, env_name, preset, seed) -> None:
    page = open_app(browser, server.url)
    try:
        start_game(page, env_name, preset=preset, seat="0", agents="random")
        page.screenshot(path=os.path.join(shots, f"{env_name}-{preset}-start.png"))
        play_by_clicking(page, np.random.default_rng(seed))
        page.screenshot(path=os.path.join(shots, f"{env_name}-{preset}-end.png"))
        returns = page_result(page)
        record = load_record(_record_of(server, page))
        assert record.env == env_name and record.agents["player_0"] == "human"
        assert returns == record.returns
        replay(record)  # the server's record replays to the returns the page showed
        # the page's move log tells every move, in order, in player_0's words (the rules' public words)
        log = page.eval_on_selector_all("#events li", "items => items.map(item => item.textContent)")
        expected = _move_words(record, "player_0")
        assert _in_order(expected, log), f"move log and the record's words differ ({len(expected)} moves)"
        assert log[-1].startswith("Game over. ")
        assert page.errors == []
    finally:
        page.close()


def _move_words(record, view: str) -> list[str]:
    """Every move of ``record`` as ``view`` is told it (``describe_move``, what the web log shows)."""
    from kakurega.agents.record import Replayer, describe_move

    replayer, words = Replayer(record), []
    raw = replayer.raw
    while replayer.next_move() is not None:
        agent, action = replayer.next_move()
        before = raw.game.clone(raw.game_state)
        replayer.step()
        words.append(describe_move(raw, agent, action, view, before))
    return words


def _in_order(expected: list[str], log: list[str]) -> bool:
    """True when ``expected`` appears in ``log`` in order (the log also holds round and result lines)."""
    lines = iter(log)
    return all(any(line == word for line in lines) for word in expected)


def test_play_a_game_by_clicking_and_step_through_its_record(server, browser, shots):
    page = open_app(browser, server.url)
    start_game(page, "kakurenbo_v0", preset=0, seat="0", agents="random")
    play_by_clicking(page, np.random.default_rng(0))
    returns = page_result(page)
    path = _record_of(server, page)
    record = load_record(path)
    assert returns == record.returns
    page.screenshot(path=os.path.join(shots, "kakurenbo-played.png"))
    # a second tab on the same game is refused, in words, and the first one is left as it was
    second = open_app(page.context.browser, page.url)
    second.wait_for_selector("#error:not([hidden])")
    assert "already open in another tab" in second.inner_text("#error")
    second.close()
    # open the record in the page, as player_0, and step through it
    open_setup(page)
    page.set_input_files("#record-file", path)
    page.fill("#record-view", "player_0")
    page.click("#open-record")
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.inner_text("#position-label") == f"move 0 / {len(record.moves)}"
    page.click("#next")
    page.wait_for_function("document.getElementById('position-label').textContent === "
                           f"'move 1 / {len(record.moves)}'")
    page.click("#last")
    page.wait_for_selector("#result:not([hidden])")
    assert page_result(page) == record.returns
    page.screenshot(path=os.path.join(shots, "kakurenbo-replay.png"))
    assert page.errors == []


def test_a_record_file_larger_than_the_server_takes_is_refused_in_words(server, browser, tmp_path):
    """The page knows the server's message limit (``/api/envs``) and refuses a larger record before sending it:
    the server would close the connection (code 1009, no words). The page keeps its connection and its table.
    The control: a record just under the limit is sent (and refused by the server, in words, as not a record)."""
    from kakurega.scripts.web.app import MAX_MESSAGE_BYTES

    page = open_app(browser, server.url)
    try:
        open_setup(page)
        large = tmp_path / "large.json"
        large.write_text("x" * (MAX_MESSAGE_BYTES + 100_000))
        page.set_input_files("#record-file", str(large))
        page.click("#open-record")
        page.wait_for_selector("#error:not([hidden])")
        assert f"the server takes at most {MAX_MESSAGE_BYTES:,}" in page.inner_text("#error")
        assert "kakurega replay FILE" in page.inner_text("#error")
        small = tmp_path / "small.json"
        small.write_text("x" * (MAX_MESSAGE_BYTES - 1000))
        page.set_input_files("#record-file", str(small))
        page.click("#open-record")
        page.wait_for_function("!document.getElementById('error').textContent.includes('takes at most')")
        page.wait_for_selector("#error:not([hidden])")
        assert "takes at most" not in page.inner_text("#error")
        assert page.inner_text("#connection") == "connected"
        assert page.errors == []
    finally:
        page.close()



def test_a_record_is_encoded_once_per_click(server, browser, tmp_path):
    """Opening a record (up to 2.5 MB) turns it into the message's text once: its size is checked on that text
    and that text is sent (it was encoded twice, once to check and once to send). The server refuses this
    record in words, which shows the click went through."""
    page = open_app(browser, server.url)
    try:
        open_setup(page)
        page.evaluate("""() => {
          window.recordEncodings = { json: 0, bytes: 0 };
          const stringify = JSON.stringify, encode = TextEncoder.prototype.encode;
          JSON.stringify = function (value, ...rest) {
            if (value && value.type === "open_record") window.recordEncodings.json += 1;
            return stringify.call(this, value, ...rest);
          };
          TextEncoder.prototype.encode = function (text) {
            if (typeof text === "string" && text.includes('"open_record"')) window.recordEncodings.bytes += 1;
            return encode.call(this, text);
          };
        }""")
        record = tmp_path / "record.json"
        record.write_text("x" * 100_000)
        page.set_input_files("#record-file", str(record))
        page.click("#open-record")
        page.wait_for_selector("#error:not([hidden])")
        assert "takes at most" not in page.inner_text("#error")  # sent, and refused by the server
        assert page.evaluate("window.recordEncodings") == {"json": 1, "bytes": 1}
        assert page.errors == []
    finally:
        page.close()

def test_setup_defaults_the_rules_and_the_result_in_words(server, browser, shots):
    from kakurega.agents.pretrained import default_opponent
    from kakurega.envs.registry import ENV_SPECS, latest_envs
    from kakurega.envs.rules_pages import title

    page = open_app(browser, server.url)
    labels = page.evaluate("[...document.getElementById('env').options].map((o) => [o.value, o.textContent])")
    assert labels == [[name, title(name)] for name in latest_envs()]  # the newest versions, by their names
    page.check("#older")
    values = page.evaluate("[...document.getElementById('env').options].map((o) => o.value)")
    assert values == list(ENV_SPECS)
    # KAKURENBO v0: the fields of its options, and the opponent follows the shipped bots
    page.select_option("#env", "kakurenbo_v0")
    fields = page.evaluate("[...document.querySelectorAll('#options [data-option]')].map((e) => "
                           "[e.dataset.option, e.tagName, e.type])")
    assert fields == [["variant", "SELECT", "select-one"], ["num_players", "INPUT", "number"],
                      ["max_steps", "INPUT", "number"], ["reward", "SELECT", "select-one"]]
    assert page.input_value("[data-option=num_players]") == "3"  # the first preset: 3 players
    assert page.input_value("#agents") == default_opponent("kakurenbo_v0", {"num_players": 3}) == "heuristic"
    page.fill("[data-option=num_players]", "4")
    page.dispatch_event("[data-option=num_players]", "change")
    assert page.input_value("#agents") == default_opponent("kakurenbo_v0", {"num_players": 4}) == "pretrained"
    page.fill("[data-option=num_players]", "9")
    page.click("#start")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "Options: num_players must be an integer from 3 to 5, got \"9\""
    # the rules of the chosen game
    page.click("#rules-button")
    page.wait_for_selector("#rules[open]")
    assert page.inner_text("#rules h2") == "KAKURENBO" and page.locator("#rules li").count() > 10
    page.screenshot(path=os.path.join(shots, "rules.png"))
    page.click("#rules-close")
    # bots play Animal Chain to the end: the result in words, the record below it
    start_game(page, "animal_chain_v1", seat="watch", agents="heuristic", seed=7)
    page.wait_for_selector("#result.final:not([hidden])", timeout=60_000)
    record = load_record(_record_of(server, page))
    end = replay(record).raw
    words = end.game.result_words(end.game_state, None)
    assert page.inner_text("#result .headline") == words[0]
    assert "+1" not in page.inner_text("#result") and "terminated" not in page.inner_text("#result")
    page.screenshot(path=os.path.join(shots, "animal_chain-result.png"))
    assert page.errors == []


def test_a_file_option_offers_the_files_it_loads(browser, shots, tmp_path):
    """Summer's map list holds the maps, not the decks or a broken map of ``--data-dir``; a game starts on the
    data directory's map chosen there."""
    from importlib import resources

    def shipped(name: str) -> str:
        return resources.files("kakurega.envs").joinpath("data", name).read_text(encoding="utf-8")

    data = tmp_path / "data"
    data.mkdir()
    (data / "my_map.yaml").write_text(shipped("summer_map.yaml"))
    (data / "my_deck.yaml").write_text(shipped("animal_chain_deck.yaml"))
    (data / "broken_map.yaml").write_text("name: half a map\n")
    with Server(tmp_path / "records", data_dir=data) as server:
        page = open_app(browser, server.url)
        open_setup(page)
        page.check("#older")

        def offered(env: str, option: str) -> list:
            page.select_option("#env", env)
            values = page.evaluate(f"[...document.querySelector('[data-option={option}]').options].map((o) => o.value)")
            return [json.loads(value) for value in values]

        assert offered("summer_hide_and_seek_v1", "map") == [None, "my_map.yaml", "summer_map.yaml"]
        assert offered("animal_chain_v1", "deck") == [None, "animal_chain_deck.yaml", "my_deck.yaml"]
        assert offered("animal_chain_v1", "shape") == [None, "animal_chain_shape.yaml"]
        assert offered("hidden_rooms_v0", "booklet") == [None, "hidden_rooms_monsters.yaml"]
        page.select_option("#env", "summer_hide_and_seek_v1")
        page.select_option("#preset", "0")
        page.select_option("#seat", "0")
        page.fill("#agents", "random")
        page.select_option("[data-option=map]", json.dumps("my_map.yaml"))
        page.click("#start")
        page.wait_for_selector("#table[data-waiting-for]", timeout=30_000)
        page.screenshot(path=os.path.join(shots, "summer-own-map.png"))
        assert page.locator("#error").is_hidden() and page.errors == []
        page.close()



def test_the_deck_list_marks_the_decks_too_small_for_the_board_chosen(browser, tmp_path):
    """A 13-card deck cannot fill the packaged board (46 cards needed) but fills a 4-card board (13): with the
    packaged board chosen it is marked and cannot be chosen; choosing the small board lets it be chosen, and going
    back marks it again. A deck that fits both (a copy of the packaged one) is never marked, and the person's choice
    of it stays through the board changes."""
    from importlib import resources

    small = resources.files("kakurega.envs").joinpath("data", "small")
    data = tmp_path / "data"
    data.mkdir()
    (data / "tiny_deck.yaml").write_text(small.joinpath("animal_chain_deck_12_1.yaml").read_text(encoding="utf-8"))
    (data / "tiny_board.yaml").write_text(small.joinpath("animal_chain_shape_1_2_1.yaml").read_text(encoding="utf-8"))
    (data / "my_deck.yaml").write_text(resources.files("kakurega.envs").joinpath("data", "animal_chain_deck.yaml")
                                       .read_text(encoding="utf-8"))
    deck, shape = "select[data-option=deck]", "select[data-option=shape]"
    with Server(tmp_path / "records", data_dir=data) as server:
        page = open_app(browser, server.url)
        open_setup(page)
        page.select_option("#env", "animal_chain_v1")

        def decks() -> dict:
            """Each deck choice: (its words, whether it can be chosen)."""
            return {json.loads(value): (text, not disabled) for value, text, disabled in page.evaluate(
                f"[...document.querySelectorAll('{deck} option')].map((o) => [o.value, o.textContent, o.disabled])")}

        packaged_board = decks()
        assert packaged_board == {None: ("the shipped one", True),
                                  "animal_chain_deck.yaml": ("animal_chain_deck.yaml", True),
                                  "my_deck.yaml": ("my_deck.yaml", True),
                                  "tiny_deck.yaml": ("tiny_deck.yaml (too few cards for this board)", False)}
        page.select_option(deck, json.dumps("my_deck.yaml"))
        page.select_option(shape, json.dumps("tiny_board.yaml"))
        assert decks() == {**packaged_board, "tiny_deck.yaml": ("tiny_deck.yaml", True)}
        assert page.input_value(deck) == json.dumps("my_deck.yaml")  # the person's choice stays: it fits
        page.select_option(deck, json.dumps("tiny_deck.yaml"))  # now it can be chosen
        page.select_option(shape, json.dumps(None))
        assert decks() == packaged_board  # marked again
        assert page.input_value(deck) == json.dumps("tiny_deck.yaml")  # chosen before: shown, marked as not fitting
        assert page.errors == []
        page.close()


def test_files_not_checked_yet_are_offered_apart(browser, tmp_path):
    """A listing that had no time to try a file (a large new data directory) names it in ``unchecked_files``:
    the page offers it in a group of its own, marked as not checked yet, under each file option (it was offered
    among the files the option loads); it can be chosen all the same."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "later.yaml").write_text("name: not tried yet\n")
    listed = {}

    def as_if_untried(route):  # the server's own listing, with later.yaml not tried yet by any option
        listing = route.fetch().json()
        for env, options in listing["file_choices"].items():
            for option in options:
                listing.setdefault("unchecked_files", {}).setdefault(env, {})[option] = ["later.yaml"]
        listed.update(listing)
        route.fulfill(json=listing)

    with Server(tmp_path / "records", data_dir=data) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route("**/api/envs", as_if_untried)
        page.goto(server.url)
        page.wait_for_selector("body[data-ready=true]")
        open_setup(page)
        page.check("#older")
        env, options = next(iter(listed["file_choices"].items()))
        option, loaded = next(iter(options.items()))
        assert "later.yaml" not in loaded  # no loader takes it: the server never offered it to the option
        page.select_option("#env", env)
        select = f"select[data-option={option}]"
        plain = page.evaluate(f"[...document.querySelectorAll('{select} > option')].map((o) => o.value)")
        assert [json.loads(value) for value in plain] == [None, *loaded]
        groups = page.evaluate(f"[...document.querySelectorAll('{select} > optgroup')].map((g) => "
                               "[g.label, [...g.children].map((o) => o.value)])")
        assert groups == [["not checked yet (being checked: the list updates by itself)", [json.dumps("later.yaml")]]]
        page.select_option(select, json.dumps("later.yaml"))
        assert page.input_value(select) == json.dumps("later.yaml")
        assert errors == []
        page.close()

def test_a_refused_new_game_leaves_the_open_one_playable_and_says_so(server, browser):
    """Start pressed with an opponent the server refuses: the page says the new game was refused and that the open
    one goes on, and it does (the page had let go of the open game before the answer came: its table no longer
    took clicks, and bots being watched stopped)."""
    page = open_app(browser, server.url)
    try:
        start_game(page, "kakurenbo_v0", preset=0, seat="0", agents="random")
        play_by_clicking(page, np.random.default_rng(1), stop_after=1)
        game = page.get_attribute("#table", "data-legal")
        open_setup(page)
        page.fill("#agents", "no_such_bot")
        page.click("#start")
        page.wait_for_selector("#error:not([hidden])")
        words = page.inner_text("#error")
        assert words.startswith("The new game was refused: ") and "no_such_bot" in words, words
        assert words.endswith("The game you had open goes on."), words
        assert page.get_attribute("#table", "data-legal") == game
        assert play_by_clicking(page, np.random.default_rng(2), stop_after=1) == 1  # the table still takes moves
        # bots watched: they go on moving after a refused Start
        start_game(page, "kakurenbo_v0", preset=0, seat="watch", agents="random", seed=3, speed=300)
        page.wait_for_function("document.getElementById('status').textContent.includes('player_0: random')")
        open_setup(page)
        page.fill("#agents", "no_such_bot")
        page.select_option("#seat", "0")
        page.click("#start")
        page.wait_for_function("document.getElementById('error').textContent.startsWith('The new game was refused')")
        moves = page.evaluate("document.getElementById('events').children.length")
        page.wait_for_function(f"document.getElementById('events').children.length > {moves}", timeout=10_000)
        assert page.errors == []
    finally:
        page.close()


def test_files_not_checked_yet_move_into_the_list_without_a_reload(browser, tmp_path):
    """The page asks for the lists again while some files are not checked yet (it once kept them apart until the
    person reloaded the page): a map the server checks later joins the map list, and stays chosen."""
    from importlib import resources

    data = tmp_path / "data"
    data.mkdir()
    (data / "later_map.yaml").write_text(
        resources.files("kakurega.envs").joinpath("data", "summer_map.yaml").read_text(encoding="utf-8"))
    asked = []

    def first_untried(route):  # the first listing had no time for later_map.yaml; the next ones tried it
        listing = route.fetch().json()
        asked.append(listing)
        if len(asked) == 1:
            for options in listing["file_choices"].values():
                for names in options.values():
                    if "later_map.yaml" in names:
                        names.remove("later_map.yaml")
            listing["unchecked_files"] = {"summer_hide_and_seek_v1": {"map": ["later_map.yaml"]}}
        route.fulfill(json=listing)

    with Server(tmp_path / "records", data_dir=data) as server:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route("**/api/envs", first_untried)
        page.goto(server.url)
        page.wait_for_selector("body[data-ready=true]")
        open_setup(page)
        page.check("#older")
        page.select_option("#env", "summer_hide_and_seek_v1")
        select = "select[data-option=map]"
        assert page.locator(f"{select} > optgroup").count() == 1  # offered apart at first
        page.select_option(select, json.dumps("later_map.yaml"))
        page.wait_for_function(f"document.querySelectorAll('{select} > optgroup').length === 0", timeout=10_000)
        plain = page.evaluate(f"[...document.querySelectorAll('{select} > option')].map((o) => o.value)")
        assert [json.loads(value) for value in plain] == [None, "later_map.yaml", "summer_map.yaml"]
        assert page.input_value(select) == json.dumps("later_map.yaml")  # the person's choice kept
        count = len(asked)
        page.wait_for_timeout(4000)
        assert len(asked) == count  # every file checked: the page stops asking
        page.evaluate("document.getElementById('setup').open = false")
        page.evaluate("document.getElementById('setup').open = true")
        for _ in range(50):
            if len(asked) > count:
                break
            page.wait_for_timeout(100)
        assert len(asked) == count + 1  # opening the setup asks again
        assert errors == []
        page.close()


def test_watch_bots_play_each_other(server, browser, shots):
    page = open_app(browser, server.url)
    start_game(page, "animal_chain_v1", preset=0, seat="watch", agents="heuristic random", seed=5, speed=0)
    page.wait_for_selector("#result:not([hidden])", timeout=60_000)
    record = load_record(_record_of(server, page))
    assert record.agents == {"player_0": "heuristic", "player_1": "random"}
    assert page_result(page) == record.returns
    assert page.evaluate("document.getElementById('events').children.length") == len(record.moves) + 1
    page.screenshot(path=os.path.join(shots, "animal_chain-watched.png"))
    assert page.errors == []


@pytest.mark.slow
@pytest.mark.parametrize("env_name,options", registry_cases())
def test_a_full_game_of_every_env_by_clicking(server, browser, shots, env_name, options):
    from kakurega.envs.registry import get_spec

    preset = list(get_spec(env_name).configurations).index(options)
    _play_one(server, browser, shots, env_name, preset, seed=7)


def test_two_people_at_one_table_each_by_their_own_link(server, browser, shots):
    host = open_app(browser, server.url)
    start_game(host, "animal_chain_v1", seat="0", agents="human")
    host.wait_for_selector("#invites input[data-seat=player_1]")
    link = host.input_value("#invites input[data-seat=player_1]")
    assert "#seat=" in link and link != host.url
    guest = open_app(browser, link)
    guest.wait_for_selector("#table[data-waiting-for]")
    assert "player_1" in guest.inner_text("#status") and guest.locator("#invites").is_hidden()
    assert guest.inner_html("#table") != host.inner_html("#table")  # each its own view
    rng = np.random.default_rng(3)
    movers = set()
    for _ in range(6):  # whoever is to move plays by clicking on their own page; the other page follows
        deadline = time.monotonic() + 15
        while not (to_move := [p for p in (host, guest) if p.get_attribute("#table", "data-waiting-for") == "you"]):
            assert time.monotonic() < deadline, "neither page was asked to move"
            time.sleep(0.1)
        assert len(to_move) == 1
        play_by_clicking(to_move[0], rng, stop_after=1)
        movers.add(to_move[0])
    assert movers == {host, guest}
    count = {}  # the page that did not move last learns of the last move at its next look (within a second)
    deadline = time.monotonic() + 10
    while len(set(count.values())) != 1:
        assert time.monotonic() < deadline, f"the pages' move logs differ: {count}"
        count = {p: p.evaluate("document.getElementById('events').children.length") for p in (host, guest)}
        time.sleep(0.1)
    count = count[host]
    assert count >= 6 and host.inner_html("#table") != guest.inner_html("#table")
    guest.screenshot(path=os.path.join(shots, "animal_chain-guest.png"))
    assert host.errors == [] and guest.errors == []
    host.close()
    guest.close()


def test_the_rules_button_says_when_the_rules_cannot_be_loaded(server, browser):
    """The Rules button once did nothing at all when its request failed (the server stopped, the network dropped)."""
    page = open_app(browser, server.url)
    try:
        page.route("**/api/rules/**", lambda route: route.abort())
        page.click("#rules-button")
        page.wait_for_selector("#error:not([hidden])")
        assert page.inner_text("#error").startswith("Could not load the rules from the server")
        assert not page.is_visible("#rules")
    finally:
        page.close()
