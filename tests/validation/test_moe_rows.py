"""The MoE training rows of issue 21 (docs/validation.md "MoE training runs").

Each gated row is either within ±10% tokens/s per GPU of its published figure, a known miss
with its reason (xfail), or not modelled because the training schema rejects the run as
published, with the schema's error naming the field. The rows run through the same CLI path as
every other training row (moe_suite.run_moe), once per module.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest

from . import cases as C
from . import moe_cases as M
from .moe_suite import run_moe

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "moe-training-runs.md"
GATED = [c.id for c in M.MOE_CASES if c.policy in ("gated", "known-miss")]
REPORTED = [c.id for c in M.MOE_CASES if c.policy == "report-only"]


@pytest.fixture(scope="module")
def rows():
    with tempfile.TemporaryDirectory(prefix="cluster-designer-moe-") as tmp:
        return {r.id: r for r in run_moe(Path(tmp))}


def test_at_least_ten_gated_rows_on_the_systems_issue_21_names():
    """Issue 21 item 5: at least 10 published MoE rows with full configurations, gated; the
    Megatron-Bridge systems (H100, B200, GB200, GB300) and DeepSeek's H800 cluster."""
    assert len(GATED) >= 10
    systems = {c.group.split(" on ")[1].split(" ")[0] for c in M.MOE_CASES}
    assert {"H100", "B200", "GB200", "GB300", "H800"} <= systems
    precisions = {c.precision for c in M.MOE_CASES}
    assert {"bf16", "fp8", "mxfp8", "fp8-block"} <= precisions


def test_every_row_is_in_the_reference_with_a_source():
    text = REFERENCE.read_text(encoding="utf-8")
    for case in M.MOE_CASES:
        assert f"| {case.id} |" in text, case.id
        assert case.source and case.tag
    for row_id, *_ in M.MOE_NOT_MODELLED:
        assert f"| {row_id} |" in text


@pytest.mark.parametrize("row_id", GATED)
def test_moe_training_run(rows, row_id):
    row = rows[row_id]
    if row.status == "not modelled":
        # the schema's own located error (workload.model.X / workload.precision / ...)
        assert "workload." in row.note, row.note
        return
    message = (f"row {row.id}: published {row.published}, predicted {row.predicted}, "
               f"error {row.error}, tolerance {row.tolerance_text}")
    if row.policy == "known-miss":
        if not row.within:
            pytest.xfail(f"known miss: {row.note}")
        return
    assert row.within, message


@pytest.mark.parametrize("row_id", REPORTED)
def test_report_only_moe_rows_are_computed_or_say_why(rows, row_id):
    row = rows[row_id]
    if row.status == "not modelled":
        assert "workload." in row.note
        return
    assert row.status == "report-only" and row.note
    assert math.isfinite(row.extra["pred"].step_s) and row.extra["pred"].step_s > 0


def test_schema_gap_is_the_schemas_own_verdict():
    dense = C.PERF_CASES[0]
    assert M.schema_gap(dense) is None
    gap = M.schema_gap(M.MOE_CASES[1])  # DeepSeek-V3 with MLA, as published
    assert gap is None or "workload." in gap


def test_published_step_is_derived_from_tokens_per_gpu():
    case = next(c for c in M.MOE_CASES if c.id == "MoE-Q30-H100-16")
    # 1,024 sequences x 4,096 tokens / (8,960 tokens/s/GPU x 16 GPUs)
    assert case.published_step_s == pytest.approx(1024 * 4096 / (8960 * 16))
    h800 = next(c for c in M.MOE_CASES if c.id == "MoE-DSV3-H800-2048")
    # 180K H800 GPU-hours per trillion tokens (DeepSeek-V3 report): 1,543 tokens/s/GPU
    tokens = h800.parallelism["global_batch"] * 4096 / (h800.published_step_s * 2048)
    assert tokens == pytest.approx(1e12 / (180e3 * 3600))


def test_at_least_ten_gated_rows_land_within_ten_percent(rows):
    """Issue 21 item 5: 'at least 10 published MoE training rows ... gated within ±10%
    tokens/s per GPU'. The misses stay gated, each with its reason; none is fitted away."""
    within = sorted(i for i in GATED if rows[i].status == "pass")
    assert len(within) >= 10, within


def test_gb300_factor_reproduces_nvidias_same_layout_pairs():
    """The GB300 factor is the least-squares fit to NVIDIA's same-release, same-layout GB300 /
    GB200 dense pairs (ultra_pairs.py): their geometric-mean ratio is reproduced, and no pair
    is off by more than the 25.11 70B outlier (1.05x where the others run 1.19-1.27x)."""
    from .ultra_pairs import ratios

    with tempfile.TemporaryDirectory(prefix="cluster-designer-ultra-") as tmp:
        found = ratios(Path(tmp))
    logs = [math.log(engine / published) for _, engine, published in found]
    assert abs(sum(logs) / len(logs)) < 0.02
    assert max(abs(x) for x in logs) < math.log(1.15)
