"""Screenshots of the planner for docs/planner.md, taken in headless Chromium (the browser tests' harness).

Run from the repository's root (needs chromium, chromium-driver and the browser extra; a few minutes on 2 cores):

    PYTHONPATH=src:tests python tests/serve/screenshots.py docs/planner [NAME.png ...]

(only the pictures named, when some are).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from serve.harness import answered, chromium, planner, updates

#: The pictures: file name, the inputs of the page's link, and the fields then typed (name, value).
SHOTS: tuple[tuple[str, dict[str, str], tuple[tuple[str, str], ...]], ...] = (
    ("planner-sigma.png", {"dataset-size": "60000", "batch-size": "256", "epochs": "20", "sigma": "1.1",
                           "delta": "1e-5"}, ()),
    ("planner-target.png", {"noise-mode": "target-epsilon", "dataset-size": "60000", "batch-size": "256",
                            "epochs": "20", "target-epsilon": "8", "delta": "1e-5"}, ()),
    ("planner-error.png", {"dataset-size": "60000", "batch-size": "256", "epochs": "20", "sigma": "1.1",
                           "delta": "1e-5"}, (("delta", "2"),)),
)
WIDTH = 1280


def _whole_page(driver: Any, path: Path) -> None:
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(WIDTH, height + 140)  # the window's frame is not part of the page
    driver.save_screenshot(str(path))


def take(out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with planner(workers=2, time_limit=600.0) as server, chromium(WIDTH, 1000) as driver:
        for name, link, typed in SHOTS:
            if names and name not in names:
                continue
            driver.set_window_size(WIDTH, 1000)
            driver.get(f"{server.url}#{urlencode(link)}")
            driver.refresh()  # the same page with another hash: load it anew
            answered(driver, 0, timeout=900)
            for field, value in typed:
                before = updates(driver)
                element = driver.find_element("id", field)
                element.clear()
                element.send_keys(value)
                answered(driver, before, timeout=900)
            _whole_page(driver, out / name)
            print(f"wrote {out / name}")


if __name__ == "__main__":
    take(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/planner"), sys.argv[2:])
