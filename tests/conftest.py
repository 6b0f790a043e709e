"""Suite-wide options: the ``slow`` marker's ``--run-slow`` switch.

Tests marked ``@pytest.mark.slow`` (long-running checks) are deselected by default (``-m "not slow"`` in the pytest
options of pyproject.toml). Run them with ``python -m pytest -m slow`` (only them) or ``python -m pytest --run-slow``
(everything). An explicit ``-m EXPR`` on the command line replaces the default expression as usual.
"""

from __future__ import annotations

import pytest

DEFAULT_MARKEXPR = "not slow and not browser"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="also run tests marked slow")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--run-slow") and config.option.markexpr == DEFAULT_MARKEXPR:
        config.option.markexpr = ""


#: Tests run only with the slow ones (``--run-slow`` or ``-m slow``): each costs 3-6 s of CPU and re-checks, at one
#: more point, what a faster test of the same module checks in the default run (which must take at most 8 minutes
#: from a fresh clone on a 2-core machine, install included).
SLOW_POINTS = frozenset({
    "tests/routes/test_contract.py::test_route_contract[1-steps-16-profile]",
    "tests/routes/test_contract.py::test_route_contract[1-steps-4-profile]",
    "tests/soundness/test_sweeps.py::test_rdp_bounds_against_oracle_table[poisson|add-remove|gaussian]",
    "tests/soundness/test_sweeps.py::test_rdp_bounds_against_oracle_table[wor|add-remove|gaussian]",
    "tests/pld/test_group_pairs.py::test_with_replacement_group_matches_mpmath[replace-one-remove]",
    "tests/pld/test_vs_dp_accounting.py::test_interval_contains_dp_accounting_fine[0.1-2.0-10]",
    "tests/routes/test_pld_route.py::test_round_trip[wor-replace-one]",
    "tests/soundness/test_sweeps.py::test_rdp_bounds_against_oracle_table[wor|replace-one|gaussian]",
    "tests/bounds/test_fixed_size.py::test_fixed_size_replace_one_lower_is_below_its_pairs",
    "tests/pld/test_with_replacement.py::test_composed_lower_bound_is_below_the_certified_upper",
    "tests/pld/test_with_replacement.py::test_one_step_matches_the_binomial_mixture[1.5-replace-one-remove]",
    "tests/pld/test_with_replacement.py::test_one_step_matches_the_binomial_mixture[0.2-add-remove-remove]",
    "tests/test_accountant.py::test_epsilon_and_delta_are_inverse_within_the_stated_margin[profile-5.0-0.1-64-1e-10]",
    "tests/bounds/amplification/test_closed_forms.py::test_with_replacement_mixture_and_its_truncation[2-20000]",
    "tests/routes/test_profile.py::test_epsilon_floor_is_below_the_composed_answer[2-1.0-0.004-1e-05]",
    "tests/bounds/test_fixed_size.py::test_upper_bounds_above_realisable_pairs_and_lower_bounds[20.0-0.3]",
    "tests/bounds/test_without_replacement.py::test_against_exact_divergence_of_gaussian_pairs[1.0-0.5]",
    "tests/test_sensitivity.py::test_no_sampling_sensitivity[1.5]",
    "tests/benchmarks/test_compare.py::test_quick_row_writes_report",
    "tests/soundness/test_sweeps.py::test_monotone_and_inverse",
    "tests/test_coverage.py::test_no_nan_over_the_issue_range",
    "tests/dpsgd/test_dpsgd.py::test_calibrate_batch_size_round_trip_and_monotone",
    "tests/pld/test_pairs.py::test_poisson_remove_and_add_against_quadrature[2.0-0.2]",
    "tests/bounds/test_without_replacement.py::test_against_exact_divergence_of_gaussian_pairs[5.0-0.01]",
    "tests/bounds/test_without_replacement.py::test_against_exact_divergence_of_gaussian_pairs[20.0-0.2]",
    "tests/bounds/test_fixed_size.py::test_upper_bounds_above_realisable_pairs_and_lower_bounds[6.0-0.0024]",
}) | {
    # the mpmath one-step check of the user-level Poisson pair at its random points: by default one point with both
    # directions (the largest rate, q = 0.28) and one with k = 5 at the largest ε (remove)
    f"tests/pld/test_group_pairs.py::test_poisson_group_one_step_matches_mpmath[{direction}-{point}]"
    for point, directions in (
        ("1.1121374505907125-0.0027058955701155835-5-0.9639373006076131", ("remove", "add")),
        ("2.3629082318061827-0.003539677438974572-4-1.9350171065192554", ("remove", "add")),
        ("1.9591566090106876-0.012896902620638154-2-0.4335467648010968", ("remove", "add")),
        ("1.1256826727974467-0.0028805760603817063-2-2.6482911180391615", ("remove", "add")),
        ("1.537978999267556-0.03262007879485196-5-2.851649093174213", ("add",)),
    )
    for direction in directions
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid in SLOW_POINTS:
            item.add_marker(pytest.mark.slow)
