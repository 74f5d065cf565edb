"""core/metrics.py defines every metric once (issue 24): each id resolves in the evaluation JSON
of the bundled examples (or is absent or null for a workload kind it does not apply to), compare
calls two values within a metric's tolerance equal, and compare, the report, the sweep and the
panels show no metric under a label of their own."""

import copy
import glob
import json
import re
from pathlib import Path

import pytest

from core.catalog import default_catalog
from core.compare import BETTER, EQUAL, compare_evaluations
from core.evaluate import evaluate, evaluation_to_json
from core.metrics import (ALL_KINDS, DETAILS, INFERENCE, METRICS, METRIC_PATHS, NONE, TRAINING, metric,
                          metric_value, section_of, service_metrics)
from core.project import load_project
from core.report import report_sections
from core.sweep.spec import parse_objective
from tests.golden.cases import DATA

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"


def _kind(evaluation: dict) -> str:
    if isinstance(evaluation.get("inference"), dict):
        return INFERENCE
    return TRAINING if isinstance(evaluation.get("workload"), dict) else NONE


def _golden_evaluations() -> dict[str, dict]:
    """The evaluation JSON of every bundled example and preset: the goldens, which
    test_behaviour_unchanged keeps equal to what the code writes today."""
    return {Path(p).stem: json.loads(Path(p).read_text()) for p in sorted(glob.glob(str(DATA / "*.json")))
            if not Path(p).name.startswith("compare-")}


@pytest.fixture(scope="module")
def no_workload() -> dict:
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json")
    design.workload = None
    return evaluation_to_json(evaluate(design, default_catalog()))


def _check_resolves(evaluation: dict, metrics, where: str) -> None:
    kind = _kind(evaluation)
    for m in metrics:
        section = section_of(evaluation, m)
        if kind in m.kinds:
            assert isinstance(section, dict) and m.key in section, f"{where}: {m.path} not in the evaluation JSON"
        else:  # legitimately absent: not this kind's figure
            assert metric_value(evaluation, m) is None, f"{where}: {m.path} has a value for a {kind} workload"


def test_every_metric_resolves_in_every_bundled_evaluation(no_workload):
    evaluations = _golden_evaluations()
    assert {_kind(ev) for ev in evaluations.values()} == {TRAINING, INFERENCE}
    for name, evaluation in {**evaluations, "no workload": no_workload}.items():
        _check_resolves(evaluation, (*METRICS, *DETAILS), name)
    assert _kind(no_workload) == NONE


def test_every_service_metric_resolves_in_each_service():
    evaluation = _golden_evaluations()["example-train-and-serve"]
    names = [s["name"] for s in evaluation["services"]]
    assert names
    for name in names:
        for m in service_metrics(name):
            assert m.key in section_of(evaluation, m), f"services.{name}: {m.key} missing"
            assert m.path == f"services.{name}.{m.key}" and m.title == f"Service {name}"


def test_the_registry_is_well_formed():
    assert len({m.path for m in (*METRICS, *DETAILS)}) == len(METRICS) + len(DETAILS)
    assert len({m.label for m in METRICS}) == len(METRICS)  # compare's rows are told apart by label
    assert METRIC_PATHS == tuple(m.path for m in METRICS)  # the details are neither compared nor swept
    for m in (*METRICS, *DETAILS):
        assert m.direction in ("higher", "lower", "neither") and m.explain and set(m.kinds) <= set(ALL_KINDS)
        assert m.rel_tol >= 0 and m.abs_tol >= 0 and m.digits >= 0
    with pytest.raises(KeyError, match="no metric 'bandwidth.nope'"):
        metric("bandwidth.nope")


def test_a_change_within_a_metrics_tolerance_is_equal_not_better():
    """The case issue 24 names: a -0.00004% change in small all-reduce latency was "better"."""
    base = _golden_evaluations()["example-dgx-h100-superpod-4su"]
    other = copy.deepcopy(base)
    other["latency"]["allreduce_small_us"] *= 1 - 4e-7
    other["bandwidth"]["bisection_tbit_s"] *= 1.01  # a real change stays a change
    comparison = compare_evaluations([base, other], ["A", "B"])
    marks = {m.path: d.better for m, d in zip(comparison.metrics, comparison.deltas[0])}
    assert marks["latency.allreduce_small_us"] == EQUAL
    assert marks["bandwidth.bisection_tbit_s"] == BETTER
    # a count is exact: one GPU fewer of a million is a difference
    other["counts"]["switches"] += 1
    comparison = compare_evaluations([base, other], ["A", "B"])
    marks = {m.path: d.better for m, d in zip(comparison.metrics, comparison.deltas[0])}
    assert marks["counts.switches"] != EQUAL


