"""The web app played without a mouse and on a phone, and what it says when the server goes away.

- **Keyboard:** Tab reaches every legal shape of the table (a button with the name of its ``<title>``, a visible
  focus ring), Enter or Space plays it as a click does, and the "which one?" chooser is used with the arrows and
  Enter, and closed with Escape (the focus goes back to the shape).
- **Phone:** on a 390x844 touch screen (and turned, 844x390) every legal shape of every game is at least
  ``TAP`` CSS px each way (the table is zoomed in and panned inside its own box; the page never scrolls
  sideways), the table's text is readable, and the Zoom button shows the whole table at once and back.
- **A lost connection:** when the server stops, the status line and the error banner say so, no shape stays
  highlighted or focusable, and the page refuses to send.
- **Names:** every control of the page (the replay's arrows and slider, the record's file input included) has a
  name a screen reader can say.

Run with the browser tests (``-m browser``; Debian's chromium through Playwright, skipped without it).
"""

from __future__ import annotations

import os
import statistics

import numpy as np
import pytest

from .browser import LAPTOP, PHONE, Server, chromium_missing, launch, open_app, play_by_clicking, start_game

MISSING = chromium_missing()
if MISSING and os.environ.get("KAKUREGA_REQUIRE_BROWSER"):
    raise RuntimeError(f"KAKUREGA_REQUIRE_BROWSER is set but the browser tests cannot run: {MISSING}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(MISSING), reason=MISSING or "")]

#: a phone held upright and turned
PHONES = {"portrait": PHONE, "landscape": (PHONE[1], PHONE[0])}
#: the smallest legal shape on a phone, CSS px each way (the page aims at 40: the scale is worked out from the
#: picture, so a shape of the smallest size comes out at 40 less a rounding)
TAP = 39.5
#: the median height of the table's text on a phone, CSS px
READABLE = 10

YOUR_TURN = "document.getElementById('table').dataset.waitingFor === 'you'"
MOVES = "document.getElementById('events').children.length"
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || !e.closest('#table') || !e.classList.contains('legal')) return null;
  const style = getComputedStyle(e), title = e.querySelector(':scope > title');
  return {index: [...document.querySelectorAll('#table .legal')].indexOf(e), role: e.getAttribute('role'),
          label: e.getAttribute('aria-label'), title: title ? title.textContent : null,
          outline: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth), stroke: style.stroke,
          strokeWidth: parseFloat(style.strokeWidth)};
}"""


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


def _latest():
    from kakurega.envs.registry import latest_envs

    return list(latest_envs())


def _tab_to_table(page, presses: int = 60) -> dict:
    """Tab from the top of the page until a legal shape of the table has the focus; its description."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is not None:
            return focused
    raise AssertionError(f"{presses} Tab presses never reached a legal shape of the table")


def test_play_by_keyboard(server, browser):
    page = open_app(browser, server.url, LAPTOP)
    start_game(page, "hidden_rooms_v0", seat="0", agents=None)
    page.wait_for_function(YOUR_TURN, timeout=30_000)
    legal = page.evaluate("document.querySelectorAll('#table .legal').length")
    assert legal > 0
    focused = _tab_to_table(page)
    # a button named by its <title>, with a ring to see where the keyboard is
    assert focused["role"] == "button" and focused["label"] and focused["label"] == focused["title"], focused
    assert focused["outline"] != "none" and focused["outlineWidth"] >= 2, f"no focus ring: {focused}"
    assert focused["strokeWidth"] >= 5, f"the focused shape is not drawn thicker: {focused}"
    # Tab goes through every legal shape, in the picture's order
    seen = [focused["index"]]
    for _ in range(legal - 1):
        page.keyboard.press("Tab")
        seen.append((page.evaluate(FOCUSED) or {}).get("index"))
    assert seen == list(range(legal)), f"Tab visits the legal shapes as {seen}"
    # Enter plays the focused shape, as a click does
    before = page.evaluate(MOVES)
    page.keyboard.press("Enter")
    page.wait_for_function(f"{MOVES} > {before}", timeout=30_000)
    # when it is the person's turn again the focus is back on the table: Space plays as Enter does
    page.wait_for_function(YOUR_TURN, timeout=30_000)
    page.wait_for_function("document.activeElement && document.activeElement.closest('#table .legal') !== null")
    before = page.evaluate(MOVES)
    page.keyboard.press(" ")
    page.wait_for_function(f"{MOVES} > {before}", timeout=30_000)
    assert page.errors == []
    page.close()


