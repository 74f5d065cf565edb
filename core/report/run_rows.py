"""Report rows of the run: the training workload's performance, what limits it, and a failure
what-if's figures; "does not fit" and why when the workload cannot run."""

from __future__ import annotations

from core.analysis.bottleneck import BottleneckResult
from core.analysis.memory import MemoryBreakdown
from core.evaluate import Evaluation
from core.metrics import metric, value_text
from core.report.rows import Row, metric_row, num, pct
from core.stacks import stack_status


def does_not_fit(ev: Evaluation) -> str:
    """"does not fit: <reason>; <reason>" for a workload that cannot run on the design, else ""."""
    return does_not_fit_text(ev.cannot_run)


def does_not_fit_text(reasons: tuple) -> str:
    return "does not fit: " + "; ".join(d.message for d in reasons) if reasons else ""


def run_value(ev: Evaluation, value: str) -> str:
    """A number of the training run, or why there is none."""
    if ev.inference is not None:
        return "n/a (inference workload: see Inference)"
    if ev.cannot_run:
        return "does not fit (see Performance)"
    return value if ev.workload is not None else "n/a (no workload)"


def failure_rows(ev: Evaluation) -> list[Row]:
    """What is out of service and what it costs; first, since every other section describes
    the degraded design."""
    f = ev.failure
    items = ", ".join(
        " + ".join(part for part in (f"{item.failed:,} failed" if item.failed else "",
                                     f"{item.drained:,} drained" if item.drained else "") if part)
        + f" of {item.units:,} {item.to_json()['target']}" for item in f.items)
    intact, left = f.intact, f.degraded

    def run(figures, value: str) -> str:
        return value if figures.runs else "does not run" if figures.runs is False else "no workload"

    relayout = ""
    if f.relayout is not None:
        par = f.relayout["parallelism"]
        relayout = (f"TP {par['tp']} PP {par['pp']} DP {par['dp']}"
                    + (f" CP {par['cp']}" if par["cp"] > 1 else "") + (f" EP {par['ep']}" if par["ep"] > 1 else "")
                    + f" ({f.relayout['method']})")
    rows = [
        Row("Out of service", items, "failure.out_of_service"),
        Row("GPUs failed / drained / stranded", f"{f.gpus_failed:,} / {f.gpus_drained:,} / {f.gpus_stranded:,}",
            "failure.gpus_failed"),
        Row("GPUs usable (intact)", f"{f.gpus_usable:,} ({f.gpus_intact:,})", "failure.gpus_usable"),
        Row("Bisection lost", f"{pct(f.lost_bisection_fraction)} ({num(f.bisection_tbit_s, 1)} of "
            f"{num(f.bisection_tbit_s_intact, 1, 'Tb/s')} left)", "failure.lost_bisection_fraction"),
        Row("Scale-out injection lost", pct(f.lost_scale_out_fraction), "failure.lost_scale_out_fraction"),
    ]
    if f.fits is not None:
        rows += [
            Row("Workload fits as written", "yes" if f.fits else "no", "failure.fits"),
            Row("Laid out again", relayout or "not needed", "failure.relayout"),
            Row("MFU (intact)", f"{run(left, pct(left.mfu))} ({run(intact, pct(intact.mfu))})", "failure.mfu"),
            Row("Time to train (intact)", f"{run(left, num(left.training_days, 1, 'days'))} "
                f"({run(intact, num(intact.training_days, 1, 'days'))})", "failure.training_days"),
            Row("ETTR (intact)", f"{pct(left.ettr)} ({pct(intact.ettr)})", "failure.ettr"),
        ]
    rows.append(Row("GPU-hours lost per day", num(f.gpu_hours_lost_per_day, 0), "failure.gpu_hours_lost_per_day"))
    return rows


def recipe_text(perf, workload) -> str:
    """What the run computes in, the dense peak its utilisation is measured against, and its
    optimizer: "mxfp8 GEMMs, dense peak 4,500 TF/s per GPU; Muon optimizer"."""
    text = f"{perf.precision} GEMMs, dense peak {perf.peak_tflops:,.0f} TF/s per GPU"
    if workload is not None and workload.optimizer == "muon":
        text += "; Muon optimizer"
    return text


def mfu_range_text(perf) -> str:
    """An uncalibrated accelerator's bracket: "32.5% conservative - 60.1% optimistic (training
    49.7 - 26.8 days)"."""
    low, high = perf.mfu_range
    text = f"{pct(low)} conservative – {pct(high)} optimistic"
    if perf.training_days_range is not None:
        slow, fast = perf.training_days_range
        text += f" (training {num(slow, 1)} – {num(fast, 1)} days)"
    return text


