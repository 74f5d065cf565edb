"""File > Open Sweep Results: the scatter, its axes, the skipped rows, and opening a point's design."""

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QMessageBox

from core.compare import format_value
from core.evaluate import evaluate, evaluation_to_json
from core.inference_workload import InferenceWorkload
from core.sweep.results import write_results
from core.sweep.run import run_sweep
from core.sweep.spec import sweep_spec_from_dict

SPEC = {"template": "fat-tree",
        "options": {"gpus": [512, 1024], "server": "DGX-H100", "switch": ["QM9700", "SN5600"],
                    "island_gpus": [None, 1001]},
        "workloads": ["llama3-70b"]}


def _swept(spec_dict, folder):
    """(results file, outcomes) of the sweep ``spec_dict``, written in ``folder``."""
    spec = sweep_spec_from_dict(spec_dict)
    recipes, outcomes = run_sweep(spec, jobs=1)
    path = folder / "results.csv"
    write_results(path, spec, recipes, outcomes)
    return path, outcomes


def _opened(window, path, qtbot):
    view = window.sweep_results.open_results(path)
    qtbot.addWidget(view)
    return view


def _click_a_front_point(view, qtbot) -> int:
    """Click the first Pareto point on screen as a user does; the row that opens."""
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)  # the view box takes its auto range on the first paint
    ordinary, front = view.plotted()
    x, y = view.display_point(front[0])
    # The topmost point under the cursor is the one that opens (two designs may overlap).
    row = int(view.front.pointsAt(QPointF(x, y))[0].data())
    widget_point = view.plot.mapFromScene(view.plot.plotItem.vb.mapViewToScene(QPointF(x, y)))
    qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=widget_point)
    return row


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return _swept(SPEC, tmp_path_factory.mktemp("sweep"))


@pytest.fixture
def view(window, results, qtbot):
    return _opened(window, results[0], qtbot)


def test_menu_has_open_sweep_results(window):
    bar = window.menuBar()
    (file_action,) = [a for a in bar.actions() if a.text() == "&File"]
    assert window.sweep_results.open_action in file_action.menu().actions()


def test_scatter_shows_designs_front_and_skipped_rows(view, results):
    _, outcomes = results
    ok = [i for i, o in enumerate(outcomes) if o["error"] is None]
    ordinary, front = view.plotted()
    assert sorted([*ordinary, *front]) == ok
    assert len(front) >= 1 and all(view.table.pareto[front])
    assert (view.x_path, view.y_path) == ("cost.capex_usd", "performance.training_days")
    assert len(view.points.data) + len(view.front.data) == len(ok)
    assert view.errors.rowCount() == 4
    reasons = {view.errors.item(r, view.errors.columnCount() - 1).text() for r in range(4)}
    assert reasons == {"--island-gpus 1001 must be a positive multiple of 8"}
    assert "4 skipped" in view.summary.text()


def test_changing_axes_plots_those_metrics(view, results):
    _, outcomes = results
    view.set_axes("bandwidth.bisection_tbit_s", "power.it_kw")
    xs = sorted([*view.points.data["x"], *view.front.data["x"]])
    expected = sorted(o["metrics"]["bandwidth.bisection_tbit_s"] for o in outcomes if o["error"] is None)
    assert xs == expected  # Tb/s of these small pods need no scale
    assert view.plot.getAxis("bottom").labelText == "Bisection bandwidth (Tb/s)"
    assert view.plot.getAxis("left").labelText == "IT power (kW)"


def test_tooltip_names_the_rows_parameters(view):
    ordinary, front = view.plotted()
    row = int(front[0])
    text = view.tooltip(x=0.0, y=0.0, data=row)
    assert f"switch: {view.table.cells['switch'][row]}" in text
    assert f"gpus: {view.table.cells['gpus'][row]}" in text
    assert "on the Pareto front" in text
    days = view.table.numbers["performance.training_days"][row]
    assert f"Training time (days): {format_value(days, 'days')}" in text


def test_dollar_axes_read_in_millions(view):
    view.set_axes("cost.capex_usd", "performance.training_days")
    assert view.plot.getAxis("bottom").labelText == "Capex (million USD)"
    ordinary, front = view.plotted()
    assert view.front.data["x"][0] == view.table.numbers["cost.capex_usd"][front[0]] / 1e6