def test_the_chooser_by_keyboard(server, browser):
    page = open_app(browser, server.url, LAPTOP)
    # Animal Chain: a hand card has several places to go
    start_game(page, "animal_chain_v1", seat="0", agents="random")
    page.wait_for_function(YOUR_TURN, timeout=30_000)
    index = page.evaluate("""() => {
      const legal = new Set(document.getElementById('table').dataset.legal.split(',').map(Number));
      const shapes = [...document.querySelectorAll('#table .legal')];
      return shapes.findIndex(e => { const n = e.dataset.actions.split(',').filter(s => s).map(Number)
        .filter(a => legal.has(a)).length; return n >= 2 && n <= 12; });
    }""")
    assert index >= 0, "no legal shape stands for a few moves"
    focused = _tab_to_table(page)
    for _ in range(index - focused["index"]):
        page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED)["index"] == index
    # Enter opens the chooser, its first move focused; Escape closes it and goes back to the shape
    page.keyboard.press("Enter")
    page.wait_for_selector("#chooser:not([hidden])")
    assert page.evaluate("document.activeElement.closest('#chooser') !== null && document.activeElement.tagName") == "BUTTON"
    page.keyboard.press("Escape")
    page.wait_for_selector("#chooser", state="hidden")
    assert page.evaluate(FOCUSED)["index"] == index, "Escape did not bring the focus back to the shape"
    # Space opens it again (its release chooses nothing), the arrows go through the moves, Enter plays one
    before = page.evaluate(MOVES)
    page.keyboard.press(" ")
    page.wait_for_selector("#chooser:not([hidden])")
    page.wait_for_timeout(300)
    assert page.evaluate(MOVES) == before and page.is_visible("#chooser"), "the Space that opened the chooser chose"
    page.keyboard.press("ArrowDown")
    action = page.evaluate("document.activeElement.dataset.action")
    second = page.evaluate("document.querySelectorAll('#chooser button')[1].dataset.action")
    assert action == second, "ArrowDown did not go to the chooser's second move"
    page.keyboard.press("Enter")
    page.wait_for_function(f"{MOVES} > {before}", timeout=30_000)
    assert page.is_hidden("#chooser")
    assert page.errors == []
    page.close()


#: the on-screen measures of a phone's table: legal shapes (and whether in sight), text, overflow, the box
MEASURE = """() => {
  const rect = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const table = document.getElementById('table'), box = table.getBoundingClientRect();
  const sight = [Math.max(box.left, 0), Math.max(box.top, 0), Math.min(box.right, innerWidth), Math.min(box.bottom, innerHeight)];
  const legal = [...document.querySelectorAll('#table .legal')].map(rect);
  return {
    legal, sight, box: rect(table), zoom: table.dataset.zoom,
    inSight: legal.filter(([l, t, r, b]) => l >= sight[0] - 1 && t >= sight[1] - 1 && r <= sight[2] + 1 && b <= sight[3] + 1).length,
    text: [...document.querySelectorAll('#table svg text')].map(t => t.getBoundingClientRect().height).filter(h => h > 0),
    scrollWidth: document.documentElement.scrollWidth, width: innerWidth, height: innerHeight,
    svgWidth: document.querySelector('#table svg').getBoundingClientRect().width,
    buttons: [...document.querySelectorAll('#play button, header button')].filter(b => b.offsetParent)
      .map(b => [b.id, b.getBoundingClientRect().height]),
  };
}"""


