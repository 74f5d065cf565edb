"""Performance of the workload: what limits MFU, MFU, step time and its breakdown, scaling.

The "what limits MFU" paragraph is core's (``Evaluation.bottleneck``: a typed result with a
text and a what-if); the panel only lays it out. Older cores without it show no paragraph.

An inference workload (``Evaluation.inference``) shows its serving figures instead
(panels/serving_text.py), the throughput-latency chart (panels/serving_chart.py), and what
limits serving, the what-ifs and an "auto" deployment's search (panels/serving_details.py).

A design with several workloads (inference services beside the main workload, each on its
partition: core/services.py) gets a chooser at the top: the main workload's figures on its
partition, or one service's serving figures (``Evaluation.services``), whose baseline marks
compare it with the baseline's service of the same name (core/compare.py's service metrics).
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from core.analysis.inference_bottleneck import InferenceBottleneck
from core.compare import Comparison
from core.metrics import panel_paths
from core.report.run_rows import mfu_range_text, recipe_text
from designer.common.format import num, pct, seconds
from designer.panels.base import MetricsPanel, metric_label, metric_row
from designer.panels.charts import LineChart, StackedBar
from designer.panels.serving_chart import ThroughputLatencyChart, curve_marks
from designer.panels.serving_details import ServingDetails, serving_bottleneck_html
from designer.panels.serving_text import (DOES_NOT_FIT, SERVING_PATHS, cannot_serve_html, serving_gpus,
                                          serving_rows, serving_status, slo_html)
from designer.project.evaluator import Result

PART_NAMES = {
    "compute": "compute", "recompute": "recompute", "tp_comm": "TP comm", "cp_comm": "CP comm",
    "ep_comm": "EP comm", "pp_comm": "PP comm", "dp_comm": "DP comm", "bubble": "bubble",
    "optimizer": "optimizer", "straggler": "straggler", "other": "other", "offload": "offload",
}


_LIMIT_ATTRS = ("text", "headline", "summary", "explanation", "message", "description", "limiter", "reason")
_WHAT_IF_ATTRS = ("what_if", "whatif", "what_would_help", "best_what_if", "remedy", "suggestion", "advice",
                  "what_ifs")
_ITEM_TEXT_ATTRS = ("text", "description", "summary", "message", "action", "change", "label", "name")
LIMIT_PREFIX = "What limits MFU"
HELP_PREFIX = "what would help most"


def _text_of(value: Any, attrs: tuple[str, ...]) -> str:
    """A readable line from a str, an object with a text-like attribute, or the first item of a list."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (list, tuple)):
        return _text_of(value[0], attrs) if value else ""
    for name in attrs:
        inner = getattr(value, name, None)
        if callable(inner):
            try:
                inner = inner()
            except TypeError:
                continue
        if isinstance(inner, str) and inner.strip():
            return inner.strip()
    return ""


def _structured_html(bottleneck: Any) -> str:
    """core.analysis.bottleneck.BottleneckResult, kept short: the largest limiters by share of the
    step and the fitting what-if that helps most (texts and numbers are core's; the details go
    to the tooltip, see bottleneck_tooltip)."""
    limiters = [x for x in (getattr(bottleneck, "limiters", ()) or ()) if getattr(x, "name", "")]
    named = []
    for x in limiters[:3]:
        share = getattr(x, "share", None)
        named.append(html.escape(x.name) + (f" ({pct(share)} of the step)" if isinstance(share, (int, float))
                                            and not named else f" {pct(share)}" if isinstance(share, (int, float))
                                            else ""))
    head = f"<b>{LIMIT_PREFIX}:</b> "
    head += named[0] if named else html.escape(str(getattr(bottleneck, "primary", "")))
    if len(named) > 1:
        head += ", then " + ", ".join(named[1:])
    best = getattr(bottleneck, "best", None)
    best_text = _text_of(best, ("text", "description"))
    if best_text:
        tail = f"<b>What would help most:</b> {html.escape(best_text)}"
    elif best is None and getattr(bottleneck, "what_ifs", None) is not None:
        tail = "<b>What would help most:</b> none of the changes tried raises MFU materially"
    else:
        tail = ""
    return f"{head}.<br>{tail}." if tail else f"{head}."


