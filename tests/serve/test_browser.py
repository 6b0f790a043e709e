"""The planner in a real browser (headless Chromium, Debian's package): fill the fields, read the interval, change
the scheme, check the plot is drawn and that the command line and the Python snippet shown reproduce the numbers,
and that a bad value shows its message beside its field.

Marked ``browser``: deselected by the README's test command, run by ``.ci/run`` as ``python -m pytest -m browser``;
skipped where Chromium or Selenium is missing.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stdout
from typing import Any
from urllib.parse import urlencode

import pytest
from serve.harness import answered, chromium, get_json, missing, planner, updates

from privamp.cli import main
from privamp.serve.server import PlannerServer

pytestmark = [pytest.mark.browser, pytest.mark.skipif(missing() is not None, reason=str(missing()))]

#: The inputs the page opens with (from its link): a small run, a few CPU seconds for the whole page.
LINK = {"dataset-size": "1000", "batch-size": "50", "epochs": "2", "sigma": "1.5", "delta": "1e-5"}


@pytest.fixture(scope="module")
def page() -> Iterator[tuple[PlannerServer, Any]]:
    with planner(workers=2, time_limit=120.0) as server, chromium() as driver:
        driver.get(f"{server.url}#{urlencode(LINK)}")
        answered(driver, 0)
        yield server, driver


def by_id(driver: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def fill(driver: Any, values: dict[str, str]) -> None:
    """Type ``values`` into their fields, as a user would, and wait for the page's answer."""
    before = updates(driver)
    for name, value in values.items():
        field = by_id(driver, name)
        field.clear()
        field.send_keys(value)
    answered(driver, before)


def choose(driver: Any, name: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    before = updates(driver)
    Select(by_id(driver, name)).select_by_value(value)
    answered(driver, before)


def statement_of(server: PlannerServer, query: dict[str, str]) -> dict[str, Any]:
    status, answer = get_json(server, f"/api/statement?{urlencode(query)}")
    assert status == 200, answer
    return dict(answer)


def shown_interval(driver: Any) -> tuple[float, float]:
    return (float(by_id(driver, "lower").get_attribute("data-value")),
            float(by_id(driver, "upper").get_attribute("data-value")))


def test_the_link_restores_the_inputs_and_the_interval_is_the_apis(page: tuple[PlannerServer, Any]) -> None:
    server, driver = page
    assert {k: by_id(driver, k).get_attribute("value") for k in LINK} == LINK
    answer = statement_of(server, {"sigma": "1.5", "sampling": "poisson", "batch-size": "50",
                                   "dataset-size": "1000", "epochs": "2", "delta": "1e-5"})
    assert shown_interval(driver) == (answer["lower_epsilon"], answer["epsilon"])
    assert by_id(driver, "statement").text == answer["text"].strip()


def test_filled_fields_change_the_interval_and_what_reproduces_it(page: tuple[PlannerServer, Any]) -> None:
    server, driver = page
    fill(driver, {"sigma": "1.2", "epochs": "3"})
    query = {"sigma": "1.2", "sampling": "poisson", "batch-size": "50", "dataset-size": "1000", "epochs": "3",
             "delta": "1e-5"}
    answer = statement_of(server, query)
    lower, upper = shown_interval(driver)
    assert (lower, upper) == (answer["lower_epsilon"], answer["epsilon"])
    cli = by_id(driver, "cli").text
    assert cli == "privamp statement " + " ".join(f"--{k} {v}" for k, v in query.items())
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*shlex.split(cli)[1:], "--json"]) == 0
    assert json.loads(out.getvalue())["epsilon"] == upper
    snippet = by_id(driver, "python").text
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    printed = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, env=env, check=True)
    assert f"certified interval: [{lower!r}, {upper!r}]" in printed.stdout
    assert "sigma=1.2" in by_id(driver, "share").get_attribute("href")


def test_another_scheme_and_the_plot_of_every_scheme(page: tuple[PlannerServer, Any]) -> None:
    server, driver = page
    choose(driver, "sampling", "without-replacement")
    answer = statement_of(server, {"sigma": "1.2", "sampling": "without-replacement", "batch-size": "50",
                                   "dataset-size": "1000", "epochs": "3", "delta": "1e-5"})
    assert shown_interval(driver)[1] == answer["epsilon"]
    assert by_id(driver, "plot").get_attribute("data-complete") == "true"
    drawn = driver.execute_script(
        "return [...document.querySelectorAll('#plot .series')].map(g => [g.dataset.scheme, "
        "g.classList.contains('chosen'), g.querySelectorAll('path.upper').length, g.querySelectorAll('circle').length])"
    )
    assert drawn == [["poisson", False, 1, 6], ["without-replacement", True, 1, 6], ["with-replacement", False, 1, 6],
                     ["none", False, 1, 6]]  # six lengths (0.5 to 3 epochs) per scheme
    assert "--sampling without-replacement" in by_id(driver, "cli").text


def test_a_bad_value_shows_the_apis_message_beside_its_field(page: tuple[PlannerServer, Any]) -> None:
    server, driver = page
    fill(driver, {"sigma": "-1"})
    status, answer = get_json(server, "/api/statement?" + urlencode(
        {"sigma": "-1", "sampling": "without-replacement", "batch-size": "50", "dataset-size": "1000", "epochs": "3",
         "delta": "1e-5"}))
    assert status == 400
    assert by_id(driver, "error-sigma").text == answer["error"]
    assert "invalid" in by_id(driver, "sigma").find_element("xpath", "..").get_attribute("class")
    assert "Traceback" not in driver.page_source
    fill(driver, {"sigma": "1.2"})
    assert by_id(driver, "error-sigma").text == ""


def test_a_target_epsilon_calibrates_sigma(page: tuple[PlannerServer, Any]) -> None:
    server, driver = page
    before = updates(driver)
    driver.execute_script("document.getElementById('target-epsilon').value = '4'; "  # the field shows once chosen
                          "document.querySelector('input[name=noise-mode][value=target-epsilon]').click()")
    answered(driver, before)
    status, answer = get_json(server, "/api/calibrate?" + urlencode(
        {"sampling": "without-replacement", "batch-size": "50", "dataset-size": "1000", "epochs": "3",
         "delta": "1e-5", "target-epsilon": "4"}))
    assert status == 200
    assert float(by_id(driver, "calibrated").get_attribute("data-value")) == answer["sigma"]
    assert shown_interval(driver)[1] <= 4
    assert by_id(driver, "cli").text.startswith("privamp calibrate ")
