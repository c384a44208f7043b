"""Driving the web app's page in headless Chromium (Playwright), for the browser tests.

Debian's chromium is used as installed (``executable_path``): nothing is
downloaded when the tests run. :func:`play_by_clicking` plays a game the way
a person does: it picks a legal action, finds on the pictured table the
fewest clicks that leave exactly that action (the page's own click
resolution narrows the candidates click by click) and clicks those shapes
with the mouse.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np

CHROMIUM = os.environ.get("KAKUREGA_CHROMIUM", "/usr/bin/chromium")


def chromium_missing() -> str:
    """Why the browser tests cannot run here ("" when they can)."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install 'kakurega[browser]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set KAKUREGA_CHROMIUM)"
    return ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """``kakurega serve`` in a subprocess on a free port (``data_dir``: its ``--data-dir``), stopped on exit."""

    def __init__(self, record_dir, data_dir=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.record_dir = record_dir
        self.data_dir = data_dir
        self.process = None

    def __enter__(self) -> Server:
        command = [sys.executable, "-m", "kakurega.scripts.cli", "serve", "--port", str(self.port),
                   "--record-dir", str(self.record_dir), "--quiet"]
        if self.data_dir is not None:
            command += ["--data-dir", str(self.data_dir)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kakurega serve exited: {self.process.stdout.read()}")
            try:
                urllib.request.urlopen(self.url, timeout=1).read()
                return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("kakurega serve did not answer within 60 s")

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])


#: the screen sizes the page must fit: a phone and a laptop
PHONE, LAPTOP = (390, 844), (1280, 800)


def open_app(browser, url, size: tuple[int, int] = (1400, 1000), touch: bool = False):
    """The app in a new page (``touch``: a phone's, in its own context: touch events, a mobile viewport, scale 3;
    close it with ``page.context.close()``)."""
    viewport = {"width": size[0], "height": size[1]}
    if touch:
        page = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True, device_scale_factor=3).new_page()
    else:
        page = browser.new_page(viewport=viewport)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_function("document.getElementById('connection').textContent === 'connected'")
    page.errors = errors
    return page


def open_setup(page) -> None:
    """Unfold the setup (it folds away while a game is played)."""
    page.evaluate("document.getElementById('setup').open = true")


def start_game(page, env: str, preset: int = 0, seat="0", agents: str | None = "random", seed: int | None = None,
               speed: int = 0, view: str = "spectator") -> None:
    """Start a game from the setup form (a ``seed`` only to watch bots as the spectator: the server draws the rest)."""
    open_setup(page)
    if not page.evaluate("(name) => [...document.getElementById('env').options].some((o) => o.value === name)", env):
        page.check("#older")  # an older version: behind the switch
    page.select_option("#env", env)
    page.select_option("#preset", str(preset))
    page.select_option("#seat", str(seat))
    if seat == "watch":
        page.select_option("#view", view)
    if agents is not None:  # None: the opponent the page suggests
        page.fill("#agents", agents)
    if seed is not None:
        page.fill("#seed", str(seed))
    page.evaluate(f"document.getElementById('speed').value = {speed}")
    page.click("#start")
    page.wait_for_selector("#table[data-waiting-for]", timeout=30_000)


def _shapes(page) -> list[tuple[int, list[int]]]:
    """``(index, actions)`` of every clickable shape now on the table."""
    return page.evaluate(
        "[...document.querySelectorAll('#table [data-actions]')].map((e, i) => "
        "[i, e.dataset.actions.split(',').filter(s => s).map(Number)])"
    )


def click_path(shapes, legal: set, action: int, max_clicks: int = 3) -> list[int] | None:
    """The fewest shape clicks that leave exactly ``action`` (the page's rule: candidates meet the clicked shape's actions)."""
    frontier = [(frozenset(legal), [])]
    useful = [(i, set(actions)) for i, actions in shapes if action in actions]
    for _ in range(max_clicks):
        following = []
        for candidates, path in frontier:
            for index, actions in useful:
                left = candidates & actions
                if left == {action}:
                    return path + [index]
                if action in left and left != candidates:
                    following.append((frozenset(left), path + [index]))
        frontier = following
    return None


def play_by_clicking(page, rng: np.random.Generator, max_moves: int = 2_000, stop_after: int | None = None) -> int:
    """Play the person's moves by clicking until the game is over (or ``stop_after`` moves were played); returns
    the number of the person's moves."""
    moves = 0
    while True:
        if moves == stop_after:
            return moves
        page.wait_for_function(
            "['you', ''].includes(document.getElementById('table').dataset.waitingFor) || "
            "document.getElementById('table').dataset.over === 'true'", timeout=60_000)
        if page.get_attribute("#table", "data-over") == "true":
            return moves
        legal = {int(a) for a in page.get_attribute("#table", "data-legal").split(",")}
        shapes = _shapes(page)
        action = int(rng.choice(sorted(legal)))
        path = click_path(shapes, legal, action)
        before = page.evaluate("document.getElementById('events').children.length")
        if path is None:  # no shapes tell it apart: one click, then the page's short list by name
            first = min((len(legal & set(actions)), i) for i, actions in shapes if action in actions)[1]
            _click(page, first)
            page.click(f"#chooser button[data-action='{action}']")
        else:
            for step, index in enumerate(path):
                button = f"#chooser button[data-action='{action}']"
                if step and page.is_visible(button) and page.evaluate(_POINT_ON, index) is None:
                    page.click(button)  # the chooser floats over the next shape: choose by name, as a person would
                    break
                _click(page, index)
        page.wait_for_function(f"document.getElementById('events').children.length > {before}", timeout=30_000)
        moves += 1
        assert moves <= max_moves, "the game did not end"


_POINT_ON = """index => {
  // a point of the shape where a click reaches it, or a shape standing for the same actions drawn over it
  const shape = document.querySelectorAll('#table [data-actions]')[index];
  shape.scrollIntoView({block: 'center'});
  const box = shape.getBoundingClientRect();
  for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85]) {
    for (const fx of [0.5, 0.3, 0.7, 0.15, 0.85]) {
      const x = box.left + fx * box.width, y = box.top + fy * box.height;
      const hit = document.elementFromPoint(x, y);
      const target = hit && hit.closest('[data-actions]');
      if (target && target.dataset.actions === shape.dataset.actions) return [x, y];
    }
  }
  return null;
}"""


def _click(page, index: int) -> None:
    """A mouse click on clickable shape ``index`` (where no other clickable shape covers it)."""
    point = page.evaluate(_POINT_ON, index)
    assert point is not None, f"clickable shape {index} is covered by other clickable shapes everywhere"
    page.mouse.click(*point)


def page_result(page) -> dict:
    page.wait_for_selector("#result.final:not([hidden])")  # (between rounds the box tells the round)
    return json.loads(page.get_attribute("#result", "data-returns"))


def screenshot_dir(default) -> str:
    """Where screenshots go: $KAKUREGA_ARTIFACTS/browser if set, else ``default``."""
    root = os.environ.get("KAKUREGA_ARTIFACTS")
    path = os.path.join(root, "browser") if root else str(default)
    os.makedirs(path, exist_ok=True)
    return path


__all__ = ["Server", "chromium_missing", "launch", "open_app", "open_setup", "start_game", "play_by_clicking", "page_result",
           "screenshot_dir", "shutil"]
