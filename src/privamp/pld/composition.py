"""Self-composition by repeated squaring (T up to 10⁹ and beyond) and heterogeneous composition."""

from __future__ import annotations

import math

from privamp.errors import UnsupportedError
from privamp.pld.convolution import coarsen, convolve, fast_length
from privamp.pld.fftpower import fft_power
from privamp.pld.pmf import TiltedPMF

MAX_WORK = 8_000_000
"""The most FFT points (summed over the convolutions) one composition may take: about a second of CPU. Beyond it the
composition is abandoned with :class:`privamp.errors.UnsupportedError` instead of running for minutes and gigabytes
(e.g. T = 10¹⁸ steps, whose loss grid keeps growing: the tracked Chernoff bounds no longer cut its tails)."""


class _Budget:
    def __init__(self, count: int) -> None:
        self.used = 0
        self.count = count

    def charge(self, a: TiltedPMF, b: TiltedPMF) -> None:
        self.used += fast_length(a.v.size + b.v.size - 1)
        if self.used > MAX_WORK:
            raise UnsupportedError(
                f"the PLD route would need more than {MAX_WORK:.0e} FFT points (loss grids of "
                f"{max(a.v.size, b.v.size)} points and growing) to compose {self.count} steps; use bound='rdp'")


def coarsen_to(x: TiltedPMF, h: float) -> TiltedPMF:
    while x.h < h * (1 - 1e-9):
        x = coarsen(x)
    return x


def power(step: TiltedPMF, count: int, log_tau: float, max_points: int, *, per_phase: bool = False,
          floor: float = -math.inf) -> TiltedPMF:
    """The ``count``-fold composition: one FFT power (tails cut once, at τ), else repeated squaring (tails cut at τ at
    every convolution; with ``per_phase`` at τ/count, so that all the cuts of the phase add up to a few τ at the +∞
    atom: the mass cut at a level is composed with the rest, about count/2^k more times); coarsened while the grid
    exceeds ``max_points``. ``floor``: the lowest loss the result is read at (:func:`fft_power`).

    The 2^k-fold PMF is coarsened only while its spacing stays ≤ h_0·2^{k/2 − 1.5}: each coarsening then costs about as
    much discretisation error as the first discretisation, whatever the count.
    """
    if count >= 2:
        direct = fft_power(step, count, log_tau, floor)
        if direct is not None:
            return direct
        if per_phase:
            log_tau -= math.log(count)
    result: TiltedPMF | None = None
    budget = _Budget(count)
    square = step
    level = 0
    remaining = count
    h0 = step.h
    while True:
        if remaining & 1:
            if result is None:
                result = square
            else:
                hh = max(result.h, square.h)
                a, b = coarsen_to(result, hh), coarsen_to(square, hh)
                budget.charge(a, b)
                result = convolve(a, b, log_tau)
        remaining >>= 1
        if not remaining:
            break
        budget.charge(square, square)
        square = convolve(square, square, log_tau)
        level += 1
        while square.v.size > max_points and 2 * square.h <= h0 * 2 ** (level / 2 - 1.5) * (1 + 1e-9):
            square = coarsen(square)
    assert result is not None
    return result


def compose(parts: list[tuple[TiltedPMF, int]], log_tau: float, max_points: int, *,
            per_phase: bool = False, floor: float = -math.inf) -> TiltedPMF:
    """Heterogeneous composition: Π_i step_i^{count_i}, brought to a common spacing (``per_phase``: :func:`power`;
    ``floor``: the lowest loss the result is read at, :func:`privamp.pld.fftpower.fft_power`, used for a single part
    only: a part to be convolved with others is needed at every loss)."""
    floor = floor if len(parts) == 1 else -math.inf
    powers = [power(s, c, log_tau, max_points, per_phase=per_phase, floor=floor) for s, c in parts]
    out = powers[0]
    for p in powers[1:]:
        hh = max(out.h, p.h)
        out = convolve(coarsen_to(out, hh), coarsen_to(p, hh), log_tau)
    return out
