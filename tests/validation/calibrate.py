"""Re-derive the calibrated constants of the performance model from their named data.

    python -m tests.validation.calibrate

* ``gemm_efficiency_scale_by_accelerator["A100-SXM4-80GB"]``: least squares in log step time
  over every A100 row with a primary measured time or MFU and no unresolved stack question:
  the Korthikanti et al. Table 5 SP + selective-recompute rows (performance.md §9 rows 5-8,
  the ``MEGATRON_2022`` stack) and the MosaicML MPT-70B A100 row (§9 row 15, Composer FSDP
  "PURE"; its step time derived from the published MFU).
* ``gemm_efficiency_scale_by_accelerator["H100-SXM5-80GB"]`` (and H200, same die), the
  engine's default (current Megatron-Core / NeMo + Transformer Engine) stack: least squares in
  log step time over NVIDIA's NeMo 24.09 BF16 runs at the smallest scale of each recipe
  (``cases.NEMO_CALIBRATION_ROWS``: Llama 3.1 8B / 70B / 405B, GPT-3 175B; DGX Cloud
  Benchmarking, P).
* ``cases.COMPOSER_2023_H100_FACTOR`` (the MosaicML Composer 2023 stack's own H100 factor,
  defined with the composer-fsdp-2023 preset in core/stacks.py): least squares in MFU points over the MosaicML H100 rows (§9 rows 14 and 16).
* ``fp8_gemm_efficiency_scale``: least squares in log step time over the same NeMo runs in
  FP8 (``cases.NEMO_FP8_CALIBRATION_ROWS``), with the fitted H100 factor.
* ``gemm_efficiency_scale_by_accelerator["GB200"]`` (current stack): least squares in log
  step time over NVIDIA's NeMo 25.04 BF16 runs on GB200 NVL72 at the smallest scale of each
  recipe (``cases.GB200_CALIBRATION_ROWS``: Llama 3.1 405B and Nemotron-4 340B on 128 GPUs;
  DGX Cloud Benchmarking GSW 25.04, P).
* ``gemm_efficiency_scale_by_accelerator["B200"]``: no BF16 B200 run with a layout is
  published, so least squares in log step time over the Megatron-Bridge 25.11 FP8 (current
  scaling) runs on DGX B200 (``cases.B200_CALIBRATION_ROWS``: Llama 3 8B on 8, Llama 3.1 405B
  on 128; P), with the FP8 factor fitted above.
* ``gemm_efficiency_scale_by_accelerator["GB300"]``: least squares in the log of the GB300 /
  GB200 step-time ratio over NVIDIA's same-release, same-layout dense pairs
  (``ultra_pairs.PAIRS``: Llama 3 8B and 70B, Megatron-Bridge 25.11-26.04.01, P), with the
  GB200 factor above: the ratio cancels the release, which the GB200 factor does not share.
* ``gemm_efficiency_scale`` (accelerators without their own factor): the A100 factor
  re-expressed on Calculon's prior (whose top is 0.95 instead of the measured curve's 1.0).

Prints the fitted values and the residuals; it does not edit the code (the constants live in
``core/analysis/performance.py`` and ``tests/validation/cases.py`` next to the comment naming
this data).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from core.analysis.performance import PerformanceAssumptions

from . import cases as C
from . import suite
from .ultra_pairs import ratios as gb300_ratios

A100_ROWS = ("5", "6", "7", "8", "15")
COMPOSER_H100_ROWS = ("14", "16")
H100_ROWS = C.NEMO_CALIBRATION_ROWS
FP8_ROWS = C.NEMO_FP8_CALIBRATION_ROWS
H100_IDS = ("H100-SXM5-80GB", "H200-SXM")
GB200_ROWS = C.GB200_CALIBRATION_ROWS
B200_ROWS = C.B200_CALIBRATION_ROWS


def _predict(ids, folder: Path, overrides) -> list:
    """Predictions of the rows ``ids``; ``overrides(case)`` gives each row's extra assumptions."""
    out = []
    for case in C.ALL_PERF_CASES:
        if case.id in ids:
            out.append((case, suite.predict(case, folder, use_subprocess=False,
                                            extra_assumptions=overrides(case))))
    return out


def _scales(case: C.PerfCase, **changes: float) -> dict:
    """The row's own GEMM-factor table (its stack's, else the defaults) with ``changes``."""
    table = dict(case.stack.get("gemm_efficiency_scale_by_accelerator",
                                PerformanceAssumptions().gemm_efficiency_scale_by_accelerator))
    table.update(changes)
    return {"gemm_efficiency_scale_by_accelerator": table}


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


