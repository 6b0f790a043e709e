"""What the planner's tests and the screenshot script share: a server in a thread, a GET, and headless Chromium.

Chromium is Debian's (``apt-get install chromium chromium-driver``; ``.ci/run`` installs it), driven by Selenium
(the ``browser`` extra) through ``/usr/bin/chromedriver``, with a fresh profile and no network of its own.
"""

from __future__ import annotations

import http.client
import json
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


def get(server: PlannerServer, path: str, headers: dict[str, str] | None = None,
        timeout: float = 60.0) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` from ``server``: status, headers (lower-case names) and body."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def get_json(server: PlannerServer, path: str) -> tuple[int, Any]:
    """GET ``path``: status and the JSON answer."""
    status, _, body = get(server, path)
    return status, json.loads(body)


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


def updates(driver: Any) -> int:
    """How many input states the page has answered (``document.body.dataset.updated``)."""
    return int(driver.execute_script("return document.body.dataset.updated || '0'"))


def answered(driver: Any, after: int, timeout: float = 300.0) -> int:
    """Wait until the page has answered its inputs as they are (interval and plot, or an error shown), in an input
    state beyond the first ``after``; returns the new count."""
    from selenium.webdriver.support.ui import WebDriverWait

    def done(d: Any) -> bool:
        return updates(d) > after and d.execute_script("return document.body.dataset.state") == "done"

    WebDriverWait(driver, timeout, poll_frequency=0.1).until(done)
    return updates(driver)
