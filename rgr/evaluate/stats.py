"""Confidence intervals with the standard library: Wilson's score interval for a rate
(right at 0 and 1 and with few trials, where the normal approximation is not) and
Student's t interval for a mean (few repeats are the rule: a model run costs money)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist, mean, stdev

#: Two-sided 95 %.
LEVEL = 0.95
Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)  # 1.95996...

# t quantiles (two-sided 95 %) for 1..30 degrees of freedom; beyond, the normal's.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
        2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
        2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def wilson(successes: int, trials: int) -> tuple[float, float, float]:
    """(rate, low, high) of ``successes`` in ``trials``; (0, 0, 1) for no trial."""
    if trials <= 0:
        return 0.0, 0.0, 1.0
    p = successes / trials
    denominator = 1 + Z * Z / trials
    centre = (p + Z * Z / (2 * trials)) / denominator
    half = Z * math.sqrt(p * (1 - p) / trials + Z * Z / (4 * trials * trials)) / denominator
    return p, max(0.0, centre - half), min(1.0, centre + half)


def t_quantile(df: int) -> float:
    return _T95[df - 1] if 1 <= df <= len(_T95) else Z


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high); one value: its own interval of width 0 is not claimed, the
    bounds are the value itself (say n beside it)."""
    if not values:
        return 0.0, 0.0, 0.0
    centre = mean(values)
    if len(values) < 2:
        return centre, centre, centre
    half = t_quantile(len(values) - 1) * stdev(values) / math.sqrt(len(values))
    return centre, centre - half, centre + half
