"""What the inventory buys for placed cables: every drawn bundle split by the reach its runs need.

The inventory (core/inventory.py) buys one cable and one module choice per bundle, at the
bundle's length. A placed bundle's cables have many lengths: buying all of them for the longest
(a few runs of one SU split over two halls) prices thousands of short runs as long-reach optics.
So each bundle is split into sub-bundles, one per catalog reach bracket its runs fall in (the
cable and module a run takes change only where a catalog reach of its medium is passed, as in
core/site/effect.py), each at the longest placed run of its bracket.

A repeated block's bundle stays repeated: the inventory counts ``per_instance`` cables in each
of its ``owner_instances`` alike. Its runs are ranked, longest first, within each instance (the
graph lists a bundle's cables instance after instance), and rank r takes the longest r-th run
of any instance: every instance is bought the same parts, enough for the instance that needs
the most (never a part short of its run; an upper bound where instances differ, exact for a
bundle drawn once).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np


def _brackets(catalog, medium: str) -> np.ndarray:
    """The reaches where the parts of a ``medium`` run change: its cables' (and for fibre, the
    modules'); a copper bracket of 2 m says nothing about fibre parts."""
    kinds = ("cable", "transceiver") if medium == "fiber" else ("cable",)
    return np.unique([float(s.reach_m) for kind in kinds for s in catalog.by_kind(kind)
                      if kind == "transceiver" or s.medium == medium])


def bought_at_placed_lengths(flat, cables):
    """``flat`` with every bundle split by the reach brackets of its placed ``cables`` (core/site
    /cables.py's, one per link, bundle after bundle), each part at its longest placed run."""
    bundles = len(flat.cables)
    if cables is None or not cables.count or not bundles:
        return flat
    brackets = {m: _brackets(flat.catalog, m) for m in flat.medium_names}
    count = np.bincount(cables.bundle, minlength=bundles)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    order = np.argsort(cables.bundle, kind="stable")  # already in bundle order: a no-op sort
    lengths = cables.length_m[order]
    source, parts, length = [], [], []
    for k in range(bundles):
        n = int(flat.owner_instances[k])
        runs = lengths[start[k]:start[k] + count[k]]
        if not len(runs) or len(runs) != int(flat.cables[k]) or len(runs) % n:
            source.append(k), parts.append(int(flat.cables[k])), length.append(float(flat.length_m[k]))
            continue
        # rank r: the longest r-th run of any instance; drawn once, the ranks are the runs
        # themselves and only how many fall in each bracket and the longest matter, not their
        # order (the sort is the cost of a 100,000-GPU design's 100,000-cable bundles)
        ranked = runs if n == 1 else np.sort(runs.reshape(n, -1), axis=1)[:, ::-1].max(axis=0)
        reaches = brackets[flat.medium_names[flat.medium_code[k]]]
        bracket = np.searchsorted(reaches, ranked - 1e-9, side="left")
        in_bracket = np.bincount(bracket)  # the brackets used, ascending, without np.unique's sort
        for b in np.flatnonzero(in_bracket).tolist():
            source.append(k), parts.append(int(in_bracket[b]) * n)
            length.append(float(ranked[bracket == b].max()))
    if len(source) == bundles and np.array_equal(np.array(parts), flat.cables):
        return replace(flat, length_m=np.array(length))
    src = np.array(source, dtype=np.int64)
    return replace(flat, bundle_a=flat.bundle_a[src], bundle_b=flat.bundle_b[src],
                   kind_code=flat.kind_code[src], speed_gbit_s=flat.speed_gbit_s[src],
                   cables=np.array(parts, dtype=flat.cables.dtype),
                   owner_instances=flat.owner_instances[src], length_m=np.array(length),
                   medium_code=flat.medium_code[src])