def _log_step_loss(rows) -> float:
    return sum(math.log(p.step_s / suite.published_step(c)[0]) ** 2 for c, p in rows)


def _residuals(rows) -> dict:
    out = {}
    for case, pred in rows:
        step = suite.published_step(case)[0]
        util = suite.published_util(case)[0]
        out[case.id] = (f"{100 * (pred.step_s / step - 1):+.1f}% step, "
                        f"{100 * (pred.util - util):+.1f} pt")
    return out


def fit() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        a100 = _golden(lambda x: _log_step_loss(_predict(
            A100_ROWS, folder, lambda c: _scales(c, **{"A100-SXM4-80GB": x}))), 0.5, 1.0)

        def h100_scales(c, x):
            return _scales(c, **{"A100-SXM4-80GB": a100}, **{k: x for k in H100_IDS})

        h100 = _golden(lambda x: _log_step_loss(_predict(
            H100_ROWS, folder, lambda c: h100_scales(c, x))), 0.4, 1.0)

        def composer_loss(x: float) -> float:
            rows = _predict(COMPOSER_H100_ROWS, folder, lambda c: h100_scales(c, x))
            return sum((p.util - c.published_util) ** 2 for c, p in rows)

        composer = _golden(composer_loss, 0.4, 1.0)

        def fp8_overrides(c, y):
            return {**h100_scales(c, h100), "fp8_gemm_efficiency_scale": y}

        fp8 = _golden(lambda y: _log_step_loss(_predict(
            FP8_ROWS, folder, lambda c: fp8_overrides(c, y))), 0.4, 1.2)

        def gb200_scales(c, x):
            return _scales(c, **{"A100-SXM4-80GB": a100}, **{k: h100 for k in H100_IDS},
                           GB200=x)

        gb200 = _golden(lambda x: _log_step_loss(_predict(
            GB200_ROWS, folder, lambda c: gb200_scales(c, x))), 0.3, 1.0)

        def b200_overrides(c, y):
            return {**_scales(c, **{"A100-SXM4-80GB": a100}, **{k: h100 for k in H100_IDS},
                              GB200=gb200, B200=y), "fp8_gemm_efficiency_scale": fp8}

        b200 = _golden(lambda y: _log_step_loss(_predict(
            B200_ROWS, folder, lambda c: b200_overrides(c, y))), 0.3, 1.0)

        def ultra_overrides(c, z):
            return {**_scales(c, **{"A100-SXM4-80GB": a100}, **{k: h100 for k in H100_IDS},
                              GB200=gb200, B200=b200, GB300=z), "fp8_gemm_efficiency_scale": fp8}

        def ultra_ratios(z):
            return gb300_ratios(folder, lambda c: ultra_overrides(c, z))

        gb300 = _golden(lambda z: sum(math.log(p / q) ** 2 for _, p, q in ultra_ratios(z)),
                        0.3, 1.0)

        residuals = {}
        residuals.update(_residuals(_predict(
            A100_ROWS, folder, lambda c: _scales(c, **{"A100-SXM4-80GB": a100}))))
        residuals.update(_residuals(_predict(
            COMPOSER_H100_ROWS, folder, lambda c: h100_scales(c, composer))))
        residuals.update(_residuals(_predict(H100_ROWS, folder, lambda c: h100_scales(c, h100))))
        residuals.update(_residuals(_predict(FP8_ROWS, folder, lambda c: fp8_overrides(c, fp8))))
        residuals.update(_residuals(_predict(GB200_ROWS, folder,
                                             lambda c: gb200_scales(c, gb200))))
        residuals.update(_residuals(_predict(B200_ROWS, folder,
                                             lambda c: b200_overrides(c, b200))))
        residuals.update({c.id: f"GB300/GB200 step {p:.3f} vs {q:.3f} ({100 * (p / q - 1):+.1f}%)"
                          for c, p, q in ultra_ratios(gb300)})
    prior_top = PerformanceAssumptions().gemm_efficiency[-1]
    return {"A100-SXM4-80GB": a100, "H100-SXM5-80GB (current stack)": h100,
            "H100 Composer 2023 (cases.COMPOSER_2023_H100_FACTOR)": composer,
            "fp8_gemm_efficiency_scale": fp8,
            "GB200 (current stack, NeMo 25.04 BF16)": gb200,
            "B200 (current stack, Megatron-Bridge 25.11 FP8-CS, via the FP8 factor)": b200,
            "GB300 (same-release, same-layout GB300 / GB200 ratios)": gb300,
            "default (Calculon prior)": a100 / prior_top, "residuals": residuals}


def main() -> int:
    result = fit()
    for key, value in result.items():
        print(f"{key}: {value if isinstance(value, dict) else round(value, 4)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