def performance_rows(ev: Evaluation) -> list[Row]:
    """The run's numbers; for a job that cannot run, "does not fit" and why, then what is still
    real (its layout, GPUs and memory per GPU with the breakdown that shows why)."""
    perf, workload = ev.performance, ev.workload
    rows = [Row("Workload", workload.name if workload else "", "performance.workload"),
            Row("Software stack", stack_status(ev.assumptions.performance).label, "performance.stack")]
    if ev.partitions is not None and ev.partitions.main is not None:
        rows.append(Row("Partition", f"{ev.partitions.main.name}: {ev.partitions.main.describe()}",
                        "performance.partition"))
    if workload is not None and workload.preset_fit is not None:
        rows.append(Row("Preset fitted to the design", workload.preset_fit.note, "performance.preset_fit"))
    if ev.cannot_run:
        rows.append(Row("Result", does_not_fit(ev), "performance.cannot_run"))
    if perf is None:
        return rows
    par = perf.parallelism
    rows += [
        Row("Parallelism", f"TP {par.tp}, PP {par.pp}, DP {par.dp}, CP {par.cp}, EP {par.ep}",
            "performance.parallelism"),
        Row("Precision", recipe_text(perf, workload), "performance.precision"),
        metric_row("performance.job_gpus", perf.job_gpus, f"{perf.job_gpus:,}"),
    ]
    if perf.runs:
        rows += [
            metric_row("performance.mfu", perf.mfu),
            *([Row("MFU range (uncalibrated accelerator)", mfu_range_text(perf),
                   "performance.mfu_range")] if perf.mfu_range is not None else []),
            metric_row("performance.tflops_per_gpu", perf.tflops_per_gpu, unit=False),
            metric_row("performance.step_time_s", perf.step_time_s),
            metric_row("performance.tokens_per_s", perf.tokens_per_s, unit=False),
            metric_row("performance.training_days", perf.training_days),
        ]
    memory = metric("performance.memory_per_gpu_gb")
    rows.append(metric_row(memory.path, perf.memory_per_gpu_gb, value_text(memory, perf.memory_per_gpu_gb)
                           + ("" if perf.fits_memory else " — does not fit")))
    if perf.breakdown_s is not None:
        breakdown = ", ".join(f"{k} {v:.3g} s" for k, v in perf.breakdown_s.items() if v)
        rows.append(Row("Step breakdown", breakdown, "performance.breakdown_s"))
    if perf.moe and perf.alltoall_s is not None:
        rows.append(Row("All-to-all per step", f"{perf.alltoall_s:.3g} s (dispatch + combine, hidden "
                        f"or not; {perf.breakdown_s.get('ep_comm', 0.0):.3g} s exposed); experts "
                        f"hold {perf.memory.expert_states_gb:.1f} GB of model states and "
                        f"{perf.memory.expert_activations_gb:.1f} GB of activations",
                        "performance.alltoall_s"))
    else:
        rows.append(Row("Memory breakdown", memory_breakdown_text(perf.memory), "performance.memory_gb"))
    return rows


def memory_breakdown_text(mem: MemoryBreakdown) -> str:
    """"weights 4.5 GB, ..., of 80 GB": what fills a GPU (why a layout does not fit)."""
    parts = (("weights", mem.weights_gb), ("gradients", mem.gradients_gb),
             ("optimizer", mem.optimizer_gb), ("activations", mem.activations_gb),
             ("logits", mem.logits_gb), ("workspace", mem.workspace_gb),
             ("framework", mem.framework_gb))
    return (", ".join(f"{name} {gb:.1f} GB" for name, gb in parts if gb)
            + f" ({mem.stage} pipeline stage) of {mem.hbm_gb:.1f} GB")


def bottleneck_rows(bn: BottleneckResult) -> list[Row]:
    """What limits MFU, the what-ifs re-evaluated by the model, and (auto) why layouts lose."""
    rows = [
        Row("Limited by", bn.primary, "bottleneck.primary"),
        Row("Summary", bn.summary, "bottleneck.summary"),
    ]
    for lim in bn.limiters[:6]:
        share = f"{lim.share * 100:.1f} % of the step, " if lim.key != "memory" else ""
        rows.append(Row(f"  {lim.name}", f"{share}{lim.text}", f"bottleneck.limiters.{lim.key}"))
    rows.append(Row("Most help", bn.best.text if bn.best is not None else
                    "no single change tried raises MFU by half a point", "bottleneck.best"))
    shown = [w for w in bn.what_ifs if w is not bn.best][:6]
    for w in shown:
        rows.append(Row("  what-if", w.text, f"bottleneck.what_ifs.{w.key}"))
    for i, cand in enumerate(bn.layout_search):
        p = cand.parallelism
        layout = (f"tp {p.tp}, pp {p.pp}, dp {p.dp}, cp {p.cp}, ep {p.ep}, mbs {p.micro_batch}, "
                  f"v {p.virtual_stages}, {p.recompute} recompute, ZeRO-{p.zero_stage}")
        label = "Auto layout (chosen)" if i == 0 else "  runner-up"
        text = layout if i == 0 else f"{layout}: {cand.reason}"
        rows.append(Row(label, text, f"bottleneck.layout_search.{i}"))
    return rows
