"""Uncalibrated is never flattering (issue 22): an accelerator without a fitted published run
runs no better than the least efficient calibrated family of its generation, says which family
and value in its warning, and brackets its estimate (conservative and optimistic MFU)."""

from __future__ import annotations

import dataclasses

import pytest

from core.analysis.calibration import (
    CALIBRATED_FAMILY_YEAR, _generation, efficiency_basis, least_efficient_family)
from core.analysis.performance import PerformanceAssumptions, analyze_performance
from core.catalog import default_catalog
from core.fabric import FabricView, NetworkLevel
from core.workload import load_preset

CATALOG = default_catalog()
A = PerformanceAssumptions()
UNCALIBRATED = [s.id for s in CATALOG.by_kind("accelerator")
                if s.id not in A.gemm_efficiency_scale_by_accelerator]


def _run(accelerator_id: str, model, a=A):
    """The same job on the same fabric shape: 1,024 GPUs, 8 per scale-up domain."""
    fabric = FabricView(1024, CATALOG.get(accelerator_id), 8, (
        NetworkLevel("scale-up", 8, 900.0, 738.0, 1.0, 1),
        NetworkLevel("leaf", 1024, 50.0, 47.0, 2.0, 1),
    ))
    return analyze_performance(fabric, model, a)


@pytest.mark.parametrize("accelerator_id", UNCALIBRATED)
def test_an_uncalibrated_chip_never_beats_its_generations_least_efficient_calibrated_one(
        accelerator_id):
    """Llama 3 70B (preset layout) on the same fabric: the uncalibrated chip's MFU is at most
    the lowest MFU of the calibrated families of its generation. Before issue 22 a Hygon DCU
    took the A100-derived 0.799 and showed MFU 60% against a calibrated H100's 47%."""
    model = load_preset("llama3-70b")
    year = CATALOG.get(accelerator_id).year
    family = least_efficient_family(A, year)
    peers = [f for f, y in CALIBRATED_FAMILY_YEAR.items()
             if _generation(y) == _generation(CALIBRATED_FAMILY_YEAR[family])]
    result = _run(accelerator_id, model)
    if not result.runs:
        pytest.skip(f"{accelerator_id} cannot run the job: {result.cannot_run[0].message}")
    floor = min(_run(f, model).mfu for f in peers if _run(f, model).runs)
    assert result.mfu <= floor + 1e-9, (accelerator_id, result.mfu, floor)


def test_the_warning_names_the_family_and_value_and_the_estimate_is_bracketed():
    model = load_preset("llama3-70b")
    result = _run("Hygon-DCU", model)
    warning = next(d for d in result.diagnostics if d.code == "UNCALIBRATED_ACCELERATOR")
    assert "GB200's" in warning.message and "0.466" in warning.message
    assert "0.799" in warning.message  # the optimistic end it used to be
    low, high = result.mfu_range
    assert low == pytest.approx(result.mfu) and high > low * 1.3
    optimistic = _run("Hygon-DCU", model, dataclasses.replace(A, uncalibrated_efficiency="optimistic"))
    assert optimistic.mfu == pytest.approx(high)
    assert optimistic.mfu_range == pytest.approx(result.mfu_range)
    assert _run("H100-SXM5-80GB", model).mfu_range is None  # calibrated: no bracket


def test_calibrated_families_and_a_lower_measured_estimate_are_untouched():
    for family, scale in A.gemm_efficiency_scale_by_accelerator.items():
        assert efficiency_basis(A, family, 2025) == efficiency_basis(A, family, 2025, optimistic=True)
        assert efficiency_basis(A, family, 2025).scale == scale
    # MI300X's own measured ceiling (0.443 x 0.92) already peaks below H100, its generation's
    mi300x = efficiency_basis(A, "MI300X", 2023)
    assert mi300x.capped_by is None and mi300x.scale == pytest.approx(0.443 * 0.92)
