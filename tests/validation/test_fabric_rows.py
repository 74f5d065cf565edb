"""The fabric-behaviour validation rows (docs/validation.md "Fabric behaviour"): every gated
row within its tolerance, every report-only row computed. They run on their own (seconds),
apart from the slow training suite."""

from __future__ import annotations

import pytest

from . import fabric_suite as F


@pytest.fixture(scope="module")
def rows():
    return {r.id: r for r in F.run_fabric()}


@pytest.mark.parametrize("row_id", [c.id for c in F.CASES if c.policy == "gated"])
def test_gated_fabric_row_within_tolerance(rows, row_id):
    row = rows[row_id]
    assert row.within, (f"row {row.id} ({row.group}: {row.title}): published {row.published}, "
                        f"predicted {row.predicted}, error {row.error}, tolerance "
                        f"{row.tolerance_text}")


@pytest.mark.parametrize("row_id", [c.id for c in F.CASES if c.policy == "report-only"])
def test_report_only_fabric_row_is_computed(rows, row_id):
    assert rows[row_id].extra["predicted"] is not None


def test_sharp_lifts_allreduce_to_the_nvlink_limit(rows):
    # With SHARP the network moves S once instead of 2S(n-1)/n, so the NICs' bound (~376 GB/s
    # bus bandwidth) lifts and the NVLink reduce-scatter/all-gather inside the node sets the
    # pace: a user sees a higher all-reduce bus bandwidth than without it (FB-1)
    assert rows["FB-5"].extra["predicted"] > rows["FB-1"].extra["predicted"] * 1.05
