"""What the placed cables mean for the other analyses, in one place they can read.

The cost and power analyses price and power cables and optics from the inventory, which takes
each link's drawn length (core/inventory.py). Once a design is placed, its cables have real
lengths and media (core/site/cables.py); ``media_totals`` gives them per medium, so a cost or
power model can read counts, metres and optics ends without knowing how the site was laid out,
and ``bundle_propagation_ns`` gives the latency model each bundle's placed propagation delay.
``latency_delta_us`` is what placed lengths change in the latency of a path that turns at
each scale-out tier, by the rule core/topology.py's FabricView levels use for drawn lengths (the
longest cable into each tier, crossed twice); the evaluation adds it to the drawn latency as
``site.gpu_to_gpu_max_us``. Cost and power read placed lengths through the inventory, which buys
for them unless the project's site says ``"cable_lengths": "drawn"`` (core/evaluate.py), and
reliability reads the placed media's failure rates (core/site/failures.py); core/site/effect.py
prices both lengths side by side (docs/guide/floor-plan.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.site.analysis import SiteResult
from core.site.cables import bundle_lengths
from core.site.media import MEDIA, OPTICS
from core.site.latency import latency_delta_us  # noqa: F401 - the hook offers it


@dataclass(frozen=True)
class MediumTotal:
    medium: str
    cables: int
    length_m: float          # summed over the cables
    transceivers: int        # optics ends (two per fibre cable; none for copper or AOC)


def media_totals(site: SiteResult) -> dict[str, MediumTotal]:
    """Per medium of core/site/media.py's MEDIA: cables, metres and transceiver ends."""
    c = site.cables
    if c is None:
        return {}
    counts = np.bincount(c.medium, minlength=len(MEDIA))
    metres = np.bincount(c.medium, weights=c.length_m, minlength=len(MEDIA))
    return {name: MediumTotal(name, int(n), float(m), 2 * int(n) if OPTICS.get(name) else 0)
            for name, n, m in zip(MEDIA, counts.tolist(), metres.tolist())}


def bundle_propagation_ns(site: SiteResult, bundles: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, max) propagation delay per bundle of the flattened design, from placed lengths."""
    c = site.cables
    if c is None or not c.count:
        return np.zeros(bundles), np.zeros(bundles)
    count = np.bincount(c.bundle, minlength=bundles)
    ns_total = np.bincount(c.bundle, weights=c.ns, minlength=bundles)
    _, longest_m = bundle_lengths(c, bundles)
    per_m = np.divide(ns_total, np.maximum(np.bincount(c.bundle, weights=c.length_m,
                                                        minlength=bundles), 1e-12))
    return np.divide(ns_total, np.maximum(count, 1)), longest_m * per_m

