"""Screenshot of the page for the README: ``python docs/screenshot.py [URL] [OUT] [WIDTHxHEIGHT]``.

Run ``retro serve`` first; the default URL shows three moves from the standard
start, with the perfect line from there. Uses Debian's Chromium through Playwright,
as the browser tests do.
"""

from __future__ import annotations

import sys

from playwright.sync_api import sync_playwright

URL = "http://127.0.0.1:8000/?start=M_XXXXO_XXXXX_XXOXX_XXXXX_OXXXX&moves=e1-e2,d1-e1,c3-c2"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def main(url: str = URL, out: str = "docs/web.png", size: str = "1280x800") -> None:
    width, height = (int(n) for n in size.split("x"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        page.wait_for_selector("#moves li")  # the moves came from the API
        if page.is_enabled("#show-line"):
            page.click("#show-line")
            page.wait_for_selector("#line li")
        page.mouse.move(0, 0)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=out, full_page=True)
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