def bottleneck_tooltip(bottleneck: Any) -> str:
    """Core's own summary and each limiter's explanation (hover the paragraph)."""
    if bottleneck is None:
        return ""
    lines = []
    summary = _text_of(bottleneck, ("summary",))
    if summary:
        lines.append(html.escape(summary))
    for x in (getattr(bottleneck, "limiters", ()) or ())[:5]:
        text = _text_of(x, ("text",))
        if text:
            lines.append(f"<b>{html.escape(getattr(x, 'name', ''))}</b>: {html.escape(text)}")
    return "<br>".join(lines)


def bottleneck_html(bottleneck: Any) -> str:
    """The highlighted paragraph for core's bottleneck result ("" when there is nothing to say)."""
    if bottleneck is None:
        return ""
    if isinstance(bottleneck, InferenceBottleneck):  # "What limits serving" (panels/serving_details.py)
        return serving_bottleneck_html(bottleneck)
    if getattr(bottleneck, "limiters", None):
        return _structured_html(bottleneck)
    limit = _text_of(bottleneck, _LIMIT_ATTRS) or (str(bottleneck) if isinstance(bottleneck, str) else "")
    what_if = ""
    for name in _WHAT_IF_ATTRS:
        candidate = getattr(bottleneck, name, None)
        what_if = _text_of(candidate, _ITEM_TEXT_ATTRS)
        if what_if:
            break
    if not limit and not what_if:
        return ""
    parts = []
    if limit:
        body = html.escape(limit)
        parts.append(body if limit.lower().startswith(LIMIT_PREFIX.lower()) else f"<b>{LIMIT_PREFIX}:</b> {body}")
    if what_if and what_if not in limit:
        body = html.escape(what_if)
        parts.append(body if what_if.lower().startswith(HELP_PREFIX) else f"<b>{HELP_PREFIX}:</b> {body}")
    return " — ".join(parts)


def cannot_run_html(ev: Any) -> str:
    """The "does not fit" paragraph: which workload, and core's reasons, one per line ("" when
    the workload runs or there is none)."""
    reasons = ev.cannot_run
    if not reasons or ev.workload is None:
        return ""
    lines = "".join(f"<br>• {html.escape(d.message)} <span style='color:#8d6e63'>({d.code})</span>"
                    for d in reasons)
    return (f"<b>{DOES_NOT_FIT.capitalize()}</b>: {html.escape(ev.workload.name)} cannot run on this "
            f"design, so it has no MFU, step time or training time:{lines}")


def status_text(ev: Any) -> tuple[str, str]:
    """(text, tooltip) for the status bar: the run's MFU and days, or "does not fit" and why."""
    if ev.inference is not None:
        return serving_status(ev.inference)
    perf = ev.performance
    if ev.workload is None:
        return "", ""
    reasons = ev.cannot_run
    if reasons:
        return (f"{ev.workload.name}: {DOES_NOT_FIT}",
                "\n".join(f"{d.code}: {d.message}" for d in reasons))
    if perf is None:
        return "", ""
    return (f"MFU {pct(perf.mfu)} · {num(perf.training_days, 1, 'days')}",
            f"{ev.workload.name}: {num(perf.tokens_per_s, 0)} tokens/s, step {seconds(perf.step_time_s)}")


MEMORY_PARTS = (("weights", "weights_gb"), ("gradients", "gradients_gb"),
                ("optimizer", "optimizer_gb"), ("activations", "activations_gb"),
                ("logits", "logits_gb"), ("workspace", "workspace_gb"),
                ("framework", "framework_gb"))


def workload_entries(ev: Any) -> list[tuple[str | None, str]]:
    """(key, text) of each workload of a design: the main one (key None; left out when the
    design has none), then each service by name."""
    entries: list[tuple[str | None, str]] = []
    if ev.workload is not None:
        entries.append((None, f"{ev.workload.name} (training)"))
    elif ev.inference is not None:
        entries.append((None, f"{ev.inference.workload.name} (inference)"))
    entries += [(s.name, f"Service {s.name}: {s.workload.name}") for s in ev.services]
    return entries


def on_partition(view: Any) -> str:
    """"partition reasoning (blocks serve: 576 GPUs, GB200)"."""
    where = view.describe()
    if view.fabric is not None:
        where += f", {view.fabric.accelerator.id}"
    return f"partition {view.name} ({where})"


