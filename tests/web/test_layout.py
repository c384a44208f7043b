"""The page fits a phone (390x844) and a laptop (1280x800): no sideways scroll, the table takes the width and
fits the window (on the phone zoomed in, inside its own box that pans: see test_access.py), the setup folds away
during play, choosers appear by the clicked shape, errors move nothing.

Run with the browser tests (``-m browser``; Debian's chromium through Playwright, skipped without it).
"""

from __future__ import annotations

import os

import pytest

from .browser import LAPTOP, PHONE, Server, _click, chromium_missing, launch, open_app, screenshot_dir, start_game

MISSING = chromium_missing()
if MISSING and os.environ.get("KAKUREGA_REQUIRE_BROWSER"):
    raise RuntimeError(f"KAKUREGA_REQUIRE_BROWSER is set but the browser tests cannot run: {MISSING}")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(MISSING), reason=MISSING or "")]

SIZES = {"phone": PHONE, "laptop": LAPTOP}

#: the page's measures: overflow, the table's box, every legal shape's and every visible control's box
MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const svg = document.querySelector('#table svg');
  return {
    scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth, height: window.innerHeight,
    scrollY: window.scrollY,
    table: svg ? box(svg) : null,
    // the table's own box (on a phone the picture is zoomed in and panned inside it)
    box: box(document.getElementById('table')), zoom: document.getElementById('table').dataset.zoom,
    // the width of the drawn picture (its viewBox scaled to fit the svg box, proportions kept)
    drawnWidth: svg ? (() => { const r = svg.getBoundingClientRect(), v = svg.viewBox.baseVal;
      return v.width * Math.min(r.width / v.width, r.height / v.height); })() : 0,
    legal: [...document.querySelectorAll('#table .legal')].map(box),
    controls: [...document.querySelectorAll('#play button, #play select, #play input')].filter(shown).map(box),
    setupOpen: document.getElementById('setup').open,
  };
}"""


def inside(rect, m, slack=1.0) -> bool:
    left, top, right, bottom = rect
    return left >= -slack and top >= -slack and right <= m["width"] + slack and bottom <= m["height"] + slack


def within(rect, outer, slack=1.0) -> bool:
    return (rect[0] >= outer[0] - slack and rect[1] >= outer[1] - slack and rect[2] <= outer[2] + slack
            and rect[3] <= outer[3] + slack)


def check_table(m, size: str) -> None:
    """The table inside the window with its legal shapes: on the laptop the whole picture; on the phone (zoomed
    in) its box, with a legal shape in sight and every other one reachable by panning the box."""
    if size == "laptop":
        assert m["zoom"] == "fit", "the laptop's table is zoomed in"
        assert inside(m["table"], m), f"the table {m['table']} is not inside the {m['width']}x{m['height']} window"
        assert m["legal"] and all(inside(rect, m) for rect in m["legal"]), "a legal shape (the hand) is off screen"
        return
    assert m["zoom"] == "in", "the phone's table is not zoomed in"
    assert inside(m["box"], m), f"the table's box {m['box']} is not inside the {m['width']}x{m['height']} window"
    sight = [max(m["box"][0], 0), max(m["box"][1], 0), min(m["box"][2], m["width"]), min(m["box"][3], m["height"])]
    assert any(within(rect, sight) for rect in m["legal"]), "no legal shape is in sight"
    assert all(within(rect, m["table"]) for rect in m["legal"]), "a legal shape is outside the picture"


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


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("env_name", _latest())
def test_every_game_fits_the_screen(server, browser, env_name, size):
    width, height = SIZES[size]
    page = open_app(browser, server.url, (width, height))
    start_game(page, env_name, seat="0", agents="random")
    page.wait_for_function("document.getElementById('table').dataset.waitingFor === 'you'", timeout=30_000)
    page.evaluate("window.scrollTo(0, 0)")
    m = page.evaluate(MEASURE)
    assert not m["setupOpen"], "the setup did not fold away when the game started"
    assert m["scrollWidth"] <= width, f"{env_name} scrolls sideways at {size}: {m['scrollWidth']} > {width}"
    assert m["drawnWidth"] >= (0.9 if size == "phone" else 0.5) * width, f"the table is drawn {m['drawnWidth']} wide"
    check_table(m, size)
    assert all(inside(rect, m) for rect in m["controls"]), "a control is off screen"
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_the_chooser_and_an_error_at_the_table(server, browser, size, tmp_path):
    width, height = SIZES[size]
    page = open_app(browser, server.url, (width, height))
    m = page.evaluate(MEASURE)
    assert m["scrollWidth"] <= width, f"the setup page scrolls sideways at {size}: {m['scrollWidth']} > {width}"
    # Animal Chain against random: the hand is on the table, and a card has several places to go
    start_game(page, "animal_chain_v1", seat="0", agents="random")
    page.wait_for_function("document.getElementById('table').dataset.waitingFor === 'you'", timeout=30_000)
    page.evaluate("window.scrollTo(0, 0)")
    m = page.evaluate(MEASURE)
    assert not m["setupOpen"], "the setup did not fold away when the game started"
    assert m["scrollWidth"] <= width, f"the page scrolls sideways at {size}: {m['scrollWidth']} > {width}"
    table_width = m["table"][2] - m["table"][0]
    assert table_width >= (0.9 if size == "phone" else 0.6) * width, f"the table is {table_width} px wide"
    check_table(m, size)
    assert all(inside(rect, m) for rect in m["controls"]), "a control is off screen"
    # an error floats over the page: the table does not move
    before = m["table"]
    page.evaluate("send({type: 'act', action: -1})")
    page.wait_for_selector("#error:not([hidden])")
    after = page.evaluate(MEASURE)
    assert after["table"] == before, "the error banner moved the table"
    assert inside(page.evaluate("(() => { const r = document.getElementById('error').getBoundingClientRect(); "
                                "return [r.left, r.top, r.right, r.bottom]; })()"), after)
    assert after["scrollWidth"] <= width
    # a shape standing for a few moves: the chooser appears by it, inside the window
    shapes = page.evaluate("""() => {
      const legal = new Set(document.getElementById('table').dataset.legal.split(',').map(Number));
      return [...document.querySelectorAll('#table [data-actions]')].map((e, i) => [i,
        e.dataset.actions.split(',').filter(s => s).map(Number).filter(a => legal.has(a)).length]);
    }""")
    index = next(i for i, count in shapes if 2 <= count <= 12)
    _click(page, index)
    page.wait_for_selector("#chooser:not([hidden])")
    chooser = page.evaluate("(() => { const r = document.getElementById('chooser').getBoundingClientRect(); "
                            "return [r.left, r.top, r.right, r.bottom]; })()")
    near = page.evaluate(f"(() => {{ const r = document.querySelectorAll('#table [data-actions]')[{index}]"
                         ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()")
    window = page.evaluate(MEASURE)
    assert inside(chooser, window), f"the chooser {chooser} is not inside the window"
    gap = max(chooser[1] - near[3], near[1] - chooser[3], 0)
    assert gap <= 24, f"the chooser is {gap} px away from the clicked shape"
    assert window["scrollWidth"] <= width
    page.screenshot(path=os.path.join(screenshot_dir(tmp_path), f"layout-{size}-chooser.png"))
    assert page.errors == []
    page.close()


def test_the_result_and_the_moves_stay_in_sight_on_a_laptop(server, browser, tmp_path):
    page = open_app(browser, server.url, LAPTOP)
    start_game(page, "animal_chain_v1", seat="watch", agents="heuristic random")
    page.wait_for_selector("#result.final:not([hidden])", timeout=60_000)
    page.evaluate("window.scrollTo(0, 0)")
    m = page.evaluate(MEASURE)
    rects = {selector: page.evaluate(f"(() => {{ const r = document.querySelector('{selector}')"
                                     ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()")
             for selector in ("#result", "#events")}
    assert inside(rects["#result"], m), f"the result {rects['#result']} is not inside the laptop's window"
    left, top, right, _ = rects["#events"]
    assert left >= 0 and right <= m["width"] and top <= m["height"] - 60, f"the moves {rects['#events']} are out of sight"
    assert inside(m["table"], m) and m["scrollWidth"] <= LAPTOP[0]
    assert page.errors == []
    page.close()
