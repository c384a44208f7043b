"""Screenshots of the web app for docs/web.md: the newest version of every game against the opponent the page
suggests, a few moves in, on a laptop (1280x800) and a phone (390x844).

    python -m tests.web.page_screenshots docs/screenshots/web

Needs what the browser tests need (Playwright, Debian's chromium). Each PNG is reduced to a palette of
at most 256 colours (Pillow) to stay small.
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np

from tests.web.browser import LAPTOP, PHONE, Server, launch, open_app, play_by_clicking, start_game

SIZES = {"laptop": LAPTOP, "phone": PHONE}


def take(out_dir: str, moves: int = 3) -> list[str]:
    """Take the screenshots into ``out_dir``; returns their paths."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from kakurega.envs.registry import latest_envs

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    with tempfile.TemporaryDirectory() as records, Server(records) as server, sync_playwright() as playwright:
        browser = launch(playwright)
        for env_name in latest_envs():
            game = env_name.rpartition("_v")[0]
            for size_name, size in SIZES.items():
                page = open_app(browser, server.url, size)
                start_game(page, env_name, seat="0", agents=None, speed=0)
                play_by_clicking(page, np.random.default_rng(1), stop_after=moves)
                page.wait_for_function("document.getElementById('table').dataset.waitingFor !== 'bot'")
                page.evaluate("window.scrollTo(0, 0)")
                path = os.path.join(out_dir, f"{game}-{size_name}.png")
                page.screenshot(path=path)
                with Image.open(path) as image:
                    image.convert("RGB").quantize(256).save(path, optimize=True)
                paths.append(path)
                page.close()
        browser.close()
    return paths


if __name__ == "__main__":
    for written in take(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/web"):
        print(f"{written}: {os.path.getsize(written) // 1024} KB")
