"""How often a link fails, by the medium its placed length calls for.

The reliability analysis counts failures per link, cable and optics together
(../shared/reference/reliability-power.md §2: 0.02 per 1000 link-days; Alibaba HPN 0.019,
StepFun 0.036, measured on GPU fabrics). We take that figure as the rate of an **optical link**
(a transceiver at each end and fibre between: the medium of almost every scale-out link in those
fleets, E), and scale it for the other media by what each carries that can fail:

=======  ======  ==============================================================================
medium   factor  why (P primary, S secondary, D derived, E estimate)
=======  ======  ==============================================================================
mmf/smf  1       the measured link: two pluggable modules (MTBF 0.5-1 million device-hours, Meta's
                 ECOC 2025 field data quoted by 100gmodules.com, "Pluggable transceiver
                 benefits", 2026-04-20, S: ~1,333 FIT each at 0.75 M h) and passive fibre
aoc      1       the same lasers and receivers at each end, fused to the fibre (E)
aec      0.22    two retimer DSPs, 100-500 FIT each (LuxOptx, "Reliability engineering for 800G
                 optical modules", luxoptx.com, S): 2 x 300 / (2 x 1,333) = 0.225 (D)
acc      0.09    two linear redrivers, driver ICs 50-200 FIT (LuxOptx, S): 2 x 125 / 2,667 (D)
dac      0.0075  passive twinax, no active part: MTBF 50 million hours and more (Telewire, "Cable
                 assembly solutions for data centers", telewiretech.com, S): 20 FIT / 2,667 (D)
=======  ======  ==============================================================================

A link's length acts through its medium: copper that outgrows a DAC becomes an active cable and
fails more often; a run that outgrows copper is fibre with optics (core/site/media.py). Within
one medium the rate does not depend on the length (a fibre's own breaks are a small share of
an optical link's failures, E).

The factors enter the reliability analysis without touching it: ``with_placed_link_rates``
gives every cable of the inventory whose links the site placed in another medium than the one
its rate was measured on a per-catalog-id rate (``ReliabilityAssumptions.rate_overrides``, the
mechanism a user sets rates with). A rate the user set for that cable, in the project or on the
item, is kept as set.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from core.analysis.failure_rates import RATE_KEY
from core.analysis.reliability_assumptions import ReliabilityAssumptions
from core.site.media import COPPER_MEDIA, FIBRE_MEDIA, MEDIA

RATE_FACTOR = {"dac": 0.0075, "acc": 0.09, "aec": 0.22, "aoc": 1.0, "mmf": 1.0, "smf": 1.0}
_FACTORS = np.array([RATE_FACTOR[m] for m in MEDIA])
# which placed media a catalog cable of each drawn medium stands for
_FAMILY = {"copper": COPPER_MEDIA, "fiber": (*FIBRE_MEDIA, "aoc")}


def failures_per_day(cables, link_per_1000_days: float) -> dict[str, float]:
    """Link failures per day of the placed design, per medium (every link, not a job's share)."""
    if cables is None or not cables.count:
        return {}
    links = np.bincount(cables.medium, minlength=len(MEDIA))
    return {m: float(n * f) * link_per_1000_days / 1000.0
            for m, n, f in zip(MEDIA, links.tolist(), _FACTORS.tolist())}


def _mean_factor(cables, family: tuple[str, ...]) -> float | None:
    """The mean rate factor of the placed links in ``family`` (None: none there)."""
    codes = [MEDIA.index(m) for m in family]
    links = np.bincount(cables.medium, minlength=len(MEDIA))[codes]
    total = int(links.sum())
    return float(links @ _FACTORS[codes]) / total if total else None


def with_placed_link_rates(a: ReliabilityAssumptions, inventory, cables) -> ReliabilityAssumptions:
    """``a`` with a rate for every catalog cable whose placed links' media fail at another rate
    than the optical link its rate stands for (copper: DAC, ACC, AEC by placed length)."""
    if cables is None or not cables.count:
        return a
    factor = {kind: _mean_factor(cables, family) for kind, family in _FAMILY.items()}
    added: dict[str, float] = {}
    for item in inventory.items:
        if item.kind != "cable":
            continue
        mean = factor.get(item.spec.medium)
        if (mean is None or abs(mean - 1.0) < 1e-12
                or RATE_KEY in item.overrides or item.catalog_id in a.rate_overrides):
            continue
        own = item.spec.failure_rate_per_1000_days
        base = a.link_per_1000_days if own is None else float(own)
        added[item.catalog_id] = base * mean
    if not added:
        return a
    return replace(a, rate_overrides={**added, **a.rate_overrides})