def test_compare_and_the_sweep_take_their_metrics_from_the_registry():
    evaluations = _golden_evaluations()
    comparison = compare_evaluations([evaluations["example-train-and-serve"], evaluations["preset-gpt3-175b"]],
                                     ["a", "b"])
    for m in comparison.metrics:
        source = metric(m.path) if not m.service else metric(f"inference.{m.key}")
        assert (m.label, m.unit, m.direction) == (source.label, source.unit, source.direction)
    assert parse_objective("bisection_tbit_s", "test").direction == "max"
    assert parse_objective("cost.capex_usd", "test").direction == "min"


# Report rows keyed by a metric that show several figures in one row, under a label naming them all.
COMPOSITE_ROWS = {"counts.nics": "NICs / DPUs", "counts.links": "Links / cables / transceivers",
                  "cost.hardware_depreciation_years": "Lives: servers / network", "cost.wacc": "Capital charge"}


@pytest.mark.parametrize("example", ["dgx-h100-superpod-4su", "train-and-serve"])
def test_report_rows_of_a_metric_carry_its_label(example):
    ev = evaluate(load_project(EXAMPLES / f"{example}.json"), default_catalog())
    seen = 0
    for _, rows in report_sections(ev):
        for row in rows:
            path = re.sub(r"^services\.[^.]+\.", "inference.", row.key)
            m = next((x for x in (*METRICS, *DETAILS) if x.path == path), None)
            if m is not None:
                seen += 1
                assert row.label.strip() == COMPOSITE_ROWS.get(m.path, m.in_report), row
    assert seen > 30


def test_panels_mark_their_metrics_under_the_registrys_labels():
    pytest.importorskip("PySide6")
    from designer.panels import (bandwidth, cost, latency, overview, performance, power, reliability,
                                 storage)

    panels = (bandwidth.BandwidthPanel, cost.CostPanel, latency.LatencyPanel, overview.OverviewPanel,
              performance.PerformancePanel, power.PowerPanel, reliability.ReliabilityPanel, storage.StoragePanel)
    for panel in panels:
        assert panel.metric_paths, panel
        for label, path in panel.metric_paths.items():
            assert label == metric(path).in_panel(panel.title), (panel.title, label, path)


# Quoted strings in the consumers that read as a metric's label but are something else.
NOT_A_METRIC = {
    ("core/compare.py", "GPUs"): "a unit",
    ("core/report/sections.py", "DPUs"): "the title of the DPU section",
    ("core/report/cost_rows.py", "Facility"): "the facility's kind (built or colocation)",
    ("designer/panels/serving_text.py", "Memory per GPU"): "a section title",
    ("designer/panels/storage.py", "DPUs"): "a section title",
    ("designer/panels/storage.py", "Checkpoint write"): "an I/O class's name",
    ("designer/panels/storage.py", "Checkpoint restore"): "an I/O class's name",
    ("designer/panels/power.py", "Training run"): "a section title",
    ("designer/panels/cost.py", "GPUs"): "a chart bar (accelerators' capex)",
    ("designer/panels/cost.py", "Capex"): "a section title",
    ("designer/panels/performance.py", "GPUs"): "a chart axis",
}


def test_no_consumer_spells_a_metric_label_of_its_own():
    """compare, the report, the sweep and the panels take each metric's label from
    core/metrics.py: a quoted label in their source is a second definition (or, listed above,
    the same words for something else)."""
    labels = {label for m in (*METRICS, *DETAILS)
              for label in (m.label, m.in_report, m.in_panel(), *(x for _, x in m.panel_labels))}
    consumers = ["core/compare.py", *glob.glob("core/report/*.py", root_dir=ROOT),
                 *glob.glob("core/sweep/*.py", root_dir=ROOT), *glob.glob("designer/panels/*.py", root_dir=ROOT)]
    found = {(path, label) for path in consumers for label in labels
             for source in [(ROOT / path).read_text()] if f'"{label}"' in source or f"'{label}'" in source}
    assert found == set(NOT_A_METRIC), (sorted(found - set(NOT_A_METRIC)), sorted(set(NOT_A_METRIC) - found))