SLO_MET_STYLE = ("background: #e8f5e9; color: #1b5e20; border-left: 4px solid #2e7d32; border-radius: 3px; "
                 "padding: 4px 8px;")
AMBER_NOTE_STYLE = ("background: #fff8e1; color: #3e2723; border-left: 4px solid #ff8f00; "
                    "border-radius: 3px; padding: 4px 8px;")  # the bottleneck's, and a missed SLO's


def moe_rows(perf) -> list[tuple[str, str]]:
    """An MoE run's all-to-all per step (its share, what is left exposed) and its memory by
    part: the routed experts' states and activations against the rest."""
    if not getattr(perf, "moe", False) or perf.alltoall_s is None:
        return []
    step = perf.step_time_s or 0.0
    exposed = (perf.breakdown_s or {}).get("ep_comm", 0.0)
    share = f", {pct(perf.alltoall_s / step)} of the step" if step else ""
    mem = perf.memory
    return [
        ("All-to-all per step", f"{seconds(perf.alltoall_s)}{share}; {seconds(exposed)} exposed"),
        ("   experts' weights, gradients, optimizer", num(mem.expert_states_gb, 1, "GB")),
        ("   experts' activations", num(mem.expert_activations_gb, 1, "GB")),
        ("   attention, dense and shared layers",
         num(mem.model_states_gb - mem.expert_states_gb
             + mem.activations_gb - mem.expert_activations_gb, 1, "GB")),
    ]


