"""What the browser tests and the screenshot script share: a planner server in a thread, and headless Chromium.

Chromium is Debian's (``apt-get install chromium chromium-driver``; ``.ci/run`` installs it), driven by Selenium
(the ``browser`` extra) through ``/usr/bin/chromedriver``, with a fresh profile and no network of its own.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from privamp.cli import build_parser, main
from privamp.serve.app import make_server
from privamp.serve.server import PlannerServer

CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not (CHROMEDRIVER.exists() and CHROMIUM.exists()):
        return "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[browser]')"
    return None


@contextmanager
def planner(workers: int = 2, time_limit: float = 60.0, **options: Any) -> Iterator[PlannerServer]:
    """A planner server on a free port of 127.0.0.1, serving in a thread until the block ends."""
    server = make_server(build_parser(), main, "127.0.0.1", 0, workers=workers, time_limit=time_limit, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def chromium(width: int = 1280, height: int = 1100) -> Iterator[Any]:
    """A headless Chromium (Selenium WebDriver) with a fresh profile, quit and cleaned when the block ends."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="privamp-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def settled(driver: Any, timeout: float = 60.0) -> None:
    """Wait until the page has answered its inputs: nothing pending and the plot complete (or an error shown)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def done(d: Any) -> bool:
        return bool(d.execute_script(
            "return document.getElementById('status-text').textContent === 'up to date' && "
            "(document.getElementById('plot').dataset.complete === 'true' || "
            "document.querySelector('.error:not(:empty)') !== null)"
        ))

    WebDriverWait(driver, timeout, poll_frequency=0.1).until(done)
