"""Storage by I/O class: the job's path, bottleneck, bandwidth and latency for each kind of I/O,
and the checkpoint's blocking, persist and restore times (core/analysis/storage.py)."""

from __future__ import annotations

from core.analysis.storage import IO_CLASS_TITLES
from core.dpu_engines import ENGINE_TITLES
from core.metrics import panel_paths
from designer.common.format import num
from designer.panels.base import MetricsPanel, metric_row
from designer.panels.charts import BarChart
from designer.project.evaluator import Result

# Short names of the I/O classes for row labels and chart bars.
SHORT_NAMES = {
    "data_loading": "Data loading",
    "checkpoint_write": "Checkpoint write",
    "checkpoint_restore": "Checkpoint restore",
    "inference_small_read": "Small random read",
}


class StoragePanel(MetricsPanel):
    title = "Storage"
    metric_paths = panel_paths("reliability.checkpoint_write_s", "reliability.checkpoint_restore_s", panel=title)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.by_class = BarChart("The job's storage bandwidth by I/O class", "GB/s")
        self.add_chart(self.by_class)

    def update_result(self, result: Result) -> None:
        ev = result.evaluation
        storage = ev.storage
        r = ev.reliability
        if storage is None or storage.fabric is None:
            path = next(iter(storage.classes.values())).path if storage is not None else ""
            self.show_message(f"{path or 'No storage'}: no I/O class has a path.")
            rows: list[tuple] = []
        else:
            self.show_message(
                f"{storage.fabric.capitalize()} storage fabric · the job's {storage.job_gpus:,} of "
                f"{storage.path_gpus:,} GPUs get {storage.shared_share:.0%} of every shared stage")
            first = next(iter(storage.classes.values()))
            rows = [("Path", first.path.rsplit(" (", 1)[0], first.path)]
            for io_class, entry in storage.classes.items():
                short = SHORT_NAMES[io_class]
                tip = f"{IO_CLASS_TITLES[io_class]}: {entry.path}"
                rows += [
                    (IO_CLASS_TITLES[io_class], None),
                    (f"{short}: job", f"{num(entry.job_gbyte_s, 1, 'GB/s')} · "
                                      f"{num(entry.per_gpu_gbyte_s, 3, 'GB/s')} per GPU", tip),
                    (f"{short}: latency", num(entry.latency_us, 1, "µs"), "first byte, one way"),
                    (f"{short}: bottleneck", entry.bottleneck or "—", tip),
                ]
        rows += _dpu_rows(ev)
        rows += [("Checkpoint", None)]
        if r.checkpoint_size_gb is None:
            rows.append(metric_row("reliability.checkpoint_size_gb", None, "no workload"))
        else:
            tiers = " → ".join([*r.checkpoint_tiers_used, "storage"])
            rows += [
                metric_row("reliability.checkpoint_size_gb", r.checkpoint_size_gb),
                ("Checkpoint tiers", tiers, "checkpoint_tiers in the storage assumptions"),
                metric_row("reliability.checkpoint_blocking_s", r.checkpoint_blocking_s),
                metric_row("reliability.checkpoint_write_s", r.checkpoint_write_s, r.checkpoint_missing or None,
                           panel=self.title),
                metric_row("reliability.checkpoint_recoverable_after_s", r.checkpoint_recoverable_after_s),
                metric_row("reliability.checkpoint_restore_s", r.checkpoint_restore_s,
                           "no storage" if r.checkpoint_restore_s is None else
                           f"{num(r.checkpoint_restore_s, 2, 's')} from {r.checkpoint_restore_from}", panel=self.title),
            ]
        self.set_rows(rows)
        if storage is not None and storage.fabric is not None:
            self.by_class.set_data([SHORT_NAMES[c] for c in storage.classes],
                                   [e.job_gbyte_s or 0.0 for e in storage.classes.values()])
        else:
            self.by_class.set_data([], [])


def _dpu_rows(ev) -> list[tuple]:
    """The DPUs of the design: what each model does on the storage path, what limits it and
    the host cores it frees (the evaluation's ``dpus`` section)."""
    if ev.dpus is None or not ev.dpus.models:
        return []
    rows: list[tuple] = [("DPUs", None)]
    for model, m in ev.dpus.models.items():
        used = ", ".join(ENGINE_TITLES[e].lower() for e in m.engines_used) or "none listed"
        where = "fronts storage" if m.on_storage_path else "not on the storage path"
        rows.append((f"{model} × {m.count:,}", f"{where} · engines: {used}",
                     "engines the design uses (catalog engines listed in the Inspector)"))
        if m.binding_engine:
            rows.append((f"{model}: binds", f"{ENGINE_TITLES[m.binding_engine]} engine · "
                         + ", ".join(SHORT_NAMES[c].lower() for c in m.binding_io_classes)))
        if m.cores_freed_total is not None:
            rows.append((f"{model}: host cores freed", f"{m.cores_freed_total:,.0f} "
                         f"({m.cores_freed_per_dpu:g} per DPU)", "offload estimates, catalog notes"))
    if ev.dpus.encrypt_storage:
        rows.append(("Storage encryption", "IPsec on the DPUs", "dpu_encrypt_storage assumption"))
    return rows
