"""Shared test cases (mechanisms and small helpers) used by several test modules; imported as ``import cases``.

Unlike ``oracles.py`` these call privamp: they build the inputs of the bounds under test, not references.
"""

from __future__ import annotations

import functools as ft
import math
from collections.abc import Callable

import numpy as np
import pytest

from privamp.bounds import central_moments as cm
from privamp.bounds import profiles as pr
from privamp.bounds.base import gaussian_rdp, laplace_rdp, randomized_response_rdp
from privamp.cli import main


def rel(a: float, b: float) -> float:
    """Relative difference of ``a`` from ``b``."""
    return abs(a - b) / max(abs(b), 1e-300)


def gaussian_profile(sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    """log δ(e^ε) of the Gaussian mechanism at noise ``sigma`` (sensitivity 1)."""
    return lambda e: pr.gaussian_log_delta(e, sigma)


def laplace_profile(scale: float) -> Callable[[np.ndarray], np.ndarray]:
    """log δ(e^ε) of the Laplace mechanism at ``scale`` (sensitivity 1)."""
    return lambda e: pr.laplace_log_delta(e, scale)


def wor_gaussian(sigma: float) -> tuple:
    """(RDP curve, ε(∞), replace-one central moments) of the Gaussian, for Wang et al.'s bounds."""
    return ft.partial(gaussian_rdp, sigma=sigma), math.inf, ft.partial(cm.gaussian_log_central_moments, sigma=sigma)


def wor_laplace(b: float) -> tuple:
    """(RDP curve, ε(∞), replace-one central moments) of the Laplace mechanism."""
    return ft.partial(laplace_rdp, scale=b), 1.0 / b, ft.partial(cm.laplace_log_central_moments, scale=b)


def wor_rr(p: float) -> tuple:
    """(RDP curve, ε(∞), replace-one central moments) of randomized response."""
    return (
        ft.partial(randomized_response_rdp, p=p),
        abs(math.log(p / (1 - p))),
        ft.partial(cm.randomized_response_log_central_moments, p=p),
    )


#: The mechanisms of Wang et al. 2019's tables (docs/specs/without-replacement.md §7).
WOR_MECHANISMS = {
    "gauss5": wor_gaussian(5.0),
    "laplace2": wor_laplace(2.0),
    "rr06": wor_rr(0.6),
    "gauss1": wor_gaussian(1.0),
    "laplace05": wor_laplace(0.5),
    "rr09": wor_rr(0.9),
}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of one in-process call of the command line."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def fresh_query(expression: str) -> tuple[str, bool]:
    """``expression`` (over ``pa`` = privamp) evaluated in a fresh interpreter: its value's text and whether SciPy was
    imported on the way (the cold-path checks of the routes that avoid SciPy)."""
    import subprocess
    import sys

    code = (
        f"import sys, privamp as pa; v = {expression}; "
        "print(v, any(m.split('.')[0] == 'scipy' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return " ".join(out[:-1]), out[-1] == "True"