class PerformancePanel(MetricsPanel):
    title = "Performance"
    metric_paths = panel_paths(
        "performance.mfu", "performance.tflops_per_gpu", "performance.step_time_s", "performance.tokens_per_s",
        "performance.training_days", "performance.memory_per_gpu_gb",
        *SERVING_PATHS)  # an inference workload's rows (panels/serving_text.py)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._result: Result | None = None
        self._comparison: Comparison | None = None
        self.chooser_row = QWidget()  # several workloads: which one the panel shows
        row = QHBoxLayout(self.chooser_row)
        row.setContentsMargins(0, 0, 0, 2)
        row.addWidget(QLabel("Workload"))
        self.chooser = QComboBox()
        self.chooser.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.chooser.setToolTip("The design carries several workloads: the main one on its partition, and "
                                "each inference service on its own")
        self.chooser.activated.connect(lambda _: self._show_chosen())
        row.addWidget(self.chooser, 1)
        self.chooser_row.hide()
        self._layout.insertWidget(0, self.chooser_row)
        self.verdict = QLabel()  # "does not fit" and why, where the bottleneck would be
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.setStyleSheet("background: #ffebee; color: #b71c1c; border-left: 4px solid #c62828; "
                                   "border-radius: 3px; padding: 4px 8px;")
        self.verdict.hide()
        self._layout.insertWidget(2, self.verdict)
        self.bottleneck = QLabel()
        self.bottleneck.setWordWrap(True)
        self.bottleneck.setTextFormat(Qt.TextFormat.RichText)
        self.bottleneck.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bottleneck.setStyleSheet(AMBER_NOTE_STYLE)
        self.bottleneck.hide()
        self._layout.insertWidget(3, self.bottleneck)  # under the message, above the values
        self.breakdown = StackedBar("Step-time breakdown", "seconds per step")
        self.scaling = LineChart("MFU against GPU count (data-parallel scaling)", "MFU (%)", "GPUs",
                                 log_x=True)
        self.add_chart(self.breakdown)
        self.add_chart(self.scaling)
        self.slo = QLabel()  # an inference workload's SLO verdict, above its values
        self.slo.setWordWrap(True)
        self.slo.setTextFormat(Qt.TextFormat.RichText)
        self.slo.hide()
        self._layout.insertWidget(4, self.slo)
        # the throughput-latency chart right under the SLO verdict, above the values: the trade
        # a serving design is chosen on, in view when the panel opens
        self.serving_chart = ThroughputLatencyChart()
        self.serving_chart.hide()
        self._layout.insertWidget(self._layout.indexOf(self.slo) + 1, self.serving_chart)
        self.serving_details = ServingDetails(self.bottleneck)  # what-ifs and the "auto" search
        self.add_chart(self.serving_details)

    def update_result(self, result: Result) -> None:
        self._result = result
        self._fill_chooser(result.evaluation)
        self._show_chosen()

    def _fill_chooser(self, ev) -> None:
        """The workloads to choose from (main first, then each service), when there are
        services; the choice stays on the same workload while it exists."""
        entries = workload_entries(ev) if ev.services else []
        shown = [(self.chooser.itemData(i), self.chooser.itemText(i)) for i in range(self.chooser.count())]
        if entries != shown:
            chosen = self.chooser.currentData()
            self.chooser.clear()
            for key, text in entries:
                self.chooser.addItem(text, key)
            keys = [key for key, _ in entries]
            self.chooser.setCurrentIndex(keys.index(chosen) if chosen in keys else 0)
        self.chooser_row.setVisible(bool(entries))

    def chosen_service(self):
        """The service shown (core.service_results.ServiceResult), None for the main workload."""
        key = self.chooser.currentData() if not self.chooser_row.isHidden() else None
        if key is None or self._result is None:
            return None
        return next((s for s in self._result.evaluation.services if s.name == key), None)

    def choose(self, service: str | None) -> None:
        """Show service ``service``'s figures (None: the main workload's), as the chooser would."""
        index = self.chooser.findData(service)
        if index < 0:
            raise ValueError(f"no workload {service!r} to choose")
        self.chooser.setCurrentIndex(index)
        self._show_chosen()

    def _show_chosen(self) -> None:
        if self._result is None:
            return
        service = self.chosen_service()
        if service is not None:
            self._show_serving(service.inference, service.partition.gpus)
            self.serving_details.show_served(service.inference, service.bottleneck, service.search)
            self.show_message(f"Service {service.name} runs on {on_partition(service.partition)}")
        else:
            self._show_main(self._result)
            main = self._result.evaluation.partitions.main if self._result.evaluation.partitions else None
            if not self.chooser_row.isHidden() and main is not None and not self.message():
                self.show_message(f"The main workload runs on {on_partition(main)}")
        self.show_deltas(self._comparison)

    def show_deltas(self, comparison: Comparison | None) -> None:
        """The baseline marks of the workload shown: a service's rows against the baseline's
        service of that name."""
        self._comparison = comparison
        service = self.chosen_service()
        if service is None:
            self.__dict__.pop("metric_paths", None)  # the class's: the main workload's
        else:
            self.metric_paths = {label: f"services.{service.name}.{path.partition('.')[2]}"
                                 for label, path in type(self).metric_paths.items() if path.startswith("inference.")}
        super().show_deltas(comparison)

    def _show_main(self, result: Result) -> None:
        ev = result.evaluation
        if ev.inference is not None:
            self._show_serving(ev.inference, serving_gpus(ev))
            self.serving_details.show_evaluation(ev)
            return
        self.serving_details.show_evaluation(None)
        self.slo.hide()
        self.serving_chart.hide()
        self.serving_chart.set_curve((), None, None)
        perf = ev.performance
        runs = perf is not None and not ev.cannot_run
        text = bottleneck_html(getattr(ev, "bottleneck", None)) if runs else ""
        self.bottleneck.setText(text)
        self.bottleneck.setToolTip(bottleneck_tooltip(getattr(ev, "bottleneck", None)) if text else "")
        self.bottleneck.setVisible(bool(text))
        verdict = cannot_run_html(ev)
        self.verdict.setText(verdict)
        self.verdict.setVisible(bool(verdict))
        if perf is None:
            self.set_rows([("Workload", ev.workload.name)] if ev.workload is not None else [])
            self.breakdown.set_data([], seconds)
            self.scaling.set_data([], [])
            self.breakdown.hide()
            self.scaling.hide()
            if ev.workload is None:
                self.show_message("No workload: choose one in the Workload panel to see MFU, step time "
                                  "and training time.")
            elif not verdict:  # core gives no result and no reason: still no numbers
                self.show_message(f"{ev.workload.name} cannot run on this design (see the Warnings): "
                                  "no MFU, step time or training time.")
            else:
                self.show_message("")
            return
        par = perf.parallelism
        self.show_message("")
        rows: list = [
            ("Workload", ev.workload.name if ev.workload else "—"),
            ("Parallelism", f"TP {par.tp} · PP {par.pp} · DP {par.dp} · CP {par.cp} · EP {par.ep}"),
            ("Precision", recipe_text(perf, ev.workload)),
            metric_row("performance.job_gpus", perf.job_gpus, num(perf.job_gpus)),
        ]
        memory = metric_row("performance.memory_per_gpu_gb", perf.memory_per_gpu_gb)[1]
        if runs:
            rows += [
                metric_row("performance.mfu", perf.mfu),
                *([("   range (uncalibrated)", mfu_range_text(perf),
                    "no fitted run of this accelerator: conservative (no better than its "
                    "generation's least efficient calibrated part, the figure above) to "
                    "optimistic (its own estimate); see the UNCALIBRATED_ACCELERATOR warning")]
                  if perf.mfu_range is not None else []),
                metric_row("performance.tflops_per_gpu", perf.tflops_per_gpu),
                metric_row("performance.step_time_s", perf.step_time_s, seconds(perf.step_time_s)),
                metric_row("performance.tokens_per_s", perf.tokens_per_s, num(perf.tokens_per_s, 0)),
                metric_row("performance.training_days", perf.training_days),
                metric_row("performance.memory_per_gpu_gb", perf.memory_per_gpu_gb, memory),
            ]
            rows += moe_rows(perf)
        else:
            why = "\n".join(d.message for d in ev.cannot_run)
            mem = perf.memory
            rows += [(metric_label(path), DOES_NOT_FIT, why) for path in
                     ("performance.mfu", "performance.step_time_s", "performance.tokens_per_s",
                      "performance.training_days")]
            rows += [metric_row("performance.memory_per_gpu_gb", perf.memory_per_gpu_gb,
                                f"{memory} of {mem.hbm_gb:.1f} GB" + ("" if mem.fits else f"  ✗ {DOES_NOT_FIT}"))]
            rows += [(f"   {name}", num(getattr(mem, field), 1, "GB")) for name, field in MEMORY_PARTS
                     if getattr(mem, field)]
        self.set_rows(rows)
        self.breakdown.setVisible(runs)
        # a chart of sizes none of which can run would only repeat the verdict above it
        self.scaling.setVisible(any(m is not None for _, m in result.scaling))
        if runs:
            self.breakdown.set_data([(PART_NAMES.get(k, k), v) for k, v in perf.breakdown_s.items()], seconds)
        else:
            self.breakdown.set_data([], seconds)
        if result.scaling:
            # A size where the job cannot run (None) is a gap marked "does not fit", never 0 %.
            xs = [g for g, _ in result.scaling]
            ys = [m * 100 if m is not None and math.isfinite(m) else None for _, m in result.scaling]
            current = next(((g, m) for g, m in zip(xs, ys) if g == perf.job_gpus and m is not None), None)
            top = max((m for m in ys if m is not None), default=0.0)
            self.scaling.set_data(xs, ys, mark=current,
                                  mark_text=f"this job {current[1]:.1f} %" if current else "",
                                  y_range=(0.0, top * 1.3 if top > 0 else 100.0), ticks_at_data=True,
                                  missing_text=DOES_NOT_FIT)
        else:
            self.scaling.set_data([], [])

    def _show_serving(self, inference, gpus: int | None = None) -> None:
        """An inference workload: the SLO verdict, the serving rows and the throughput-latency
        chart; one that cannot run says why and draws no point."""
        self.bottleneck.hide()
        self.breakdown.hide()
        self.scaling.hide()
        self.show_message("")
        verdict = "" if inference.runs else cannot_serve_html(inference)
        self.verdict.setText(verdict)
        self.verdict.setVisible(bool(verdict))
        if inference.runs:
            text, meets = slo_html(inference)
            self.slo.setText(text)
            self.slo.setStyleSheet(SLO_MET_STYLE if meets else AMBER_NOTE_STYLE)
        self.slo.setVisible(inference.runs)
        self.set_rows(serving_rows(inference, gpus))
        curve = inference.curve if inference.runs else ()
        self.serving_chart.set_curve(curve, inference.batch, inference.workload.slo.tpot_ms,
                                     **(curve_marks(inference) if curve else {}))
        self.serving_chart.setVisible(bool(curve))
