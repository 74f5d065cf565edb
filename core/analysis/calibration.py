"""Software-stack calibration: how much of an accelerator's peak its kernels reach in a step.

The efficiency of one GEMM is a prior by GEMM size times a calibration factor:

* the **prior** is the accelerator's measured GEMM-size sweep (relative to its best GEMM) where
  one is public, else Calculon's size table, interpolated in log size;
* the **factor** is fitted per accelerator on published training step times
  (``python -m tests.validation.calibrate``; each fit is named next to
  ``PerformanceAssumptions.gemm_efficiency_scale_by_accelerator``). An accelerator without a
  fitted run takes its measured GEMM ceiling x an H100's step realisation, or else the
  A100-derived default, and its results carry ``UNCALIBRATED_ACCELERATOR``.

**Uncalibrated is never flattering.** That estimate is the *optimistic* end of a bracket. By
default (``uncalibrated_efficiency`` "conservative") an uncalibrated accelerator runs no better
than the least efficient calibrated family of its generation: that family's GEMM curve and
factor, unless its own estimate is already lower at its best GEMM and it has a measured curve
of its own (MI300X). A Hygon DCU or an Ascend 910C then never shows a higher MFU than a
measured Blackwell or Hopper part on the same job only because nobody has measured it.

Fused attention runs at a per-accelerator fraction of the GEMM curve
(``flash_attention_efficiency_by_accelerator``). FP8 GEMMs take a further factor, applied where
the hardware rates are set up (compute.py).
"""

from __future__ import annotations

import math

from dataclasses import dataclass

from core.assumptions.performance import PerformanceAssumptions
from core.diagnostics import Diagnostic

# The catalog year of every calibrated family (resources/catalog/accelerators.json "year", P),
# which places it in a generation: two-year bins from 2020 (A100 2020-21, Hopper 2022-23,
# Blackwell and H200 2024-25), the cadence of NVIDIA's and AMD's datacentre parts (E).
CALIBRATED_FAMILY_YEAR = {"A100-SXM4-80GB": 2020, "H100-SXM5-80GB": 2022, "H200-SXM": 2024,
                          "B200": 2024, "GB200": 2024, "B300": 2025, "GB300": 2025}
GENERATION_FIRST_YEAR, GENERATION_YEARS = 2020, 2


def _generation(year: float) -> int:
    return int((year - GENERATION_FIRST_YEAR) // GENERATION_YEARS)


def generation_years(year: float) -> str:
    """The years of ``year``'s generation, as a warning names them ("2024-25")."""
    first = GENERATION_FIRST_YEAR + _generation(year) * GENERATION_YEARS
    return f"{first}-{(first + GENERATION_YEARS - 1) % 100:02d}"


@dataclass(frozen=True)
class EfficiencyBasis:
    """How efficiently an accelerator's kernels run: whose GEMM-size curve (``curve_id``: its
    own, a calibrated family's, or "" for Calculon's table) times which factor, and the
    calibrated family that caps it (None when it is calibrated or its own estimate is lower)."""

    curve_id: str
    scale: float
    capped_by: str | None = None


def _log_interp(xs, ys, x: float) -> float:
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    lg = math.log(x)
    for i in range(1, len(xs)):
        if x <= xs[i]:
            x0, x1 = math.log(xs[i - 1]), math.log(xs[i])
            return ys[i - 1] + (ys[i] - ys[i - 1]) * (lg - x0) / (x1 - x0)
    return ys[-1]


def gemm_efficiency_prior(gflop: float, a: PerformanceAssumptions,
                          accelerator_id: str = "") -> float:
    """Kernel-level efficiency of one GEMM of ``gflop`` GFLOP.

    The accelerator's measured curve when it has one (relative to its largest GEMM), else
    Calculon's table; log-interpolated. Below a measured curve's first point Calculon's shape
    continues it.
    """
    curve = a.gemm_curve_efficiency_by_accelerator.get(accelerator_id) if accelerator_id else None
    if curve:
        xs = a.gemm_curve_gflop_by_accelerator.get(accelerator_id)
        if xs and len(xs) == len(curve):
            if gflop >= xs[0]:
                return _log_interp(xs, curve, gflop)
            base = _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, xs[0])
            return curve[0] * _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, gflop) / base
    return _log_interp(a.gemm_efficiency_gflop, a.gemm_efficiency, gflop)


def _own_estimate(a: PerformanceAssumptions, accelerator_id: str) -> float:
    """An uncalibrated accelerator's own factor: its measured GEMM ceiling x the step
    realisation of a calibrated accelerator, else the A100-derived default."""
    ceiling = a.measured_gemm_ceiling_by_accelerator.get(accelerator_id)
    if ceiling is not None:
        return ceiling * a.step_realisation
    return a.gemm_efficiency_scale


def _best_efficiency(a: PerformanceAssumptions, curve_id: str, scale: float) -> float:
    """Fraction of peak at the best GEMM size of a curve x factor."""
    curve = a.gemm_curve_efficiency_by_accelerator.get(curve_id) if curve_id else None
    return max(curve or a.gemm_efficiency) * scale


