"""A real browser for the `rgr serve` tests: the OS's headless Chromium (installed from
the OS packages when missing, like every toolchain of tests/e2e/toolchains.py) driven by
Playwright for Python, whose own browser download is never used (executable_path).

One browser per test module (a fixture of the module): starting Chromium costs about
a second and a half on two cores."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, sync_playwright
from toolchains import ensure_program

#: What Chromium needs to run headless as root in a container: no sandbox of its own
#: (it cannot make one there), no GPU, nothing that reaches the network by itself.
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def ensure_chromium() -> str:
    return ensure_program("chromium", "chromium")


@contextmanager
def chromium() -> Iterator[Browser]:
    """Chromium from the OS, with a fresh profile (Playwright gives every launch its own
    temporary user data directory)."""
    path = ensure_chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True,
                                             args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Watched:
    """A page whose console messages, uncaught errors and dialogs are kept: anything
    a hostile note managed to run would show up here."""

    page: Page
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


def watched_page(browser: Browser) -> Watched:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    watched = Watched(page)

    def on_console(message: ConsoleMessage) -> None:
        watched.console.append(f"{message.type}: {message.text}")

    def on_dialog(dialog: Dialog) -> None:
        watched.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda error: watched.errors.append(str(error)))
    page.on("dialog", on_dialog)
    return watched
