"""Re-derive the calibrated constants of the performance model from their named data.

    python -m tests.validation.calibrate

* ``gemm_efficiency_scale_by_accelerator["A100-SXM4-80GB"]``: least squares in log step time
  over every A100 row with a primary measured time or MFU and no unresolved stack question:
  the Korthikanti et al. Table 5 SP + selective-recompute rows (performance.md §9 rows 5-8,
  the ``MEGATRON_2022`` stack) and the MosaicML MPT-70B A100 row (§9 row 15, Composer FSDP
  "PURE"; its step time derived from the published MFU).
* ``gemm_efficiency_scale_by_accelerator["H100-SXM5-80GB"]`` (and H200, same die): least
  squares in MFU points over the MosaicML H100 rows (§9 rows 14 and 16).
* ``gemm_efficiency_scale`` (accelerators without their own factor): the A100 factor
  re-expressed on Calculon's prior (whose top is 0.95 instead of the measured curve's 1.0).

Prints the fitted values and the residuals; it does not edit the code (the constants live in
``core/analysis/performance.py`` next to the comment naming this data).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from core.analysis.performance import PerformanceAssumptions

from . import cases as C
from . import suite

A100_ROWS = ("5", "6", "7", "8", "15")
H100_ROWS = ("14", "16")


def _predict(ids, scales: dict, folder: Path):
    extra = {"gemm_efficiency_scale_by_accelerator": scales}
    out = []
    for case in C.PERF_CASES:
        if case.id in ids:
            out.append((case, suite.predict(case, folder, use_subprocess=False,
                                            extra_assumptions=extra)))
    return out


def _golden(fn, lo: float, hi: float, tol: float = 1e-4) -> float:
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fn(c), fn(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = fn(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = fn(d)
    return (a + b) / 2


def fit() -> dict:
    base = dict(PerformanceAssumptions().gemm_efficiency_scale_by_accelerator)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def a100_loss(x: float) -> float:
            rows = _predict(A100_ROWS, {**base, "A100-SXM4-80GB": x}, folder)
            return sum(math.log(p.step_s / suite.published_step(c)[0]) ** 2 for c, p in rows)

        def h100_loss(x: float) -> float:
            rows = _predict(H100_ROWS, {**base, "H100-SXM5-80GB": x}, folder)
            return sum((p.util - c.published_util) ** 2 for c, p in rows)

        a100 = _golden(a100_loss, 0.5, 1.0)
        h100 = _golden(h100_loss, 0.4, 1.0)
        scales = {**base, "A100-SXM4-80GB": a100, "H100-SXM5-80GB": h100, "H200-SXM": h100}
        residuals = {}
        for case, pred in _predict(A100_ROWS + H100_ROWS, scales, folder):
            step = suite.published_step(case)[0]
            util = suite.published_util(case)[0]
            residuals[case.id] = (f"{100 * (pred.step_s / step - 1):+.1f}% step, "
                                  f"{100 * (pred.util - util):+.1f} pt")
    prior_top = PerformanceAssumptions().gemm_efficiency[-1]
    return {"A100-SXM4-80GB": a100, "H100-SXM5-80GB": h100,
            "default (Calculon prior)": a100 / prior_top, "residuals": residuals}


def main() -> int:
    result = fit()
    for key, value in result.items():
        print(f"{key}: {value if isinstance(value, dict) else round(value, 4)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