def generation_families(a: PerformanceAssumptions, year: float | None) -> list[str]:
    """The calibrated families of ``year``'s generation (the nearest earlier generation when
    it has none, the earliest when none is earlier; every family when the year is not known)."""
    fitted = {f: CALIBRATED_FAMILY_YEAR[f] for f in a.gemm_efficiency_scale_by_accelerator
              if f in CALIBRATED_FAMILY_YEAR}
    if not fitted or year is None:
        return sorted(fitted)
    generations = sorted({_generation(y) for y in fitted.values()})
    earlier = [g for g in generations if g <= _generation(year)]
    pick = earlier[-1] if earlier else generations[0]
    return sorted(f for f, y in fitted.items() if _generation(y) == pick)


def least_efficient_family(a: PerformanceAssumptions, year: float | None) -> str | None:
    """The calibrated family of ``year``'s generation (``generation_families``) whose best GEMM
    runs at the smallest fraction of peak; None when nothing is calibrated."""
    families = generation_families(a, year)
    if not families:
        return None
    return min(families, key=lambda f: (_best_efficiency(
        a, f, a.gemm_efficiency_scale_by_accelerator[f]), f))


def efficiency_basis(a: PerformanceAssumptions, accelerator_id: str, year: float | None = None,
                     optimistic: bool | None = None) -> EfficiencyBasis:
    """The curve and factor ``accelerator_id`` runs at: its fitted factor; else, uncalibrated,
    its own estimate (``optimistic``) or no better than the least efficient calibrated family
    of its generation (conservative; ``year`` is its catalog year). ``optimistic`` None takes
    the end ``a.uncalibrated_efficiency`` names."""
    if not accelerator_id:  # no accelerator named: Calculon's table at the default factor
        return EfficiencyBasis("", a.gemm_efficiency_scale)
    fitted = a.gemm_efficiency_scale_by_accelerator.get(accelerator_id)
    if fitted is not None:
        return EfficiencyBasis(accelerator_id, fitted)
    own = EfficiencyBasis(accelerator_id, _own_estimate(a, accelerator_id))
    if optimistic is None:
        optimistic = a.uncalibrated_efficiency == "optimistic"
    family = None if optimistic else least_efficient_family(a, year)
    if family is None:
        return own
    cap = EfficiencyBasis(family, a.gemm_efficiency_scale_by_accelerator[family], family)
    own_curve = accelerator_id in a.gemm_curve_efficiency_by_accelerator
    # A measured curve of its own that already peaks lower stays (MI300X: 0.41 of peak at its
    # best vs GB200's 0.47); Calculon's flat table would flatter small GEMMs, so it never stays.
    if own_curve and (_best_efficiency(a, accelerator_id, own.scale)
                      <= _best_efficiency(a, family, cap.scale)):
        return own
    return cap


def efficiency_scale(a: PerformanceAssumptions, accelerator_id: str, year: float | None = None,
                     optimistic: bool | None = None) -> float:
    """The calibration factor for ``accelerator_id`` (``efficiency_basis``'s)."""
    return efficiency_basis(a, accelerator_id, year, optimistic).scale


def gemm_efficiency(gflop: float, a: PerformanceAssumptions, accelerator_id: str = "",
                    year: float | None = None) -> float:
    """Efficiency of one GEMM of ``gflop`` GFLOP in a training step: prior x calibration."""
    basis = efficiency_basis(a, accelerator_id, year)
    return gemm_efficiency_prior(gflop, a, basis.curve_id) * basis.scale



def flash_attention_efficiency(a: PerformanceAssumptions, accelerator_id: str) -> float:
    """Fused attention kernel efficiency relative to the GEMM curve's top for this accelerator."""
    return a.flash_attention_efficiency_by_accelerator.get(accelerator_id,
                                                           a.flash_attention_efficiency)


def uncalibrated_diagnostic(a: PerformanceAssumptions, accelerator_id: str,
                            year: float | None = None) -> Diagnostic | None:
    """The warning for an accelerator whose compute efficiency no published run has fitted:
    what its estimate rests on, the calibrated family that caps it and at what value."""
    if accelerator_id in a.gemm_efficiency_scale_by_accelerator:
        return None
    ceiling = a.measured_gemm_ceiling_by_accelerator.get(accelerator_id)
    own = (f"its measured GEMM ceiling ({ceiling:g} of peak) x an H100's step realisation "
           f"({a.step_realisation:g})" if ceiling is not None else
           f"the A100-derived default factor {a.gemm_efficiency_scale:g}")
    conservative = efficiency_basis(a, accelerator_id, year, optimistic=False)
    family = conservative.capped_by
    generation = f" ({generation_years(year)})" if year is not None else ""
    if family is None:
        basis = f"{own}, already no better than any calibrated family of its generation{generation}"
    else:
        best = _best_efficiency(a, family, conservative.scale)
        basis = (f"no better than {family}'s, the least efficient calibrated family of its "
                 f"generation{generation}: factor {conservative.scale:g}, {best:.0%} of peak at "
                 f"the best GEMM, and an MFU no higher than its generation's calibrated parts "
                 f"reach on the same job (optimistic: {own}; both in performance.mfu_range)")
        if a.uncalibrated_efficiency == "optimistic":
            basis = f"{own} (optimistic; conservative: {family}'s factor {conservative.scale:g})"
    return Diagnostic(
        "UNCALIBRATED_ACCELERATOR",
        f"no published training run of {accelerator_id} is fitted yet: its compute "
        f"efficiency is {basis}, so treat MFU and step time as estimates",
    )
