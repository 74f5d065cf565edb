"""Published peak memory per GPU (issue 21 item 3; docs/validation.md "Peak memory per GPU").

Each row is a run whose peak was measured and published with its complete configuration
(Megatron-LM's functional tests on one DGX H100, memory_cases.py); it runs through the CLI path
(memory_suite.run_memory) and must land within ±10% of the published peak.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from . import memory_cases as MC
from .memory_suite import run_memory


@pytest.fixture(scope="module")
def rows():
    with tempfile.TemporaryDirectory(prefix="cluster-designer-memory-") as tmp:
        return {r.id: r for r in run_memory(Path(tmp))}


@pytest.mark.parametrize("row_id", [c.id for c in MC.MEMORY_CASES])
def test_published_peak_memory(rows, row_id):
    row = rows[row_id]
    assert row.within, (f"row {row.id}: published {row.published}, predicted {row.predicted}, "
                        f"error {row.error}, tolerance {row.tolerance_text}")


def test_rows_cover_dense_moe_and_the_pipeline_schedules():
    cases = MC.MEMORY_CASES
    assert any(c.model.get("moe") and c.model.get("mla") for c in cases)
    assert any(c.parallelism.get("virtual_stages", 1) > 1 and c.parallelism["pp"] > 1
               for c in cases)
    assert any(c.parallelism["pp"] == 1 for c in cases)
    assert all(c.source and c.tag.startswith("P") for c in cases)


def test_the_comparison_leaves_out_only_the_framework_term(rows):
    # torch's allocated count excludes the CUDA context, NCCL's buffers and fragmentation: the
    # engine's total less its framework term is what is compared
    for row in rows.values():
        memory = row.extra["memory"]
        predicted = memory["total_gb"] - memory["framework_gb"]
        assert row.error_value == pytest.approx(predicted / row.extra["case"].published_gb - 1)
