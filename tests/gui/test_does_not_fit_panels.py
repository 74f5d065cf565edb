"""Panels of a job that cannot run say "does not fit" and why, never a number; the warnings
panel shows severities with distinct icons, most serious first."""

import copy
import dataclasses

from PySide6.QtCore import Qt

from core.catalog import default_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Block, Design, Node
from core.workload import load_preset, with_parallelism
from designer.common.format import pct
from designer.panels.performance import DOES_NOT_FIT
from designer.panels.warnings import SEVERITY_ROLE


def _evaluated(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last


def test_panels_say_does_not_fit_with_the_reason(window, qtbot, small_design):
    small_design.workload = load_preset("llama3-405b")  # Meta's layout: 16,384 GPUs on 1,024
    ev = _evaluated(window, qtbot, small_design).evaluation
    reason = ev.cannot_run[0].message
    assert "16,384" in reason
    panel = window.performance_panel
    assert panel.verdict.isVisibleTo(panel) and panel.bottleneck.isHidden()
    assert "Does not fit" in panel.verdict.text() and "16,384" in panel.verdict.text()
    for label in ("MFU", "Step time", "Tokens per second", "Training time (with ETTR)"):
        assert panel.value(label) == DOES_NOT_FIT
    assert panel.value("Job GPUs") == "16,384"
    assert panel.value("Memory per GPU").endswith("of 85.5 GB")  # still real: why it would fit (an "80GB" H100 holds 85.5 GB)
    assert panel.value("   weights").endswith("GB")
    assert panel.breakdown.isHidden()
    assert window.overview_panel.value("Result") == f"{DOES_NOT_FIT}: {reason}"
    for label in ("Energy (facility)", "Electricity cost", "CO₂", "GPU-hours"):
        assert window.power_panel.value(label) == DOES_NOT_FIT
    assert DOES_NOT_FIT in window.run_label.text() and reason in window.run_label.toolTip()


def test_a_job_that_runs_shows_its_numbers_again(window, qtbot, small_design):
    small_design.workload = load_preset("llama3-405b")
    _evaluated(window, qtbot, small_design)
    fits = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), default_catalog())
    fits.workload = load_preset("llama3-70b")
    ev = _evaluated(window, qtbot, fits).evaluation
    panel = window.performance_panel
    assert panel.verdict.isHidden() and not panel.breakdown.isHidden()
    assert panel.value("MFU") == pct(ev.performance.mfu)
    assert window.overview_panel.value("MFU") == pct(ev.performance.mfu)
    assert window.run_label.text().startswith(f"MFU {pct(ev.performance.mfu)}")


def test_warnings_show_severity_icons_in_order_and_select_what_joins_a_split_fabric(window, qtbot):
    pod = generate_fat_tree(FatTreeOptions(512, "DGX-H100", "QM9700"), default_catalog()).root
    a, b = copy.deepcopy(pod), copy.deepcopy(pod)
    a.id, b.id = "pod-a", "pod-b"
    design = Design("two pods", Block("root", children={"pod-a": a, "pod-b": b}))
    # 768 GPUs: more than one pod; 80 layers on 6 stages (a fact: the fullest stage sets the pace)
    design.workload = with_parallelism(load_preset("llama3-70b"), pp=6, dp=16, virtual_stages=1)
    _evaluated(window, qtbot, design)
    panel = window.warnings_panel
    items = [panel.item(i) for i in range(panel.count())]
    severities = [item.data(SEVERITY_ROLE) for item in items]
    assert severities[0] == "error" and {"error", "warning", "info"} <= set(severities)
    order = {"error": 0, "warning": 1, "info": 2}
    assert severities == sorted(severities, key=order.__getitem__)
    icons = {}
    for item, severity in zip(items, severities):
        icons.setdefault(severity, item.icon().pixmap(16, 16).toImage())
    assert icons["error"] != icons["warning"] != icons["info"] != icons["error"]
    assert items[0].text().startswith("JOB_NOT_CONNECTED:")
    split = next(item for item in items if item.text().startswith("FABRIC_PARTITIONED:"))
    assert split.toolTip().startswith("Warning:")
    with qtbot.waitSignal(panel.reveal) as revealed:
        panel.itemClicked.emit(split)
    assert revealed.args[0] == ["pod-a/spine", "pod-b/spine"]
    assert split.data(Qt.ItemDataRole.UserRole) == ["pod-a/spine", "pod-b/spine"]


def test_no_scaling_chart_when_no_size_can_run(window, qtbot):
    design = Design("one DGX", Block("root", children={"dgx": Node("dgx", "DGX-H100")}))
    design.workload = dataclasses.replace(load_preset("llama3-405b"), parallelism="auto")
    ev = _evaluated(window, qtbot, design).evaluation
    assert [d.code for d in ev.cannot_run] == ["NO_CONFIGURATION_FITS"]
    panel = window.performance_panel
    assert panel.scaling.isHidden() and panel.breakdown.isHidden()
    assert "no parallel configuration" in panel.verdict.text()
    assert panel.value("Memory per GPU").endswith(f"✗ {DOES_NOT_FIT}")
