"""Pin a baseline or compare with a file: the Comparison panel and the marks beside the metric
panels' values show the current design against it, through edits, undo and other files."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.catalog import default_catalog
from core.compare import METRICS, NOT_AVAILABLE, Delta, delta
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.operations import SetProperty
from core.project import save_project
from designer.common.delta_text import MARK_COLOR, delta_text
from designer.panels.comparison import NO_BASELINE

WAIT_MS = 20_000


def _show(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=WAIT_MS):
        window.load_design(design, None)


def _su(design):
    return next(k for k in design.root.children if k.startswith("su"))


def _set_su_count(window, qtbot, count):
    with qtbot.waitSignal(window.evaluator.finished, timeout=WAIT_MS):
        window.document.push(SetProperty(_su(window.document.design), "count", count))


def _fat_tree(gpus, name):
    design = generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), default_catalog())
    design.name = name
    return design


def test_without_a_baseline_the_panel_says_how_to_set_one(window, qtbot, small_design):
    _show(window, qtbot, small_design)
    panel = window.comparison_panel
    assert panel.sentence() == NO_BASELINE and "Pin as Baseline" in panel.sentence()
    assert panel.paths() == []
    assert window.overview_panel.delta("GPUs") == ""
    assert not window.baseline.clear_action.isEnabled()
    assert "not saved in the project" in window.baseline.pin_action.statusTip()


def test_pin_then_halve_the_design_marks_each_change(window, qtbot, small_design):
    _show(window, qtbot, small_design)
    gpus = window.evaluator.last.evaluation.counts.gpus
    window.baseline.pin_action.trigger()
    panel = window.comparison_panel
    # Pinned and unchanged: every metric equal, nothing better or worse.
    assert panel.row("counts.gpus") == ("GPUs", f"{gpus:,}", f"{gpus:,}", "±0 (±0%)", "= equal")
    assert "the same as" in panel.sentence()

    window.scene.select([_su(small_design)])
    with qtbot.waitSignal(window.evaluator.finished, timeout=WAIT_MS):
        window.inspector.fields["count"].setValue(2)  # the Inspector's count: half the SUs
    now = window.evaluator.last.evaluation
    assert now.counts.gpus == gpus // 2
    label, base, current, change, verdict = panel.row("counts.gpus")
    assert (base, current, change) == (f"{gpus:,}", f"{gpus // 2:,}", f"−{gpus // 2:,} (−50%)")
    assert verdict == "≠ changed"  # a count is neither better nor worse
    # Half the bisection bandwidth is worse, half the power better: sign, word and colour.
    assert panel.row("bandwidth.bisection_tbit_s")[3].startswith("−")
    assert panel.row("bandwidth.bisection_tbit_s")[4] == "▼ worse"
    assert panel.row_color("bandwidth.bisection_tbit_s") == MARK_COLOR["worse"]
    assert panel.row("power.facility_kw")[3].startswith("−")
    assert panel.row("power.facility_kw")[4] == "▲ better"
    assert panel.row_color("power.facility_kw") == MARK_COLOR["better"]
    assert "less facility power" in panel.sentence() and "less bisection bandwidth" in panel.sentence()
    # Rows are grouped by section, in report order.
    assert panel.sections()[:3] == ["Counts", "Bandwidth", "Latency"]
    assert panel.row("bandwidth.bisection_tbit_s")[0] == "Bisection bandwidth (Tb/s)"
    # The metric panels keep their values and show the change beside them.
    assert window.overview_panel.value("GPUs") == f"{gpus // 2:,}"
    assert window.overview_panel.delta("GPUs") == "−50% changed"
    assert window.bandwidth_panel.delta("Bisection").endswith("worse")
    assert window.power_panel.delta("Facility").endswith("better")


def test_clear_removes_the_table_and_the_marks(window, qtbot, small_design):
    _show(window, qtbot, small_design)
    window.baseline.pin_action.trigger()
    _set_su_count(window, qtbot, 2)
    assert window.overview_panel.delta("GPUs")
    before = window.overview_panel.value("GPUs")
    window.baseline.clear_action.trigger()
    assert window.comparison_panel.sentence() == NO_BASELINE
    assert window.overview_panel.delta("GPUs") == "" and window.power_panel.delta("Facility") == ""
    assert window.overview_panel.value("GPUs") == before
    _set_su_count(window, qtbot, 3)  # later evaluations stay uncompared
    assert window.comparison_panel.paths() == []


def test_undo_after_pin_keeps_the_baseline(window, qtbot, small_design):
    _show(window, qtbot, small_design)
    window.baseline.pin_action.trigger()
    _set_su_count(window, qtbot, 2)
    assert window.comparison_panel.row("counts.gpus")[4] == "≠ changed"
    with qtbot.waitSignal(window.evaluator.finished, timeout=WAIT_MS):
        window.document.undo_stack.undo()
    assert window.baseline.baseline is not None
    assert window.comparison_panel.row("counts.gpus")[4] == "= equal"


def test_missing_performance_is_na_never_a_number(window, qtbot, small_design):
    """The generated design has no workload: MFU and training time exist as keys but are null."""
    _show(window, qtbot, small_design)
    window.baseline.pin_action.trigger()
    _set_su_count(window, qtbot, 2)
    for path in ("performance.mfu", "performance.training_days"):
        assert window.comparison_panel.row(path)[1:] == ("n/a",) * 4


def test_compare_with_a_project_of_another_size_and_it_survives_opening_files(window, qtbot, tmp_path):
    path = tmp_path / "half.json"
    save_project(_fat_tree(512, "half"), path)
    _show(window, qtbot, _fat_tree(1024, "full"))
    assert window.baseline.compare_with_file(path)
    panel = window.comparison_panel
    assert panel.row("counts.gpus")[1:4] == ("512", "1,024", "+512 (+100%)")
    assert panel.sentence().startswith("full: ") and "than half" in panel.sentence()
    # Opening another design keeps the baseline: it is compared with the new one.
    _show(window, qtbot, _fat_tree(2048, "double"))
    assert panel.row("counts.gpus")[1:4] == ("512", "2,048", "+1,536 (+300%)")


def test_compare_with_a_saved_evaluation(window, qtbot, tmp_path):
    half = _fat_tree(512, "half")
    path = tmp_path / "half-evaluation.json"
    path.write_text(json.dumps(evaluation_to_json(evaluate(half, default_catalog()))))
    _show(window, qtbot, _fat_tree(1024, "full"))
    assert window.baseline.compare_with_file(path)
    assert window.baseline.baseline.name == "half"
    assert window.comparison_panel.row("counts.gpus")[2] == "1,024"


@pytest.mark.parametrize("content", ["{not json", '{"format": "something-else/1"}', None])
def test_a_bad_file_is_one_line_and_keeps_the_old_baseline(window, qtbot, small_design, tmp_path,
                                                           no_modal_dialogs, content):
    _show(window, qtbot, small_design)
    window.baseline.pin_action.trigger()
    pinned = window.baseline.baseline
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert not window.baseline.compare_with_file(path)
    assert window.baseline.baseline is pinned
    assert window.comparison_panel.row("counts.gpus")[4] == "= equal"
    (kind, text), = no_modal_dialogs
    assert kind == "critical" and "\n" not in text and "bad.json" in text
    assert "Traceback" not in text
    assert "bad.json" in window.statusBar().currentMessage()


def test_comparison_dock_is_tabbed_and_raisable(window):
    assert window.comparison_dock in window.tabifiedDockWidgets(window.metric_docks[-1])
    window.raise_metric_panel("comparison")
    assert not window.comparison_dock.visibleRegion().isEmpty()


def test_a_full_comparison_table_does_not_raise_the_window_minimum_size(window, qtbot, small_design):
    _show(window, qtbot, small_design)
    window.baseline.pin_action.trigger()
    # half the SUs on the same spines overruns the leaves' ports: the window's invalid-design
    # banner appears, which may take height of its own; the table is measured after it
    _set_su_count(window, qtbot, 2)
    window.layout().activate()
    before = window.minimumSizeHint()
    window.raise_metric_panel("comparison")
    window.layout().activate()
    assert window.minimumSizeHint().height() <= before.height()
    assert window.minimumSizeHint().width() <= before.width()


finite = st.one_of(st.none(), st.floats(-1e15, 1e15, allow_nan=False), st.integers(-10**9, 10**9))


@given(finite, finite, st.sampled_from(METRICS))
def test_every_change_reads_with_the_right_sign_and_word(base, value, metric):
    """Whatever the numbers: n/a has no digits, the sign follows the change, the word follows
    the better/worse call (so colour is never the only mark)."""
    d = delta(base, value, metric.direction)
    text = delta_text(metric, d)
    if d.better == NOT_AVAILABLE:
        assert text == delta_text(metric, Delta(None, None, NOT_AVAILABLE))
        assert not any(ch.isdigit() for ch in text.short + text.absolute + text.verdict)
        return
    sign = "+" if d.absolute > 0 else "−" if d.absolute < 0 else "±"
    assert text.absolute.startswith(sign)
    assert text.verdict.endswith({"better": "better", "worse": "worse", "equal": "equal",
                                  "different": "changed"}[d.better])
    assert text.short.endswith(text.verdict.split()[-1])
    assert text.color == MARK_COLOR[d.better]


def test_pin_never_takes_the_result_of_an_older_design(window, qtbot, small_design, monkeypatch):
    """When the newest evaluation failed, Pin evaluates again; failing again it pins nothing."""
    from core.errors import DesignError
    import designer.project.evaluator

    _show(window, qtbot, small_design)

    def fail(*_args):
        raise DesignError("su: too many links for this test")

    monkeypatch.setattr(designer.project.evaluator, "run_evaluation", fail)
    window.evaluate_now()
    window.baseline.pin_action.trigger()
    assert window.baseline.baseline is None
    assert "too many links" in window.statusBar().currentMessage()
