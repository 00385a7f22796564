"""Is tracker B significantly better than A, as the DSTC2 paper (section 5) tested (``dst-metrics dstc2-compare``).

For each featured component, accuracy is compared with McNemar's exact test and L2 with the paired
t-test over the same ``add`` calls, Bonferroni-corrected for the 6 tests (``--level``, default 0.01).
ROC v2 CA05 is listed without a test. Both trackers must score every turn of the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..dstc2.components import FEATURED_COMPONENTS, FEATURED_SCHEME, FEATURED_STATS
from .exact import mcnemar_exact

DEFAULT_LEVEL = 0.01
"""The DSTC2 paper's significance level (p < 0.01 after Bonferroni correction)."""
CONTINUED_FRACTION_STEPS = 300
CONTINUED_FRACTION_EPS = 1e-15
TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > TINY else TINY)
    result = d
    for m in range(1, CONTINUED_FRACTION_STEPS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > TINY else TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > TINY else TINY
            result *= c * d
        if abs(c * d - 1.0) < CONTINUED_FRACTION_EPS:
            break
    return result


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def paired_t(a: list[float], b: list[float]) -> tuple[float | None, int, float]:
    """(t, degrees of freedom, two-sided p) of the paired t-test of b - a.

    With fewer than two pairs, or differences that are all equal, t is undefined (None): p is 1 when the
    differences are all 0, else 0 (a constant non-zero difference).
    """
    diffs = [y - x for x, y in zip(a, b)]
    n = len(diffs)
    if n < 2:
        return None, max(n - 1, 0), 1.0
    mean = math.fsum(diffs) / n
    variance = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
    if variance == 0.0:
        return None, n - 1, 1.0 if mean == 0.0 else 0.0
    t = mean / math.sqrt(variance / n)
    df = n - 1
    return t, df, regularized_beta(df / 2.0, 0.5, df / (df + t * t))


@dataclass
class Test:
    """One featured figure of both trackers and, for acc and l2, its test."""

    component: str
    stat: str
    a: float | None
    b: float | None
    test: str | None = None
    p: float | None = None
    p_adjusted: float | None = None
    significant: bool | None = None
    detail: dict[str, float | int | None] = field(default_factory=dict)


def featured_items(prepared: list, ontology: object) -> dict:
    """{component: its items (``correct``, ``l2``, … per scored call)} of the featured components."""
    from ..dstc2.fast import component_items

    schedule, scheme = FEATURED_SCHEME
    evaluations = [(schedule, scheme, component) for component, _ in FEATURED_COMPONENTS]
    items = component_items(prepared, list(ontology.informable), list(ontology.requestable), evaluations)
    return {evaluation[2]: picked for evaluation, picked in items.items()}


def require_complete(prepared: list, sessions: list, path: str) -> None:
    """Raise InputError unless the track file at `path` scored every session and turn of the data."""
    from ..errors import InputError

    if len(prepared) != len(sessions):
        raise InputError(f"{len(prepared)} sessions scored of {len(sessions)}: the pairs would not match", source=path)
    for session, data in zip(prepared, sessions):
        if session.skip_reason is not None:
            raise InputError(f"the official scorer stops here: {session.skip_reason}", dialogue=session.session_id)
        if len(session.turns) != len(data):
            raise InputError(f"{len(session.turns)} turns of {len(data)} scored", dialogue=session.session_id)


def compare_tracks(items_a: dict, items_b: dict, scores_a: object, scores_b: object, level: float) -> list[Test]:
    """The featured figures of both trackers with McNemar (acc) and paired t (l2) tests, Bonferroni-corrected."""
    schedule, scheme = FEATURED_SCHEME
    tests: list[Test] = []
    for component, _ in FEATURED_COMPONENTS:
        for stat, _ in FEATURED_STATS:
            a = scores_a.value(component, stat, schedule, scheme)
            b = scores_b.value(component, stat, schedule, scheme)
            tests.append(_test(component, stat, a, b, items_a[component], items_b[component]))
    tested = sum(t.p is not None for t in tests)
    for t in tests:
        if t.p is not None:
            t.p_adjusted = min(1.0, t.p * tested)
            t.significant = t.p_adjusted < level
    return tests


def _test(component: str, stat: str, a: float | None, b: float | None, items_a: dict, items_b: dict) -> Test:
    if stat == "acc":
        right_a, right_b = items_a["correct"].tolist(), items_b["correct"].tolist()
        a_only = sum(x and not y for x, y in zip(right_a, right_b))
        b_only = sum(y and not x for x, y in zip(right_a, right_b))
        detail = {"a_only": a_only, "b_only": b_only, "n": len(right_a)}
        return Test(component, stat, a, b, "mcnemar", mcnemar_exact(a_only, b_only), detail=detail)
    if stat == "l2":
        t, df, p = paired_t(items_a["l2"].tolist(), items_b["l2"].tolist())
        return Test(component, stat, a, b, "paired t", p, detail={"t": t, "df": df, "n": df + 1})
    return Test(component, stat, a, b)