def test_clicking_a_point_opens_its_design(window, view, qtbot):
    view.set_axes("cost.capex_usd", "power.it_kw")
    row = _click_a_front_point(view, qtbot)
    recipe = view.table.recipe(row)
    qtbot.waitUntil(lambda: window.document.design.name.startswith(f"{recipe['options']['gpus']:,} x"))
    design = window.document.design
    assert window.document.path is None
    assert recipe["options"]["switch"] in design.name
    evaluation = evaluation_to_json(evaluate(design))
    assert evaluation["power"]["it_kw"] == view.table.numbers["power.it_kw"][row]
    assert evaluation["cost"]["capex_usd"] == view.table.numbers["cost.capex_usd"][row]
    assert evaluation["performance"]["training_days"] == view.table.numbers["performance.training_days"][row]


def test_unsaved_work_can_keep_the_design(window, view, monkeypatch, small_design):
    window.load_design(small_design, None)
    window.document.undo_stack.resetClean()
    from core.operations import SetDesignName  # an edit makes the document dirty
    window.document.push(SetDesignName("mine"), "rename")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    ordinary, front = view.plotted()
    assert not window.sweep_results.open_row(view, int(front[0]))
    assert window.document.design.name == "mine"


def test_a_file_that_is_not_results_is_one_error(window, tmp_path, no_modal_dialogs):
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    assert window.sweep_results.open_results(path) is None
    assert no_modal_dialogs == [("critical", f"{path}: not sweep results (no column index, error, pareto, recipe)")]


# --- serving ------------------------------------------------------------------------------------
_LLAMA = json.loads((Path(__file__).resolve().parents[2] / "resources" / "workloads" /
                     "llama31-70b-serve.json").read_text())
SERVING_SPEC = {"template": "supernode",
                "options": {"system": ["DGX-H100", "DGX-H200"], "count": [1, 2]},
                "workloads": [{**_LLAMA, "name": "Llama auto", "deployment": "auto"},
                              # a TPOT no deployment of a 70B model reaches: hollow, off the front
                              {**_LLAMA, "name": "Llama 1 ms", "slo": {"ttft_ms": 2000, "tpot_ms": 1}}]}


@pytest.fixture(scope="module")
def serving_results(tmp_path_factory):
    return _swept(SERVING_SPEC, tmp_path_factory.mktemp("serving"))


def test_serving_sweep_plots_cost_per_token_against_tpot(window, serving_results, qtbot):
    path, outcomes = serving_results
    view = _opened(window, path, qtbot)
    for path in ("inference.usd_per_million_output_tokens", "inference.output_tokens_per_s_per_gpu",
                 "inference.design_output_tokens_per_s", "inference.tpot_ms", "inference.ttft_ms"):
        assert view.x_combo.findData(path) >= 0 and view.y_combo.findData(path) >= 0, path
    assert view.x_combo.findData("performance.training_days") < 0  # no row trains
    assert (view.x_path, view.y_path) == ("inference.tpot_ms", "inference.usd_per_million_output_tokens")
    assert view.plot.getAxis("left").labelText == "Cost per million output tokens (USD/Mtoken)"
    missed = [i for i, o in enumerate(outcomes) if o["meets_slo"] is False]
    assert len(missed) == 4 and view.table.misses_slo.tolist() == [o["meets_slo"] is False for o in outcomes]
    ordinary, front = view.plotted()
    assert set(missed) <= set(ordinary) and not set(missed) & set(front)
    # drawn hollow: no fill, the ordinary colour as outline
    brushes = view.points.data["brush"]
    hollow = {int(row) for row, brush in zip(view.points.data["data"], brushes)
              if brush.style() == Qt.BrushStyle.NoBrush}
    assert hollow == set(missed)
    assert "4 plotted miss their serving SLOs (hollow, never on the front)" in view.summary.text()
    assert "misses its SLOs" in view.tooltip(0.0, 0.0, missed[0])
    assert "misses its SLOs" not in view.tooltip(0.0, 0.0, int(front[0]))


def test_clicking_a_serving_point_opens_its_design_with_its_workload(window, serving_results, qtbot):
    view = _opened(window, serving_results[0], qtbot)
    row = _click_a_front_point(view, qtbot)
    recipe = view.table.recipe(row)
    qtbot.waitUntil(lambda: window.document.design.name.startswith(
        f"{recipe['options']['count']} x {recipe['options']['system']}"))
    design = window.document.design
    assert isinstance(design.workload, InferenceWorkload) and design.workload.auto
    assert design.workload.name == "Llama auto" and window.document.path is None
    served = evaluation_to_json(evaluate(design))["inference"]
    for key in ("usd_per_million_output_tokens", "tpot_ms", "output_tokens_per_s_per_gpu"):
        assert served[key] == view.table.numbers[f"inference.{key}"][row], key
    assert served["meets_slo"] is True and served["search"] is not None  # searched again on opening