@pytest.mark.parametrize("turn", PHONES)
@pytest.mark.parametrize("env_name", _latest())
def test_a_phone_can_tap_and_read_the_table(server, browser, env_name, turn):
    width, height = PHONES[turn]
    page = open_app(browser, server.url, (width, height), touch=True)
    start_game(page, env_name, seat="0", agents="heuristic")
    page.wait_for_function(YOUR_TURN, timeout=30_000)
    page.evaluate("window.scrollTo(0, 0)")
    m = page.evaluate(MEASURE)
    sides = [min(right - left, bottom - top) for left, top, right, bottom in m["legal"]]
    assert sides and min(sides) >= TAP, f"{env_name} ({turn}): a legal shape is {min(sides):.1f} px (< {TAP})"
    assert statistics.median(m["text"]) >= READABLE, f"{env_name} ({turn}): the table's text is {m['text']}"
    assert m["zoom"] == "in", f"{env_name} is not zoomed in on a phone ({turn})"
    assert m["scrollWidth"] <= width, f"{env_name} scrolls sideways ({turn}): {m['scrollWidth']} > {width}"
    left, top, right, bottom = m["box"]
    assert left >= 0 and right <= width and bottom <= height + 1, f"the table's box {m['box']} leaves the window"
    assert m["inSight"] > 0, f"{env_name} ({turn}): no legal shape in sight on the person's turn"
    assert all(h >= 39.5 for _, h in m["buttons"]), f"buttons too small to tap: {m['buttons']}"
    # the Zoom button: the whole table at once, and back
    page.tap("#zoom")
    page.wait_for_function("document.getElementById('table').dataset.zoom === 'fit'")
    whole = page.evaluate(MEASURE)
    assert whole["svgWidth"] <= width and whole["scrollWidth"] <= width
    page.tap("#zoom")
    page.wait_for_function("document.getElementById('table').dataset.zoom === 'in'")
    # a move, played by tapping (the shape is scrolled into the table's box first)
    before = page.evaluate(MOVES)
    play_by_clicking(page, np.random.default_rng(0), stop_after=1)
    assert page.evaluate(MOVES) > before
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.errors == []
    page.context.close()


def test_a_lost_connection_is_said_and_nothing_stays_playable(browser, tmp_path):
    with Server(tmp_path) as server:
        page = open_app(browser, server.url, LAPTOP)
        start_game(page, "hidden_rooms_v0", seat="0", agents=None)
        page.wait_for_function(YOUR_TURN, timeout=30_000)
        assert page.evaluate("document.querySelectorAll('#table .legal').length") > 0
    # the server has stopped
    page.wait_for_function("document.getElementById('connection').textContent !== 'connected'", timeout=15_000)
    status = page.inner_text("#status")
    assert "Lost the connection to the server" in status and "reload" in status and "Your turn" not in status
    assert page.is_visible("#error") and "Lost the connection" in page.inner_text("#error")
    assert page.evaluate("document.querySelectorAll('#table .legal, #table [tabindex=\"0\"]').length") == 0
    assert page.get_attribute("#table", "data-waiting-for") == ""
    assert page.evaluate("send({type: 'look'})") is False, "send() wrote to a closed socket"
    before = page.evaluate(MOVES)
    page.click("#table [data-actions] >> nth=0", force=True)
    page.keyboard.press("Enter")
    assert page.evaluate(MOVES) == before
    assert page.errors == []
    page.close()


@pytest.mark.slow
@pytest.mark.parametrize("env_name", _latest())
def test_a_full_game_on_a_phone(server, browser, env_name):
    """A whole game tapped on a zoomed-in phone table (each shape is panned into its box first), to the result."""
    page = open_app(browser, server.url, PHONE, touch=True)
    start_game(page, env_name, seat="0", agents="random")
    play_by_clicking(page, np.random.default_rng(11))
    page.wait_for_selector("#result.final:not([hidden])")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    assert page.errors == []
    page.context.close()


#: every control of the page without a name a screen reader can say: an input or select outside a <label> and
#: without aria-label, a button whose name (aria-label, else its text) has no word in it (``|<`` is read "vertical
#: line less than")
UNNAMED = """() => [...document.querySelectorAll('input, select, textarea, button')].filter((e) => {
  const name = e.getAttribute('aria-label') || (e.tagName === 'BUTTON' ? e.textContent : '');
  if (e.tagName === 'BUTTON') return !/[A-Za-z]{2}/.test(name);
  return !name.trim() && !e.closest('label') && !(e.id && document.querySelector(`label[for="${e.id}"]`));
}).map((e) => e.id || e.outerHTML.slice(0, 60))"""


def test_every_control_has_a_name(server, browser):
    page = open_app(browser, server.url)
    try:
        assert page.evaluate(UNNAMED) == []
        start_game(page, "kakurenbo_v0", preset=0, seat="0", agents="random")
        assert page.evaluate(UNNAMED) == []  # the table's controls too
    finally:
        page.close()
